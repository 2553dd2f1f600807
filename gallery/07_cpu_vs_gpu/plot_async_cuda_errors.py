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

device = runner_device()
print(f"runner device: {device.type}")

values = torch.arange(3.0, device=device)
with expect_error(IndexError, match=r"^index 10 is out of bounds for dimension 0 with size 3$"):
    values[10]

on_cpu = torch.arange(3.0)  # on the CPU, whatever the runner
with expect_error(IndexError, match=r"^index 10 is out of bounds for dimension 0 with size 3$"):
    on_cpu[torch.tensor([10])]

# %%
# Both errors are raised on the line that made them, on every runner. The
# second one is not run on the runner's device: with CUDA tensors the same
# line starts a kernel that fails on the GPU, and that must not happen in
# this process (the next section says why).
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
# On a GPU runner, ``values[index]`` only *starts* the indexing kernel and
# returns; usually the child prints "values[index] returned" before
# ``picked.tolist()``, which has to wait for the GPU, raises "CUDA error:
# device-side assert triggered". The error is caught, but the next,
# unrelated operation fails with the same error and the child dies: after a
# device-side assert, the CUDA context of the process cannot be used again
# (NVIDIA's documentation of ``cudaErrorAssert``: "the process must be
# terminated and relaunched"). The check on a GPU runner asserts only that
# the child failed with a CUDA error; which line reported it depends on
# timing, so a GPU runner prints nothing more.
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
# On a CPU runner the variable changes nothing. On a GPU runner, PyTorch's
# CUDA notes say that the error is then raised where the operation was
# requested, so the child would never get to print "values[index]
# returned". Only the failure itself is checked, and shown.
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
# in :ref:`sources`. It documents runner differences that
# :ref:`pin_memory_empty` touches with ``pin_memory``. What it states about
# GPUs comes from PyTorch's CUDA notes (asynchronous execution and
# ``CUDA_LAUNCH_BLOCKING``), the text of PyTorch's own CUDA error message
# ("CUDA kernel errors might be asynchronously reported at some other API
# call"), and NVIDIA's CUDA runtime documentation of ``cudaErrorAssert``.
