"""
.. _backward_misuse:

Misusing ``requires_grad`` and ``backward()``
=============================================

Four error messages that autograd raises when a tensor is not what the call
expects: changing ``requires_grad`` of a computed tensor, calling
``backward()`` on a tensor without history, on a tensor with more than one
element, and with a ``gradient`` of the wrong shape. For each, this example
shows the exact message today, what it means, and the fix, including one
tempting fix that silences an error and computes nothing.

.. questions::

   - How do I turn off ``requires_grad`` on a computed tensor?
   - Why does ``backward()`` say ``element 0 of tensors does not require grad``?
   - Why does ``loss.requires_grad_()`` stop the error but not train?
   - Why do I get ``only Tensors of floating point dtype can require gradients``?
"""

# %%
# "you can only change requires_grad flags of leaf variables"
# -----------------------------------------------------------
# ``y`` is computed from the leaf ``x``, so it is not a leaf. Turning its
# ``requires_grad`` *off* is refused; turning it *on* is accepted, because it
# is already on.
import torch

from autograd_notes import check, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 3
device = runner_device()

x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
y = x * 2

with expect_error(
    RuntimeError,
    match=(
        r"^you can only change requires_grad flags of leaf variables\. If you want to use a computed "
        r"variable in a subgraph that doesn't require differentiation use var_no_grad = var\.detach\(\)\.$"
    ),
):
    y.requires_grad_(False)

check(y.requires_grad_() is y, True, label="y.requires_grad_() is y")
check(y.requires_grad, True, label="y.requires_grad")

# %%
# A computed tensor's ``requires_grad`` is not a setting but a consequence:
# it is ``True`` because ``y`` has a ``grad_fn`` leading back to ``x``. The
# same error comes from ``y.requires_grad = False``. The fix is the one the
# message names: ``y.detach()`` is a new leaf over the same values, with
# ``requires_grad=False``, and ``y`` stays in the graph.
y_no_grad = y.detach()
show_state(x=x, y=y, y_no_grad=y_no_grad)

import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

check(y_no_grad.untyped_storage().data_ptr() == y.untyped_storage().data_ptr(), True, label="same memory")
draw_tensors({"x": x, "y": y, "y_no_grad": y_no_grad}, title="y_no_grad = y.detach()")
plt.show()

# %%
# Under the statement drawn, each tensor is a row under the strip of cells
# of the memory it uses, with the values there; the row ends with the
# tensor's shape, its version and its ``grad_fn``, or ``requires_grad`` for
# a leaf that requires a gradient.
# ``y`` and ``y_no_grad`` are two rows over one strip: the same memory, the
# same values ``[2., 4.]``. ``y`` ends with ``MulBackward0``, its place in
# the graph; ``y_no_grad`` ends with nothing, a tensor without history that
# does not require a gradient.

# %%
# The flag can only be switched on floating-point (or complex) tensors; an
# integer leaf refuses it with another message:
counts = torch.tensor([1, 2], device=device)
with expect_error(RuntimeError, match=r"^only Tensors of floating point dtype can require gradients$"):
    counts.requires_grad_()

# %%
# "element 0 of tensors does not require grad and does not have a grad_fn"
# ------------------------------------------------------------------------
# A loss computed under ``torch.no_grad()`` (or from ``x.detach()``, or from
# leaves created without ``requires_grad=True``) has no history, and
# ``backward()`` has nothing to go through:
with torch.no_grad():
    loss = (x**2).sum()
show_state(x=x, loss=loss)

with expect_error(
    RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a grad_fn$"
):
    loss.backward()

# %%
# "Element 0" is the first (here the only) tensor given to ``backward``. The
# fix is upstream: compute the loss outside ``no_grad``, from leaves that
# require a gradient.
from autograd_notes import draw_graph

loss = (x**2).sum()
draw_graph(loss, names={"x": x, "loss": loss}, title="loss = (x**2).sum()")
plt.show()
loss.backward()
check(x.grad, [2.0, 4.0], label="x.grad")

