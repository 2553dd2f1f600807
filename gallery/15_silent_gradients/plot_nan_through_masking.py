"""
.. _nan_through_masking:

NaN gradients through a mask
============================

``torch.where(x > 0, x.sqrt(), 0)`` returns clean numbers, yet its gradient
is NaN wherever the mask is false. This example shows where the NaN comes
from (the backward of ``sqrt`` computes :math:`0/0`), the double
``where`` that avoids it, why masking by multiplication fails and indexing
does not (at the price of a result whose shape depends on the data), why
``torch.nan_to_num`` on the output changes nothing, and how anomaly detection
names the node with "Function 'SqrtBackward0' returned nan values in its 0th
output". It ends with the values PyTorch uses as the gradient at kinks, at
singular points (where ``vector_norm`` protects the first derivative only)
and at ties.

.. questions::

   - Why is my gradient NaN when using ``torch.where`` with ``sqrt``?
   - How do I mask invalid values without getting NaN gradients?
   - What gradient do ``relu`` and ``clamp`` give at exactly zero?
   - Why doesn't ``nan_to_num`` fix my NaN gradients?
"""

# %%
# A clean forward pass, a NaN gradient
# ------------------------------------
# ``x`` holds a negative number, a zero and a positive number. The mask
# keeps the square root where ``x > 0`` and puts 0 elsewhere; ``root`` is
# named so that its gradient can be kept and shown.
import warnings

import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import check, draw_matrix, draw_tensors, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

x = torch.tensor([-1.0, 0.0, 4.0], device=device, requires_grad=True)
root = x.sqrt()
root.retain_grad()
y = torch.where(x > 0, root, 0)
check(y, [0.0, 0.0, 2.0], label="y")
y.sum().backward()
check(root.grad, [0.0, 0.0, 1.0], label="root.grad")
check(x.grad.isnan().tolist(), [True, True, False], label="x.grad.isnan()")
check(x.grad[2], 0.25, label="x.grad[2]")
check(
    [name for name in dir(root.grad_fn) if name.startswith("_saved_")],
    ["_saved_result"],
    label="what SqrtBackward0 saved",
)
draw_tensors(
    {"x": x, "root": root, "y": y, "root.grad": root.grad, "x.grad": x.grad},
    title="y = torch.where(x > 0, x.sqrt(), 0)",
)
plt.show()

# %%
# Five tensors of shape ``[3]``, each in its own memory: ``x`` holds
# ``-1. 0. 4.`` and requires grad; ``root`` (``SqrtBackward0``) holds
# ``nan 0. 2.``; ``y`` (``WhereBackward0``) holds ``0. 0. 2.``, no NaN;
# ``root.grad`` holds ``0. 0. 1.``; ``x.grad`` holds ``nan nan 0.25``.
#
# ``where`` does not skip the square root: ``x.sqrt()`` is computed for all
# three entries before ``where`` runs, and the graph records it for all
# three (:ref:`mental_model`). In the backward pass, ``WhereBackward0``
# sends 0 to the entries it did not select: ``root.grad`` is 0 there. Then
# ``SqrtBackward0``, which saved its output (``_saved_result``, that is
# ``root``) and not ``x``, divides the incoming gradient by twice that
# output: ``root.grad / (2 * root)``, which is :math:`0/0` at 0 and
# :math:`0/\mathrm{NaN}` at -1, both NaN (the chain rule's
# :math:`0 \cdot \infty`). A zero gradient does not protect an entry from
# the nodes below it.
#
# The double ``where``
# --------------------
# The fix is to make the unselected branch harmless: a first ``where``
# replaces the masked entries by a value (1) where the square root and its
# derivative are finite, and the second ``where`` selects as before.
x.grad = None
safe = torch.where(x > 0, x, 1)
y = torch.where(x > 0, safe.sqrt(), 0)
y.sum().backward()
check(y, [0.0, 0.0, 2.0], label="y")
check(x.grad, [0.0, 0.0, 0.25], label="x.grad")

