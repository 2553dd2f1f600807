"""
.. _non_leaf_grad:

``.grad`` of a non-leaf tensor
==============================

After ``backward()`` only leaves hold a ``.grad``. This example reads the
``.grad`` of an intermediate tensor, gets ``None`` and a ``UserWarning``, and
then asks autograd to keep that gradient with ``retain_grad()``.

.. questions::

   - Why is ``.grad`` None on an intermediate tensor after ``backward()``?
   - How do I get the gradient of an intermediate activation?
   - What does ``retain_grad()`` do?
   - What does the warning ``.grad attribute of a Tensor that is not a leaf Tensor`` mean?
   - Why does a layer's output have no ``.grad`` after ``backward()``?
"""

# %%
# Intermediate results do not keep their gradient
# -----------------------------------------------
# ``scaled`` is computed from the leaf ``w``; ``total`` is computed from
# ``scaled``. The backward pass from ``total`` goes *through* ``scaled``, so
# d(total)/d(scaled) is computed, but it is not stored there.
import torch

from autograd_notes import check, expect_warning, runner_device, show_state

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

import matplotlib.pyplot as plt

from autograd_notes import autograd_graph, draw_graph

w = torch.tensor([-1.5], device=device, requires_grad=True)
scaled = w * 2
total = scaled + 3
graph = autograd_graph(total, names={"w": w, "scaled": scaled, "total": total})
check([node.is_leaf for node in graph.nodes], [False, False, True], label="leaves in the graph")
draw_graph(graph, title="scaled = w * 2; total = scaled + 3")
plt.show()

# %%
# The graph below ``total``, drawn before backward: gradients flow down the
# arrows, from the node that made ``total`` (``AddBackward0``, which saved
# only ``alpha=1``) through the node that made ``scaled``
# (``MulBackward0``, which saved the factor 2 as ``other [] v0``) to the
# blue box, ``AccumulateGrad (w)``. Only such a leaf node writes into a
# ``.grad``; ``scaled`` is represented by a node that passes the gradient
# on.
total.backward()
show_state(w=w, scaled=scaled, total=total)
check(w.grad, [2.0], label="w.grad")

# %%
# In the table, ``scaled`` is not a leaf (it has a ``grad_fn``), and its
# ``grad`` column shows ``-``: there is nothing to show. Reading the
# attribute anyway returns ``None`` and warns.
with expect_warning(
    UserWarning,
    match=(
        r"The \.grad attribute of a Tensor that is not a leaf Tensor is being accessed\. "
        r"Its \.grad attribute won't be populated during autograd\.backward\(\)\. "
        r"If you indeed want the \.grad field to be populated for a non-leaf Tensor, "
        r"use \.retain_grad\(\) on the non-leaf Tensor\."
    ),
):
    intermediate_grad = scaled.grad
check(intermediate_grad, None, label="scaled.grad")

# %%
# Autograd hands each intermediate gradient on to the next node and does not
# keep it, which keeps the memory of a backward pass small. Reading ``.grad``
# on a non-leaf is almost always a mistake (often the leaf was meant), hence
# the warning instead of a silent ``None``.
#
# ``retain_grad()`` keeps it
# --------------------------
# Calling ``retain_grad()`` on the intermediate tensor *before* the backward
# pass asks autograd to store its gradient. The tensor is still not a leaf;
# it just keeps a ``.grad`` like one.
w = torch.tensor([-1.5], device=device, requires_grad=True)
scaled = w * 2
scaled.retain_grad()
total = scaled + 3
total.backward()
check(scaled.retains_grad, True, label="scaled.retains_grad")
check(scaled.is_leaf, False, label="scaled.is_leaf")
check(scaled.grad, [1.0], label="scaled.grad")
check(w.grad, [2.0], label="w.grad")
show_state(w=w, scaled=scaled, total=total)

# %%
# ``scaled.grad`` is 1, the derivative of ``total = scaled + 3``, and it is
# read without a warning. The leaf's gradient is unchanged: retaining an
# intermediate gradient does not alter what reaches ``w``.
#
# A layer's output is not a leaf either
# -------------------------------------
# What a module returns is computed from its parameters, so it is an
# intermediate tensor like ``scaled``: after ``backward()`` the weights of
# ``nn.Linear`` have a ``.grad`` and its output has none, unless
# ``retain_grad()`` was called on it first (or a hook reads the gradient as
# it passes, :ref:`tensor_hooks`).
layer = torch.nn.Linear(3, 2).to(device)
activation = layer(torch.ones(4, 3, device=device))
activation.retain_grad()
activation.sum().backward()
check(activation.is_leaf, False, label="activation.is_leaf")
check(layer.weight.is_leaf, True, label="layer.weight.is_leaf")
check(activation.grad, [[1.0, 1.0]] * 4, label="activation.grad")
check(layer.weight.grad, [[4.0, 4.0, 4.0]] * 2, label="layer.weight.grad")

# %%
# The gradient of ``sum()`` with respect to each entry of the activation
# is 1; the weight's gradient adds the four rows of the batch, each an
# input of ones.
#
# Sources
# -------
# - :ref:`source_002` builds ``b = a*2``, ``c = b+3``, calls
#   ``c.backward()`` and finds that ``b.grad`` is ``None``, with a
#   ``UserWarning`` that the ``.grad`` of a non-leaf tensor is being accessed
#   and a hint to call ``retain_grad()``. **Holds** on the runner that built
#   this page, with other numbers here and with ``retain_grad()`` shown to
#   work.
# - The warning the document quotes has drifted: it says "If you indeed want
#   the gradient for a non-leaf Tensor", today's PyTorch says "If you indeed
#   want the .grad field to be populated for a non-leaf Tensor". The check
#   above matches today's wording, which every recorded release prints.