# %%
# Drawn before ``backward()``: the graph that ``backward()`` goes through,
# from ``SumBackward0 (loss)`` at the top down the arrows to ``x`` at the
# bottom (``AccumulateGrad``, in blue, shape ``[2]``), where the gradient is
# written into ``x.grad``. ``PowBackward0`` saved ``x`` (``self (x) [2] v0``)
# and ``exponent=2`` to compute :math:`2x`.
#
# The tempting fix that computes nothing
# --------------------------------------
# Calling ``requires_grad_()`` on the loss makes the error go away. It does
# not give the loss a history: it turns it into a leaf of its own, and the
# gradient stops there.
x.grad = None
with torch.no_grad():
    loss = (x**2).sum()
loss.requires_grad_()
loss.backward()
check(loss.is_leaf, True, label="loss.is_leaf")
check(loss.grad, 1.0, label="loss.grad")
check(x.grad, None, label="x.grad")
check(loss.grad_fn, None, label="loss.grad_fn")
draw_tensors({"x": x, "loss": loss}, title="loss.requires_grad_()")
plt.show()

# %%
# The tensors after the tempting fix, drawn as above: ``loss`` has a memory
# of its own, holding 5, shape ``[]``, and its row ends with
# ``requires_grad`` where the graph above had ``SumBackward0``. It is a
# leaf: ``backward()`` starts and ends there, and nothing leads from it to
# ``x``.
#
# No error, and no gradient for ``x``: an optimiser stepping on ``x`` would
# silently do nothing. When this error appears, look for the ``no_grad``,
# ``detach()``, ``.item()`` or missing ``requires_grad=True`` that cut the
# chain; never add ``requires_grad_()`` at the end of it.
#
# "grad can be implicitly created only for scalar outputs"
# --------------------------------------------------------
# ``backward()`` without arguments needs a one-element tensor.
# :ref:`vector_jacobian_product` explains why; here is the message:
x.grad = None
y = x * 2
with expect_error(RuntimeError, match=r"^grad can be implicitly created only for scalar outputs$"):
    y.backward()

y.sum().backward()
check(x.grad, [2.0, 2.0], label="x.grad after y.sum().backward()")

# %%
# Reduce the output to the scalar loss you mean (``.sum()``, ``.mean()``),
# or pass the upstream gradient as ``y.backward(gradient)``. A mean would
# give gradients half as large here: the reduction is part of the loss, and
# PyTorch does not pick one for you.
#
# "Mismatch in shape"
# -------------------
# A ``gradient`` must have exactly the shape of the tensor it is given for,
# one value per element. A vector of another length is refused, and so is a
# scalar, although it would broadcast: there is no broadcasting here.
with expect_error(
    RuntimeError,
    match=(
        r"^Mismatch in shape: grad_output\[0\] has a shape of torch\.Size\(\[3\]\) "
        r"and output\[0\] has a shape of torch\.Size\(\[2\]\)\.$"
    ),
):
    y.backward(torch.ones(3, device=device))

with expect_error(
    RuntimeError,
    match=(
        r"^Mismatch in shape: grad_output\[0\] has a shape of torch\.Size\(\[\]\) "
        r"and output\[0\] has a shape of torch\.Size\(\[2\]\)\.$"
    ),
):
    y.backward(torch.tensor(1.0, device=device))
check(x.grad, [2.0, 2.0], label="x.grad after both errors")

# %%
# "grad_output" is the ``gradient`` you passed and "output" the tensor you
# called ``backward`` on; index 0 because there is one of each. The shapes
# are checked before anything is computed, so ``x.grad`` kept the value of
# the last successful pass. Build the gradient with ``torch.ones_like(y)``
# (or from the loss, as in :ref:`vector_jacobian_product`) and the shapes
# cannot disagree.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`).
# The last two errors also appear in :ref:`vector_jacobian_product`, which
# rebuilds a source document's claim that a non-scalar output needs a
# ``gradient``; this page is about recognising each message and its fix.
