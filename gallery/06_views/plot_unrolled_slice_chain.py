"""
.. _unrolled_slice_chain:

An unrolled chain of writes
===========================

A recurrent network often keeps its state in one tensor and overwrites part
of it at every step. This example unrolls such a loop over two steps,
reading through advanced indexing and writing back with item assignment,
checks that backward gives the gradients one derives by hand, and shows why
the same loop fails with a view. It ends with what item assignment does to
a tensor that did not require a gradient.

.. questions::

   - Why does backward fail when my RNN overwrites its state tensor?
   - How do I write each step into a tensor and keep gradients?
   - Why does ``buf[i] = x`` make the whole buffer require grad?
"""

# %%
# Two steps of a tiny recurrence
# ------------------------------
# ``state`` starts as a copy of the parameter ``a``. At each step the first
# row is read with advanced indexing, multiplied by the parameter ``d`` and
# written back; the loss adds up the values of both steps.
import torch
from torch import nn

from autograd_notes import check, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

a = nn.Parameter(torch.tensor([[2.0]], device=device))
d = nn.Parameter(torch.tensor(3.0, device=device))
state = a.clone()
steps = []
for _ in range(2):
    new = state[[0], :] * d
    state[0] = new
    steps.append(new)
loss = steps[0].sum() + steps[1].sum()

check(steps[0], [[6.0]], label="steps[0]")
check(steps[1], [[18.0]], label="steps[1]")
check(state._version, 2, label="state._version")
show_state(a=a, d=d, state=state, loss=loss)

# %%
# Before backward, the graph below ``loss``, with what each node saved:
import matplotlib.pyplot as plt

from autograd_notes import autograd_graph, draw_graph

names = {"a": a, "d": d, "state": state, "loss": loss, "steps[0]": steps[0], "steps[1]": steps[1]}
graph = autograd_graph(loss, names=names)
check([node.label for node in graph.nodes].count("CopySlices"), 1, label="CopySlices nodes")
check(graph.modified, [], label="modified in place")
check("state" in graph.text(), False, label="state in the graph")
draw_graph(graph, title="loss = steps[0].sum() + steps[1].sum()")
plt.show()

# %%
# Read from the top: the second step's ``MulBackward0`` sends the gradient
# of its row through ``IndexBackward0`` to the ``CopySlices`` of the first
# write, which passes the written row on to the first step (through
# ``ExpandBackward0`` and ``ViewBackward0``) and the rest to
# ``CloneBackward0`` and ``a``. Both multiplications saved a ``[1, 1]``
# copy at version 0 and ``state`` appears nowhere, so nothing is red and
# backward runs. Only one ``CopySlices`` is in the graph: the second write
# came after the last step that ``loss`` used.
loss.backward()
check(d.grad, 14.0, label="d.grad")
check(a.grad, [[12.0]], label="a.grad")

# %%
# The two steps compute :math:`e_1 = a d` and :math:`e_2 = e_1 d = a d^2`,
# so the loss is :math:`a d + a d^2 = 6 + 18 = 24`. Its derivatives are
# :math:`\partial L / \partial d = a + 2 a d = 2 + 12 = 14` and
# :math:`\partial L / \partial a = d + d^2 = 3 + 9 = 12`, which is what
# backward returns.
#
# ``state`` was written twice (version 2), yet nothing complains: each
# ``state[[0], :]`` made a copy, and the multiplication saved that copy, not
# ``state``. Each write ``state[0] = new`` replaced ``state``'s history with
# a ``CopySlices`` node that sends the gradient of the written row to
# ``new`` and the rest to the history before the write, so the second step
# reaches ``a`` and ``d`` through the first.
#
# The same loop with a view
# -------------------------
# Reading the row as ``state[0:1]`` (basic slicing: a view) instead makes
# the multiplication save a view of ``state``, which the next write then
# overwrites.
a = nn.Parameter(torch.tensor([[2.0]], device=device))
d = nn.Parameter(torch.tensor(3.0, device=device))
state = a.clone()
steps = []
for _ in range(2):
    new = state[0:1] * d
    state[0] = new
    steps.append(new)
loss = steps[0].sum() + steps[1].sum()

names = {"a": a, "d": d, "state": state, "loss": loss, "steps[0]": steps[0], "steps[1]": steps[1]}
graph = autograd_graph(loss, names=names)
check(
    graph.modified,
    [
        "MulBackward0 (steps[1]): saved self (state) [1, 1] v2 ≠ v1",
        "MulBackward0 (steps[0]): saved self (state) [1, 1] v2 ≠ v0",
    ],
    label="modified in place",
)
draw_graph(graph, title="new = state[0:1] * d")
plt.show()

