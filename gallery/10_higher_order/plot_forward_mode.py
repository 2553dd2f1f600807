"""
.. _forward_mode:

Forward mode: Jacobian-vector products
======================================

``backward()`` is reverse mode: one pass computes one vector-Jacobian
product, uᵀJ, a combination of the *rows* of the Jacobian. Forward mode
computes the other product, Jv, a combination of its *columns*, with
``torch.autograd.forward_ad`` or ``torch.func.jvp``. This example computes
both products of one small function and checks them against the full
Jacobian, shows that ``jacfwd`` and ``jacrev`` build the same matrix with
different numbers of passes, computes per-sample gradients of a model
with ``vmap`` and ``grad``, and checks the two layers that stop them:
``BatchNorm`` in training mode and dropout without a ``randomness`` flag.

.. questions::

   - When is forward-mode autodiff faster than ``backward()``?
   - How do I compute a Jacobian-vector product in PyTorch?
   - How do I get per-sample gradients for a batch?
   - Why does dropout in ``vmap`` say ``called random operation while in randomness error mode``?
"""

# %%
# One function, one Jacobian
# --------------------------
# ``f`` maps three inputs to two outputs, so its Jacobian ``J`` has two rows
# (one per output ``y[i]``) and three columns (one per input ``x[j]``).
# ``torch.autograd.functional.jacobian`` builds it in full.
import contextlib
import sys

import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.autograd import forward_ad
from torch.autograd.functional import jacobian
from torch.func import functional_call, grad, jacfwd, jacrev, jvp, vmap

from autograd_notes import check, draw_matrix, draw_series, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()


def f(x):
    return torch.stack([x[0] * x[1] + x[2], x[1] * x[2] ** 2])


x = torch.tensor([1.0, 2.0, 3.0], device=device)
J = jacobian(f, x)
check(J, [[2.0, 1.0, 1.0], [0.0, 9.0, 12.0]], label="J")
draw_matrix(J, rows=["y[0]", "y[1]"], columns=["x[0]", "x[1]", "x[2]"], title="jacobian(f, x)")
plt.show()

# %%
# Two rows and three columns: row ``y[0]`` holds ``2, 1, 1`` (the
# derivatives of ``x[0]·x[1] + x[2]``: ``x[1]``, ``x[0]`` and 1), row
# ``y[1]`` holds ``0, 9, 12`` (``y[1] = x[1]·x[2]²`` does not depend on
# ``x[0]``; ``x[2]² = 9`` and ``2·x[1]·x[2] = 12``). The stronger the blue,
# the larger the value; the 0 is the faintest cell, the 1s barely stronger.
#
# ``backward(gradient=u)`` reads rows
# -----------------------------------
# ``y.backward(u)`` computes uᵀJ (see :ref:`vector_jacobian_product`). With a
# one-hot ``u`` the product is one row of ``J``: the derivatives of one
# output with respect to every input. Reading both rows takes two backward
# passes through the same graph, hence ``retain_graph=True`` on the first
# (:ref:`retain_graph`).
x_leaf = x.clone().requires_grad_()
y = f(x_leaf)
y.backward(torch.tensor([1.0, 0.0], device=device), retain_graph=True)
check(x_leaf.grad, J[0], label="gradient = [1, 0]: x.grad vs J[0]")
x_leaf.grad = None
y.backward(torch.tensor([0.0, 1.0], device=device))
check(x_leaf.grad, J[1], label="gradient = [0, 1]: x.grad vs J[1]")

