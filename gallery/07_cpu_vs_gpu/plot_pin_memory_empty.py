"""
.. _pin_memory_empty:

``torch.empty`` and ``pin_memory``
==================================

``torch.empty`` allocates memory and does not fill it; ``pin_memory=True``
asks for page-locked host memory, which needs an accelerator backend. This
example shows what ``torch.empty(..., pin_memory=True)`` does on a machine
without CUDA and on one with it, why its values must never be trusted on any
machine, and what the "values" printed in a well-known answer really were.

.. questions::

   - Why does ``pin_memory=True`` fail with ``Found no NVIDIA driver``?
   - Does ``pin_memory=True`` make ``torch.empty`` values predictable?
   - Is a pinned tensor stored on the CPU or the GPU?
"""

# %%
# ``pin_memory=True`` depends on the machine
# ------------------------------------------
# Pinned (page-locked) memory is *host* memory that a GPU can copy from
# directly, which makes ``.to("cuda", non_blocking=True)`` faster. It is
# allocated by the accelerator's runtime, so PyTorch can only provide it when
# such a backend is available. The code below branches on
# ``torch.cuda.is_available()``: the first line of its output says which
# branch the runner that built this page took.
import torch

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

cuda = torch.cuda.is_available()
print(f"torch.cuda.is_available(): {cuda}")
if cuda:
    pinned = torch.empty(3, requires_grad=True, pin_memory=True)
    outcome = (
        f"{pinned.device.type} tensor, is_pinned={pinned.is_pinned()}, requires_grad={pinned.requires_grad}"
    )
    documented = "cpu tensor, is_pinned=True, requires_grad=True"
    check(outcome, documented, label="torch.empty(3, requires_grad=True, pin_memory=True)")
else:
    if torch.version.cuda is None:  # a CPU-only build of PyTorch
        refusal = (
            r"^pin_memory=True requires a CUDA or other accelerator backend; "
            r"no pinned memory allocator is available on this system\.$"
        )
    else:  # a CUDA build (pip's default on Linux) on a machine without a GPU driver
        refusal = (
            r"^Found no NVIDIA driver on your system\. Please check that you have an NVIDIA GPU "
            r"and installed a driver from http://www\.nvidia\.com/Download/index\.aspx$"
        )
    with expect_error(RuntimeError, match=refusal):  # the refusal, checked: its type and message
        torch.empty(3, requires_grad=True, pin_memory=True)

# %%
# On a machine without CUDA the call raises before allocating anything. Its
# message depends on the build of PyTorch: a CPU-only build says no pinned
# memory allocator is available; a CUDA build (what ``pip install torch``
# gives on Linux) says it found no NVIDIA driver; before 2.7, a CUDA build
# asked to "provide pin_memory allocator" instead. Both builds are checked. With
# CUDA it returns a pinned tensor on the CPU, even when the example's tensors are on the GPU, as
# the CUDA record (PyTorch 2.11.0, an H200) showed: pinning is a property of host memory, and this
# is why this tensor, unlike the others of this page, is not created on ``device``. Its
# values are not printed: they are whatever the memory held before.
#
# ``torch.empty`` never initialises, pinned or not
# ------------------------------------------------
# ``torch.empty`` only reserves memory; its contents are unspecified on
# every device, pinned or not. Only the shape and dtype are defined.
# ``torch.zeros``, ``torch.ones`` and ``torch.full`` write known values.
# One setting makes ``empty`` write too: under
# ``torch.use_deterministic_algorithms(True)``, while
# ``torch.utils.deterministic.fill_uninitialized_memory`` is on (its
# default), it fills the memory with NaN (with the largest value for an
# integer dtype), so that a read of it shows, at the cost of that write.
scratch = torch.empty(3, device=device)
print(f"scratch: shape {list(scratch.shape)}, dtype {scratch.dtype} (its values: whatever was there)")
torch.use_deterministic_algorithms(True)
try:
    filled = torch.empty(3, device=device)
    filled_int = torch.empty(2, dtype=torch.int32, device=device)
finally:
    torch.use_deterministic_algorithms(False)
check(
    [filled.isnan().all().item(), filled_int.tolist()],
    [True, [torch.iinfo(torch.int32).max] * 2],
    label="torch.empty under use_deterministic_algorithms(True): [all NaN, int32 values]",
)
start = torch.zeros(3, device=device, requires_grad=True)
half = torch.full((3,), 0.5, device=device)
print(f"start: {start.tolist()}, half: {half.tolist()}")

# %%
# A leaf made with ``torch.empty`` gives gradients that depend on leftover
# memory: through ``log``, a zero becomes ``-inf`` and a gradient of ``inf``
# (as shown below). Use ``empty`` only for buffers that are fully
# overwritten before they are read, as ``scratch`` is here: ``copy_``
# writes all three of its elements, and only then are they read, and
# drawn.
import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

scratch.copy_(half)
check(scratch._version, 1, label="scratch._version")
draw_tensors({"scratch": scratch, "start": start, "half": half})
plt.show()

