"""
.. _detach_shares_storage:

``detach()`` shares memory
==========================

``detach()`` returns a new tensor object without history, but over the same
memory as the original: writing into one writes into the other. This example
shows that sharing, looks at what is left of the old ``Variable`` API, and
uses ``detach()`` for what it is made for: stopping gradients between two
modules, so that only the second one gets gradients.

.. questions::

   - Does ``detach()`` copy the tensor's data?
   - Why did changing a detached tensor also change the original?
   - How do I stop gradients from flowing back into an encoder?
   - What replaced ``volatile=True`` in PyTorch?
"""

# %%
# Writing into a detached tensor
# ------------------------------
# ``v3`` is computed from a leaf and is part of a graph; ``v3_detached`` is
# not. An in-place addition to ``v3_detached`` still shows up in ``v3``.
import torch

from autograd_notes import check, runner_device, show_state

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

v1 = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
v2 = torch.tensor([10.0, 20.0], device=device)
v3 = v1 + v2
v3_detached = v3.detach()
show_state(v1=v1, v2=v2, v3=v3, v3_detached=v3_detached)

import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

tensors = {"v1": v1, "v2": v2, "v3": v3, "v3_detached": v3_detached}
same_storage = v3_detached.untyped_storage().data_ptr() == v3.untyped_storage().data_ptr()
check(same_storage, True, label="v3 and v3_detached share storage")
draw_tensors(tensors, title="v3_detached = v3.detach()")
plt.show()

# %%
# Each grey strip is a storage with its values; under it, one coloured row
# per tensor over those cells, then its shape (``[2]``), its version
# (``v0``: version 0) and its ``grad_fn``, or ``requires_grad``. ``v1`` and ``v2`` have strips of their
# own. ``v3`` (``AddBackward0``) and ``v3_detached`` (no ``grad_fn``, no
# ``requires_grad``) are two rows over one strip holding ``11.`` and
# ``22.``. Now the addition into ``v3_detached``:
v3_detached.add_(torch.tensor([0.5, 0.5], device=device))
check(v3, [11.5, 22.5], label="v3")
check(v3._version, 1, label="v3._version")
check(v3_detached._version, 1, label="v3_detached._version")
show_state(v3=v3, v3_detached=v3_detached)
draw_tensors(tensors, title="v3_detached.add_(0.5)")
plt.show()

# %%
# After the addition the shared strip holds ``11.5`` and ``22.5``, and both
# rows over it end in version 1 (``[2] v1``): one version counter, moved by
# a write through either tensor. The tensors ``v1`` and ``v2`` are
# unchanged, at version 0.
#
# No line above names ``v3`` after the addition, yet its values changed:
# ``v3_detached`` is another tensor object over the same storage. It also
# shares ``v3``'s version counter, which moved from 0 to 1. The edit is
# harmless for a backward pass here, because an addition saves none of its
# inputs or outputs:
v3.sum().backward()
check(v1.grad, [1.0, 1.0], label="v1.grad")

# %%
# When a node did save the edited tensor, the shared counter makes backward
# fail instead; :ref:`detach_inplace_saved` shows both cases.
#
# What is left of ``Variable``
# ----------------------------
# Older code wraps tensors in ``torch.autograd.Variable``. The class is
# deprecated in the documentation but still importable, and calling it emits
# no warning: it returns a plain ``torch.Tensor``.
import warnings

from torch.autograd import Variable

base = torch.tensor([1.0, 2.0], device=device)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    u1 = Variable(base, requires_grad=True)
    u2 = Variable(torch.tensor([10.0, 20.0], device=device))
check(len(caught), 0, label="warnings emitted by Variable(...)")
check(type(u1) is torch.Tensor, True, label="type(u1) is torch.Tensor")
check(u1 is base, False, label="u1 is base")
check(base.requires_grad, False, label="base.requires_grad")
same_memory = u1.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
check(same_memory, True, label="u1 and base share storage")
show_state(base=base, u1=u1)

u3 = u1 + u2
u3.detach().data.add_(torch.tensor([0.5, 0.5], device=device))
check(u3, [11.5, 22.5], label="u3")
check(u3._version, 0, label="u3._version")