# %%
# No ``gradient`` reads a column: each backward pass starts from the
# outputs and walks the recorded graph back to the inputs
# (:ref:`mental_model`), so what it returns has one entry per *input*: a
# sum over the outputs, each weighted by its entry of ``u``. That is
# reverse mode, and it is the only mode ``backward()`` has.
#
# Forward mode's first call warns
# -------------------------------
# On torch 2.13.0 the first forward-mode call of a process loads the
# decompositions that forward mode uses for some operations, and PyTorch
# compiles them with ``torch.jit.script``, which emits a
# ``DeprecationWarning`` for every function it compiles, the decompositions
# and the helpers they call: 18 warnings. A test suite that turns warnings into
# errors (pytest's ``-W error``) fails on that first call, whatever the code
# under test does. The warnings come once per process: they are expected
# below only if nothing earlier in this process loaded the decompositions.
#
# The recorded releases show when this began (the table at the end of this
# page): up to 2.9 the first call does not warn, and 2.10 to 2.13 emit these
# 18 warnings. From 2.14 on they are ``FutureWarning`` warnings instead,
# which Python shows by default, outside tests too; the ``expect_warning``
# below waits for a ``DeprecationWarning``, so on those releases it reports
# a difference.
JIT_SCRIPT = (  # the second wording is the one Python 3.14 and later get
    r"^`torch\.jit\.script` is (deprecated|not supported in Python 3\.14\+ and may break)\. "
    r"Please switch to `torch\.compile` or `torch\.export`\.$"
)
first_call = "torch._decomp.decompositions_for_jvp" not in sys.modules
expected = expect_warning(DeprecationWarning, match=JIT_SCRIPT) if first_call else contextlib.nullcontext()
with expected as caught:
    jvp(torch.sin, (x,), (torch.ones_like(x),))
if first_call:
    check(len(caught.records), 18, label="warnings on the first call")

# %%
# Forward mode pushes a tangent from the inputs
# ---------------------------------------------
# Forward mode runs the function once on *dual* tensors: each input carries
# a tangent ``v`` (a direction in input space), and every operation
# computes its output's tangent from its inputs' values and tangents while
# it computes the value. The output's tangent is Jv. Inside a
# ``forward_ad.dual_level()``, ``make_dual`` attaches the tangent and
# ``unpack_dual`` reads it back.
v = torch.tensor([1.0, -1.0, 0.5], device=device)
with forward_ad.dual_level():
    x_dual = forward_ad.make_dual(x, v)
    y_dual = f(x_dual)
    y_primal, y_tangent = forward_ad.unpack_dual(y_dual)
    check(y_dual.grad_fn, None, label="y_dual.grad_fn")
check(y_primal, [5.0, 18.0], label="y_primal")
check(y_tangent, J @ v, label="y_tangent vs J @ v")
check(forward_ad.unpack_dual(y_dual).tangent, None, label="tangent after the dual level")

# %%
# ``y_tangent`` is ``J @ v = [1.5, -3.0]``, computed without building ``J``
# and without any graph: ``y_dual`` has no ``grad_fn``, because nothing is
# recorded for a later pass (``x`` does not require a gradient). Each
# operation turned its inputs' tangents into its output's tangent on the
# spot. The tangent lives only as long as its level: once the ``with``
# block is left, ``y_dual`` is a plain tensor.
#
# ``torch.func.jvp`` does the same in one call: it takes the function, the
# inputs and the tangents, and returns the output and its tangent. A
# one-hot tangent reads one *column* of ``J``: the derivatives of every
# output with respect to one input.
_, jv = jvp(f, (x,), (v,))
check(jv, y_tangent, label="torch.func.jvp vs dual tensors")
_, column = jvp(f, (x,), (torch.tensor([0.0, 0.0, 1.0], device=device),))
check(column, J[:, 2], label="tangent = [0, 0, 1]: jvp vs J[:, 2]")

# %%
# ``jacfwd`` and ``jacrev``: one matrix, two costs
# ------------------------------------------------
# ``torch.func.jacrev`` builds ``J`` row by row with vector-Jacobian
# products, one per output; ``torch.func.jacfwd`` column by column with
# Jacobian-vector products, one per input. Both batch their products with
# ``vmap``, and both give the same matrix:
check(jacfwd(f)(x), J, label="jacfwd(f)(x)")
check(jacrev(f)(x), J, label="jacrev(f)(x)")