# %%
# The forward values are the same. In the backward pass the masked entries
# still receive 0 from the outer ``where``; the square root's derivative
# there is :math:`\frac{1}{2}` (at 1), so they stay 0, and the inner
# ``where`` sends 0 to ``x`` for the entries it replaced.
#
# Masking by multiplication, and by indexing
# ------------------------------------------
# Multiplying by the mask does not even clean the forward pass: the square
# root of -1 is NaN, and :math:`0 \cdot \mathrm{NaN}` is NaN. Indexing with
# the mask computes the square root only where the mask is true.
x.grad = None
mask = x > 0
y = mask * x.sqrt()
check(y.isnan().tolist(), [True, False, False], label="(mask * x.sqrt()).isnan()")
y.sum().backward()
check(x.grad.isnan().tolist(), [True, True, False], label="x.grad.isnan()")

x.grad = None
y = x[mask].sqrt()
check(y, [2.0], label="x[mask].sqrt()")
check(y.grad_fn.next_functions[0][0], "IndexBackward0", label="the node below SqrtBackward0")
y.sum().backward()
check(x.grad, [0.0, 0.0, 0.25], label="x.grad")

# %%
# Indexing is safe because the entries it drops never reach ``sqrt``, in
# either pass: ``IndexBackward0`` writes zeros into the dropped entries,
# and nothing multiplies them. Its output is shorter, though, and how much
# shorter depends on the values in ``mask``.
#
# A shape that depends on the data
# --------------------------------
# To index with a boolean mask, PyTorch first lists the positions of its
# true entries (``nonzero``), and only then knows the size of the result.
# ``torch._dynamo.explain`` traces a function as ``torch.compile`` would
# and counts the graphs:


def masked_root(t):
    return t[t > 0].sqrt().sum()


def double_where_root(t):
    positive = t > 0
    return torch.where(positive, torch.where(positive, t, 1).sqrt(), 0).sum()


explained = torch._dynamo.explain(masked_root)(x.detach())
check(explained.graph_count, 2, label="masked_root: graph_count")
check(explained.graph_break_count, 1, label="masked_root: graph_break_count")
reason = explained.break_reasons[0].reason
check(reason.splitlines()[0], "Dynamic shape operator", label="reason")
check("aten.nonzero.default" in reason, True, label="the reason names aten.nonzero.default")
explained = torch._dynamo.explain(double_where_root)(x.detach())
check(explained.graph_count, 1, label="double_where_root: graph_count")
check(explained.graph_break_count, 0, label="double_where_root: graph_break_count")

# %%
# The indexed version is split in two graphs at ``nonzero``, whose output
# shape "depends on input Tensor data"; the double ``where`` compiles into
# one graph, since every shape in it is the shape of ``t``. (Dynamo can
# trace such operators with
# ``torch._dynamo.config.capture_dynamic_output_shape_ops = True``, which
# its hint names; the size then becomes a symbol that later code must
# handle.) On a GPU the count of true entries is made on the GPU
# and copied to the host before the result can be allocated: the
# documentation of ``torch.nonzero`` states that on CUDA it "causes
# host-device synchronization", so the Python thread waits there for every
# kernel queued before it. The double ``where`` keeps the shape, needs no
# count, and queues its kernels without waiting.
#
# ``torch.nan_to_num`` on the output changes nothing
# ---------------------------------------------------
# Cleaning the output cannot help: the output has no NaN, and
# ``nan_to_num`` passes the gradient through unchanged where its input is
# finite. The NaN is made further down, inside ``SqrtBackward0``.
x.grad = None
y = torch.nan_to_num(torch.where(x > 0, x.sqrt(), 0))
y.sum().backward()
check(x.grad.isnan().tolist(), [True, True, False], label="x.grad.isnan()")

# %%
# Anomaly detection names the node
# --------------------------------
# With ``torch.autograd.detect_anomaly()`` (see :ref:`anomaly_detection`),
# the output of every backward node is checked for NaN, and the first node
# that produces one stops the backward pass. Creating the context manager
# warns about its cost; the node's warning, which carries the forward
# traceback with the paths of the machine that ran it, is caught and its
# first line checked.
with expect_warning(UserWarning, match=r"^Anomaly Detection has been enabled\."):
    anomaly_mode = torch.autograd.detect_anomaly()

