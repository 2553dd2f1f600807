"""
.. _multi_view_outputs:

Views that refuse writes
========================

Some views can never be written in place while autograd records: the
outputs of functions that return several views at once (``unbind``,
``split``, ``chunk``), and views taken under ``torch.no_grad()`` of a tensor
that requires grad. This example shows what triggers each error, and when:
at the write itself, or later, when an untouched sibling view is used. It
ends with the fixes, ``clone()`` and out-of-place operations.

.. questions::

   - Why can't I edit ``unbind`` or ``split`` outputs in place (``returns multiple views``)?
   - Why do I get ``A view was created in no_grad mode``?
   - How do I edit one chunk of a tensor without autograd errors?
"""

# %%
# Writing into an output of ``unbind``
# ------------------------------------
# ``y.unbind()`` returns the rows of ``y`` as views over ``y``'s memory.
# Scaling the first row in place is refused at once.
import matplotlib.pyplot as plt
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

x = torch.tensor([1.0, 2.0, 3.0, 4.0], device=device, requires_grad=True)
y = x * 2
rows = y.unbind()
show_state(y=y, row0=rows[0], row1=rows[1])
check(rows[0].grad_fn is rows[1].grad_fn, True, label="rows[0].grad_fn is rows[1].grad_fn")

with expect_error(
    RuntimeError,
    match=r"^Output 0 of Unbind is a view and is being modified inplace\. This view is the output "
    r"of a function that returns multiple views\. Such functions do not allow the output views to be "
    r"modified inplace\. You should replace the inplace operation by an out-of-place one\.$",
):
    rows[0].mul_(10)
check(y, [2.0, 4.0, 6.0, 8.0], label="y")
check(y._version, 0, label="y._version")
draw_tensors({"y": y, **{f"rows[{i}]": row for i, row in enumerate(rows)}}, title="rows = y.unbind()")
plt.show()

# %%
# One block of memory, ``2. 4. 6. 8.``, for five tensors: ``y`` covers the
# four cells, each of ``rows[0]`` to ``rows[3]`` covers one of them, shape
# ``[]``. All are at ``v0``, since the write was refused before it
# happened; ``y`` was made by ``MulBackward0``, every row by
# ``UnbindBackward0``.
#
# All the rows share one backward node, ``UnbindBackward0``, which sends
# each row's gradient to its place in ``y``. Compare a write into the view
# made by a *single*-view function, a slice. Autograd rewrites two
# histories: the base ``y`` gets a ``CopySlices`` node that wraps the write
# (the node of :ref:`view_vs_advanced_indexing`), and the view is
# regenerated from the new base, its ``SliceBackward0`` replaced by an
# ``AsStridedBackward0`` that leads back to that ``CopySlices``:
x = torch.tensor([1.0, 2.0, 3.0, 4.0], device=device, requires_grad=True)
y = x * 2
middle = y[1:3]
check(middle.grad_fn, "SliceBackward0", label="middle.grad_fn before the write")
middle.mul_(10)
check(y.grad_fn, "torch::autograd::CopySlices", label="y.grad_fn")
check(middle.grad_fn, "AsStridedBackward0", label="middle.grad_fn")
check(middle.grad_fn.next_functions[0][0] is y.grad_fn, True, label="middle's history goes through y's")
y.sum().backward()
check(x.grad, [2.0, 20.0, 20.0, 2.0], label="x.grad")

# %%
# A slice has a node of its own, so autograd can regenerate it. The rows of
# ``unbind`` share one node: autograd has no way to give one output a new
# history alone, so it forbids the write, before it happens. The message
# names the node without its ``Backward0`` suffix.
#
# ``split`` and ``chunk`` are the same kind of function (``chunk`` is
# implemented with ``split``, and its outputs carry ``SplitBackward0``):
halves = y.chunk(2)
check(halves[0].grad_fn, "SplitBackward0", label="halves[0].grad_fn")
with expect_error(RuntimeError, match=r"^Output 1 of Split is a view and is being modified inplace\."):
    halves[1].add_(1)

# %%
# Writing into the base, then using a sibling
# -------------------------------------------
# The rule also covers writes that reach the views indirectly. Writing into
# ``y`` itself is allowed; it is the next *use* of one of ``y``'s rows in
# grad mode that fails, even of a row whose values the write did not touch.
x = torch.tensor([1.0, 2.0, 3.0, 4.0], device=device, requires_grad=True)
y = x * 2
rows = y.unbind()
y[0] = 0.0
check(y, [0.0, 4.0, 6.0, 8.0], label="y")
with expect_error(
    RuntimeError,
    match=r"^Output 3 of Unbind is a view and its base or another view of its base has been modified "
    r"inplace\. This view is the output of a function that returns multiple views\.",
):
    rows[3] * 2

# %%
# A row remembers the version of ``y`` it was made at. When its ``grad_fn``
# is read again (every operation in grad mode reads it, and so do
# ``grad_fn`` and ``is_leaf``) and the version has moved, autograd would
# have to give the row a new history, and for an output of ``unbind`` it
# cannot. The same happens when the write is made under
# ``torch.no_grad()``: the version moves all the same.
x = torch.tensor([1.0, 2.0, 3.0, 4.0], device=device, requires_grad=True)
y = x * 2
rows = y.unbind()
with torch.no_grad():
    rows[0].mul_(10)
check(y, [20.0, 4.0, 6.0, 8.0], label="y")
with expect_error(RuntimeError, match=r"^Output 1 of Unbind is a view and its base or another view"):
    rows[1] * 2

