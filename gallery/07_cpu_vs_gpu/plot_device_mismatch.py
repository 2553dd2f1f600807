"""
.. _device_mismatch:

Tensors on two devices
======================

An operation that mixes a CUDA tensor with a CPU tensor is refused, in the
forward pass and in ``backward(gradient)``; PyTorch moves data between
devices by itself only in a few places. On a CPU runner every tensor is on
the CPU, so such a bug stays hidden until the code meets a GPU. This example
shows what a GPU runner meets (recorded with PyTorch 2.11.0 on an H200): the
refusal, its exceptions (a 0-dim CPU tensor in ``*`` or ``+``, CPU index
tensors, ``copy_`` and assignment; a 0-dim gradient, shown on ``meta``), how
to check the rule without a GPU, and ``.to(device)`` on a leaf: the leaf
itself on a CPU runner, on a GPU a copy the gradient goes past.

.. questions::

   - What causes ``Expected all tensors to be on the same device``?
   - Can I multiply a CUDA tensor by a 0-dim CPU tensor?
   - Why is my weight's ``.grad`` None only when running on GPU?
   - How do I catch device mismatch bugs without a GPU?
"""

# %%
# Mixing devices in one operation
# -------------------------------
# ``weights`` is created on the runner's device, ``inputs`` without a
# ``device=`` argument, so on the CPU. The first line of the output names
# the runner that printed this page. A GPU runner must meet the error; a CPU
# runner computes the product, and prints where its result is.
import torch

from autograd_notes import check, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
gpu = device.type != "cpu"  # CUDA; MPS and XPU are expected to refuse alike, some in their own words
print(f"runner device: {device.type}")

weights = torch.ones(3, device=device)
inputs = torch.ones(3)  # no device=: on the CPU
if gpu:
    with expect_error(RuntimeError, match=r"^Expected all tensors to be on the same device, but "):
        weights * inputs
else:
    print(f"weights * inputs: computed on {(weights * inputs).device.type}")

# %%
# On a GPU the product is refused: the CUDA record (PyTorch 2.11.0, an H200) shows "Expected all
# tensors to be on the same device, but found at least two devices, cuda:0 and cpu!". For most
# other operations the message also names the argument and the kernel (from PyTorch's source). On
# a CPU runner both tensors are CPU tensors and nothing is wrong, which is exactly why code tested
# only on a CPU can carry this bug.
#
# Checking the rule without a GPU, partly
# ---------------------------------------
# The ``meta`` device has tensors with a shape and a dtype but no data.
# PyTorch computes their results with shape functions only. For ``*``, ``+``
# and many element-wise operations those functions check devices with the same
# rule (in-place ones, ``//`` and a 0-dim ``clamp`` bound slip through), so a CPU runner can see a refusal:
shapes_only = torch.ones(3, device="meta")
print(shapes_only)
with expect_error(RuntimeError, match=r"^Tensor on device cpu is not on the expected device meta!$"):
    shapes_only * inputs

# %%
# The message is different (it comes from ``check_same_device`` in
# ``torch._prims_common``), the rule is the same. ``add``, ``cat`` and
# ``where`` refuse in the same way. Many other operations do not check at
# all: their meta functions compute the result's shape and return a meta
# tensor, whatever device the other argument is on.
from torch.nn import functional as F  # noqa: N812 - the usual name

square = torch.ones(3, 3, device="meta")
on_cpu = torch.ones(3, 3)
with expect_error(RuntimeError, match=r"^Tensor on device cpu is not on the expected device meta!$"):
    torch.cat([square, on_cpu])
unchecked = {
    "square @ on_cpu": square @ on_cpu,
    "F.linear(square, on_cpu)": F.linear(square, on_cpu),
    "F.conv1d(meta, cpu)": F.conv1d(torch.ones(1, 3, 5, device="meta"), torch.ones(2, 3, 2)),
    "index_select(square, 0, cpu)": torch.index_select(square, 0, torch.tensor([0, 1])),
}
check(
    {name: result.device.type for name, result in unchecked.items()},
    {name: "meta" for name in unchecked},
    label="meta results of mixed-device operations",
)

# %%
# On a GPU each of these four is expected to refuse a CPU argument (from PyTorch's source;
# the CUDA record runs these four on meta tensors; ``mm`` and ``index_select`` are refused
# below). The meta device shows the rule for many element-wise operations, but a script that
# runs on meta tensors without error has not been shown to run on one device: only a run with
# a GPU tensor, or a check of every tensor's ``device`` before the computation, shows that. A
# GPU runner checks the cells that mix devices; a CPU runner prints where their results are.
#
# The exception: a 0-dim CPU tensor
# ---------------------------------
# In ``*``, ``+`` and most element-wise operations, a 0-dim CPU tensor may be
# combined with a tensor on any device: it holds one number, which is read on
# the host and handed to the kernel like a Python number. A CPU tensor with
# one element but one dimension gets no such exception.
scale = torch.tensor(2.0)  # 0-dim, on the CPU
scaled = weights * scale
if gpu:  # (on a CPU runner both are CPU tensors: nothing to see)
    check(scaled.device.type, device.type, label="(weights * scale).device.type")
