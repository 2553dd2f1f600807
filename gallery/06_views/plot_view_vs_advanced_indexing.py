"""
.. _view_vs_advanced_indexing:

Views, copies and backward
==========================

``table[0]`` and ``table[[0], :]`` read the same numbers, but the first is a
view over ``table``'s memory and the second is a copy. This example uses the
row in a matrix product, writes the result back into ``table``, and shows
why backward fails after reading through a view and works after reading
through a copy; then it tells rebinding the copy's name apart from writing
into the copy.

.. questions::

   - Why does ``t[0]`` break backward but ``t[[0], :]`` does not?
   - Does indexing a tensor return a view or a copy?
   - Why does writing a result back into the row I read fail?
"""

# %%
# Reading a row through a view
# ----------------------------
# ``table`` is a clone of the parameter ``emb``, so it has a history and can
# be written into. ``table[0]`` is basic indexing: it returns a view.
import torch
from torch import nn

from autograd_notes import check, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

emb = nn.Parameter(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device))
weight = nn.Parameter(torch.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [0.5, 0.5, 0.5]], device=device))
table = emb.clone()
row = table[0]
show_state(table=table, row=row)

out = weight @ row
table[0] = out
check(row._version, 1, label="row._version")
check(row.grad_fn, "AsStridedBackward0", label="row.grad_fn")
show_state(table=table, row=row, out=out)

import matplotlib.pyplot as plt

from autograd_notes import autograd_graph, draw_graph, draw_tensors

same_storage = row.untyped_storage().data_ptr() == table.untyped_storage().data_ptr()
check(same_storage, True, label="row and table share storage")
draw_tensors({"table": table, "row": row, "out": out}, title="row = table[0]; table[0] = weight @ row")
plt.show()

# %%
# Each grey strip is a storage with its values, each coloured row a tensor
# over some of its cells, with its shape, version and ``grad_fn``.
# ``table`` covers all six cells of its strip; ``row`` covers the first
# three, which now hold ``out``'s values ``7.``, ``-1.`` and ``3.``; both
# are at ``v1``. ``out`` has a strip of its own. Before backward, the graph
# below ``out.sum()`` shows what the product saved:
names = {"emb": emb, "weight": weight, "table": table, "row": row, "out": out}
graph = autograd_graph(out.sum(), names=names)
check(graph.modified, ["MvBackward0 (out): saved vec (row) [3] v1 ≠ v0"], label="modified in place")
draw_graph(graph, title="out = weight @ row")
plt.show()

with expect_error(
    RuntimeError,
    match=r"modified by an inplace operation: \[torch\.(cuda\.)?FloatTensor \[3\]\], "
    r"which is output 0 of AsStrided, is at version 1; expected version 0 instead",
):
    out.sum().backward()

# %%
# Gradients flow down the arrows to the leaves ``weight`` and ``emb``
# (blue), to ``emb`` through ``SelectBackward0`` (the view ``table[0]``)
# and ``CloneBackward0``. ``MvBackward0``, the product, saved ``weight`` at
# version 0 and the view ``row`` (``vec (row) [3]``) at version 0; ``row``
# is now at version 1, so that line is red, marked ``⚠`` with
# ``v1 ≠ v0``, and the node is framed in red: the error above.
#
# ``row`` shares ``table``'s storage and its version counter. The product
# ``weight @ row`` saved ``row``, because the gradient of ``weight`` is
# built from it. ``table[0] = out`` then overwrote exactly the memory that
# ``row`` shows, and the shared counter went to 1 for both. At backward the
# saved ``row`` is at version 1 instead of 0, so the gradient would be
# computed from the new values: PyTorch refuses. After the write, autograd
# gave the view a new history, ``AsStridedBackward0``, which is why the
# message says "output 0 of AsStrided" rather than naming the select.
#
# What fails is the saving, not the view. Multiply the same view by a
# Python number instead, and write the result back the same way: the
# gradient of ``row * 3`` is 3 whatever ``row`` holds, so the
# multiplication saves no tensor, and the write has nothing to break.
emb = nn.Parameter(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device))
table = emb.clone()
row = table[0]
out = row * 3
table[0] = out
check(row._version, 1, label="row._version")
check(out.grad_fn._saved_self, None, label="out.grad_fn._saved_self")
out.sum().backward()
check(emb.grad, [[3.0, 3.0, 3.0], [0.0, 0.0, 0.0]], label="emb.grad")

# %%
# ``row`` was overwritten just as before (version 1), yet backward runs,
# and each element of the first row of ``emb`` gets the gradient 3.
#
# Reading a row through advanced indexing
# ---------------------------------------
# ``table[[0], :]`` indexes with a list: advanced indexing, which copies.
# The same write-back now leaves the saved tensor alone.
emb = nn.Parameter(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device))
weight = nn.Parameter(torch.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [0.5, 0.5, 0.5]], device=device))
table = emb.clone()
row = table[[0], :]
out = row @ weight
table[[0], :] = out
check(table._version, 1, label="table._version")
check(row._version, 0, label="row._version")
show_state(table=table, row=row, out=out)
same_storage = row.untyped_storage().data_ptr() == table.untyped_storage().data_ptr()
check(same_storage, False, label="row and table share storage")
copy_title = "row = table[[0], :]; table[[0], :] = row @ weight"
draw_tensors({"table": table, "row": row, "out": out}, title=copy_title)
plt.show()

