"""
.. _tensor_hooks:

Tensor hooks
============

A hook registered on a tensor is called during ``backward()`` with the
gradient that flows through that tensor, and what it returns replaces that
gradient for everything further back. This example records the order in
which hooks run, compares a hook with ``retain_grad()``, uses a
post-accumulate hook to act on a leaf's finished ``.grad`` (the
"optimizer step inside backward" pattern), and removes a hook through its
handle.

.. questions::

   - How do I change a gradient during backward with a hook?
   - Difference between ``register_hook`` and ``retain_grad()``?
   - How do I run the optimizer step inside ``backward()`` to save memory?
   - How do I remove a hook registered on a tensor?
   - Do tensor hooks run when I call ``torch.autograd.grad``?
"""

# %%
# A hook sees the gradient and may replace it
# -------------------------------------------
# ``z = sum(y²)`` with ``y = 3x``, so the gradient reaching ``y`` is
# ``2y`` and the one reaching ``x`` is ``3 · 2y``. A hook on the non-leaf
# ``y`` returns ten times what it receives; a hook on the leaf ``x`` only
# records. Each appends an event to a list, so the order is checked too;
# the hook on ``x`` is registered first.
import torch

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

events = []


def on_y(grad):
    events.append(("hook on y", grad.tolist()))
    return grad * 10  # replaces the gradient of y


def on_x(grad):
    events.append(("hook on x", grad.tolist()))  # returns None: the gradient is unchanged


x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
x.register_hook(on_x)
y = x * 3
y.register_hook(on_y)
z = (y**2).sum()
z.backward()

check(
    events,
    [("hook on y", [6.0, 12.0]), ("hook on x", [180.0, 360.0])],
    label="events",
)
check(x.grad, [180.0, 360.0], label="x.grad")

import matplotlib.pyplot as plt

from autograd_notes import draw_matrix

gradients = {  # top to bottom, in the order backward computed them; the true gradient last
    "on_y(grad)": events[0][1],
    "on_x(grad)": events[1][1],
    "x.grad": x.grad.tolist(),
    "18 * x": (18 * x).tolist(),
}
draw_matrix(list(gradients.values()), rows=list(gradients), columns=["[0]", "[1]"], title="z.backward()")
plt.show()

# %%
# Each row is a gradient of two elements (columns ``[0]`` and ``[1]``), in
# the order ``z.backward()`` produced them, top to bottom: the ``grad``
# that ``on_y`` received, ``[6, 12]``, the one that ``on_x`` received
# after the hook on ``y`` had returned ten times its own, ``[180, 360]``,
# and ``x.grad``, the same. The last row is the true gradient
# :math:`18x = [18, 36]`; the stronger the blue, the larger the value.
#
# The hook on ``y`` received ``2y = [6, 12]`` and returned ``[60, 120]``;
# from there on the modified gradient is the only one: the multiplication
# node sends ``3 · [60, 120]`` to ``x``, the hook on ``x`` sees that, and
# it is what lands in ``x.grad`` (ten times the true gradient ``[18, 36]``).
# Hooks run in the order the gradient reaches the tensors, from the output
# back, whatever the order in which they were registered.
#
# A hook on a leaf changes what is accumulated
# --------------------------------------------
# The gradient of a leaf goes through its hooks *before* it is added to
# ``.grad``, so a hook that returns a new value changes ``.grad`` itself.
# Here the hook clamps each element of the gradient to at most 20, a
# per-element clamp of the values, not the norm clipping of
# :ref:`gradient_clipping`, which rescales all gradients together after
# backward:
x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
x.register_hook(lambda grad: grad.clamp(max=20.0))
((x * 3) ** 2).sum().backward()
check(x.grad, [18.0, 20.0], label="x.grad, clamped at 20")

# %%
# The true gradient ``18x = [18, 36]`` was clamped before it reached
# ``.grad``. A hook must return ``None`` or a gradient of the same shape;
# the error names the hook:


def to_total(grad):
    return grad.sum()


x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
y = x * 3
y.register_hook(to_total)
with expect_error(RuntimeError, match=r"^hook 'to_total' has changed the size of value$"):
    y.sum().backward()

# %%
# And a hook can only be registered on a tensor that requires a gradient:
# there would be no gradient to call it with.
with expect_error(RuntimeError, match=r"^cannot register a hook on a tensor that doesn't require gradient$"):
    torch.ones(2, device=device).register_hook(lambda grad: grad)

# %%
# ``retain_grad()`` compared with a hook
# --------------------------------------
# ``retain_grad()`` keeps a non-leaf's gradient in its ``.grad`` (see
# :ref:`non_leaf_grad`). With a hook that changes the gradient on the same
# tensor, which value is kept? Below, ``retain_grad()`` is called first and
# the hook registered second.
x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
y = x * 3
y.retain_grad()
y.register_hook(lambda grad: grad * 10)
(y**2).sum().backward()
check(y.grad, [60.0, 120.0], label="y.grad")
check(x.grad, [180.0, 360.0], label="x.grad")

