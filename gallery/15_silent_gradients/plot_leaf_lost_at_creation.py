"""
.. _leaf_lost_at_creation:

Losing leaf status at creation
==============================

``w = torch.randn(3, requires_grad=True) * 0.01`` reads like the creation of
a small parameter, but ``w`` is the *result* of a multiplication, not a leaf
tensor. This example shows where its gradient goes instead ("The .grad
attribute of a Tensor that is not a leaf Tensor is being accessed"), why an
optimizer refuses it with "can't optimize a non-leaf Tensor", when
``.to(device)``, ``.cuda()`` and ``.double()`` do the same to a leaf and when
they do nothing, and three ways to create the parameter as a leaf.

.. questions::

   - Why is ``.grad`` None after ``torch.randn(3, requires_grad=True) * 0.01``?
   - What does ``can't optimize a non-leaf Tensor`` mean?
   - How do I create a scaled random weight that stays a leaf?
   - Do ``.cuda()`` and ``.double()`` turn my parameter into a non-leaf?
"""

# %%
# One multiplication too many
# ---------------------------
# ``requires_grad=True`` belongs to the tensor that ``torch.randn`` returns.
# Multiplying it by 0.01 is an operation that autograd records, so the
# tensor bound to ``w`` has a ``grad_fn``. The leaf still exists: the graph
# holds it, and it is reachable only through ``w.grad_fn``.
import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import (
    autograd_graph,
    check,
    draw_graph,
    expect_error,
    expect_warning,
    runner_device,
    show_state,
)

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

torch.manual_seed(0)
w = torch.randn(3, device=device, requires_grad=True) * 0.01
hidden = w.grad_fn.next_functions[0][0].variable
show_state(w=w, hidden=hidden)
check(w.is_leaf, False, label="w.is_leaf")
check(w.grad_fn, "MulBackward0", label="w.grad_fn")
check(hidden.is_leaf, True, label="hidden.is_leaf")

graph = autograd_graph(w, names={"w": w, "hidden": hidden})
check(
    [node.drawn_title for node in graph.nodes],
    ["MulBackward0 (w)", "AccumulateGrad (hidden)"],
    label="the nodes of the graph",
)
draw_graph(graph, title="w = torch.randn(3, requires_grad=True) * 0.01")
plt.show()

# %%
# Two nodes. At the top, ``MulBackward0 (w)``, the node that made ``w``; it
# saved ``other [] v0``, the factor 0.01 as a tensor of shape ``[]``. Below
# it, in blue, ``AccumulateGrad (hidden)``: the tensor that ``torch.randn``
# returned, shape ``[3]``, ``requires_grad=True``, the only leaf. Arrows
# point the way gradients flow: from ``w`` down to ``hidden``.
#
# Where the gradient goes
# -----------------------
# A backward pass through ``w`` accumulates into the leaf at the bottom of
# the graph, not into ``w``. Reading ``w.grad`` gives ``None`` and the
# warning of :ref:`non_leaf_grad`:
inputs = torch.tensor([1.0, 2.0, 3.0], device=device)
loss = (w * inputs).sum()
loss.backward()
with expect_warning(
    UserWarning,
    match=(
        r"^The \.grad attribute of a Tensor that is not a leaf Tensor is being accessed\. "
        r"Its \.grad attribute won't be populated during autograd\.backward\(\)\. "
        r"If you indeed want the \.grad field to be populated for a non-leaf Tensor, "
        r"use \.retain_grad\(\) on the non-leaf Tensor\. If you access the non-leaf Tensor by "
        r"mistake, make sure you access the leaf Tensor instead\."
    ),
):
    w_grad = w.grad
check(w_grad, None, label="w.grad")
check(hidden.grad, [0.01, 0.02, 0.03], label="hidden.grad")

# %%
# The gradient was computed, 0.01 times ``inputs``, but it sits in
# ``hidden``, a tensor that the code never named. Nothing has failed so
# far; what happens next depends on what reads ``w.grad``.
#
# The optimizer refuses it, a module ignores it
# ---------------------------------------------
# Handing ``w`` to an optimizer is where PyTorch checks:
with expect_error(ValueError, match=r"^can't optimize a non-leaf Tensor$"):
    torch.optim.SGD([w], lr=0.1)
retained = torch.ones(3, device=device, requires_grad=True) * 0.01
retained.retain_grad()
check(
    len(torch.optim.SGD([retained], lr=0.1).param_groups[0]["params"]),
    1,
    label="accepted after retain_grad()",
)


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.randn(3, device=device, requires_grad=True) * 0.01


model = Scaled()
check([name for name, _ in model.named_parameters()], [], label="names of model.parameters()")

# %%
# An optimizer reads the ``.grad`` of each of its tensors and updates the
# tensor in place; a non-leaf gets no ``.grad``, and its values come from
# its graph, so PyTorch refuses it as soon as the optimizer is built. The
# test is on that ``.grad``, ``param.is_leaf or param.retains_grad``: a
# non-leaf that called ``retain_grad()`` gets one, and is accepted.
# Inside a module the same line is silent: a tensor that is not an
# ``nn.Parameter`` is stored as a plain attribute, ``model.parameters()``
# never yields it, and an optimizer built from them never updates it.
#
# Calling ``requires_grad_()`` on ``w`` does not repair it: ``w`` already
# requires a gradient, so the call changes nothing, and ``w`` stays a
# non-leaf.
w.requires_grad_()
check(w.is_leaf, False, label="w.is_leaf after w.requires_grad_()")