# %%
# Which one is cheaper depends on the shape of ``J``. To make the passes
# visible, the two functions below build a Jacobian without ``vmap``, one
# product at a time, and count them: ``jacobian_by_vjps`` counts the
# backward passes that reach the output (a hook on it fires once per
# pass), ``jacobian_by_jvps`` the forward passes (calls of the function).


def jacobian_by_vjps(fn, x):
    x = x.detach().requires_grad_()
    y = fn(x)
    passes = []
    y.register_hook(lambda gradient: passes.append(1))
    one_hots = torch.eye(y.numel(), device=device)
    rows = [torch.autograd.grad(y, x, one_hot, retain_graph=True)[0] for one_hot in one_hots]
    return torch.stack(rows), len(passes)


def jacobian_by_jvps(fn, x):
    calls = []

    def counted(x):
        calls.append(1)
        return fn(x)

    one_hots = torch.eye(x.numel(), device=device)
    columns = [jvp(counted, (x,), (one_hot,))[1] for one_hot in one_hots]
    return torch.stack(columns, dim=1), len(calls)


torch.manual_seed(0)
x4 = torch.randn(4, device=device)
forward_passes, backward_passes, agree = [], [], []
outputs = range(1, 9)
for m in outputs:
    weights = torch.randn(m, 4, device=device)

    def g(x, weights=weights):
        return torch.tanh(weights @ x)

    by_columns, n_forward = jacobian_by_jvps(g, x4)
    by_rows, n_backward = jacobian_by_vjps(g, x4)
    forward_passes.append(n_forward)
    backward_passes.append(n_backward)
    by_jacrev = jacrev(g)(x4)
    agree.append(
        torch.allclose(by_columns, by_rows, atol=1e-6) and torch.allclose(by_rows, by_jacrev, atol=1e-6)
    )

check(agree, [True] * 8, label="by_columns == by_rows == jacrev(g)(x4), m = 1..8")
check(forward_passes, [4] * 8, label="forward_passes")
check(backward_passes, list(outputs), label="backward_passes")
draw_series(
    {"forward_passes": forward_passes, "backward_passes": backward_passes},
    x=list(outputs),
    xlabel="m",
    title="g(x) = tanh(weights @ x), weights: [m, 4]",
)
plt.show()

# %%
# Two lines over the number of outputs ``m``, from 1 to 8, for a function
# of 4 inputs: ``forward_passes`` stays at 4, one pass per input (column of
# ``J``); ``backward_passes`` climbs from 1 to 8, one pass per output (row).
# They cross at ``m = 4``, where ``J`` is square. Both methods built the
# same matrices, equal to ``jacrev``'s.
#
# So forward mode (``jacfwd``) is cheaper for a *tall* Jacobian, few inputs
# and many outputs, and reverse mode (``jacrev``, ``backward()``) for a
# *wide* one. A loss is the widest case there is: millions of parameters
# in, one number out, one backward pass for the whole gradient. That is why
# training uses reverse mode. ``vmap`` runs the products of ``jacfwd`` and
# ``jacrev`` as one batched computation instead of a Python loop, but the
# batch still holds one product per column or per row: the work grows the
# same way.
#
# Per-sample gradients with ``vmap`` and ``grad``
# -----------------------------------------------
# ``loss.backward()`` on a batch gives the gradient of the batch's loss: the
# per-sample gradients are summed (or averaged) before anyone sees them.
# Some methods need each one (per-sample clipping in differentially private
# training, statistics of gradient norms). ``torch.func.functional_call``
# runs a module with parameters passed in a dictionary, ``grad``
# differentiates the loss of *one* sample with respect to them, and
# ``vmap`` maps that over the batch.
torch.manual_seed(0)
model = nn.Linear(3, 1).to(device)
inputs = torch.randn(4, 3, device=device)
targets = torch.randn(4, device=device)
params = {name: p.detach() for name, p in model.named_parameters()}


def sample_loss(params, sample, target):
    prediction = functional_call(model, params, (sample.unsqueeze(0),))
    return (prediction.squeeze() - target) ** 2


