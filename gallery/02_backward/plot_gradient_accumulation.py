"""
.. _gradient_accumulation:

Gradients add up
================

``backward()`` does not overwrite a leaf's ``.grad``: it adds to it. This
example runs two backward passes from two points of the same chain and shows
the sum that results, then the two ways to start again from nothing:
``grad.zero_()`` and ``grad = None``.

.. questions::

   - Why does ``.grad`` keep growing every time I call ``backward()``?
   - Does ``backward()`` overwrite ``.grad`` or add to it?
   - Why do I need to zero the gradients every training step?
   - Should I reset gradients with ``zero_()`` or set them to None?
"""

# %%
# Two backward passes, one ``.grad``
# ----------------------------------
# ``doubled = x * 2`` and ``shifted = doubled + 3`` both have a derivative of
# 2 with respect to ``x``. A backward pass from ``doubled``, then one from
# ``shifted``, each contribute that 2.
import torch

from autograd_notes import check, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

x = torch.tensor([0.7], device=device, requires_grad=True)
doubled = x * 2
shifted = doubled + 3

doubled.backward(retain_graph=True)
check(x.grad, [2.0], label="x.grad after doubled.backward()")

shifted.backward()
check(x.grad, [4.0], label="x.grad after shifted.backward()")

# %%
# The second value is 4, not 2: d(shifted)/dx is 2, but PyTorch added it to
# the 2 already stored in ``x.grad``. Nothing warns about it.
#
# The first call needs ``retain_graph=True`` because the second pass goes
# through the same multiplication node, and that node's saved value is freed
# by a plain ``backward()`` (see :ref:`retain_graph`):
y = torch.tensor([0.7], device=device, requires_grad=True)
y_doubled = y * 2
y_shifted = y_doubled + 3
y_doubled.backward()
with expect_error(
    RuntimeError,
    match=(
        r"Trying to backward through the graph a second time "
        r"\(or directly access saved tensors after they have already been freed\)"
    ),
):
    y_shifted.backward()

# %%
# The multiplication node kept a value for its backward formula (the page on
# ``retain_graph`` shows which); the first pass freed it, so the second pass
# cannot go through that node again.
#
# Summing into ``.grad`` is on purpose: it is what lets several losses, or
# several small batches, contribute to one update before the optimizer step.
# It is also why a training loop must clear the gradients at every step.
#
# Clearing with ``zero_()``
# -------------------------
# ``x.grad`` is itself a tensor, so it can be zeroed in place between the two
# passes. The second pass then leaves the 2 that belongs to it alone.
x = torch.tensor([0.7], device=device, requires_grad=True)
doubled = x * 2
shifted = doubled + 3

doubled.backward(retain_graph=True)
check(x.grad, [2.0], label="x.grad after doubled.backward()")
x.grad.zero_()
check(x.grad, [0.0], label="x.grad after zero_()")
shifted.backward()
check(x.grad, [2.0], label="x.grad after shifted.backward()")

# %%
# Clearing with ``None``
# ----------------------
# Setting ``x.grad = None`` drops the tensor instead of filling it with zeros.
# The next backward pass then creates a fresh ``.grad`` rather than adding to
# an existing one. The table shows the leaf without any gradient in between.
x = torch.tensor([0.7], device=device, requires_grad=True)
doubled = x * 2
shifted = doubled + 3

doubled.backward(retain_graph=True)
x.grad = None
show_state(x=x)
shifted.backward()
check(x.grad, [2.0], label="x.grad after shifted.backward()")

# %%
# Both ways give the same next gradient. ``None`` saves the memory of the
# zeros and an addition, and it is what optimizers do by default:
# ``zero_grad()`` sets every parameter's ``.grad`` to ``None`` unless it is
# called with ``set_to_none=False``.
optimizer = torch.optim.SGD([x], lr=0.1)
optimizer.zero_grad()
check(x.grad, None, label="x.grad after optimizer.zero_grad()")

x.grad = torch.ones_like(x)
optimizer.zero_grad(set_to_none=False)
check(x.grad, [0.0], label="x.grad after zero_grad(set_to_none=False)")

# %%
# Five passes, cleared or not
# ---------------------------
# A training loop calls ``backward()`` once per step. Here are five passes
# from ``shifted``, recording ``x.grad`` after each one: first with nothing
# in between, then with ``x.grad = None`` before each pass.
import matplotlib.pyplot as plt

from autograd_notes import draw_series

x = torch.tensor([0.7], device=device, requires_grad=True)
shifted = x * 2 + 3
kept = []
for _ in range(5):
    shifted.backward(retain_graph=True)
    kept.append(x.grad.item())

cleared = []
for _ in range(5):
    x.grad = None
    shifted.backward(retain_graph=True)
    cleared.append(x.grad.item())

check(kept, [2.0, 4.0, 6.0, 8.0, 10.0], label="kept")
check(cleared, [2.0, 2.0, 2.0, 2.0, 2.0], label="cleared")
draw_series(
    {"shifted.backward()": kept, "x.grad = None; shifted.backward()": cleared},
    ylabel="x.grad",
)
plt.show()

# %%
# Each line is ``x.grad`` after each of the five passes, drawn against the
# number of the pass (1 to 5); the legend gives the code of one step.
# Without clearing,
# every pass adds its 2 and the values climb 2, 4, 6, 8, 10; with
# ``x.grad = None`` before each pass the line stays flat at 2, the gradient
# of a single pass.
#
# Sources
# -------
# - :ref:`source_002` builds ``b = a*2``, ``c = b+3``, calls
#   ``b.backward(retain_graph=True)`` and then ``c.backward()``, and finds
#   ``a.grad`` equal to 2 and then 4: gradients accumulate because PyTorch
#   does not clear them. **Holds** on the runner that built this page, with
#   other numbers here.
# - The same document zeroes ``a.grad`` in place between the two calls (or
#   suggests assigning a zero tensor) and finds 2. **Holds**; setting
#   ``.grad`` to ``None``, as ``zero_grad()`` does by default today, gives
#   the same result.