# %%
# Views taken under ``torch.no_grad()``
# -------------------------------------
# A view made while recording is off, of a tensor that requires grad, has
# no history to rebase either. Writing into it with recording on is
# refused:
x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
y = x * 2
with torch.no_grad():
    head = y[:2]
show_state(y=y, head=head)
check(head.untyped_storage().data_ptr() == y.untyped_storage().data_ptr(), True, label="head is y's memory")
draw_tensors({"y": y, "head": head}, title="with torch.no_grad(): head = y[:2]")
plt.show()
with expect_error(
    RuntimeError,
    match=r"^A view was created in no_grad mode and is being modified inplace with grad mode enabled\. "
    r"Given that this use case is ambiguous and error-prone, it is forbidden\. You can clarify your code "
    r"by moving both the view and the inplace either both inside the no_grad block \(if you don't want "
    r"the inplace to be tracked\) or both outside \(if you want the inplace to be tracked\)\.$",
):
    head.mul_(3)

# %%
# ``y`` (``2. 4. 6.``, ``MulBackward0``) and ``head`` share one block of
# memory; ``head`` covers its first two cells and shows
# ``requires_grad`` where ``y`` shows a ``grad_fn``.
#
# The table shows the odd state of such a view: it reports
# ``requires_grad=True`` (it follows its base) but has no ``grad_fn``, and
# it shares ``y``'s storage. Should the write be recorded (then ``y`` must
# get a history through ``head``) or not? Autograd does not choose. The
# same applies to a view of a leaf, like a parameter, taken under
# ``torch.no_grad()`` (a view of a leaf taken outside ``no_grad`` is
# refused with the message of :ref:`view_of_leaf`):
leaf = torch.zeros(3, device=device, requires_grad=True)
with torch.no_grad():
    leaf_head = leaf[:2]
with expect_error(RuntimeError, match=r"^A view was created in no_grad mode and is being modified inplace"):
    leaf_head.fill_(1.0)

# %%
# Moving the write inside the block, as the message suggests, makes it
# allowed. The view stays marked, though: after the write, reading its
# ``grad_fn`` fails with a message that says "with grad mode enabled" even
# though every write happened inside ``no_grad``.
with torch.no_grad():
    head = y[:2]
    head.mul_(3)
check(y, [6.0, 12.0, 6.0], label="y")
with expect_error(
    RuntimeError,
    match=r"^A view was created in no_grad mode and its base or another view of its base has been "
    r"modified inplace with grad mode enabled\.",
):
    head.grad_fn

# %%
# So a view taken under ``no_grad`` is for use inside that block only: keep
# both the view and every use of it there. ``y`` itself is fine: the write
# was not recorded, and backward treats ``y`` as the ``x * 2`` it was built
# from, values aside.
y.sum().backward()
check(x.grad, [2.0, 2.0, 2.0], label="x.grad")

# %%
# The fixes: clones, or no write at all
# -------------------------------------
# Cloning the outputs gives each one storage and a history of its own, so
# each can be written in place; the write is recorded on the clone.
x = torch.tensor([1.0, 2.0, 3.0, 4.0], device=device, requires_grad=True)
y = x * 2
rows = [row.clone() for row in y.unbind()]
rows[0].mul_(10)
torch.stack(rows).sum().backward()
check(x.grad, [20.0, 2.0, 2.0, 2.0], label="x.grad")

# %%
# An out-of-place operation does the same without the copies: compute the
# new piece and put the pieces back together.
x = torch.tensor([1.0, 2.0, 3.0, 4.0], device=device, requires_grad=True)
y = x * 2
first, second = y.split(2)
first = first * 10
torch.cat([first, second]).sum().backward()
check(x.grad, [20.0, 20.0, 2.0, 2.0], label="x.grad")

# %%
# In both, the gradient counts the factor 10 where it applied. Only
# functions with one shared node for several views are concerned:
# ``y.tensor_split(2)`` returns two independent slices (each with its own
# ``SliceBackward0``), and those can be written in place like ``y[:2]``.
x = torch.tensor([1.0, 2.0, 3.0, 4.0], device=device, requires_grad=True)
y = x * 2
left, right = y.tensor_split(2)
check(left.grad_fn is right.grad_fn, False, label="left.grad_fn is right.grad_fn")
left.mul_(10)
loss = torch.cat([left, right]).sum()
graph = autograd_graph(loss, names={"x": x, "y": y, "left": left, "right": right, "loss": loss})
check(
    [node.drawn_title for node in graph.nodes],
    [
        "SumBackward0 (loss)",
        "CatBackward0",
        "AsStridedBackward0 (left)",
        "AsStridedBackward0 (right)",
        "CopySlices (y)",
        "MulBackward0",
        "AccumulateGrad (x)",
    ],
    label="the nodes of the graph",
)
draw_graph(graph, title="left, right = y.tensor_split(2); left.mul_(10)")
plt.show()
loss.backward()
check(x.grad, [20.0, 20.0, 2.0, 2.0], label="x.grad")

# %%
# The graph of ``loss`` after the write: ``SumBackward0`` and
# ``CatBackward0`` lead to one ``AsStridedBackward0`` node for ``left``
# (``storage_offset=0``) and one for ``right`` (``storage_offset=2``); both
# lead to ``CopySlices``, now the node of ``y``, then to the
# ``MulBackward0`` of ``x * 2`` and the leaf ``x``.
#
# The write gave ``y`` a new history, ``CopySlices``, and each view a node
# of its own that takes its cells from that history: ``right`` too,
# although its values did not change. That is the rebasing that one
# ``UnbindBackward0`` shared by four outputs cannot have.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the messages, and what triggers each of them, are checked on the runner
# that built this page.