# %%
# ``Variable(base, requires_grad=True)`` gave a new leaf tensor over
# ``base``'s memory, much like ``base.detach().requires_grad_()``, and left
# ``base`` itself as it was. Old code written as
# ``u3.detach().data.add_(...)`` still changes ``u3`` through the shared
# storage. Note the version counter, though: the
# trailing ``.data`` gives a tensor with a counter of its own, so this route
# edits ``u3`` without autograd being able to tell, exactly as in
# :ref:`data_vs_detach`. Plain ``u3.detach().add_(...)`` is the safer
# spelling: its edit moves the shared counter, so a graph that saved ``u3``
# reports it at backward.
#
# Code of that era also passed ``volatile=True`` to mark tensors that
# should build no graph. The flag was removed in PyTorch 0.4: the argument
# is accepted with a warning and ignored, and ``torch.no_grad()`` took its
# place.
from autograd_notes import expect_warning

with expect_warning(
    UserWarning,
    match=r"^volatile was removed and now has no effect\. Use `with torch\.no_grad\(\):` instead\.$",
):
    legacy = Variable(torch.ones(2, device=device), volatile=True)
check(legacy.requires_grad, False, label="legacy.requires_grad")

# %%
# Stopping gradients between two modules
# --------------------------------------
# ``detach()`` is what trains one module on the output of another without
# training the first. ``encoder`` and ``head`` are two small linear layers,
# with fixed weights so that the gradients can be checked by hand.
from torch import nn

encoder = nn.Linear(2, 3, device=device)
head = nn.Linear(3, 1, device=device)
with torch.no_grad():
    encoder.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    encoder.bias.fill_(0.5)
    head.weight.copy_(torch.tensor([[1.0, -2.0, 0.5]]))
    head.bias.zero_()

x = torch.tensor([[2.0, -1.0]], device=device)
features = encoder(x)
check(features, [[2.5, -0.5, 1.5]], label="features")

score = head(features.detach())
score.sum().backward()
check(head.weight.grad, [[2.5, -0.5, 1.5]], label="head.weight.grad")
check(head.bias.grad, [1.0], label="head.bias.grad")
check(encoder.weight.grad, None, label="encoder.weight.grad")
check(encoder.bias.grad, None, label="encoder.bias.grad")

# %%
# The head's weight gradient is the feature vector it was applied to, as for
# any linear layer, and its bias gradient is 1. The encoder's parameters get
# no gradient at all: ``features.detach()`` is a tensor without history, so
# backward from ``score`` ends there. Without the ``detach()``, the same
# backward reaches the encoder:
head.zero_grad()
score = head(encoder(x))
score.sum().backward()
check(head.weight.grad, [[2.5, -0.5, 1.5]], label="head.weight.grad")
check(encoder.weight.grad, [[2.0, -1.0], [-4.0, 2.0], [1.0, -0.5]], label="encoder.weight.grad")
check(encoder.bias.grad, [1.0, -2.0, 0.5], label="encoder.bias.grad")

# %%
# Each encoder output ``i`` reaches ``score`` with weight ``head.weight[0, i]``,
# so the encoder's weight gradient is the outer product of ``head.weight``
# and ``x``, and its bias gradient is ``head.weight`` itself.
#
# Sources
# -------
# - :ref:`source_001` claims that the tensor returned by ``detach()`` points
#   to the same data as the original, so that adding to the detached copy
#   (written ``v3.detach().data.add_(t1)`` with ``Variable`` objects)
#   changes ``v3`` too. **Holds**, through ``detach()`` alone and through
#   ``detach().data``; the second route does not move ``v3``'s version
#   counter.
# - :ref:`source_001` writes its example with ``torch.autograd.Variable``.
#   **Holds only as a legacy spelling**: ``Variable`` is deprecated, and
#   ``Variable(t)`` returns a plain ``torch.Tensor`` (without a warning).
# - :ref:`source_001` quotes documentation saying that ``detach()`` of a
#   ``volatile`` Variable is volatile too. **No longer applies**: ``volatile``
#   was removed in PyTorch 0.4 and is ignored with a warning (checked
#   above); ``torch.no_grad()`` replaces it.
# - :ref:`source_001` claims that ``z = B(A(x).detach())`` computes
#   gradients for the parameters of ``B`` and not for those of ``A``.
#   **Holds**: ``A``'s gradients stay ``None``.
