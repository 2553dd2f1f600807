"""
.. _async_cuda_errors:

Errors that surface late
========================

On a CPU, an index out of range raises an ``IndexError`` on the line that
used it. On a GPU, the same index is found out by the kernel, which runs
after Python has moved on: the error, "device-side assert triggered", is
reported by a later call that waits for the GPU, and it leaves CUDA unusable
for the rest of the process. This example shows the CPU error in place, runs
the GPU case in a child process (so that the broken process is not this
one), and shows what ``CUDA_LAUNCH_BLOCKING=1`` changes.

.. questions::

   - Why does ``device-side assert triggered`` point to the wrong line?
   - What does ``CUDA_LAUNCH_BLOCKING=1`` do?
   - Can I keep using CUDA after a device-side assert?
   - How do I find the bad index behind a CUDA assert?
"""

# %%
# Two kinds of index checks
# -------------------------
# An index given as a Python integer is checked on the host, before any
# kernel runs, whatever the device of the tensor. An index given as a tensor
# is checked where the indexing runs: on a CPU that is also right away.
import os
import re
import subprocess
import sys

import torch

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
print(f"runner device: {device.type}")

values = torch.arange(3.0, device=device)
with expect_error(IndexError, match=r"^index 10 is out of bounds for dimension 0 with size 3$"):
    values[10]

on_cpu = torch.arange(3.0)  # on the CPU, whatever the runner
with expect_error(IndexError, match=r"^index 10 is out of bounds for dimension 0 with size 3$"):
    on_cpu[torch.tensor([10])]

# %%
# Both errors are raised on the line that made them, on every runner (the CUDA record, PyTorch
# 2.11.0 on an H200, shows the same two ``IndexError``). The second one is not run on the runner's
# device: with CUDA tensors the same line starts a kernel that fails on the GPU, and that must not
# happen in this process (the next section says why).
#
# The same index on a GPU, in a child process
# -------------------------------------------
# The child below takes the device as its argument, indexes with an
# out-of-range index tensor on that device, catches whatever is raised, and
# then tries one more, unrelated, operation on the same device. This
# process prints the child's output and the last exception line of its
# error stream, without the paths that a traceback holds.
CHILD = """
import sys
import torch

device = sys.argv[1]
values = torch.arange(3.0, device=device)
index = torch.tensor([10], device=device)
try:
    picked = values[index]
    print("values[index] returned")
    print("picked:", picked.tolist())
except Exception as error:
    print("caught", type(error).__name__)
print("next operation:", (torch.ones(2, device=device) * 2).sum().item())
"""


def printed_by(child):
    """The lines the child's own ``print`` calls wrote (a GPU may add its own, with paths)."""
    own = ("values[index] returned", "picked:", "caught ", "next operation:")
    return [line for line in child.stdout.splitlines() if line.startswith(own)]


def run_child(**env):
    """Run ``CHILD`` on the runner's device; print what it did; return the finished process."""
    child = subprocess.run(
        [sys.executable, "-c", CHILD, device.type],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        check=False,
    )
    if device.type == "cuda":
        # which line reports an asynchronous error depends on timing: a GPU
        # runner's page (and record) shows only the checked outcome below
        return child
    for line in printed_by(child):
        print(f"child: {line}")
    exceptions = [line for line in child.stderr.splitlines() if re.match(r"[\w.]+(Error|Exception): ", line)]
    last = re.sub(r"\S*/\S*", "…", exceptions[-1]) if exceptions else "none"  # no paths
    print(f"child's exit status: {'0' if child.returncode == 0 else 'not 0'}, last exception: {last}")
    return child


def outcome_of(child):
    """What a child did, in the terms documented for each runner."""
    if child.returncode == 0:
        return "no error left: " + " | ".join(printed_by(child))
    if "device-side assert triggered" in child.stderr or "CUDA error" in child.stderr:
        return "failed with a CUDA error"
    return "failed otherwise"


first = run_child()
documented = (
    "failed with a CUDA error"
    if device.type == "cuda"
    else "no error left: caught IndexError | next operation: 4.0"
)
check(outcome_of(first), documented, label="the child, on the runner's device")

