"""
.. _requires_grad_no_grad:

Who records a graph
===================

A tensor records the operations that made it only if one of their inputs
requires a gradient, and only outside ``torch.no_grad()``. This example
follows ``requires_grad`` through a few operations, then cuts a chain with
``no_grad`` and shows which gradients survive the cut.

.. questions::

   - Why is ``.grad`` None after part of my computation ran under ``no_grad``?
   - Does ``torch.no_grad()`` turn off ``requires_grad`` on my weights?
   - When does the result of an operation require a gradient?
   - Should I use ``detach()`` or ``torch.no_grad()``?
"""

# %%
# Tensors start without a graph
# -----------------------------
# A tensor created from data does not require a gradient unless asked to.
# An operation's result requires one as soon as any input does.
import torch

from autograd_notes import check, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

plain = torch.tensor([1.5], device=device)
check(plain.requires_grad, False, label="plain.requires_grad")

w = torch.tensor([1.5], device=device, requires_grad=True)
doubled = w * 2
check(doubled.requires_grad, True, label="doubled.requires_grad")
show_state(plain=plain, w=w, doubled=doubled)

# %%
# ``w`` is a *leaf*: made by the user, it will receive ``.grad``. ``doubled``
# is not: it has a ``grad_fn`` node (``MulBackward0``) that knows how to send
# a gradient back to ``w``.
#
# ``no_grad`` records nothing
# ---------------------------
# Inside ``torch.no_grad()`` the same multiplication gives a tensor with no
# ``grad_fn`` and ``requires_grad=False``. The input is untouched: ``w`` still
# requires a gradient.
with torch.no_grad():
    doubled_quietly = w * 2
check(w.requires_grad, True, label="w.requires_grad")
check(doubled_quietly.requires_grad, False, label="doubled_quietly.requires_grad")
check(doubled_quietly.grad_fn, None, label="doubled_quietly.grad_fn")

# %%
# A chain cut in the middle
# -------------------------
# Here ``b`` is recorded, ``c`` is computed from ``b`` under ``no_grad`` and so
# is a constant as far as autograd knows, and ``e`` multiplies that constant
# by a second leaf ``k``. Backward from ``e`` reaches ``k`` and stops at ``c``:
# ``w`` gets no gradient at all, not even zero.
w = torch.tensor([1.5], device=device, requires_grad=True)
k = torch.tensor([0.5], device=device, requires_grad=True)
b = w * 2
with torch.no_grad():
    c = b + 2
e = c * k
show_state(w=w, k=k, b=b, c=c, e=e)

# %%
# ``draw_graph`` draws the graph that backward will walk, here below ``b``
# and below ``e``:
import matplotlib.pyplot as plt

from autograd_notes import autograd_graph, draw_graph

names = {"w": w, "k": k, "b": b, "c": c, "e": e}
below_b = autograd_graph(b, names=names)
below_e = autograd_graph(e, names=names)
check([node.title for node in below_b.nodes], ["MulBackward0 (b)", "leaf w"], label="nodes below b")
check([node.title for node in below_e.nodes], ["MulBackward0 (e)", "leaf k"], label="nodes below e")
draw_graph(below_b, title="b = w * 2")
draw_graph(below_e, title="e = c * k")
plt.show()

# %%
# Each box is a node, and gradients flow down the arrows to the blue boxes,
# the leaves (``AccumulateGrad``), which write into ``.grad``. Below ``b``,
# ``MulBackward0`` saved the factor 2 (``other [] v0``) and leads to ``w``.
# Below ``e``, ``MulBackward0`` leads to ``k`` only. It saved ``c``
# (``self (c) [1] v0``: shape ``[1]``, version 0) as a plain value to
# multiply by; ``c`` has no node of its own, so no
# arrow leads on from it to ``w``. Backward from ``e`` reaches ``k`` and
# nothing else:
e.backward()
check(k.grad, [5.0], label="k.grad")  # de/dk = c = 1.5 * 2 + 2
check(w.grad, None, label="w.grad")

# %%
# ``k.grad`` is the value of ``c``, as the product rule says. ``w.grad`` stays
# ``None``: from autograd's point of view, nothing that ``e`` depends on was
# computed from ``w``. This is the silent way to lose a gradient: no error,
# no warning.
#
# ``no_grad`` or ``detach()``
# ---------------------------
# Both make tensors that autograd treats as constants, but they cut in
# different places. ``torch.no_grad()`` turns recording off for every
# operation of its block. ``detach()`` cuts one tensor out and leaves
# recording on, so one expression can use ``x`` as a constant in one place
# and as a variable in another. Here ``x.detach() * x`` is differentiated
# through its second factor only: the gradient is ``x``, not ``2 * x``.
x = torch.tensor([1.0, 3.0], device=device, requires_grad=True)
(x.detach() * x).sum().backward()
check(x.grad, [1.0, 3.0], label="x.grad with one factor detached")
x.grad = None
(x * x).sum().backward()
check(x.grad, [2.0, 6.0], label="x.grad with no factor detached")

# %%
# Under ``no_grad`` the whole product is a constant: there is nothing to
# differentiate, and ``backward()`` refuses it.
with torch.no_grad():
    quiet = (x * x).sum()
with expect_error(RuntimeError, match=r"^element 0 of tensors does not require grad"):
    quiet.backward()

# %%
# ``detach()`` returns a tensor that shares ``x``'s memory, so an in-place
# edit of it changes ``x`` (:ref:`detach_shares_storage`). Use
# ``no_grad`` for code that needs no gradient at all, such as evaluation
# or a weight update, and ``detach()`` for one value inside code that
# does.
check(x.detach().data_ptr() == x.data_ptr(), True, label="x.detach() shares x's memory")

# %%
# Sources
# -------
# - :ref:`source_002` claims that a tensor made from data does not require a
#   gradient, that the result of an operation on one that does requires one,
#   and that under ``no_grad`` the result does not while the input still
#   does. **Holds** on the runner that built this page (the checks above
#   would have failed the build otherwise).
# - :ref:`source_002` also builds the chain ``b = a*2``, ``c = b+2`` under
#   ``no_grad``, ``e = c*d`` and finds ``d.grad`` equal to ``c`` and
#   ``a.grad`` ``None``. **Holds**, with other numbers here.
