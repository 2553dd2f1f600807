"""
.. _zero_grad_none:

Gradients that ``zero_grad`` removed
====================================

Since PyTorch 2.0, ``optimizer.zero_grad()`` and ``module.zero_grad()`` set
every ``.grad`` to ``None`` instead of filling it with zeros. This example
shows the code that this breaks (anything that reads ``p.grad`` after the
call), why ``set_to_none=False`` is not a drop-in fix, and the one place
where ``None`` and zeros give different training: optimizers skip a
parameter whose gradient is ``None``, but still move one whose gradient is
zero.

.. questions::

   - Why do I get ``'NoneType' object has no attribute`` after ``zero_grad()``?
   - Why is ``.grad`` None after ``optimizer.zero_grad()``?
   - What does ``set_to_none=False`` change in ``zero_grad()``?
   - Why does ``p.grad * lr`` say ``unsupported operand type(s) for *: 'NoneType'``?
"""

# %%
# Reading ``.grad`` after ``zero_grad()``
# ---------------------------------------
# A typical logging line computes the norm of each gradient. Placed after
# ``zero_grad()``, it fails, with a message that does not mention gradients.
import torch
from torch import nn

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.tensor([[1.0, 2.0]], device=device)

model(inputs).sum().backward()
optimizer.step()
optimizer.zero_grad()
check(model.weight.grad, None, label="model.weight.grad")
with expect_error(AttributeError, match=r"^'NoneType' object has no attribute 'norm'$"):
    print(model.weight.grad.norm())
with expect_error(TypeError, match=r"unsupported operand type\(s\) for \*: 'NoneType' and 'float'"):
    model.weight.grad * 0.5

# %%
# ``zero_grad()`` removed the gradient tensors, so ``model.weight.grad`` is
# plain ``None`` and every method or operator on it fails as on any
# ``None``. :ref:`gradient_accumulation` shows that this is the default and
# that the next ``backward()`` creates fresh gradients; the failure only
# hits code that reads gradients between ``zero_grad()`` and that
# ``backward()``. ``nn.Module.zero_grad()`` has the same default:
model(inputs).sum().backward()
model.zero_grad()
check(model.bias.grad, None, label="model.bias.grad after model.zero_grad()")

# %%
# The simplest fix is to read gradients where they exist, between
# ``backward()`` and ``zero_grad()``, and to test for ``None`` where a
# parameter may not have one:
model(inputs).sum().backward()
norms = {name: p.grad.norm().item() for name, p in model.named_parameters() if p.grad is not None}
check(sorted(norms), ["bias", "weight"], label="sorted(norms)")
check(norms["bias"], 1.0, label="norms['bias']")
optimizer.zero_grad()

# %%
# ``set_to_none=False`` only zeroes what exists
# ---------------------------------------------
# Switching back to zeros looks like the compatible choice, but
# ``set_to_none=False`` fills gradients that exist and leaves ``None``
# alone. A parameter that has never received a gradient, such as one the
# loss does not use, stays ``None``:
unused = nn.Parameter(torch.ones(2, device=device))
used = nn.Parameter(torch.ones(2, device=device))
optimizer = torch.optim.SGD([used, unused], lr=0.1)
(used * 3).sum().backward()
optimizer.zero_grad(set_to_none=False)
check(used.grad, [0.0, 0.0], label="used.grad")
check(unused.grad, None, label="unused.grad")

# %%
# So code that reads ``.grad`` must handle ``None`` whatever ``zero_grad``
# is told. ``torch.nn.utils.clip_grad_norm_`` does: it skips parameters
# without a gradient, and returns a total norm of 0 when none has one.
optimizer.zero_grad()
total = nn.utils.clip_grad_norm_([used, unused], max_norm=1.0)
check(total, 0.0, label="clip_grad_norm_ without any gradient")

# %%
# ``None`` and zeros train differently
# ------------------------------------
# Two copies of the same parameter take one step of SGD with momentum, and
# then a second step with no new gradient: one after ``zero_grad()``, one
# after ``zero_grad(set_to_none=False)``.
skipped = nn.Parameter(torch.tensor([1.0], device=device))
zeroed = nn.Parameter(torch.tensor([1.0], device=device))
opt_skipped = torch.optim.SGD([skipped], lr=0.1, momentum=0.9)
opt_zeroed = torch.optim.SGD([zeroed], lr=0.1, momentum=0.9)
for p, opt in ((skipped, opt_skipped), (zeroed, opt_zeroed)):
    (2 * p).sum().backward()
    opt.step()
check(skipped, [0.8], label="skipped after the first step")
check(zeroed, [0.8], label="zeroed after the first step")

opt_skipped.zero_grad()
opt_zeroed.zero_grad(set_to_none=False)
opt_skipped.step()
opt_zeroed.step()
check(skipped, [0.8], label="skipped after a step with grad None")
check(zeroed, [0.62], label="zeroed after a step with grad 0")

# %%
# The first step is the same for both: gradient 2, momentum buffer 2, a
# move of :math:`0.1 \times 2`. At the second step the optimizer skips
# ``skipped`` entirely because its gradient is ``None``. ``zeroed`` has a
# gradient, zero, so the step runs: the momentum buffer becomes
# :math:`0.9 \times 2 + 0 = 1.8` and the parameter moves by 0.18 more.
# Any optimizer state that moves a parameter without a new gradient, as
# momentum does here, makes the same difference. A zero
# gradient says "this loss does not depend on the parameter"; ``None`` says
# "no loss reached it", and optimizers leave such a parameter exactly as
# it is, which is what freezing part of a model, or a branch not taken in
# this step, usually needs.
#
# Eighteen more steps of the same kind, each a ``zero_grad`` and a
# ``step`` with no new gradient, and the value of each parameter after
# every step:
import matplotlib.pyplot as plt

from autograd_notes import draw_series

values = {"skipped.item()": [0.8, skipped.item()], "zeroed.item()": [0.8, zeroed.item()]}
for _ in range(18):
    opt_skipped.zero_grad()
    opt_zeroed.zero_grad(set_to_none=False)
    opt_skipped.step()
    opt_zeroed.step()
    values["skipped.item()"].append(skipped.item())
    values["zeroed.item()"].append(zeroed.item())
check(skipped, [0.8], label="skipped after 20 steps")
check(zeroed, [1 - 2 * (1 - 0.9**20)], label="zeroed after 20 steps, 1 - 2 * (1 - 0.9**20)")
draw_series(values, xlabel="opt.step()")
plt.show()

# %%
# The value of each parameter after 1 to 20 steps. Both are at 0.8 after
# the first step, which took them from 1. From then on ``skipped`` stays at
# 0.8, and ``zeroed`` keeps falling, by less at each step (0.62 after the
# second, about -0.76 after the twentieth), towards -1: the momentum
# buffer, multiplied by 0.9 at each step, moves it a total of
# :math:`0.1 \times 2 / (1 - 0.9) = 2` from 1, of which only the first
# 0.2 came with a gradient.
#
# Sources
# -------
# - :ref:`source_002` claims that gradients accumulate until they are zeroed,
#   and zeroes them in place (or suggests assigning zeros). **Holds**, as
#   rebuilt in :ref:`gradient_accumulation`. Today's ``zero_grad()`` does
#   neither by default: it sets ``.grad`` to ``None``, which gives the same
#   next gradient but breaks code that reads ``.grad`` in between, and
#   which optimizers treat differently from zeros.