x.grad = None
with anomaly_mode:
    y = torch.where(x > 0, x.sqrt(), 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with expect_error(
            RuntimeError, match=r"^Function 'SqrtBackward0' returned nan values in its 0th output\.$"
        ):
            y.sum().backward()
check(
    str(caught[0].message).splitlines()[0],
    "Error detected in SqrtBackward0. Traceback of forward call that caused the error:",
    label="first line of the warning",
)
check(x.grad, None, label="x.grad")

# %%
# The error names ``SqrtBackward0``, not ``WhereBackward0``: the node whose
# output, the gradient for ``x``, first holds a NaN. The backward pass
# stopped there, so ``x.grad`` was never written. When such an error names
# the backward node of ``sqrt``, ``log``, ``pow`` or a division, look for a
# ``where`` or a mask applied to that operation's result.
#
# Gradients at kinks
# ------------------
# Where a function has no derivative, PyTorch still returns a number, and
# functions with the same values can return different numbers there. Each
# row below is ``x.grad`` after ``f(x).sum().backward()`` at ``x = -1, 0, 1``.
kinks = {
    "relu(x)": torch.relu,
    "x.clamp(min=0)": lambda t: t.clamp(min=0),
    "maximum(x, 0)": lambda t: torch.maximum(t, torch.zeros_like(t)),
    "abs(x)": torch.abs,
    "hardtanh(x)": nn.functional.hardtanh,
    "x.clamp(-1, 1)": lambda t: t.clamp(-1, 1),
}
rows = []
for f in kinks.values():
    x = torch.tensor([-1.0, 0.0, 1.0], device=device, requires_grad=True)
    f(x).sum().backward()
    rows.append(x.grad.tolist())
check(
    rows,
    [[0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.5, 1.0], [-1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1.0]],
    label="x.grad, row by row",
)
draw_matrix(rows, rows=list(kinks), columns=["x = -1", "x = 0", "x = 1"], title="f(x).sum().backward()")
plt.show()

# %%
# Six rows of three cells, positive values in blue and the one negative
# value in red. ``relu(x)``: 0, 0, 1. ``x.clamp(min=0)``: 0, 1, 1.
# ``maximum(x, 0)``: 0, 0.5, 1. ``abs(x)``: -1, 0, 1.
# ``hardtanh(x)``: 0, 1, 0. ``x.clamp(-1, 1)``: 1, 1, 1.
#
# The first three rows compute the same values, and at 0 their gradients are 0, 1 and 0.5:
# ``relu`` treats 0 as outside, ``clamp`` treats the bound as inside, and ``maximum`` splits a
# tie between its two inputs. ``hardtanh`` and ``clamp(-1, 1)`` also compute the same values,
# yet at the bounds -1 and 1 ``hardtanh`` gives 0 and ``clamp`` gives 1. PyTorch 2.14 changed
# ``clamp`` at its bounds: there it gives 0, as ``relu`` and ``hardtanh`` do
# (``x.clamp(min=0)`` gives 0 at 0, and ``clamp(-1, 1)`` gives 0 at -1 and at 1). ``abs`` gives
# 0 at 0. None of this is NaN, but a parameter sitting exactly on a kink (a ``relu`` input
# initialised at 0, a value clamped to its bound) gets whichever value its function chose.
#
# Singular points
# ---------------
# The square root has an infinite slope at 0, whichever way it is written.
# A norm is not differentiable at the zero vector either; ``vector_norm``
# returns 0 there, while the same norm written by hand gives NaN.
for name, f in {"x.sqrt()": torch.sqrt, "x.pow(0.5)": lambda t: t.pow(0.5)}.items():
    x = torch.tensor(0.0, device=device, requires_grad=True)
    f(x).backward()
    check(x.grad, float("inf"), label=f"{name}: x.grad at 0")

zero = torch.zeros(2, device=device, requires_grad=True)
torch.linalg.vector_norm(zero).backward()
check(zero.grad, [0.0, 0.0], label="vector_norm: zero.grad")
zero.grad = None
norm = torch.norm(zero)
check(norm.grad_fn, "LinalgVectorNormBackward0", label="torch.norm(zero).grad_fn")
norm.backward()
check(zero.grad, [0.0, 0.0], label="torch.norm: zero.grad")
zero.grad = None
(zero**2).sum().sqrt().backward()
check(zero.grad.isnan().tolist(), [True, True], label="(zero**2).sum().sqrt(): zero.grad.isnan()")

# %%
# Written by hand, ``SqrtBackward0`` at 0 returns :math:`\infty`, and
# ``PowBackward0`` multiplies it by the derivative of the square,
# :math:`2x = 0`: :math:`0 \cdot \infty` again. ``vector_norm`` has its own
# backward formula, which returns 0 at the zero vector; ``torch.norm`` calls
# it (its node is ``LinalgVectorNormBackward0``).
#
# That protection covers the first derivative only. A second derivative
# (``create_graph=True``: a gradient penalty, a Hessian) differentiates the
# backward formula itself, and at the zero vector that gives NaN:
(first,) = torch.autograd.grad(torch.linalg.vector_norm(zero), zero, create_graph=True)
check(first, [0.0, 0.0], label="first derivative")
check(first.grad_fn, "MulBackward0", label="first.grad_fn")
(second,) = torch.autograd.grad(first.sum(), zero)
check(second.isnan().tolist(), [True, True], label="second derivative: isnan()")
hessian = torch.autograd.functional.hessian(torch.linalg.vector_norm, torch.zeros(2, device=device))
check(
    hessian.isnan().tolist(), [[True, True], [True, True]], label="the Hessian of vector_norm at 0: isnan()"
)


def safe_norm(t):
    squares = (t**2).sum()
    positive = squares > 0
    return torch.where(positive, torch.where(positive, squares, 1).sqrt(), 0)


check(
    torch.autograd.functional.hessian(safe_norm, torch.zeros(2, device=device)),
    [[0.0, 0.0], [0.0, 0.0]],
    label="the Hessian of the double-where norm at 0",
)

# %%
# The backward formula of the 2-norm is ``grad * (x / norm)`` with the
# entries where ``norm == 0`` then filled with 0: the single ``where`` of
# the first section, applied after a division by zero. Differentiated
# again, the fill sends 0 to those entries and the division turns it into
# :math:`0/0`. A norm written with the double ``where`` has a finite
# Hessian at 0 (0 there), and the same values and first derivative as
# ``vector_norm`` elsewhere.
#
# Ties
# ----
# When several
# entries share the maximum, ``torch.max(v)`` and ``v.amax()`` split the
# gradient evenly between them, while ``v.max(dim=0)``, which returns an
# index, gives all of it to the entry at that index.
ties = {
    "torch.max(v)": torch.max,
    "v.amax()": torch.amax,
    "v.max(dim=0).values": lambda t: t.max(dim=0).values,
}
rows = []
for f in ties.values():
    v = torch.tensor([1.0, 3.0, 3.0], device=device, requires_grad=True)
    f(v).backward()
    rows.append(v.grad.tolist())
check(rows, [[0.0, 0.5, 0.5], [0.0, 0.5, 0.5], [0.0, 1.0, 0.0]], label="v.grad, row by row")
draw_matrix(rows, rows=list(ties), columns=["v[0] = 1", "v[1] = 3", "v[2] = 3"], title="f(v).backward()")
plt.show()

# %%
# Three rows of three cells, for ``v`` holding 1, 3, 3. ``torch.max(v)``:
# 0, 0.5, 0.5. ``v.amax()``: the same. ``v.max(dim=0).values``: 0, 1, 0,
# everything to ``v[1]``, the first of the two maxima. The gradient sums to
# 1 in every row; only its split differs.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the NaNs, the messages, the graph counts and the gradients at kinks are
# checked on the runner that built this page, with the same values in the CUDA
# record of PyTorch 2.11.0 (an H200). The synchronisation on a GPU is stated by
# the documentation of ``torch.nonzero``, not measured here; the backward formula
# of the norm is ``norm_backward`` in ``torch/csrc/autograd/FunctionsManual.cpp``.
