"""
.. _tensor_kinds:

Tensor, Parameter, Variable
===========================

Old tutorials wrap data in ``torch.autograd.Variable``, models hold
``torch.nn.Parameter`` and everyday code calls ``torch.tensor``. This example
shows that all three give a ``torch.Tensor`` today, that they differ only
in the default of ``requires_grad`` and in how a module treats them, and that
``Variable`` no longer produces a type of its own.

.. questions::

   - Difference between ``torch.tensor``, ``nn.Parameter`` and ``Variable``?
   - Is ``torch.autograd.Variable`` still needed in modern PyTorch?
   - Why is my tensor attribute missing from ``model.parameters()``?
"""

# %%
# ``torch.tensor``: no gradient unless asked
# ------------------------------------------
# A tensor built from data is a leaf that does not require a gradient. The
# ``requires_grad=True`` argument turns that on at creation.
import torch

from autograd_notes import check, runner_device, show_state

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

weights = torch.tensor([0.25, 4.0], device=device)
check(type(weights) is torch.Tensor, True, label="type(weights) is torch.Tensor")
check(weights.requires_grad, False, label="weights.requires_grad")

tracked = torch.tensor([0.25, 4.0], device=device, requires_grad=True)
check(tracked.requires_grad, True, label="tracked.requires_grad")

# %%
# Both are leaves: nobody computed them, so they have no ``grad_fn``. Only
# ``tracked`` will receive a ``.grad`` after a backward pass.
#
# ``nn.Parameter``: a Tensor that requires a gradient by default
# ---------------------------------------------------------------
# Wrapping a tensor in ``torch.nn.Parameter`` gives a leaf that requires a
# gradient without being asked. ``Parameter`` is a subclass of ``Tensor``, so
# everything that accepts a tensor accepts it.
scale = torch.nn.Parameter(weights)
check(scale.requires_grad, True, label="scale.requires_grad")
check(isinstance(scale, torch.Tensor), True, label="isinstance(scale, torch.Tensor)")
check(type(scale) is torch.nn.Parameter, True, label="type(scale) is torch.nn.Parameter")

frozen = torch.nn.Parameter(torch.tensor([1.0], device=device), requires_grad=False)
check(frozen.requires_grad, False, label="frozen.requires_grad")
show_state(weights=weights, scale=scale)

# %%
# The table shows that ``scale`` shares its storage with ``weights``: the
# wrapper does not copy the data. ``draw_tensors`` draws each storage with
# the tensors over it:
import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

same_storage = scale.untyped_storage().data_ptr() == weights.untyped_storage().data_ptr()
check(same_storage, True, label="scale and weights share storage")
draw_tensors({"weights": weights, "scale": scale, "tracked": tracked, "frozen": frozen})
plt.show()

# %%
# Each grey strip is a storage, with the values in its cells; each coloured
# row under it is a tensor over those cells, followed by its shape, its
# version (``v0``) and ``requires_grad`` when it requires a gradient.
# ``weights`` and ``scale`` are two rows over one strip holding ``0.25`` and
# ``4.``: one memory, two tensor objects, and only ``scale`` requires a
# gradient. ``tracked`` holds the same numbers in a strip of its own, and
# ``frozen`` is a parameter without ``requires_grad``.
#
# The default can be switched off (``frozen``), so ``requires_grad`` is not
# what makes a parameter.
#
# What does: a ``Parameter`` assigned to a module attribute is registered and
# returned by ``parameters()`` (and so reaches the optimizer); a plain tensor
# assigned the same way is not.
layer = torch.nn.Module()
layer.scale = scale
layer.offset = tracked
registered = ", ".join(name for name, _ in layer.named_parameters())
check(registered, "scale", label="registered parameters")

# %%
# ``Variable`` is deprecated and returns a plain Tensor
# -----------------------------------------------------
# Since PyTorch 0.4 every tensor can take part in autograd, so ``Variable``
# has nothing left to add. The name still exists for old code, and calling it
# still works, but what comes back is an ordinary ``torch.Tensor``.
from torch.autograd import Variable

legacy = Variable(torch.tensor([3.0, -1.0], device=device), requires_grad=True)
check(type(legacy) is torch.Tensor, True, label="type(legacy) is torch.Tensor")
check(type(legacy) is Variable, False, label="type(legacy) is Variable")
check(legacy.requires_grad, True, label="legacy.requires_grad")

default_legacy = Variable(torch.tensor([3.0, -1.0], device=device))
check(default_legacy.requires_grad, False, label="default_legacy.requires_grad")
check(isinstance(weights, Variable), True, label="isinstance(weights, Variable)")

# %%
# Like ``torch.tensor``, ``Variable`` requires a gradient only when asked.
# The deprecation is silent: no warning is emitted (the site build turns
# warnings into errors, so one would have stopped this page); the call simply
# returns a Tensor. ``isinstance`` is kept working for old code in a
# surprising way: *every* tensor passes ``isinstance(..., Variable)``, even
# ``weights``, which never went near ``Variable``, so the check tells you
# nothing.

# %%
# All three take part in the same backward pass
# ---------------------------------------------
# Whatever made them, leaves that require a gradient receive one. Here the
# leaves are a tensor, a parameter and a ``Variable`` result, multiplied
# together.
product = (tracked * scale * legacy).sum()
product.backward()
check(tracked.grad, [0.75, -4.0], label="tracked.grad")  # scale * legacy
check(scale.grad, [0.75, -4.0], label="scale.grad")  # tracked * legacy
check(legacy.grad, [0.0625, 16.0], label="legacy.grad")  # tracked * scale
check(weights.grad, None, label="weights.grad")

# %%
# ``weights`` shares its storage with ``scale`` but is a different tensor
# that does not require a gradient, so it gets none. A gradient belongs to
# the tensor object that took part in the graph, not to its memory.
#
# Sources
# -------
# - :ref:`source_002` claims that ``torch.tensor``,
#   ``torch.autograd.Variable`` and ``torch.nn.Parameter`` are essentially the
#   same, with the same attributes (``.data``, ``.grad``, ``.grad_fn``), that
#   the first two take a ``requires_grad`` argument and that ``Parameter``
#   requires a gradient by default. **Holds** on the runner that built this
#   page: all three are Tensors and all three can be differentiated.
# - The same document treats ``Variable`` as a kind of tensor of its own.
#   **Does not hold** any more: ``Variable`` is deprecated and
#   ``Variable(t)`` returns a plain ``torch.Tensor``, without a warning. The
#   difference that matters today, registration of a ``Parameter`` in a
#   module, is not in the document.
