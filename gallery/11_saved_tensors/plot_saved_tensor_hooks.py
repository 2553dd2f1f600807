"""
.. _saved_tensor_hooks:

Hooks on saved tensors
======================

Every tensor that a node saves for its gradient formula can go through a
pair of hooks of yours: one when the forward pass saves it, one when the
backward pass reads it back. This example counts what a small graph saves,
stores the saved tensors as copies and in lower precision, shows what that
does to the gradient and to the in-place check, and ends with the two
context managers PyTorch builds on these hooks, ``save_on_cpu`` and
``allow_mutation_on_saved_tensors``.

.. questions::

   - How do I offload saved activations to CPU memory?
   - What are ``saved_tensors_hooks`` used for?
   - Can I store saved activations in bfloat16 to save memory?
   - How do I edit a saved tensor in place without breaking backward?
"""

# %%
# Counting the saved tensors
# --------------------------
# Inside ``torch.autograd.graph.saved_tensors_hooks(pack, unpack)``, every
# tensor saved for backward is handed to ``pack``, and the graph keeps what
# ``pack`` returns; backward hands that back to ``unpack``, which must return
# the tensor. Here ``pack`` returns a name with the tensor, and both hooks
# write to a list of events.
from contextlib import nullcontext

import torch

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
b = torch.tensor([0.5, 0.25], device=device, requires_grad=True)
events = []


def pack(tensor):
    name = "a" if tensor is a else "b" if tensor is b else "exp's output"
    events.append(f"pack {name}")
    return name, tensor.detach()


def unpack(packed):
    name, tensor = packed
    events.append(f"unpack {name}")
    return tensor


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    loss = (a * b).exp().sum()
events.append("backward")
loss.backward()

check(
    events,
    [
        "pack b",
        "pack a",
        "pack exp's output",
        "backward",
        "unpack exp's output",
        "unpack b",
        "unpack a",
    ],
    label="events",
)
check(a.grad, (b * (a * b).exp()).detach(), label="a.grad, b * exp(a * b)")

# %%
# The graph saved three tensors, all during the forward pass: the
# multiplication kept both factors (the second one first), ``exp`` kept its
# own output (its derivative), and ``sum`` kept no tensor. Backward read them back in the order
# it ran the nodes, ``exp`` first. The gradient is the usual one, since
# ``unpack`` returned the values ``pack`` was given. ``pack`` keeps
# ``tensor.detach()`` rather than ``tensor``, as the PyTorch documentation
# asks, to avoid a reference cycle between the graph and the tensor.
#
# A copy instead of the tensor
# ----------------------------
# With hooks, the graph holds whatever ``pack`` returned instead of the
# saved tensor, and autograd no longer compares the version of the saved
# tensor at backward (see :ref:`detach_inplace_saved`).
# The same in-place edit after the forward pass, three times: without hooks,
# with a ``pack`` that keeps a detached view of the tensor, with one that
# keeps a clone:
INPLACE = (
    r"^one of the variables needed for gradient computation has been modified by an inplace "
    r"operation: \[torch\.(cuda\.)?FloatTensor \[\d\]\], which is output 0 of Mul, is at version 1; "
    r"expected version 0 instead\."
)


def edit_after_forward(hooks):
    """Gradient of ``sum(y**2)`` for ``y = 2x``, after ``y`` is multiplied by 10 in place."""
    x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    with hooks:
        y = x * 2
        z = y**2
    y.mul_(10)
    z.sum().backward()
    return x.grad


with expect_error(RuntimeError, match=INPLACE):
    edit_after_forward(nullcontext())

detached = torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t)
check(edit_after_forward(detached), [80.0, 160.0], label="x.grad, detached view saved")

cloned = torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t)
check(edit_after_forward(cloned), [8.0, 16.0], label="x.grad, clone saved")

# %%
# The right gradient is :math:`2y \cdot 2 = 8x`, that is ``[8., 16.]``.
# Without hooks, autograd sees that ``y`` changed since ``pow`` saved it and
# refuses. With the detached view, which shares ``y``'s storage, backward
# reads the edited ``y`` and returns a gradient ten times too large, without
# an error. With the clone, the edit does not reach the saved copy, and the
# gradient is the one of the unedited forward pass. With a ``pack`` that does
# not copy, the version check is yours to do.
#
# Here is what each ``pack`` kept, read back through the node's
# ``_saved_self`` (which goes through ``unpack``) after the same edit:
import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
y = x * 2
with detached:
    z_view = y**2
with cloned:
    z_clone = y**2
y.mul_(10)
saved_view = z_view.grad_fn._saved_self
saved_clone = z_clone.grad_fn._saved_self
check(
    saved_view.untyped_storage().data_ptr() == y.untyped_storage().data_ptr(),
    True,
    label="saved_view is y's memory",
)
check(saved_view, [20.0, 40.0], label="saved_view")
check(saved_clone, [2.0, 4.0], label="saved_clone")
check([y._version, saved_view._version, saved_clone._version], [1, 1, 0], label="their versions")
check(saved_clone.grad_fn, "MulBackward0", label="saved_clone.grad_fn")
draw_tensors({"y": y, "saved_view": saved_view, "saved_clone": saved_clone}, title="y.mul_(10)")
plt.show()

