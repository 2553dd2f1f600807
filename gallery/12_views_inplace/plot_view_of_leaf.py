"""
.. _view_of_leaf:

Writing into a leaf
===================

A tensor created with ``requires_grad=True``, such as a parameter, is a leaf:
autograd will compute its gradient, but it has no history of its own.
This example shows that autograd refuses any in-place write into such a
leaf, whether it goes into the whole tensor or through a view like ``w[0]``,
why the write is refused before anything changes, and the two fixes:
writing under ``torch.no_grad()`` (initialisation, updates) or writing into
a ``clone()`` (a write that is part of the computation).

.. questions::

   - Why does ``w[0] = 1`` on a parameter say ``leaf Variable that requires grad``?
   - How do I initialise or overwrite weights in place safely?
   - How do I overwrite one entry and still backpropagate to the weights?
"""

# %%
# Three writes, two messages
# --------------------------
# ``w`` stands for a parameter. Item assignment, an in-place method on a
# slice, and an in-place method on the whole tensor are all refused.
import matplotlib.pyplot as plt
import torch
from torch import nn

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

w = torch.zeros(3, device=device, requires_grad=True)

VIEW_OF_LEAF = r"^a view of a leaf Variable that requires grad is being used in an in-place operation\.$"
with expect_error(RuntimeError, match=VIEW_OF_LEAF):
    w[0] = 1.0
with expect_error(RuntimeError, match=VIEW_OF_LEAF):
    w[1:].uniform_()
with expect_error(
    RuntimeError, match=r"^a leaf Variable that requires grad is being used in an in-place operation\.$"
):
    w.fill_(1.0)

check(w, [0.0, 0.0, 0.0], label="w")
check(w._version, 0, label="w._version")
show_state(w=w)
draw_tensors({"w": w, "w[0]": w[0], "w[1:]": w[1:]}, title="w[0] = 1.0; w[1:].uniform_(); w.fill_(1.0)")
plt.show()

# %%
# One block of memory, three zeros: ``w`` covers all three cells (shape
# ``[3]``, ``requires_grad``), the view ``w[0]`` the first (shape ``[]``,
# ``SelectBackward0``), the view ``w[1:]`` the other two (shape ``[2]``,
# ``SliceBackward0``). All are at ``v0``: none of the three writes
# happened.
#
# ``w[0]`` and ``w[1:]`` are views of ``w`` (see
# :ref:`view_vs_advanced_indexing`), so the first two messages say "a view of
# a leaf"; ``fill_`` on ``w`` itself gets the shorter message. All three
# refusals come before the write: ``w`` still holds zeros and its version
# counter is still 0.
#
# Why a leaf cannot be written in place
# -------------------------------------
# An in-place operation that autograd records becomes part of the tensor's
# history: the tensor gets a ``grad_fn`` and stops being a leaf. A
# non-leaf can take that (:ref:`view_vs_advanced_indexing` shows the
# ``CopySlices`` node that a write adds), but ``w`` is the tensor whose
# ``.grad`` the user asked for. If the write were recorded, the gradient
# would belong to the values before the write, which no longer exist
# anywhere. Autograd refuses instead of guessing. ``nn.Parameter`` is a
# leaf that requires grad too:
p = nn.Parameter(torch.zeros(2, 2, device=device))
with expect_error(RuntimeError, match=VIEW_OF_LEAF):
    p[0, 0] = 1.0

# %%
# Fix 1: write under ``torch.no_grad()``
# --------------------------------------
# Setting the values of a leaf is not part of any computation to
# differentiate: it is initialisation, or an optimizer's update. Under
# ``torch.no_grad()`` nothing is recorded, so the write is allowed.
w = torch.zeros(3, device=device, requires_grad=True)
with torch.no_grad():
    w[0] = 1.0
    w[1:].fill_(2.0)
check(w, [1.0, 2.0, 2.0], label="w")
check(w._version, 2, label="w._version")
show_state(w=w)

