"""
.. _empty_uninitialised:

Uninitialised memory made visible
=================================

``torch.empty`` returns memory that nobody wrote, so a buffer that code
forgets to fill holds leftovers that look like numbers. This example turns
on ``torch.use_deterministic_algorithms(True)``, under which PyTorch fills
such memory with NaN (floats) or the largest value (integers), shows how
that makes a forgotten element visible in a loss and its gradient, and
restores the global settings at the end.

.. questions::

   - Why does ``torch.empty`` return NaN with deterministic algorithms on?
   - How do I catch a buffer element I forgot to fill?
   - Why is my weight's gradient NaN when created with ``torch.empty``?
"""

# %%
# Nothing to print
# ----------------
# By default ``torch.empty`` only allocates. Its shape and dtype are
# defined; its values are not, and this page never prints or checks them.
import matplotlib.pyplot as plt
import torch

from autograd_notes import check, draw_tensors, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

scratch = torch.empty(4, device=device)
check(scratch.numel(), 4, label="scratch.numel()")
check(scratch.dtype is torch.float32, True, label="scratch.dtype is torch.float32")

# %%
# :ref:`pin_memory_empty` shows that no option of ``torch.empty`` changes
# that. A global setting does: PyTorch's determinism switch.
#
# Filling with NaN and the largest integer
# ----------------------------------------
# ``torch.utils.deterministic.fill_uninitialized_memory`` is on by default,
# but it only acts while ``torch.use_deterministic_algorithms(True)`` is
# set, which is off by default. The current settings are saved first, to
# be restored at the end.
fill_setting = torch.utils.deterministic.fill_uninitialized_memory
check(fill_setting, True, label="torch.utils.deterministic.fill_uninitialized_memory")
previous = torch.are_deterministic_algorithms_enabled()
previous_warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
check(previous, False, label="torch.are_deterministic_algorithms_enabled()")

torch.use_deterministic_algorithms(True)
floats = torch.empty(4, device=device)
halves = torch.empty_like(floats, dtype=torch.float16)
longs = torch.empty(4, device=device, dtype=torch.int64)
ints = torch.empty(4, device=device, dtype=torch.int32)
check(torch.isnan(floats).all().item(), True, label="torch.isnan(floats).all()")
check(torch.isnan(halves).all().item(), True, label="torch.isnan(halves).all()")
check((longs == torch.iinfo(torch.int64).max).all().item(), True, label="longs all int64 max")
check((ints == torch.iinfo(torch.int32).max).all().item(), True, label="ints all int32 max")

# %%
# Every ``empty`` result is now written before it is returned: floating
# point and complex dtypes with NaN, integer dtypes with their largest
# value. The documentation lists ``torch.empty``, ``empty_like``,
# ``empty_strided``, ``empty_permuted`` and ``Tensor.resize_``; growing a
# tensor fills only the new elements:
grown = torch.zeros(2, device=device)
grown.resize_(4)
check(grown[:2], [0.0, 0.0], label="grown[:2]")
check(torch.isnan(grown[2:]).all().item(), True, label="torch.isnan(grown[2:]).all()")

# %%
# A forgotten element becomes visible
# -----------------------------------
# A buffer of four values, of which the code fills only three, feeds a
# loss. With leftovers in the fourth slot, the loss would be a plausible
# number that changes from run to run; with the fill, it is NaN.
values = torch.tensor([1.0, 2.0, 3.0], device=device)
buffer = torch.empty(4, device=device)
buffer[:3] = values
check(buffer[:3], [1.0, 2.0, 3.0], label="buffer[:3]")
check(torch.isnan(buffer[3]).item(), True, label="torch.isnan(buffer[3])")
check(torch.isnan(buffer.sum()).item(), True, label="torch.isnan(buffer.sum())")
draw_tensors(
    {"buffer": buffer, "buffer[:3]": buffer[:3]}, title="buffer = torch.empty(4); buffer[:3] = values"
)
plt.show()

# %%
# One block of four cells, ``1. 2. 3. nan``: ``buffer`` covers all four
# (shape ``[4]``), the view ``buffer[:3]`` the three that the code wrote;
# both are at ``v1``, after that one write. The fourth cell holds the
# ``nan`` that the fill wrote.
#
# The same holds for a parameter created with ``torch.empty`` and never
# initialised: the loss is NaN, and so is every gradient that depends on
# the parameter's values.
weight = torch.empty(3, device=device, requires_grad=True)
loss = (weight**2).sum()
loss.backward()
check(torch.isnan(loss).item(), True, label="torch.isnan(loss)")
check(torch.isnan(weight.grad).all().item(), True, label="torch.isnan(weight.grad).all()")
check(torch.isnan(weight).all().item(), True, label="torch.isnan(weight).all()")
draw_tensors(
    {"weight": weight, "weight.grad": weight.grad}, title="loss = (weight**2).sum(); loss.backward()"
)
plt.show()

# %%
# ``weight`` (shape ``[3]``, ``requires_grad``) and ``weight.grad``, each in
# its own memory, hold ``nan`` in every cell.
#
# NaN spreads through every operation it meets, so the mistake shows up at
# the first loss printed, on every run and every device, instead of as a
# model that trains slightly differently each time. The fill costs a write
# of every tensor those functions return, which is why the documentation
# allows turning it off once a program is known not to read uninitialised
# memory.
#
# Restoring the settings
# ----------------------
# ``use_deterministic_algorithms`` is global: left on, it would fill (and
# refuse nondeterministic operations) in every later computation.
torch.use_deterministic_algorithms(previous, warn_only=previous_warn_only)
check(
    torch.are_deterministic_algorithms_enabled(),
    False,
    label="torch.are_deterministic_algorithms_enabled()",
)
check(
    torch.utils.deterministic.fill_uninitialized_memory,
    True,
    label="torch.utils.deterministic.fill_uninitialized_memory",
)

# %%
# This example never changes ``fill_uninitialized_memory`` itself, so only
# ``use_deterministic_algorithms`` had to be restored. Determinism also
# changes which algorithms run; :ref:`nondeterministic_index_add` shows that
# side of the same switch.
#
# Sources
# -------
# - :ref:`source_003` warns that ``torch.empty`` gives different values from
#   run to run. **Holds** by default, as :ref:`pin_memory_empty` says; with
#   ``torch.use_deterministic_algorithms(True)`` and
#   ``torch.utils.deterministic.fill_uninitialized_memory`` (the default),
#   the values are defined and the same on every run: NaN for floating
#   point dtypes, the largest value for integer dtypes, as checked above.