# %%
# On a CPU runner the child catches an ``IndexError`` and goes on: the next
# operation gives 4.0 and the child exits normally.
#
# On a GPU, ``values[index]`` only *starts* the indexing kernel and returns, so
# the child is expected, in most runs, to print "values[index] returned" before
# ``picked.tolist()``, which waits for the GPU, raises "CUDA error: device-side
# assert triggered". The error is caught, but the next, unrelated operation is
# expected to fail with the same error and the child to die: after a device-side
# assert, the CUDA context of the process cannot be used again (NVIDIA's documentation
# of ``cudaErrorAssert``: "the process must be terminated and relaunched"). On a GPU the
# check asserts only a CUDA error, and prints nothing more, since timing decides which
# line reports it. The CUDA record (PyTorch 2.11.0, an H200) shows "failed with a CUDA
# error": the child's exit status was not 0 and its error stream held a CUDA error.
#
# ``CUDA_LAUNCH_BLOCKING=1``
# --------------------------
# With this environment variable set before CUDA starts, every kernel launch
# waits for the kernel to finish, so the error is reported by the call that
# launched the failing kernel, and the traceback points at the right line.
# It makes everything slower and is meant for debugging. The same child:
blocking = run_child(CUDA_LAUNCH_BLOCKING="1")
check(outcome_of(blocking), documented, label="the child, with CUDA_LAUNCH_BLOCKING=1")

# %%
# On a CPU runner the variable changes nothing. On a GPU, PyTorch's CUDA notes say that the
# error is then raised where the operation was requested, so the child would never print
# "values[index] returned". Only the failure is checked: the CUDA record (PyTorch 2.11.0, an
# H200) shows "failed with a CUDA error" here too; which line raised it is not recorded.
#
# Where each error appears, drawn
# -------------------------------
# No helper of this site draws time, so this picture is drawn with
# matplotlib directly. It is a diagram of the child's three statements in
# the three cases, as the CPU run above and PyTorch's CUDA notes describe
# them, not a measurement: the same picture on every runner.
import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from autograd_notes._figure_style import CHAR, MUTED, PALETTE, PLAIN, RED, TEXT, blank_figure

SKIPPED = None
CASES = {  # what each statement of the child did, in each case
    'device="cpu"': ["⚠ IndexError", SKIPPED, "✓ 4.0"],
    'device="cuda"': ["✓", "⚠ CUDA error", "⚠ CUDA error"],
    'device="cuda", CUDA_LAUNCH_BLOCKING=1': ["⚠ CUDA error", SKIPPED, "⚠ CUDA error"],
}
STATEMENTS = ["values[index]", "picked.tolist()", "(torch.ones(2) * 2).sum()"]
SIZE, LANE = 8.5, 0.42  # font size (points), height of a lane (inches)

# a box per statement, wide enough for its longest text, left to right
widths = [
    max(len(f"{statement}  {outcomes[i] or ''}") for outcomes in CASES.values()) * SIZE * CHAR + 0.25
    for i, statement in enumerate(STATEMENTS)
]
lefts = [1.0 + sum(widths[:i]) + 0.3 * i for i in range(len(STATEMENTS))]
# the indexing kernel of each GPU case: where it runs, and where its failed assert is reported
first_end = lefts[0] + widths[0]
KERNELS = {
    'device="cuda"': (first_end - 0.6, lefts[1] + 1.2, lefts[1] + 0.9),
    'device="cuda", CUDA_LAUNCH_BLOCKING=1': (lefts[0] + 0.3, first_end - 0.2, first_end - 0.4),
}


def box(ax, left, top, width, text, colour, dashed=False):
    ax.add_patch(
        FancyBboxPatch(
            (left, top - LANE + 0.08), width, LANE - 0.16, boxstyle="round,pad=0,rounding_size=0.06",
            facecolor="white", edgecolor=colour, linewidth=1.4, linestyle="--" if dashed else "-",
        )
    )  # fmt: skip
    ink = MUTED if dashed else TEXT
    ax.text(left + 0.1, top - LANE / 2, text, va="center", fontsize=SIZE, color=ink, **PLAIN)