# %%
# Two blocks of memory. The first holds ``20. 40.``: ``y`` and
# ``saved_view``, the detached view, cover the same two cells and share
# the version counter, both at ``v1``, so the edit reached both. The
# second block belongs to ``saved_clone`` alone, still ``2. 4.`` at ``v0``:
# the values of the forward pass. All three show ``MulBackward0``: a
# tensor read back from a node gets the history of the tensor that was
# saved, ``y``.
#
# A lower-precision copy
# ----------------------
# A hook pair can also store each saved tensor in ``bfloat16``, half the
# bytes of ``float32``, and convert it back at backward:
packed_sizes = []


def pack_bfloat16(tensor):
    packed = tensor.detach().to(torch.bfloat16)
    packed_sizes.append(packed.element_size())
    return packed


a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
b = torch.tensor([1 / 3, 0.1], device=device, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_bfloat16, lambda t: t.to(torch.float32)):
    loss = (a * b).sum()
loss.backward()

check(packed_sizes, [2, 2], label="bytes per element of the saved copies")
check(b.grad, [1.0, 2.0], label="b.grad")
check(loss, 1 / 3 + 2 * 0.1, label="loss")
check(a.grad, [0.333984375, 0.10009765625], label="a.grad")
check(a.grad, b, rtol=2**-8, atol=0.0, label="a.grad, within bfloat16's precision of b")
check(torch.equal(a.grad, b.detach()), False, label="a.grad equals b")
draw_tensors({"b": b, "a.grad": a.grad}, title="loss = (a * b).sum(); loss.backward()")
plt.show()

# %%
# ``b`` and ``a.grad``, each in its own memory, written to three
# significant digits: ``0.333 0.1`` and ``0.334 0.1``. The second value
# of ``a.grad`` is 0.10009765625, which rounds to ``0.1`` here.
#
# The gradient of ``a`` in ``a * b`` is ``b``, read back from its saved
# copy: :math:`1/3` and :math:`0.1` come back rounded to ``bfloat16``'s 8
# significant bits, a relative error below :math:`2^{-8}`. ``1.0`` and
# ``2.0`` are exact in ``bfloat16``, so ``b.grad`` is exact. The loss, computed
# before anything was packed, is unchanged; only the gradient pays for the
# saved memory.
#
# ``save_on_cpu``
# ---------------
# ``torch.autograd.graph.save_on_cpu()`` is a ready-made pair of these
# hooks: ``pack`` copies each saved tensor to CPU memory, ``unpack`` moves it
# back to the device it came from. Reading a node's ``_saved_*`` attribute
# goes through ``unpack`` too:
check(
    issubclass(torch.autograd.graph.save_on_cpu, torch.autograd.graph.saved_tensors_hooks),
    True,
    label="save_on_cpu is a saved_tensors_hooks",
)
a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
b = torch.tensor([3.0, 4.0], device=device, requires_grad=True)
with torch.autograd.graph.save_on_cpu():
    product = a * b
saved_self = product.grad_fn._saved_self
check(saved_self.device == a.device, True, label="_saved_self is back on a's device")
check(saved_self.detach(), [1.0, 2.0], label="_saved_self")
product.sum().backward()
check(a.grad, [3.0, 4.0], label="a.grad")

# %%
# On a GPU it frees GPU memory during the forward pass (not measured here), at
# the price of two copies per saved tensor (``pin_memory=True`` saves them in
# pinned memory, which makes the copy back asynchronous); on a CPU runner, as
# here, the tensors are already in CPU memory and it moves nothing. Either way
# the gradient is exact, as the CUDA record (PyTorch 2.11.0, an H200) shows.
#
# ``allow_mutation_on_saved_tensors``
# -----------------------------------
# The in-place error again, on a tensor that ``pow`` saved:
x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
y = x.clone()
z = y**2
y.mul_(10)
with expect_error(RuntimeError, match=INPLACE):
    z.sum().backward()

# %%
# Inside ``torch.autograd.graph.allow_mutation_on_saved_tensors()``, the
# same code runs. The object the context yields counts the saved tensors it
# holds as they were (``original``) and those it had to copy (``cloned``):
x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
with torch.autograd.graph.allow_mutation_on_saved_tensors() as saved:
    y = x.clone()
    z = y**2
    check([len(saved.original), len(saved.cloned)], [1, 0], label="original, cloned before the edit")
    y.mul_(10)
    check([len(saved.original), len(saved.cloned)], [0, 1], label="original, cloned after the edit")
    z.sum().backward()
check(y, [10.0, 20.0, 30.0], label="y")
check(x.grad, [2.0, 4.0, 6.0], label="x.grad")

# %%
# ``y`` holds the edited values, and the gradient :math:`2y` is computed from
# the values of the forward pass, ``[1., 2., 3.]``. The context sets saved
# tensor hooks whose ``pack`` keeps the tensor itself, and it clones that
# tensor only when an in-place operation is about to modify it: a copy on
# write, where the hook with ``clone()`` above copied every saved tensor.
# Backward has to run inside the same context, which keeps the copies:
x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = x.clone()
    z = y**2
    y.mul_(10)
with expect_error(
    AssertionError,
    match=r"^Trying to backward outside of the 'allow_mutation_on_saved_tensors' context",
):
    z.sum().backward()

# %%
# Saved tensor hooks are the place to trade memory for time or precision
# (``save_on_cpu``, lower-precision or compressed copies) and to make saved
# tensors independent of later edits. A ``pack`` that keeps the tensor
# without copying it also turns off the check that catches those edits.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`).
# :ref:`retain_graph_not_needed` lists what common nodes save,
# :ref:`detach_inplace_saved` shows the in-place error that the hooks
# change, and :ref:`anomaly_detection` finds the line behind it.