check(scaled, [2.0, 2.0, 2.0], label="weights * scale")
check((shapes_only * scale).device.type, "meta", label="(shapes_only * scale).device.type")

one_element = torch.tensor([2.0])  # 1-dim, on the CPU
with expect_error(RuntimeError, match=r"^Tensor on device cpu is not on the expected device meta!$"):
    shapes_only * one_element
if gpu:
    with expect_error(RuntimeError, match=r"^Expected all tensors to be on the same device, but "):
        weights * one_element
else:
    print(f"weights * one_element: computed on {(weights * one_element).device.type}")

# %%
# This is why ``loss * torch.tensor(0.5)`` works on a GPU while
# ``loss * torch.tensor([0.5])`` is refused, as the CUDA record shows for ``scale`` and
# ``one_element``: a 0-dim CPU tensor goes in as a number. Here are the tensors of this
# section, each with its device:
import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

draw_tensors(
    {
        "weights": weights,
        "scaled": scaled,
        "inputs": inputs,
        "scale": scale,
        "one_element": one_element,
        "shapes_only": shapes_only,
    }
)
plt.show()

# %%
# Each tensor is a row under the strip of cells of the memory it uses, with
# its values; the row ends with its shape (``[3]``, ``[]`` for a 0-dim
# tensor), its version ``v0`` and its device when that is not the CPU.
# ``inputs``, ``scale`` and ``one_element`` never show a device: they are
# CPU tensors on every runner. ``shapes_only`` shows ``meta`` and a strip
# without values, since a meta tensor has no data. ``weights`` and ``scaled`` are expected to
# show ``cuda:0`` on a GPU (the CUDA record checks that ``scaled`` is on ``cuda``, but keeps no
# pictures); on a CPU runner, where only ``shapes_only`` names a device, they show nothing: the
# picture of a CPU runner cannot tell ``weights`` from ``inputs``, nor can the code. On a GPU the
# shapes are expected to show the rule: the ``[]`` of ``scale`` may meet ``cuda:0``, the ``[1]``
# of ``one_element`` may not.
#
# Where PyTorch moves data itself
# -------------------------------
# The 0-dim exception belongs to ``TensorIterator``, the machinery behind
# element-wise operations, and a few other operations move a CPU tensor
# too. Each line below runs on every runner; a GPU runner checks where each
# result is, a CPU runner (everything on the CPU) prints it.
index = torch.tensor([0, 2])  # on the CPU


REFUSALS = (  # CUDA's words; then a Mac's GPU's (from PyTorch's source), which checks in its own kernels
    "Expected all tensors to be on the same device, but ",
    "Tensor for argument #2 'mat2' is on CPU, but expected it to be on GPU",
    "Placeholder storage has not been allocated on MPS device!",
    "Passed CPU tensor to MPS op",
    "torch.cat(): all input tensors must be on the same device",
)


def device_or_refusal(operation):
    """Run ``operation``: the device type of its result, or "refused" for a device error."""
    try:
        return operation().device.type
    except RuntimeError as error:
        if str(error).startswith(REFUSALS):
            return "refused"
        raise


def assigned(key, value):
    """Assign ``value`` to ``target[key]`` in a new zero tensor on the runner's device; return it."""
    target = torch.zeros(3, device=device)
    target[key] = value
    return target


operations = {  # each operation, and what a GPU runner must print for it
    "weights * scale": (lambda: weights * scale, device.type),
    "weights[index]": (lambda: weights[index], device.type),
    "target.copy_(inputs)": (lambda: torch.zeros(3, device=device).copy_(inputs), device.type),
    "target[1:] = inputs[1:]": (lambda: assigned(slice(1, None), inputs[1:]), device.type),
    "target[index] = scale": (lambda: assigned(index, scale), device.type),
    "target[index] = inputs[:2]": (lambda: assigned(index, inputs[:2]), "refused"),
    "weights.index_select(0, torch.tensor(0))": (lambda: weights.index_select(0, torch.tensor(0)), "refused"),
    "torch.cat([weights, inputs])": (lambda: torch.cat([weights, inputs]), "refused"),
    "torch.mm(weights[None], inputs[:, None])": (lambda: torch.mm(weights[None], inputs[:, None]), "refused"),
}
outcomes = {name: device_or_refusal(operation) for name, (operation, _) in operations.items()}
if gpu:
    on_gpu = {name: outcome for name, (_, outcome) in operations.items()}
    check(outcomes, on_gpu, label="where each result is, or refused")