# %%
# Moving or converting a leaf
# ---------------------------
# ``.to()``, ``.cuda()``, ``.double()`` and ``.float()`` are operations too.
# When they change the device or the dtype, the result is a copy with a
# ``ToCopyBackward0`` node, and the leaf stays behind. When there is nothing
# to change, they return the tensor itself. ``start`` is created on the CPU
# on purpose, as in code that moves it afterwards:
start = torch.randn(3, requires_grad=True)
moved = start.to(device)
copied = device.type != "cpu"  # what each runner documents: a copy on a GPU, the tensor itself on a CPU
check(moved is start, not copied, label="moved is start")
check(moved.is_leaf, not copied, label="moved.is_leaf")
check(moved.grad_fn, "ToCopyBackward0" if copied else None, label="moved.grad_fn")
check(start.float() is start, True, label="start.float() is start")
check(start.double().grad_fn, "ToCopyBackward0", label="start.double().grad_fn")

# %%
# On this page's runner the output above says which case it met. On a CPU
# runner, ``start.to(device)`` is ``start.to("cpu")``, a no-op: ``moved``
# is ``start``, still a leaf. On a GPU it copies to the GPU, as the CUDA record (PyTorch 2.11.0,
# an H200) shows: ``moved`` is a non-leaf made by ``ToCopyBackward0``, and ``start.cuda()`` is
# expected to be the same (not run); the gradient would go to ``start``, on the CPU.
# ``.float()`` on a ``float32`` tensor is a no-op everywhere, and
# ``.double()`` copies everywhere. Code written this way keeps its leaves
# on a CPU and loses them on a GPU; create each tensor on its device, with
# its dtype (``torch.randn(3, device=device, dtype=...)``).
#
# ``nn.Module.to()``, ``.cuda()``, ``.half()`` and ``.double()`` are
# different: they replace the data of each parameter and keep the
# ``nn.Parameter`` objects, which stay leaves (``.half()`` here: a Mac's GPU
# has no ``float64``).
layer = nn.Linear(3, 1).to(device)
weight = layer.weight
layer.half()
check(layer.weight is weight, True, label="layer.weight is weight")
check(layer.weight.is_leaf, True, label="layer.weight.is_leaf")
check(layer.weight.dtype is torch.float16, True, label="layer.weight.dtype is torch.float16")

# %%
# Three ways to create it as a leaf
# ---------------------------------
# The scaling must either not be recorded, or happen before
# ``requires_grad`` is set. The three tensors below are made from the same
# random numbers.
torch.manual_seed(0)
w1 = torch.randn(3, device=device, requires_grad=True)
with torch.no_grad():
    w1.mul_(0.01)

torch.manual_seed(0)
w2 = torch.randn(3, device=device).mul_(0.01).requires_grad_()

torch.manual_seed(0)
w3 = nn.Parameter(torch.randn(3, device=device) * 0.01)

show_state(w1=w1, w2=w2, w3=w3)
check([w1.is_leaf, w2.is_leaf, w3.is_leaf], [True, True, True], label="[w1.is_leaf, w2.is_leaf, w3.is_leaf]")
check(torch.equal(w1, w2) and torch.equal(w2, w3), True, label="same values")
check(torch.equal(w1, w), True, label="torch.equal(w1, w)")

# %%
# ``w1`` is scaled in place under ``torch.no_grad()``, like the
# initialisation of :ref:`view_of_leaf`: the write is not recorded, so it
# stays a leaf, and only its version counter (1) shows the write. ``w2`` is
# scaled in place too (version 1), before ``requires_grad_()`` is called,
# when there is nothing to record. ``w3`` wraps a scaled copy (version 0)
# in ``nn.Parameter``, which makes a new leaf that requires a gradient; a
# module registers it as a parameter when it is assigned as an attribute.
# All three hold the values of ``w``.
#
# All three are accepted by an optimizer, and each gets its gradient:
for leaf in (w1, w2, w3):
    optimizer = torch.optim.SGD([leaf], lr=0.1)
    (leaf * inputs).sum().backward()
    check(leaf.grad, [1.0, 2.0, 3.0], label="leaf.grad")
    optimizer.step()

# %%
# ``nn.Parameter`` even repairs the original mistake: it keeps the values
# of a non-leaf and drops its history.
repaired = nn.Parameter(torch.randn(3, device=device, requires_grad=True) * 0.01)
check(repaired.is_leaf, True, label="repaired.is_leaf")
check(repaired.grad_fn, None, label="repaired.grad_fn")

# %%
# The rule behind all of this (see :ref:`mental_model`): a tensor is a leaf
# when no recorded operation produced it, whatever ``requires_grad`` says.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the messages and the leaves are checked on the runner that built this
# page.
