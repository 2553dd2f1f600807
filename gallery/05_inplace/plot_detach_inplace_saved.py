"""
.. _detach_inplace_saved:

Edits that backward notices
===========================

Zeroing a ``detach()``-ed tensor in place zeroes the original too. Whether
``backward()`` then fails depends first on one thing: did some node save that
tensor for its gradient formula? This example makes the same edit in three
graphs, one where the edited tensor is saved (an error), one where it is not
(no error, and a correct gradient), and one where it is saved again (an
error), and then says when such a silent edit is harmless and when it is not,
saved-tensor hooks included, under which no version is checked at all.

.. questions::

   - Why does ``backward()`` fail after zeroing a detached tensor in place?
   - When is an in-place edit of a detached tensor harmless?
   - Can an in-place edit give a wrong gradient without any error?
"""

# %%
# An edited tensor that ``pow`` saved
# -----------------------------------
# ``z = y**2`` needs :math:`2y` to send a gradient back, so its node saves
# ``y``. Zeroing ``y`` through ``y.detach()`` after that makes backward fail.
import torch

from autograd_notes import check, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

x = torch.tensor(3.0, device=device, requires_grad=True)
y = x + 1
z = y**2
y_detached = y.detach()
y_detached.zero_()
check(y, 0.0, label="y")
check(y_detached._version, 1, label="y_detached._version")
show_state(x=x, y=y, y_detached=y_detached, z=z)

import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

draw_tensors({"x": x, "y": y, "y_detached": y_detached, "z": z}, title="y.detach().zero_()")
plt.show()

# %%
# Each grey strip is a storage holding one number, each coloured row a
# tensor over it, with its shape (``[]``: a single number), its version and
# its ``grad_fn`` or ``requires_grad``. ``y`` and ``y_detached`` share the
# strip that now holds ``0.``, and both are at ``v1``; ``x`` (``3.``) and
# ``z`` (``16.``, computed before the edit) have strips of their own.
#
# Before calling backward, draw the graph below ``z`` with what each node
# saved for its gradient formula, and at which version:
from autograd_notes import autograd_graph, draw_graph

graph = autograd_graph(z, names={"x": x, "y": y, "z": z})
check(graph.modified, ["PowBackward0 (z): saved self (y) [] v1 ≠ v0"], label="modified in place")
draw_graph(graph, title="z = y**2; y.detach().zero_()")
plt.show()

# %%
# Gradients flow down the arrows, from ``z`` to the leaf ``x``.
# ``PowBackward0`` saved ``y`` (shape ``[]``) when ``y`` was at version 0,
# and ``y`` is now at version 1: ``v1 ≠ v0``, in red. Reading that saved
# tensor is what backward will do first, so the picture predicts the error:
with expect_error(
    RuntimeError,
    match=r"one of the variables needed for gradient computation has been modified by an inplace "
    r"operation: \[torch\.(cuda\.)?FloatTensor \[\]\], which is output 0 of Add, is at version 1; "
    r"expected version 0 instead\. Hint: enable anomaly detection to find the operation that failed "
    r"to compute its gradient, with torch\.autograd\.set_detect_anomaly\(True, check_nan=False\)\.",
):
    z.backward()
check(x.grad, None, label="x.grad")

# %%
# ``y_detached`` shares ``y``'s storage *and* its version counter: the table
# shows both at version 1. ``PowBackward0`` recorded version 0 when it saved
# ``y``; at backward it finds 1 and refuses, because :math:`2y` computed from
# the zeroed ``y`` would give 0. The message calls ``y`` "output 0 of Add",
# the operation that produced it. Without the edit the gradient is
# :math:`2(x + 1) = 8`:
x = torch.tensor(3.0, device=device, requires_grad=True)
z = (x + 1) ** 2
z.backward()
check(x.grad, 8.0, label="x.grad")

