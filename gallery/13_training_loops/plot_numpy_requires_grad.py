"""
.. _numpy_requires_grad:

``numpy()`` on a tensor with history
====================================

``.numpy()`` refuses a tensor that requires grad, and a tensor that is not
on the CPU, and which refusal you see first depends on the runner. This
example shows both errors and the order of the checks behind them, the
idiom that works on every device, ``.detach().cpu().numpy()``, and the trap
that comes with it on a CPU: the array shares the tensor's memory, so
writing into it changes the tensor without moving its version counter,
and backward silently uses the new values.

.. questions::

   - How do I fix ``Can't call numpy() on Tensor that requires grad``?
   - How do I convert a CUDA tensor with gradients to NumPy?
   - Does ``.detach().cpu().numpy()`` share memory with the tensor?
   - What does ``numpy(force=True)`` do?
"""

# %%
# The first refusal depends on the device
# ---------------------------------------
# ``w`` stands for a parameter, on the runner's device. The first line of
# the output says which kind of runner built this page.
import matplotlib.pyplot as plt
import numpy as np
import torch

from autograd_notes import (
    autograd_graph,
    check,
    draw_graph,
    draw_tensors,
    expect_error,
    runner_device,
    show_state,
)

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
print(f"runner device: {device.type}")
on_cpu = device.type == "cpu"

w = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
if on_cpu:
    with expect_error(
        RuntimeError,
        match=r"^Can't call numpy\(\) on Tensor that requires grad\. "
        r"Use tensor\.detach\(\)\.numpy\(\) instead\.$",
    ):
        w.numpy()
else:
    with expect_error(
        TypeError,
        match=r"^can't convert cuda(:\d+)? device type tensor to numpy\. "
        r"Use Tensor\.cpu\(\) to copy the tensor to host memory first\.$",
    ):
        w.numpy()

# %%
# ``.numpy()`` checks the device before ``requires_grad`` (and both before
# the conjugate and negative bits). On a CPU runner the device check passes and
# the tensor is refused because it requires grad: an array has no history,
# and PyTorch will not hand out one that silently drops it. On a GPU the device check fails
# first, with a ``TypeError`` (the CUDA record, PyTorch 2.11.0 on an H200, printed "can't convert cuda:0
# device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."), so
# the ``requires_grad`` message is never reached. Following the advice of that first message
# and adding ``.cpu()`` leads to the second one, on every runner:
with expect_error(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad\."):
    w.cpu().numpy()
with expect_error(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad\."):
    np.asarray(w.cpu())

check(w.cpu() is w, on_cpu, label="w.cpu() is w")
check(w.cpu().grad_fn, None if on_cpu else "ToCopyBackward0", label="w.cpu().grad_fn")

# %%
# On a CPU, ``w.cpu()`` is ``w`` itself; on a GPU, it is a copy that is part of the graph (the CUDA
# record printed its ``grad_fn``, ``ToCopyBackward0``, and ``False`` for ``is w``), so it requires
# grad too. ``np.asarray``, which plotting and data libraries call on
# whatever they are given, goes through the same checks.
#
# The portable idiom
# ------------------
# ``detach()`` removes the history, ``cpu()`` moves the values to host
# memory if they are not there already, and only then ``numpy()`` converts.
# ``numpy(force=True)`` is documented as the same chain (plus resolving the
# conjugate and negative bits) in one call.
array = w.detach().cpu().numpy()
print(f"w.detach().cpu().numpy(): {array!r}")
forced = w.numpy(force=True)
print(f"w.numpy(force=True): {forced!r}")

# %%
# The ``requires_grad`` check only applies while grad mode is on, so inside
# ``torch.no_grad()`` (an evaluation loop, say) a CPU tensor that requires
# grad converts without ``detach()``:
w_on_host = w.cpu()
with torch.no_grad():
    values = w_on_host.numpy()
print(f"w_on_host.numpy() under no_grad: {values!r}")

# %%
# The array can write into the tensor
# -----------------------------------
# ``z`` is computed from ``w``, and ``PowBackward0`` saves ``w`` for its
# gradient. Then the converted array is edited, as code that normalises or
# clips "its copy" of the values would, and backward runs.
w = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
z = (w**2).sum()
array = w.detach().cpu().numpy()
array[0] = 10.0
show_state(w=w, z=z)
check(w, [10.0, 2.0, 3.0] if on_cpu else [1.0, 2.0, 3.0], label="w after array[0] = 10.0")
check(w._version, 0, label="w._version")
from_array = torch.from_numpy(array)
check(from_array.data_ptr() == w.data_ptr(), on_cpu, label="array is w's memory")
graph = autograd_graph(z, names={"w": w, "z": z})
check(graph.modified, [], label="modified in place")
draw_tensors({"w": w, "torch.from_numpy(array)": from_array}, title="array[0] = 10.0")
draw_graph(graph, title="z = (w**2).sum()")
plt.show()
z.backward()
print(f"z, computed before the edit: {z.item()}")
check(w.grad, [20.0, 4.0, 6.0] if on_cpu else [2.0, 4.0, 6.0], label="w.grad")

# %%
# The first picture shows memory, with the array drawn as the tensor
# ``torch.from_numpy(array)``, which uses the array's memory. On a CPU
# runner one block, ``10. 2. 3.``, is covered by both ``w`` (shape
# ``[3]``, ``v0``, ``requires_grad``) and that tensor (``v0``); on a GPU each has a
# block of its own, with ``w``'s still holding ``1. 2. 3.`` (the CUDA record, PyTorch
# 2.11.0 on an H200, checked both facts, not the picture). The second picture
# is the graph of ``z`` before backward: ``SumBackward0``, then ``PowBackward0``, which
# saved ``w`` at ``v0``, in black, then the leaf ``w``.
#
# On a CPU runner, ``detach()`` shares ``w``'s storage, ``cpu()`` returns
# that same tensor, and ``numpy()`` wraps the same memory: the array *is*
# ``w``'s memory, and ``array[0] = 10.0`` changed ``w``. NumPy knows nothing
# of version counters, so ``_version`` stayed 0, the version check of
# ``PowBackward0`` passed, and the gradient :math:`2w` was computed from 10
# while ``z`` was computed from 1 (unlike the ``detach()`` edit of
# :ref:`detach_inplace_saved`, which backward reports). On a GPU ``cpu()`` copies, so the
# array is separate and ``w`` keeps its values (in the CUDA record ``w`` stayed ``[1., 2., 3.]``
# and ``w.grad`` was ``[2., 4., 6.]``): the same line is harmless on one runner and silently
# corrupts the gradient on the other. ``numpy(force=True)`` shares memory on a CPU in the
# same way. To edit the values, take a copy that is yours: ``.copy()`` the
# array, or ``.clone()`` the tensor before converting it.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`).
# The order of the checks in ``numpy()`` (layout, device, then
# ``requires_grad`` while grad mode is on, then the conjugate and negative
# bits) is that of PyTorch's ``tensor_to_numpy`` in
# ``torch/csrc/utils/tensor_numpy.cpp``; the error each kind of runner
# raises is checked above.
