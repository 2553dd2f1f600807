"""
.. _python_rebinding_inplace:

Rebinding versus mutation
=========================

In Python, ``name = value`` points a name at an object and never changes the
object the name pointed at before; item assignment changes the object
itself. Tensors follow the same rules. This example tells the two apart, for
Python objects and for tensors, and shows the version counter that PyTorch
increments on every in-place change: the number autograd checks before it
uses a tensor it saved.

.. questions::

   - Is ``x += 1`` the same as ``x = x + 1``?
   - Does reassigning a variable change the tensor autograd saved?
   - Which tensor operations count as in-place for autograd?
"""

# %%
# Rebinding a name
# ----------------
# ``count = 2`` does not overwrite the integer 1 in memory: it makes the name
# ``count`` refer to another object. A second name for the old object still
# sees the old value.
import torch

from autograd_notes import check, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

count = 1
alias = count
old_id = id(count)
count = 2
check(id(count) == old_id, False, label="count is the same object as before")
check(alias, 1, label="alias")

# %%
# Mutating an object
# ------------------
# Item assignment works the other way round: ``items[0] = 7`` changes the
# list that both names refer to, and the name ``items`` keeps pointing at
# the same list.
items = [1]
same_list = items
old_id = id(items)
items[0] = 7
check(id(items) == old_id, True, label="items is the same object as before")
check(same_list[0], 7, label="same_list[0]")

# %%
# Rebinding a tensor name
# -----------------------
# ``t = t + 1`` computes a new tensor and rebinds ``t`` to it. The old
# tensor, still reachable as ``before``, keeps its values, and its version
# counter stays at 0.
t = torch.tensor([1.0, 2.0], device=device)
before = t
t = t + 1
check(t is before, False, label="t is before")
check(before, [1.0, 2.0], label="before")
check(before._version, 0, label="before._version")
show_state(before=before, t=t)

import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

draw_tensors({"before": before, "t": t}, title="before = t; t = t + 1")
plt.show()

# %%
# Each grey strip is a storage with its values, and each coloured row a
# tensor over it, with its shape and its version. ``before`` and ``t`` have
# a strip each: ``1.`` and ``2.`` for ``before``, ``2.`` and ``3.`` for
# the new ``t``, both at ``v0``.

# %%
# Changing a tensor in place
# --------------------------
# ``t += 1``, ``t.add_(1)`` and ``t[0] = 5`` all write into the existing
# tensor. Each one increments its ``_version``; the name ``t`` keeps
# pointing at the same object all along.
t = torch.tensor([1.0, 2.0], device=device)
same = t
t += 1
check(t is same, True, label="t is same after t += 1")
check(t._version, 1, label="t._version after t += 1")
t.add_(1)
check(t._version, 2, label="t._version after t.add_(1)")
t[0] = 5
check(t._version, 3, label="t._version after t[0] = 5")
check(same, [5.0, 4.0], label="same")
show_state(t=t, same=same)
draw_tensors({"t": t, "same": same}, title="same = t; t += 1; t.add_(1); t[0] = 5")
plt.show()

# %%
# Here ``t`` and ``same`` are two rows over a single strip: one tensor
# under two names, holding ``5.`` and ``4.`` at version 3 (``v3``), one
# step for each of the three in-place writes.
#
# ``t += 1`` looks like ``t = t + 1`` but is not: for a tensor, ``+=`` calls
# the in-place ``__iadd__``, which changes the tensor and returns it, so the
# name is rebound to the object it already named. ``t[0] = 5`` is an
# in-place write as well, into part of the tensor.
#
# Why autograd cares
# ------------------
# ``exp`` saves its output for backward, because the derivative of
# :math:`e^w` is :math:`e^w`. Rebinding the name to ``e + 1`` leaves the
# saved tensor alone; ``e += 1`` writes into it.
w = torch.tensor([0.5, 1.0], device=device, requires_grad=True)
e = w.exp()
e = e + 1
e.sum().backward()
check(w.grad, [1.6487213, 2.7182817], label="w.grad")

w = torch.tensor([0.5, 1.0], device=device, requires_grad=True)
e = w.exp()
e += 1
check(e._version, 1, label="e._version")

from autograd_notes import autograd_graph, draw_graph

graph = autograd_graph(e.sum(), names={"w": w, "e": e})
check(graph.modified, ["ExpBackward0: saved result (e) [2] v1 ≠ v0"], label="modified in place")
draw_graph(graph, title="e = w.exp(); e += 1")
plt.show()

with expect_error(
    RuntimeError,
    match=r"modified by an inplace operation: \[torch\.(cuda\.)?FloatTensor \[2\]\], "
    r"which is output 0 of Exp, is at version 1; expected version 0 instead",
):
    e.sum().backward()

# %%
# The graph below ``e.sum()`` after ``e += 1``, drawn before backward:
# gradients flow down the arrows to the leaf ``w`` (blue). The in-place
# addition is now ``e``'s node, ``AddBackward0 (e)``, and under it
# ``ExpBackward0`` saved its result, the same tensor ``e``, at version 0.
# ``e`` is at version 1, so that line is red and marked ``⚠`` with
# ``v1 ≠ v0``, and the node is framed in red: the error that backward
# raised.
#
# With ``e = e + 1`` the tensor that ``exp`` saved is still at version 0, and
# backward returns :math:`e^{0.5}` and :math:`e^{1}`. With ``e += 1`` the
# saved tensor itself reached version 1, and backward refuses to use it: the
# version it finds differs from the one it recorded. Rebinding a name leaves
# every existing tensor as it was, so it cannot cause this error; writing
# into a tensor that some node saved does.
#
# Sources
# -------
# - :ref:`source_004` opens with an analogy: assigning a new value to a name
#   gives the name a new object rather than overwriting the old one, while
#   assigning to an item changes the object in place. **Holds** for Python
#   objects, and for tensors as shown above, where only the in-place forms
#   move ``_version``.