# %%
# The graph of this loop, drawn before backward, has the shape of the first
# one, with ``SliceBackward0`` (the view ``state[0:1]``, with its ``dim``,
# ``start``, ``end`` and ``step``) where the copy had ``IndexBackward0``.
# Both multiplications are now framed in red: each saved a view over
# ``state``'s memory (``self (state) [1, 1]``), the first at version 0 and
# the second at version 1, and the writes moved ``state`` to version 2
# (``v2 ≠ v0``, ``v2 ≠ v1``). Backward fails at the first of them it meets:
with expect_error(
    RuntimeError,
    match=r"modified by an inplace operation: \[torch\.(cuda\.)?FloatTensor \[1, 1\]\], "
    r"which is output 0 of AsStrided, is at version 2; expected version 1 instead",
):
    loss.backward()

# %%
# The gradient of ``d`` needs the row it was multiplied by. With a view,
# that row lives in ``state``'s memory, which the next write changes.
# Backward meets the second step first: its multiplication saved the view
# when ``state`` was at version 1, the second write moved it to 2, and
# backward refuses (see :ref:`view_vs_advanced_indexing`). Reading through
# advanced indexing, as in the first loop, is what makes the unrolled chain
# work.
#
# The usual idiom: a list of states and ``torch.stack``
# -----------------------------------------------------
# Recurrent code rarely needs to overwrite its state. Keeping each step's
# state as a new tensor in a Python list, and stacking the list once at the
# end if the steps are needed as one tensor, writes nothing in place: no
# ``CopySlices``, no version to check, and the same gradients.
a = nn.Parameter(torch.tensor([[2.0]], device=device))
d = nn.Parameter(torch.tensor(3.0, device=device))
states = [a]
for _ in range(2):
    states.append(states[-1] * d)
history = torch.stack(states[1:])
loss = history.sum()
check(history.flatten(), [6.0, 18.0], label="history")
check([s._version for s in states], [0, 0, 0], label="versions of the states")
loss.backward()
check(d.grad, 14.0, label="d.grad")
check(a.grad, [[12.0]], label="a.grad")

# %%
# Each step reads the previous state and creates the next one, so every
# tensor autograd saved is still at version 0. ``torch.stack`` copies the
# steps into one ``[2, 1, 1]`` tensor and sends each slice of its gradient
# back to its step. The gradients are the 14 and 12 derived above.
#
# Writing a gradient into a constant tensor
# -----------------------------------------
# ``buffer`` is made from data and does not require a gradient. Assigning a
# value that does require one into a single slot changes the whole tensor.
scale = torch.tensor(1.5, device=device, requires_grad=True)
buffer = torch.zeros(3, device=device)
check(buffer.requires_grad, False, label="buffer.requires_grad before")

buffer[1] = scale * 2
check(buffer.requires_grad, True, label="buffer.requires_grad after")
check(buffer.is_leaf, False, label="buffer.is_leaf")
check(buffer.grad_fn, "torch::autograd::CopySlices", label="buffer.grad_fn")
show_state(scale=scale, buffer=buffer)

(buffer * torch.tensor([1.0, 10.0, 100.0], device=device)).sum().backward()
check(scale.grad, 20.0, label="scale.grad")

# %%
# ``requires_grad`` belongs to a tensor as a whole, not to its elements, so
# ``buffer`` now requires a gradient and is no longer a leaf: its
# ``grad_fn`` is the ``CopySlices`` node of the write. The gradient still
# reaches ``scale`` only through the slot that was written: the other two
# slots are constants, and ``scale.grad`` is :math:`10 \cdot 2 = 20`.
#
# Sources
# -------
# - :ref:`source_004` claims that the two-step chain built from
#   ``a = Parameter([[2.]])``, ``b = a.clone()``, ``d = Parameter(3.)``,
#   ``e = b[[0], :] * d`` and ``b[0] = e`` back-propagates without error,
#   with ``d.grad`` equal to 14 and ``a.grad`` equal to ``[[12.]]``.
#   **Holds**, and the numbers follow from :math:`L = a d + a d^2`.
# - :ref:`source_004` claims that assigning a value that requires a
#   gradient into part of a tensor that does not makes the whole tensor
#   require a gradient. **Holds**; its ``grad_fn`` is ``CopySlices``.