def arrow(ax, start, end, colour):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=10, color=colour, lw=1.2))


width = lefts[-1] + widths[-1] + 0.3
height = 0.45 + sum(0.3 + LANE * (2 if case in KERNELS else 1) + 0.15 for case in CASES)
figure, ax = blank_figure(width, height)
top = height - 0.15
for case, outcomes in CASES.items():
    ax.text(0.15, top, case, va="top", fontsize=10, fontweight="bold", color=TEXT, **PLAIN)
    top -= 0.3
    ax.text(0.85, top - LANE / 2, "cpu", ha="right", va="center", fontsize=9, color=MUTED, **PLAIN)
    for statement, left, box_width, outcome in zip(STATEMENTS, lefts, widths, outcomes, strict=True):
        if outcome is SKIPPED:
            box(ax, left, top, box_width, statement, MUTED, dashed=True)
        else:
            colour = RED if outcome.startswith("⚠") else PALETTE[2]
            box(ax, left, top, box_width, f"{statement}  {outcome}", colour)
    if case in KERNELS:
        start, end, reported_at = KERNELS[case]
        ax.text(0.85, top - 1.5 * LANE, "cuda", ha="right", va="center", fontsize=9, color=MUTED, **PLAIN)
        box(ax, start, top - LANE, end - start, "aten::index  ⚠", RED)
        arrow(ax, (lefts[0] + 0.25, top - LANE + 0.08), (start + 0.1, top - LANE - 0.08), PALETTE[0])
        arrow(ax, (end - 0.1, top - LANE - 0.08), (reported_at, top - LANE + 0.08), RED)
        top -= LANE
    top -= LANE + 0.15
arrow(ax, (1.0, 0.2), (width - 0.3, 0.2), MUTED)
ax.text(width - 0.25, 0.2, "t", va="center", fontsize=9, color=MUTED, **PLAIN)
plt.show()

# %%
# Each case is a block under its title, the child's device (and
# ``CUDA_LAUNCH_BLOCKING=1``), with the child's three statements in the order
# it runs them, time going right (``t``). On the lane marked ``cpu`` are the
# Python statements; on the lane marked ``cuda``, the indexing kernel
# (``aten::index``) that ``values[index]`` launches on a GPU. A green box with
# ``✓`` returned (with the value the child printed), a red box with ``⚠``
# raised the exception it names ("CUDA error" stands for a ``RuntimeError``
# whose message starts "CUDA error:", since PyTorch 2.8 a
# ``torch.AcceleratorError``, a subclass), a grey dashed box never ran, because the
# exception before it jumped to the ``except``. The blue arrow is the launch
# of the kernel, the red one its failed assert reaching the statement that
# reports it. On the CPU the ``IndexError`` comes from ``values[index]``
# itself, and the next operation gives 4.0. On a GPU, ``values[index]``
# usually returns, and the assert reaches Python at ``picked.tolist()``, which
# waits for the kernel; with ``CUDA_LAUNCH_BLOCKING=1`` ``values[index]``
# waits for its own kernel and reports it. In both GPU cases the last
# statement fails too: the process can no longer use CUDA.
#
# In a notebook or a long training run, the lesson is the same: after
# "device-side assert triggered", restart the process, and look for the
# cause in the first operation that was *launched* with bad indices
# (with ``CUDA_LAUNCH_BLOCKING=1``, or by rerunning the failing step on the
# CPU, where the same mistake raises a plain ``IndexError`` at once).
#
# Sources
# -------
# No source document: this example rebuilds no claim of the documents listed
# in :ref:`sources`. Like the example :ref:`pin_memory_empty`, it documents
# differences between runners. What it states about GPUs comes from
# PyTorch's CUDA notes (asynchronous execution and
# ``CUDA_LAUNCH_BLOCKING``), the text of PyTorch's own CUDA error message
# ("CUDA kernel errors might be asynchronously reported at some other API
# call"), and NVIDIA's CUDA runtime documentation of ``cudaErrorAssert``.