nn.init.constant_(p, 0.5)
check(p, [[0.5, 0.5], [0.5, 0.5]], label="p after nn.init.constant_")
check(p.is_leaf, True, label="p.is_leaf")

# %%
# ``w`` stays a leaf without a ``grad_fn``; only its version counter records
# the two writes. The ``torch.nn.init`` functions work on parameters for
# the same reason: each runs its write under ``torch.no_grad()``. Filling a
# tensor first and calling ``requires_grad_()`` afterwards is equivalent:
v = torch.zeros(3, device=device)
v[0] = 1.0
v.requires_grad_()
check(v, [1.0, 0.0, 0.0], label="v")
show_state(v=v)

# %%
# Fix 2: write into a ``clone()``
# -------------------------------
# When the write *is* part of the computation (overwrite one entry, then use
# the result), write into a copy. The copy is a non-leaf, so the write is
# recorded, and the gradient flows back to ``w`` wherever the copy still
# holds ``w``'s values.
w = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
weights = torch.tensor([10.0, 20.0, 30.0], device=device)
copy = w.clone()
copy[0] = 5.0
show_state(w=w, copy=copy)
loss = (copy * weights).sum()
graph = autograd_graph(loss, names={"w": w, "copy": copy, "weights": weights, "loss": loss})
check(
    [node.drawn_title for node in graph.nodes],
    ["SumBackward0 (loss)", "MulBackward0", "CopySlices (copy)", "CloneBackward0", "AccumulateGrad (w)"],
    label="the nodes of the graph",
)
check([w._version, copy._version], [0, 1], label="[w._version, copy._version]")
draw_tensors({"w": w, "copy": copy}, title="copy = w.clone(); copy[0] = 5.0")
draw_graph(graph, title="loss = (copy * weights).sum()")
plt.show()
loss.backward()
check(w.grad, [0.0, 20.0, 30.0], label="w.grad")

# %%
# The first picture is memory: ``w`` holds ``1. 2. 3.`` at ``v0``, and
# ``copy``, in a block of its own, ``5. 2. 3.`` at ``v1`` with
# ``CopySlices``. The second is the graph of ``loss``: ``SumBackward0``, ``MulBackward0`` (which saved
# ``weights`` as ``other``), ``CopySlices`` for the write into ``copy``,
# ``CloneBackward0``, and the leaf ``w``.
#
# ``copy[0] = 5.0`` replaced the first entry by a constant, so the loss no
# longer depends on ``w[0]``: its gradient is 0, and the other entries get
# their weights. The leaf itself was never written. The table shows the
# write recorded on the copy as ``CopySlices``, with its own version counter.
# A view of a leaf taken under ``torch.no_grad()`` and written outside it is
# refused with yet another message (:ref:`multi_view_outputs`).
#
# Writing through ``w.detach()``
# ------------------------------
# ``w.detach()`` shares ``w``'s memory and version counter but does not
# require grad, so a write through it is allowed at the moment it is made.
# It is not unchecked: if a graph already saved ``w``, the next backward
# compares versions and refuses.
w = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
y = (w**2).sum()
w.detach().mul_(2)
check(w, [2.0, 4.0, 6.0], label="w")
check(w._version, 1, label="w._version")
with expect_error(
    RuntimeError,
    match=r"^one of the variables needed for gradient computation has been modified by an inplace "
    r"operation: \[torch\.[\w.]+ \[3\]\] is at version 1; expected version 0 instead\.",
):
    y.backward()

# %%
# ``PowBackward0`` saved ``w`` at version 0 to compute :math:`2w`; the
# write moved ``w`` to version 1, and backward stops rather than use the
# doubled values. The message names the tensor by its type and shape only,
# since a leaf is no node's output. A write through ``w.detach()`` made
# *before* any operation saves ``w`` passes every check: it is an update of
# the leaf's values, like an optimizer's step
# (:ref:`out_and_detach_before_use`).
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the messages and their order are checked on the runner that built this
# page.