per_sample = vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, inputs, targets)
check(
    {name: list(g.shape) for name, g in per_sample.items()},
    {"weight": [4, 1, 3], "bias": [4, 1]},
    label="per-sample gradient shapes",
)
check((model.weight.grad, model.bias.grad), (None, None), label="(model.weight.grad, model.bias.grad)")

# %%
# One gradient per sample for every parameter: ``weight`` is ``[1, 3]``, so
# its per-sample gradients are ``[4, 1, 3]``. The module's own ``.grad``
# stayed ``None``, as with every ``torch.func`` transform
# (:ref:`functional_gradients`). The same gradients, with one backward pass
# per sample:
loop = {name: [] for name in params}
for sample, target in zip(inputs, targets, strict=True):
    model.zero_grad()
    ((model(sample.unsqueeze(0)).squeeze() - target) ** 2).backward()
    for name, p in model.named_parameters():
        loop[name].append(p.grad.clone())
for name in params:
    check(per_sample[name], torch.stack(loop[name]), label=f"vmap(grad) vs loop: {name}")

model.zero_grad()
((model(inputs).squeeze(1) - targets) ** 2).mean().backward()
check(model.weight.grad, per_sample["weight"].mean(0), label="batch weight.grad vs per-sample mean")
check(
    per_sample["weight"].squeeze(1),
    per_sample["bias"] * inputs,
    label="per-sample weight gradients vs bias gradient * inputs",
)

table = torch.cat([per_sample["weight"].squeeze(1), per_sample["bias"]], dim=1)
figure = draw_matrix(
    table,
    rows=[f"inputs[{i}]" for i in range(4)],
    columns=["weight[0, 0]", "weight[0, 1]", "weight[0, 2]", "bias[0]"],
    title="vmap(grad(sample_loss), in_dims=(None, 0, 0))",
)
figure.set_size_inches(figure.get_figwidth() + 1.5, figure.get_figheight())  # room for the columns' labels
plt.show()

# %%
# One row per sample, ``inputs[0]`` to ``inputs[3]``; one column per
# parameter entry, the three entries of ``weight`` then ``bias``; blue cells
# are positive, red ones negative. The last column is each sample's
# gradient with respect to the bias, ``2·(prediction − target)``, and the
# three before it are that number times the sample's three inputs (checked
# above). A backward pass on the batch's mean loss gives only the mean of
# each column, in which samples whose gradients point in opposite
# directions cancel out; per-sample methods need the rows themselves.
#
# BatchNorm and dropout under ``vmap``
# ------------------------------------
# ``vmap`` runs ``sample_loss`` as if on one sample at a time, so inside it
# every sample is a batch of one. A ``BatchNorm1d`` in training mode
# normalises with the statistics of the batch it sees, and it fails before
# it normalises anything: its forward first adds 1 to its
# ``num_batches_tracked`` buffer in place, and that buffer is a tensor
# captured from outside the function that ``grad`` differentiates, which
# ``grad`` does not allow to be changed:
torch.manual_seed(0)
normed = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2), nn.Linear(2, 1)).to(device)
normed_params = {name: p.detach() for name, p in normed.named_parameters()}


def normed_loss(params, sample, target):
    prediction = functional_call(normed, params, (sample.unsqueeze(0),))
    return (prediction.squeeze() - target) ** 2


per_sample_normed = vmap(grad(normed_loss), in_dims=(None, 0, 0))
with expect_error(
    RuntimeError,
    match=r"^During a grad \(vjp, jvp, grad, etc\) transform, the function provided attempted to call "
    r"in-place operation \(aten::add_\.Tensor\) that would mutate a captured Tensor\. ",
):
    per_sample_normed(normed_params, inputs, targets)
check(normed[1].num_batches_tracked, 0, label="num_batches_tracked after the error")

# %%
# ``torch.func.replace_all_batch_norm_modules_`` stops the module from
# tracking running statistics, in place, so nothing is mutated any more.
# The next obstacle is the batch of one itself: with a single value per
# channel there is no batch statistic to compute, and ``BatchNorm1d``
# refuses. That is the real problem: in training mode a sample's output
# depends on the other samples of its batch, so a per-sample gradient is not
# defined at all.
from torch.func import replace_all_batch_norm_modules_