# %%
# ``y.grad`` holds the gradient *after* the hook, although ``retain_grad()``
# was called first: the gradient that ``retain_grad()`` keeps is the one
# that flows on, after every hook on the tensor. Use ``retain_grad()`` to
# read a gradient after the pass, and a hook to see or change it while the
# pass runs; a hook that only records (returns ``None``) is a
# ``retain_grad()`` that also works on a tensor you cannot reach later.
#
# Post-accumulate hooks run after ``.grad`` is updated
# ----------------------------------------------------
# ``register_post_accumulate_grad_hook`` is called with the *leaf itself*,
# once its ``.grad`` holds the new sum. Its return value is ignored. The
# events show where it runs relative to an ordinary hook on the same leaf:
events = []
x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
x.grad = torch.tensor([100.0, 100.0], device=device)  # a gradient left from an earlier pass
x.register_hook(lambda grad: events.append(("hook on x", grad.tolist())))
x.register_post_accumulate_grad_hook(lambda leaf: events.append(("post-accumulate", leaf.grad.tolist())))
(x * 3).sum().backward()
check(events, [("hook on x", [3.0, 3.0]), ("post-accumulate", [103.0, 103.0])], label="events")

# %%
# The ordinary hook sees only this pass's gradient ``[3, 3]``; the
# post-accumulate hook sees ``.grad`` after the addition (see
# :ref:`gradient_accumulation`), ``100 + 3``. Only leaves accumulate, so
# only leaves accept this hook:
with expect_error(
    RuntimeError, match=r"^post accumulate grad hooks cannot be registered on non-leaf tensors$"
):
    (x * 3).register_post_accumulate_grad_hook(lambda leaf: None)

# %%
# An optimizer step inside backward
# ---------------------------------
# Because the hook receives the leaf with its finished gradient, it can
# update the leaf and free the gradient at once, parameter by parameter,
# while the backward pass goes on to the next one. Here, plain gradient
# descent with a learning rate of 0.1 on :math:`\sum w^2`:
w = torch.tensor([1.0, 2.0], device=device, requires_grad=True)


def sgd_step(leaf):
    with torch.no_grad():
        leaf -= 0.1 * leaf.grad
    leaf.grad = None


w.register_post_accumulate_grad_hook(sgd_step)
(w**2).sum().backward()
check(w, [0.8, 1.6], label="w after backward")
check(w.grad, None, label="w.grad")

# %%
# Each further ``backward()`` is one more step, with no optimizer in sight:
from autograd_notes import draw_series

history = [[1.0, 2.0], w.tolist()]
for _ in range(4):
    (w**2).sum().backward()
    history.append(w.tolist())
check(w, [0.8**5, 2 * 0.8**5], label="w after 5 backward() calls")
series = {"w[0]": [w_k[0] for w_k in history], "w[1]": [w_k[1] for w_k in history]}
draw_series(series, x=range(6), xlabel="k", title="(w**2).sum().backward()")
plt.show()

# %%
# The two elements of ``w`` after ``k`` calls of
# ``(w**2).sum().backward()``, for ``k`` from 0 to 5: each call multiplies
# them by 0.8, from ``[1, 2]`` down to ``[0.33, 0.66]``.
#
# The step ``w - 0.1 · 2w`` happened during ``backward()``, and ``w.grad`` is
# ``None`` again: no gradient of the size of the model is kept until an
# ``optimizer.step()``, which is the point of the pattern for large models.
# The update is in place under ``no_grad``, as an optimizer's is. It cannot
# corrupt this backward pass: a leaf's gradient is complete only when every
# node that uses (and may have saved) the leaf has run. It does change the
# leaf under every *other* graph that saved it: a second backward through a
# graph kept with ``retain_graph=True``, or through a second loss built
# before this pass, finds the leaf at a newer version and raises the error
# of :ref:`detach_inplace_saved`.
#
# ``torch.autograd.grad`` runs hooks but accumulates nothing
# ----------------------------------------------------------
# ``torch.autograd.grad`` computes the same gradients as ``backward()`` but
# returns them instead of adding them to ``.grad``. An ordinary hook on an
# input still runs, and what it returns is what ``grad`` returns. A
# post-accumulate hook does not run, as nothing is accumulated: an
# optimizer step placed in one does not happen, and nothing says so.
v = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
ran = []


def scaled_by_ten(grad):
    ran.append("hook")
    return grad * 10


v.register_hook(scaled_by_ten)
v.register_post_accumulate_grad_hook(lambda leaf: ran.append("post-accumulate"))
(returned,) = torch.autograd.grad((v * 3).sum(), v)
check(returned, [30.0, 30.0], label="what autograd.grad returned")
check(ran, ["hook"], label="hooks that ran")
check(v.grad, None, label="v.grad")

# %%
# The hook turned the gradient ``[3, 3]`` into ``[30, 30]`` before
# ``grad`` returned it, and ``v.grad`` was never written. Code that relies
# on a post-accumulate hook (the step inside backward above, or a
# framework's gradient hook) needs ``backward()``.
#
# Removing a hook
# ---------------
# Every ``register_*hook`` call returns a handle; its ``remove()`` takes the
# hook off. The handle is the only way to do so, so keep it.
events = []


def times_ten(grad):
    events.append("times_ten")
    return grad * 10


x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
handle = x.register_hook(times_ten)
(x * 3).sum().backward()
check(x.grad, [30.0, 30.0], label="x.grad with the hook")

handle.remove()
x.grad = None
(x * 3).sum().backward()
check(x.grad, [3.0, 3.0], label="x.grad after handle.remove()")
check(events, ["times_ten"], label="events")

# %%
# The hook ran in the first pass only. A hook that is never removed runs in
# every later pass through its tensor, which for a leaf means every training
# step: a forgotten scaling hook multiplies every gradient from then on.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`).
