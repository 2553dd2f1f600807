"""
.. _nondeterministic_index_add:

Sums that can change between runs
=================================

``index_add_`` and ``scatter_add_`` add many values into a few slots. On a
GPU the additions into one slot are atomic and happen in whatever order the
threads arrive, so a float32 result can change in its last bits from one run
to the next; the backward passes of ``index_select`` and ``gather`` are the
same kind of sum. On a CPU the order is fixed. This example runs four such
sums several times, checks on every runner that they agree within float32
rounding, reports whether they also agreed bit for bit, and shows how
``torch.use_deterministic_algorithms(True)`` makes them reproducible on a GPU
too.

.. questions::

   - Why do my GPU results change slightly between identical runs?
   - Is ``scatter_add_`` or ``index_add_`` deterministic on CUDA?
   - How do I make gradients bitwise reproducible on a GPU?
"""

# %%
# Four sums into colliding slots
# ------------------------------
# 100 000 random values go into 100 slots, about 1000 into each. Two of the
# sums are forward operations; the other two are gradients, because the
# backward pass of ``index_select`` and of ``gather`` (the nodes
# ``IndexSelectBackward0`` and ``GatherBackward0``) sends each output's
# gradient back to the slot it was read from, with ``index_add_`` and
# ``scatter_add_``. All four compute the same sums, which a float64
# computation on the CPU gives almost exactly.
import torch

from autograd_notes import check, runner_device

# sphinx_gallery_thumbnail_number = 1
torch.manual_seed(0)
device = runner_device()
print(f"runner device: {device.type}")

n_values, n_slots = 100_000, 100
values = torch.randn(n_values, device=device)
slots = torch.randint(0, n_slots, (n_values,), device=device)
exact = torch.zeros(n_slots, dtype=torch.float64).index_add_(0, slots.cpu(), values.cpu().double())


def gradient_through(select):
    """The gradient of ``select(table)`` with respect to ``table``, for the output gradient ``values``."""
    table = torch.zeros(n_slots, device=device, requires_grad=True)
    select(table).backward(values)
    return table.grad


sums = {
    "index_add_": lambda: torch.zeros(n_slots, device=device).index_add_(0, slots, values),
    "scatter_add_": lambda: torch.zeros(n_slots, device=device).scatter_add_(0, slots, values),
    "IndexSelectBackward0": lambda: gradient_through(lambda table: table.index_select(0, slots)),
    "GatherBackward0": lambda: gradient_through(lambda table: table.gather(0, slots)),
}


def run_each(times=10):
    """Run every sum ``times`` times.

    Return the largest error, whether all runs agreed bit for bit, and for
    each sum the error of every run in slot 0, to draw.
    """
    worst, identical, slot_0 = 0.0, True, {}
    for name, compute in sums.items():
        results = [compute() for _ in range(times)]
        error = max((result.cpu().double() - exact).abs().max().item() for result in results)
        same = all(torch.equal(result, results[0]) for result in results)
        print(f"{name:<20} within 1e-3 of the float64 sums in all {times} runs: {error <= 1e-3}")
        worst, identical = max(worst, error), identical and same
        slot_0[name] = [result[0].item() - exact[0].item() for result in results]
    return worst, identical, slot_0


# Only facts that hold on every run are printed: this page's recorded output
# must not change between two runs of the same runner.
worst, identical, slot_0 = run_each()
check(worst <= 1e-3, True, label="largest error against the float64 sums is at most 1e-3")
if device.type != "cuda":
    # not checked (nor printed) on a GPU: it depends on the order of the atomic additions
    check(identical, True, label="bitwise identical in every run")

# %%
# The error of each run in slot 0, drawn:
import matplotlib.pyplot as plt

from autograd_notes import draw_spread

draw_spread(slot_0, reference=0.0, xlabel="result[0] - exact[0]", title="use_deterministic_algorithms(False)")
plt.show()

# %%
# One row per sum, one dot per run: how far slot 0 of each of the ten
# results lies from the float64 sum, the dashed line at 0. Equal results
# lie at the same x, where their dots pile up into one short stroke, so a
# row with a single stroke is ten runs that agreed bit for bit. On a CPU
# runner every row is a single stroke. On a GPU a row is expected, at times, to show
# several, a few millionths apart, one for each rounding the order of the atomic additions
# produces, and to change between builds of this page; the CUDA record (PyTorch 2.11.0, an
# H200) held the check above, not this picture.
#
# Every run is within float32 rounding of the exact sums, on every runner (the CUDA record
# showed it too): with about 1000 values of size 1 per slot, the sums are tens, and float32
# keeps about seven significant digits. Whether the runs also agreed bit for
# bit depends on the runner. On a CPU they must, and the check says so. On a
# GPU they may not, and nothing here prints or checks it there, because it
# can change from one run to the next. Code that compares such
# results with ``==``, or a test that stores them, fails on a GPU now and
# then.
#
# Deterministic algorithms
# ------------------------
# ``torch.use_deterministic_algorithms(True)`` asks every operation for an
# algorithm that gives the same output for the same input. Its documentation
# lists ``index_add``, ``scatter_add_``, the backward of ``index_select``
# and ``gather`` on CUDA tensors among the operations that then switch to a
# deterministic implementation (which sorts the indices and adds in a fixed
# order) instead of raising an error.
torch.use_deterministic_algorithms(True)
worst, identical, slot_0 = run_each()
check(worst <= 1e-3, True, label="largest error against the float64 sums is at most 1e-3, deterministic")
check(identical, True, label="bitwise identical in every run, deterministic")
torch.use_deterministic_algorithms(False)

draw_spread(slot_0, reference=0.0, xlabel="result[0] - exact[0]", title="use_deterministic_algorithms(True)")
plt.show()

# %%
# The same picture in deterministic mode: every row is one stroke, ten runs with the same
# bits. On a GPU the bitwise check held too (the CUDA record, PyTorch 2.11.0 on an H200),
# but the stroke need not be where the CPU's is, nor on the exact sum's line.
#
# Now the runs agree bit for bit, and the check asserts it on both kinds of runner (on a
# CPU, whose sums never varied, that the mode changes nothing). The price is speed on a GPU,
# and operations without a deterministic implementation raise a ``RuntimeError`` instead of
# running (the documentation lists them). On a GPU, a matrix multiplication, which
# runs in cuBLAS, also raises in this mode unless the environment variable
# ``CUBLAS_WORKSPACE_CONFIG`` was set to ``:4096:8`` or ``:16:8`` before the
# program started. This example runs no matrix multiplication while the
# mode is on, so it needs no such variable.
#
# The deterministic result is not the exact sum either: it is one fixed
# rounding of it. It can differ from the CPU's, and from another GPU's,
# which is why results from different runners are compared with
# tolerances (:ref:`float_differences`).
#
# Sources
# -------
# No source document: this example rebuilds no claim of the documents listed
# in :ref:`sources`. Like the example :ref:`pin_memory_empty`, it documents
# differences between runners. What it states about PyTorch comes from the
# documentation of ``torch.use_deterministic_algorithms`` (the list of
# operations that become deterministic), of ``index_add_`` and
# ``scatter_add_`` ("may behave nondeterministically when given tensors on a
# CUDA device"), and from PyTorch's source for ``CUBLAS_WORKSPACE_CONFIG``
# (the check that raises in deterministic mode).