out.sum().backward()
check(weight.grad, [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0]], label="weight.grad")
check(emb.grad, [[3.0, 0.0, 1.5], [0.0, 0.0, 0.0]], label="emb.grad")

# %%
# In the picture of the copy, ``table``, ``row`` and ``out`` each have a
# strip of their own. The first three cells of ``table`` hold the written
# ``out`` (``2.5``, ``3.5``, ``1.5``) and ``table`` is at ``v1``; ``row``
# still holds ``1.``, ``2.``, ``3.`` at ``v0``.
#
# ``table`` went to version 1, but ``row`` has storage and a version counter
# of its own, still at 0, and it is ``row`` that the product saved. The
# gradients follow from ``out.sum()`` being
# :math:`\sum_{i,j} \mathrm{row}_i W_{ij}`: the gradient of :math:`W_{ij}`
# is :math:`\mathrm{row}_i`, so row :math:`i` of ``weight.grad`` repeats
# :math:`\mathrm{row}_i` (``[1, 2, 3]`` written down each column), and the
# gradient of :math:`\mathrm{row}_i` is the sum of row :math:`i` of ``W``,
# ``[3, 0, 1.5]``. It reaches only the first row of ``emb``, through the
# index and the clone; ``out.sum()`` does not depend on ``table`` after the
# write, so the second row gets zeros.
#
# Rebinding the name of the copy
# ------------------------------
# After the same forward pass, ``row = 3`` gives the name ``row`` to an
# integer. Backward still works.
emb = nn.Parameter(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device))
weight = nn.Parameter(torch.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [0.5, 0.5, 0.5]], device=device))
table = emb.clone()
row = table[[0], :]
out = row @ weight
table[[0], :] = out
row = 3

check(out.grad_fn._saved_self, [[1.0, 2.0, 3.0]], label="out.grad_fn._saved_self")
check(out.grad_fn._saved_self._version, 0, label="out.grad_fn._saved_self._version")
out.sum().backward()
check(weight.grad, [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0]], label="weight.grad")

# %%
# Rebinding changes no tensor (see :ref:`python_rebinding_inplace`). The
# tensor that the product saved still exists, because the graph holds it:
# ``out.grad_fn._saved_self`` reads it back from the ``MmBackward0`` node,
# with its values and at version 0. Only the name moved.
#
# Writing into the copy
# ---------------------
# ``row[0] = 2`` is different: it writes into the tensor the product saved.
emb = nn.Parameter(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device))
weight = nn.Parameter(torch.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [0.5, 0.5, 0.5]], device=device))
table = emb.clone()
row = table[[0], :]
out = row @ weight
table[[0], :] = out
row[0] = 2
check(row, [[2.0, 2.0, 2.0]], label="row")
check(row.grad_fn, "torch::autograd::CopySlices", label="row.grad_fn")
show_state(table=table, row=row, out=out)

with expect_error(
    RuntimeError,
    match=r"modified by an inplace operation: \[torch\.(cuda\.)?FloatTensor \[1, 3\]\], "
    r"which is output 0 of torch::autograd::CopySlices, is at version 1; expected version 0 instead",
):
    out.sum().backward()

# %%
# ``row[0] = 2`` fills the first (and only) row of ``row`` with 2, and its
# version counter goes to 1. A write into part of a tensor is recorded by a
# ``CopySlices`` node, which becomes ``row``'s new ``grad_fn``; the message
# names ``row`` by it. A copy protects the saved tensor from writes into
# ``table``, not from writes into the copy itself.
#
# Sources
# -------
# - :ref:`source_004` claims that reading a row with ``[0]`` (a view: the
#   document calls it ``SelectBackward``), using it in a matrix product and
#   writing the product back into the same row makes backward fail.
#   **Holds**; today's message names the view ``output 0 of AsStrided``, at
#   version 1. The document's first variant, ``row * 3`` instead of the
#   product, would not fail: a multiplication by a number saves no tensor
#   (checked above); only the matrix product, which saves ``row``, does.
# - :ref:`source_004` claims that the same with ``[[0], :]`` (advanced
#   indexing, which copies) back-propagates without error. **Holds**, with a
#   gradient checked by hand here.
# - :ref:`source_004` claims that rebinding the name (``row = 3``) after the
#   forward pass is not an in-place operation and does not break backward.
#   **Holds**.
# - :ref:`source_004` claims that ``row[0] = 2`` does break it. **Holds**;
#   the message names ``output 0 of torch::autograd::CopySlices``.
