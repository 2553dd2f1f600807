"""
.. _requires_grad_no_grad:

Who records a graph
===================

A tensor records the operations that made it only if one of their inputs
requires a gradient, and only outside ``torch.no_grad()``. This example
follows ``requires_grad`` through a few operations, then cuts a chain with
``no_grad`` and shows which gradients survive the cut.
"""

# %%
# Tensors start without a graph
# -----------------------------
# A tensor created from data does not require a gradient unless asked to.
# An operation's result requires one as soon as any input does.
import torch

from autograd_notes import check, runner_device, show_state

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

e.backward()
check(k.grad, [5.0], label="k.grad")  # de/dk = c = 1.5 * 2 + 2
check(w.grad, None, label="w.grad")

# %%
# ``k.grad`` is the value of ``c``, as the product rule says. ``w.grad`` stays
# ``None``: from autograd's point of view, nothing that ``e`` depends on was
# computed from ``w``. This is the silent way to lose a gradient: no error,
# no warning.
#
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