# %%
# An edited tensor that nobody saved
# ----------------------------------
# Now ``z`` is the linear combination :math:`3y_1 + 4y_2` of ``y1 = x + 1``
# and ``y2 = x**2``, and ``y2`` is zeroed the same way. Backward runs.
x = torch.tensor(3.0, device=device, requires_grad=True)
y1 = x + 1
y2 = x**2
term1 = 3 * y1
term2 = 4 * y2
z = term1 + term2
y2.detach().zero_()
check(y2, 0.0, label="y2")
check(y2._version, 1, label="y2._version")
show_state(x=x, y1=y1, y2=y2, term2=term2, z=z)

check(y2.grad_fn._saved_self, 3.0, label="y2.grad_fn._saved_self")
check(term2.grad_fn._saved_self, None, label="term2.grad_fn._saved_self")
check(term2.grad_fn._saved_other, 4, label="term2.grad_fn._saved_other")
graph = autograd_graph(z, names={"x": x, "y1": y1, "y2": y2, "term1": term1, "term2": term2, "z": z})
check(graph.modified, [], label="modified in place")
draw_graph(graph, title="z = 3 * y1 + 4 * y2; y2.detach().zero_()")
plt.show()

z.backward()
check(z, 48.0, label="z")
check(x.grad, 27.0, label="x.grad")

# %%
# In the graph below ``z``, drawn before backward, nothing is red: no node
# saved ``y2``. ``PowBackward0 (y2)`` saved ``x`` (``self (x) [] v0``),
# each ``MulBackward0`` saved its factor, 3 or 4 (``other [] v0``), and
# the additions saved only ``alpha=1``.
#
# ``y2``'s version counter moved to 1 as before, but no node compares it
# with anything. A node shows what it saved in its ``_saved_*`` attributes:
# ``PowBackward0`` of ``y2 = x**2`` saved its *input* ``x`` (the 3.0),
# which is untouched, and the ``MulBackward0`` of ``4 * y2`` saved the
# number 4 but not ``y2``, because the derivative of :math:`4y_2` is 4
# whatever :math:`y_2` is; the addition needs no values either. So backward
# never reads ``y2`` and computes :math:`3 + 4 \cdot 2x = 27` at
# :math:`x = 3`. ``z`` itself still holds 48, computed from :math:`y_2 = 9`
# before the edit.
#
# Saved again
# -----------
# Square ``y2`` in the combination and the edited tensor is saved once more:
# backward fails, and the message now names the ``pow`` that produced ``y2``.
x = torch.tensor(3.0, device=device, requires_grad=True)
y1 = x + 1
y2 = x**2
z = 3 * y1 + 4 * y2**2
y2.detach().zero_()

with expect_error(
    RuntimeError,
    match=r"modified by an inplace operation: \[torch\.(cuda\.)?FloatTensor \[\]\], "
    r"which is output 0 of Pow, is at version 1; expected version 0 instead\. "
    r"Hint: .*set_detect_anomaly\(True, check_nan=False\)\.",
):
    z.backward()

# %%
# When the silence is harmless
# ----------------------------
# Through ``detach()``, a silent edit does not make a gradient of PyTorch's
# own operations wrong: any such node whose formula reads the edited values
# saved the tensor, and the shared version counter reports the edit, as in
# the first and third graphs (unless saved-tensor hooks are active, as the
# end of this page shows). That guarantee covers backward only. The
# edited tensor itself now holds other values than the ones the graph was
# computed from, and anything that reads it afterwards gets the new values:
later = y2 * 2
check(later, 0.0, label="later")

# %%
# The guarantee also disappears when the edit does not go through the
# shared counter. Zeroing ``y.data`` instead of ``y.detach()`` in the first
# graph raises nothing, and the gradient is 0 instead of 8:
x = torch.tensor(3.0, device=device, requires_grad=True)
y = x + 1
z = y**2
y.data.zero_()
check(y._version, 0, label="y._version")
z.backward()
check(x.grad, 0.0, label="x.grad")

# %%
# ``y.data`` has its own version counter, so ``PowBackward0`` finds ``y``
# still at version 0 and uses the zeros (:ref:`data_vs_detach` shows the
# same with ``sigmoid``).
#
# The check also relies on the node saving the tensor through autograd. A
# custom ``torch.autograd.Function`` that keeps its input as a plain
# attribute of ``ctx``, instead of passing it to ``ctx.save_for_backward``,
# records no version, and the ``detach()`` edit goes unnoticed:


class SquareKeptOnCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.inp = inp  # not ctx.save_for_backward(inp): no version check
        return inp * inp

    @staticmethod
    def backward(ctx, grad_out):
        return 2 * ctx.inp * grad_out


x = torch.tensor(3.0, device=device, requires_grad=True)
y = x + 1
z = SquareKeptOnCtx.apply(y)
y.detach().zero_()
z.backward()
check(x.grad, 0.0, label="x.grad")

# %%
# Under saved-tensor hooks
# ------------------------
# While a pair of saved-tensor hooks is active
# (``torch.autograd.graph.saved_tensors_hooks``, and what is built on it:
# ``save_on_cpu``, activation offloading), every node keeps whatever the
# ``pack`` hook returned instead of the tensor, and backward compares no
# version at all. A pair that changes nothing is enough: ``pack`` keeps a
# detached view of the tensor, the same values in the same memory, and
# ``unpack`` hands it back. The first graph again, built under it:
same_tensor = torch.autograd.graph.saved_tensors_hooks(lambda tensor: tensor.detach(), lambda tensor: tensor)
x = torch.tensor(3.0, device=device, requires_grad=True)
with same_tensor:
    y = x + 1
    z = y**2
y.detach().zero_()
check(y._version, 1, label="y._version")
z.backward()
check(x.grad, 0.0, label="x.grad")

# %%
# The edit moved ``y`` to version 1 as in the first graph, but backward
# raised nothing: it read the zeroed ``y`` and returned 0 where the
# gradient is :math:`2(x + 1) = 8`. A ``pack`` that copies the tensor
# (as ``save_on_cpu`` does on a GPU, which the CUDA record of
# :ref:`activation_checkpointing` shows) keeps the values of the forward
# pass instead, and one that keeps the tensor itself (as ``save_on_cpu``
# does with its default options on a CPU) behaves as here.
# :ref:`saved_tensor_hooks` shows both kinds of ``pack`` side by side.
#
# In short: once a built-in operation has saved a tensor, and no
# saved-tensor hooks are active, an edit through ``detach()`` made *after*
# that cannot corrupt the gradient: either a formula reads the edited
# values and backward raises, or none does and the gradient is right. An
# edit made *before* the tensor is saved is not protected: the operation
# saves the edited values at version 1, backward finds the version it
# expects, and the gradient mixes the two computations
# (:ref:`out_and_detach_before_use` gets 72, matching neither). An edit
# through ``.data``, into a tensor that a custom function keeps outside
# ``save_for_backward``, or into any tensor saved while hooks are active,
# is harmless only when, as in the second graph, no formula reads the
# edited values, and nothing tells you which case you are in.
#
# Sources
# -------
# - :ref:`source_000` claims that after ``y = x + 1``, ``z = y**2`` and an
#   in-place ``zero_()`` of ``y.detach()``, ``z.backward()`` raises an
#   error, because the squaring node needs the value of ``y``. **Holds**.
#   The message on today's PyTorch names the tensor as ``output 0 of Add``
#   (older versions wrote ``AddBackward0``) and ends with the hint
#   ``set_detect_anomaly(True, check_nan=False)``. The hint names
#   ``check_nan`` since PyTorch 2.11 (it wrote ``set_detect_anomaly(True)``
#   before); the argument itself is older: it was added in 2022
#   (`pull request 83481 <https://github.com/pytorch/pytorch/pull/83481>`_),
#   and every release this site records, back to 2.4.1, accepts it.
# - :ref:`source_000` claims that with ``z = 3*y1 + 4*y2`` and ``y2.detach()``
#   zeroed in place, backward succeeds and ``x.grad`` is 27, because the
#   derivative with respect to ``y2`` is the constant 4. **Holds**.
# - :ref:`source_000` claims that ``z = 3*y1 + 4*y2**2`` makes the same edit
#   raise an error. **Holds**; the message names ``output 0 of Pow``.
# - :ref:`source_000` claims that ``detach()`` returns a tensor over the same
#   data as the original. **Holds**, and it shares the version counter too.