else:
    print("where each result is:", outcomes)

# %%
# In the CUDA record (PyTorch 2.11.0, an H200) the first five give a tensor on
# ``cuda``, and the last four are refused with a device error (the record keeps
# the outcome, not the message). On a Mac's GPU ``mm``, ``index_select`` and
# ``cat`` are expected to refuse in words of their own (from PyTorch's source;
# no MPS run is recorded). Advanced indexing moves CPU index tensors to the
# device of the indexed tensor. ``copy_`` copies across devices by design, and
# an assignment through a slice (``target[1:] = ...``) is a ``copy_`` (a
# ``fill_`` for a 0-dim value), which takes a CPU value of any shape. An
# assignment through an index tensor (``index_put_``) moves a 0-dim CPU value
# (through a boolean mask, any one-element one) and refuses any other. Each of
# these copies from host to device; except for ``copy_``, the code does not say so.
#
# The 0-dim exception ends with element-wise operations (``clamp`` with a 0-dim
# CPU bound is expected to be refused too). PyTorch's list of operators (``native_functions.yaml``)
# marks most built on ``TensorIterator`` with ``device_check: NoCheck   # TensorIterator``.
# An operator without ``device_check: NoCheck`` gets a device check in its
# generated CUDA wrapper, which compares all its tensor arguments and lets
# no 0-dim tensor through. ``TensorIterator`` itself lets one 0-dim CPU
# input through per binary operation (such as ``*`` and ``+``); a second is
# expected to be refused (this and the ``clamp`` case are not run here) with
# "Trying to pass too many CPU scalars to non-CPU kernel!". So
# ``index_select`` refuses a 0-dim CPU index, and ``cat`` and ``mm`` refuse
# a CPU tensor of any shape; they do not take a 0-dim tensor at all, on any
# device:
with expect_error(RuntimeError, match=r"^zero-dimensional tensor \(at position 1\) cannot be concatenated$"):
    torch.cat([inputs, scale])
with expect_error(RuntimeError, match=r"^(mm: )?mat2 must be a matrix(, got 0-D tensor)?$"):
    torch.mm(torch.ones(3, 3), scale)

# %%
# The same rule in ``backward(gradient)``
# ---------------------------------------
# The ``gradient`` passed to ``backward`` must be on the output's device.
# The autograd engine checks it before running any backward function, with a
# message of its own:
x = torch.ones(3, device=device, requires_grad=True)
y = x * 2
gradient = torch.ones(3)  # on the CPU
if gpu:
    with expect_error(
        RuntimeError, match=rf"^invalid gradient at index 0 - expected device {device.type}\S* but got cpu$"
    ):
        y.backward(gradient)
else:
    y.backward(gradient)
    print(f"x.grad computed on {x.grad.device.type}")

x_meta = torch.ones(3, device="meta", requires_grad=True)
with expect_error(RuntimeError, match=r"^invalid gradient at index 0 - expected device meta but got cpu$"):
    (x_meta * 2).backward(gradient)

# %%
# The meta device shows the engine's check on every runner. A 0-dim gradient
# is the exception here too: the engine moves it to the output's device.
x_meta = torch.ones(3, device="meta", requires_grad=True)
(x_meta * 2).sum().backward(torch.tensor(1.0))  # a 0-dim gradient, on the CPU
check(x_meta.grad.device.type, "meta", label="x_meta.grad.device.type, after a 0-dim CPU gradient")

# %%
# ``.to(device)`` on a leaf
# -------------------------
# A common way to make parameters is
# ``w = torch.randn(3, requires_grad=True).to(device)``. Here the tensor
# before ``.to`` keeps a name, ``original``, to show where its gradient goes:
original = torch.randn(3, requires_grad=True)
w = original.to(device)
(w * 2).sum().backward()
if gpu:
    with expect_warning(
        UserWarning, match=r"The \.grad attribute of a Tensor that is not a leaf Tensor is being accessed"
    ):
        w_grad = w.grad
else:
    w_grad = w.grad
grad_fn = None if w.grad_fn is None else w.grad_fn.name()
outcome = (
    f"w is original: {w is original}, is_leaf: {w.is_leaf}, grad_fn: {grad_fn}, grad: {w_grad is not None}"
)
documented = (
    "w is original: False, is_leaf: False, grad_fn: ToCopyBackward0, grad: False"
    if gpu
    else "w is original: True, is_leaf: True, grad_fn: None, grad: True"
)
check(outcome, documented, label="w = original.to(device)")
check(original.grad, [2.0, 2.0, 2.0], label="original.grad")