replace_all_batch_norm_modules_(normed)
check(normed[1].running_mean, None, label="normed[1].running_mean after replace_all_batch_norm_modules_")
with expect_error(
    ValueError,
    match=r"^Expected more than 1 value per channel when training, got input size torch\.Size\(\[1, 2\]\)$",
):
    per_sample_normed(normed_params, inputs, targets)

# %%
# The usual way out is evaluation mode: ``BatchNorm`` then normalises with
# fixed running statistics, each sample's output depends on that sample
# alone, and ``vmap`` gives the same gradients as a loop of one backward
# pass per sample. (A model trained with per-sample gradients, as in
# differentially private training, replaces ``BatchNorm`` with
# ``GroupNorm`` or ``LayerNorm``, which use no batch statistics.)
torch.manual_seed(0)
normed = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2), nn.Linear(2, 1)).to(device).eval()
normed_params = {name: p.detach() for name, p in normed.named_parameters()}
per_sample_eval = vmap(grad(normed_loss), in_dims=(None, 0, 0))(normed_params, inputs, targets)
looped = []
for sample, target in zip(inputs, targets, strict=True):
    normed.zero_grad()
    ((normed(sample.unsqueeze(0)).squeeze() - target) ** 2).backward()
    looped.append(normed[0].weight.grad.clone())
check(per_sample_eval["0.weight"], torch.stack(looped), label="eval mode: vmap(grad) vs loop, 0.weight")

# %%
# Dropout draws a random mask, and ``vmap`` refuses random operations
# unless it is told whether the samples share one draw
# (``randomness="same"``) or each gets its own (``randomness="different"``,
# what a batch would get):
torch.manual_seed(0)
dropped = nn.Sequential(nn.Linear(3, 8), nn.Dropout(0.5), nn.Linear(8, 1)).to(device)
dropped_params = {name: p.detach() for name, p in dropped.named_parameters()}


def dropped_loss(params, sample, target):
    prediction = functional_call(dropped, params, (sample.unsqueeze(0),))
    return (prediction.squeeze() - target) ** 2


with expect_error(
    RuntimeError,
    match=r"^vmap: called random operation while in randomness error mode\. Please either use the 'same' "
    r"or 'different' randomness flags on vmap or perform the randomness operation out of vmap$",
):
    vmap(grad(dropped_loss), in_dims=(None, 0, 0))(dropped_params, inputs, targets)

masks = {}
for randomness in ("same", "different"):
    gradients = vmap(grad(dropped_loss), in_dims=(None, 0, 0), randomness=randomness)(
        dropped_params, inputs, targets
    )
    masks[randomness] = gradients["2.weight"].squeeze(1) != 0  # [4 samples, 8 hidden units]
for randomness, one_mask in (("same", True), ("different", False)):
    same_as_first = bool((masks[randomness] == masks[randomness][0]).all())
    check(same_as_first, one_mask, label=f'randomness="{randomness}": every sample has sample 0\'s mask')

# %%
# The gradient of the last layer's weight is zero exactly where dropout
# dropped a hidden unit, so its non-zero pattern is the sample's mask: one
# pattern for all four samples with ``"same"``, four patterns with
# ``"different"``. In evaluation mode dropout draws nothing and ``vmap``
# needs no flag.
#
# Sources
# -------
# - :ref:`source_003` says that PyTorch uses forward-mode and reverse-mode
#   automatic differentiation together. **Does not hold** for
#   ``backward()``: each call is one reverse-mode pass that computes one
#   vector-Jacobian product, and a one-hot ``gradient`` returns one row of
#   the Jacobian, never a column (checked above). Forward mode exists as
#   separate APIs, ``torch.autograd.forward_ad``, ``torch.func.jvp`` and
#   ``jacfwd``, that code calls explicitly. :ref:`vector_jacobian_product`
#   rebuilds the document's other claims.