# %%
# Each tensor is a row under the strip of cells of its own memory, with the
# values it holds, its shape ``[3]`` and its version: ``scratch`` is at
# ``v1``, one in-place write since ``torch.empty`` (the ``copy_``), and
# ``start`` is a leaf that ``requires_grad``. On a GPU each row is expected to end with
# ``cuda:0`` too (the CUDA record keeps printed output, not pictures). What ``scratch``
# held before the ``copy_`` is never drawn: those values were never defined.
#
# What the document's printed values were
# ---------------------------------------
# The answer (its vector-Jacobian product is rebuilt in
# :ref:`vector_jacobian_product`) builds one-element leaves ``a``, ``b``, ``c`` with
# ``torch.empty(1, requires_grad=True, pin_memory=True)``, computes
# ``y = 3a + 2b² + log(c)`` and calls ``y.backward`` with a *three*-element
# gradient ``[0.1, 1.0, 0.0001]``. Today that call is refused whatever the
# leaves hold, because the gradient does not have the shape of ``y``; zeros
# stand in for the unknown values here:
a = torch.zeros(1, device=device, requires_grad=True)
b = torch.zeros(1, device=device, requires_grad=True)
c = torch.zeros(1, device=device, requires_grad=True)
y = 3 * a + 2 * b**2 + torch.log(c)
three = torch.tensor([0.1, 1.0, 0.0001], device=device)
with expect_error(
    RuntimeError,
    match=(
        r"^Mismatch in shape: grad_output\[0\] has a shape of torch\.Size\(\[3\]\) "
        r"and output\[0\] has a shape of torch\.Size\(\[1\]\)\.$"
    ),
):
    y.backward(three)

# %%
# The document printed ``a.grad = 3.3003``, ``b.grad = 0.`` and
# ``c.grad = inf``. The first one is not garbage at all: ∂y/∂a is 3 whatever
# ``a`` holds, and 3.3003 is exactly 3 times the *sum* of the gradient's
# three elements. The graph of ``y`` shows what each of the three
# gradients is computed from (the last code cell computes all three).

from autograd_notes import autograd_graph, draw_graph

graph = autograd_graph(y, names={"a": a, "b": b, "c": c, "y": y})
saved = {node.title: list(node.lines) for node in graph.nodes}
check(saved["PowBackward0"], ["saved self (b) [1] v0", "saved exponent=2"], label="what PowBackward0 saved")
check(saved["LogBackward0"], ["saved self (c) [1] v0"], label="what LogBackward0 saved")
draw_graph(graph, title="y = 3 * a + 2 * b**2 + torch.log(c)")
plt.show()

# %%
# Gradients flow down the arrows, from ``y`` at the top to the leaves ``a``,
# ``b`` and ``c`` at the bottom (``AccumulateGrad``, in blue, each of shape
# ``[1]``). Under each node is what it saved for backward: ``PowBackward0``
# saved ``b`` (shape ``[1]``, at version ``v0``) and its ``exponent=2``,
# ``LogBackward0`` saved ``c``, because the derivatives :math:`4b` and
# :math:`1/c` need their values. Each ``MulBackward0`` saved only its constant
# factor (``other []``, the 3 and the 2), and the additions only ``alpha=1``:
# nothing on the path from ``y`` to ``a`` reads ``a``, so its gradient cannot
# depend on what its memory held.
#
# 3.3003 is what a PyTorch which summed the three-element gradient onto the
# one-element output, instead of refusing it, would print. Doing that sum by
# hand with ``b = 0`` and ``c = 0`` reproduces all three printed values:
# ∂y/∂b = 4b is 0 and ∂y/∂c = 1/c is ``inf``. The "random" output is
# explained by memory that happened to hold zeros and a shape mismatch that
# went unreported.
y.backward(three.sum().reshape(1))
check(a.grad, [3.3003], label="a.grad")
check(b.grad, [0.0], label="b.grad")
check(c.grad, [float("inf")], label="c.grad")

# %%
# Sources
# -------
# - :ref:`source_003` creates leaves with
#   ``torch.empty(1, requires_grad=True, pin_memory=True)``. **Holds only on
#   a machine where CUDA is available**, where the call returned a pinned CPU tensor in the CUDA
#   record (PyTorch 2.11.0 on an H200). On a machine without it the call raises: "pin_memory=True
#   requires a CUDA or other accelerator backend" with a CPU-only build, "Found no NVIDIA driver"
#   with a CUDA build. The output above shows which case the runner that built this page was.
# - The same document prints ``3.3003``, ``0.`` and ``inf`` as the gradients
#   of those leaves. **Does not hold** today: the three-element gradient for
#   a one-element output is refused with "Mismatch in shape". Nor were the
#   values arbitrary: 3.3003 does not depend on the memory at all, and all
#   three are what the summed gradient gives for ``b = 0`` and ``c = 0``
#   (reproduced above), which suggests that the PyTorch of the time summed
#   the gradient instead of refusing it.
# - It warns that ``torch.empty`` gives different values from run to run.
#   **Holds**, and on every device: the values are unspecified, so this page
#   never prints or checks them (only the NaN that deterministic mode
#   writes instead). Its suggestion that ``pin_memory=True``
#   avoids this **does not hold**: pinning chooses where host memory is
#   allocated, not what it contains, and PyTorch documents ``torch.empty`` as
#   returning uninitialised data whatever its options (only deterministic
#   mode fills it, as checked above). This point is stated
#   from the PyTorch documentation, not checked by the code above, since
#   garbage cannot be tested for.