# %%
# ``Tensor.to`` returns the tensor itself when it already has the requested
# device and dtype, and a copy otherwise. On a CPU runner ``w`` *is* the
# leaf, and its ``.grad`` is filled. On a GPU, as the CUDA record shows, ``w`` is a copy made by
# an operation recorded in the graph (``ToCopyBackward0``): not a leaf,
# its ``.grad`` ``None`` (with a warning), the gradient landing on
# the CPU leaf, which the one-line form leaves without a name. An optimizer
# refuses ``w`` at once (:ref:`leaf_lost_at_creation`). Any ``.to`` that copies does
# this, on every runner; a change of dtype shows it here:
w64 = torch.randn(3, requires_grad=True).to(torch.float64)
(w64 * 2).sum().backward()
check(w64.is_leaf, False, label="w64.is_leaf")
check(w64.grad_fn, "ToCopyBackward0", label="w64.grad_fn")
with expect_warning(
    UserWarning, match=r"The \.grad attribute of a Tensor that is not a leaf Tensor is being accessed"
):
    check(w64.grad, None, label="w64.grad")

# %%
# Both graphs, drawn before a backward pass: the one of ``w``, which
# depends on the runner, and the one of ``w64``, the same on every runner.
from autograd_notes import autograd_graph, draw_graph

to_device = autograd_graph((w * 2).sum(), names={"original": original, "w": w})
leaves = [node.tensor for node in to_device.nodes if node.is_leaf]
check(leaves, ["original"] if gpu else ["original, w"], label="the leaf below (w * 2).sum()")
draw_graph(to_device, title="w = original.to(device)")
draw_graph((w64 * 2).sum(), names={"w64": w64}, title="w64 = torch.randn(3, requires_grad=True).to(float64)")
plt.show()

# %%
# Gradients flow down the arrows, from the sum at the top to the leaf at
# the bottom (``AccumulateGrad``, in blue, with its shape ``[3]``), the only
# node that writes a ``.grad``; ``other [] v0`` is the factor 2 that
# ``MulBackward0`` saved. The first picture depends on the runner that
# built this page. On a CPU runner the leaf is ``w`` itself, named
# ``original, w``: one tensor with two names. On a GPU the leaf is
# ``original`` (as the CUDA record checks), below a ``ToCopyBackward0 (w)`` node, as
# in the second picture, where the copy to ``float64`` puts
# ``ToCopyBackward0 (w64)`` above a leaf with no name. The ``.grad`` is
# written on that leaf, below the tensor the code kept.

# %%
# Leaves on the runner's device
# -----------------------------
# Create the tensor on the device, or move it first and ask for gradients
# afterwards. ``Module.to`` moves a module's parameters in place, so they
# stay leaves:
w = torch.randn(3, device=device, requires_grad=True)
check(w.is_leaf, True, label="torch.randn(3, device=device, requires_grad=True).is_leaf")
w = torch.randn(3).to(device).requires_grad_()
check(w.is_leaf, True, label="torch.randn(3).to(device).requires_grad_().is_leaf")
model = torch.nn.Linear(3, 1).to(device)
check(model.weight.is_leaf, True, label="model.weight.is_leaf")

# %%
# Sources
# -------
# No source document: this example rebuilds no claim of the documents listed
# in :ref:`sources`. Like the example
# :ref:`pin_memory_empty`, it documents differences between runners. What it states about
# PyTorch comes from its documentation and source, checked above: the
# ``Tensor.to`` documentation (the tensor itself or a copy), the device check
# of ``TensorIterator`` that lets one 0-dim CPU tensor through
# (``TensorIteratorBase::compute_types`` in ``aten/src/ATen/TensorIterator.cpp``),
# the ``device_check`` entries of ``aten/src/ATen/native/native_functions.yaml``
# and the device check that ``torchgen`` generates from them, the move of CPU
# index tensors and of a 0-dim value (``make_info`` and ``expandTensors`` in
# ``TensorAdvancedIndexingUtils.h`` and ``IndexingUtils.h``,
# ``_index_put_impl_``; PyTorch's ``test_cpu_indices`` and
# ``test_invalid_device`` in ``test/test_indexing.py`` run CPU indices on a
# GPU), and the autograd engine's check of the gradients it is given, which
# moves a 0-dim gradient and refuses any other. The outcomes on a GPU were taken from those
# sources; every check above holds in the CUDA record (PyTorch 2.11.0, an H200). MPS and
# XPU are not recorded, nor is a 0-dim gradient on a GPU.
