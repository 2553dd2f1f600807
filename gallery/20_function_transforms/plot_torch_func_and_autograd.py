"""
.. _func_and_autograd:

``torch.func`` and autograd
===========================

``torch.func`` differentiates *functions*, autograd differentiates the
operations it recorded on tensors; the gradients are the same, but a
module's state and a custom ``autograd.Function`` meet them differently.
This example passes a BatchNorm's buffers through ``functional_call`` and
follows where its running statistics go, compares ``torch.func.grad`` with
``torch.autograd.grad``, runs a custom Function under ``vmap``, and makes
BatchNorm work under ``vmap`` in training mode.

.. questions::

   - Why does ``torch.func.grad`` say it ``would mutate a captured Tensor``?
   - Difference between ``torch.func.grad`` and ``torch.autograd.grad``?
   - How do I use a custom ``autograd.Function`` with ``vmap``?
   - How do I run BatchNorm under ``vmap`` in training mode?
"""

# %%
# ``functional_call`` takes parameters and buffers
# ------------------------------------------------
# ``torch.func.functional_call`` runs a module with tensors passed in
# dictionaries in place of its own. A BatchNorm has two kinds of state:
# parameters (``weight``, ``bias``) and buffers (``running_mean``,
# ``running_var``, ``num_batches_tracked``), which training mode updates in
# place on every forward pass. The first call passes the parameters only,
# the second the parameters and copies of the buffers, both on the same
# batch.
import copy

import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.func import functional_call, grad, replace_all_batch_norm_modules_, vmap

from autograd_notes import check, draw_matrix, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).to(device)
inputs = torch.randn(8, 3, device=device)
params = {name: p.detach() for name, p in model.named_parameters()}
buffers = {name: b.clone() for name, b in model.named_buffers()}
check(list(params), ["0.weight", "0.bias", "1.weight", "1.bias"], label="list(params)")
check(list(buffers), ["1.running_mean", "1.running_var", "1.num_batches_tracked"], label="list(buffers)")
before = model[1].running_mean.clone()
batch_mean = model[0](inputs).mean(0).detach()

out_1 = functional_call(model, params, (inputs,))
after_call_1 = model[1].running_mean.clone()
check(after_call_1, 0.1 * batch_mean, label="model's running_mean after call 1")
check(model[1].num_batches_tracked, 1, label="model's num_batches_tracked after call 1")

out_2 = functional_call(model, (params, buffers), (inputs,))
check(model[1].running_mean, after_call_1, label="model's running_mean after call 2")
check(model[1].num_batches_tracked, 1, label="model's num_batches_tracked after call 2")
check(buffers["1.running_mean"], 0.1 * batch_mean, label="buffers['1.running_mean'] after call 2")
check(buffers["1.num_batches_tracked"], 1, label="buffers['1.num_batches_tracked'] after call 2")
check(torch.equal(out_2, out_1), True, label="out_2 equals out_1")

figure = draw_matrix(
    torch.stack([before, after_call_1, model[1].running_mean, buffers["1.running_mean"]]),
    rows=["model, before", "model, after call 1", "model, after call 2", "buffers, after call 2"],
    columns=[f"running_mean[{i}]" for i in range(4)],
    title="where the running mean is updated",
)
figure.set_size_inches(figure.get_figwidth() + 1.5, figure.get_figheight())  # room for the columns' labels
plt.show()

# %%
# Four rows, one per running mean, four columns, one per channel: the
# model's before any call (all 0, uncoloured), the model's after each call, and
# the passed buffers' after call 2; red cells are negative values. Call 1,
# with the parameters only, updated the *model's* buffers: ``running_mean``
# moved a tenth of the way (the default ``momentum=0.1``) towards the
# batch's mean and ``num_batches_tracked`` became 1. Call 2 left the model's
# row as it was and updated the *passed* dictionary in place, by the same
# amount: a buffer found in the dictionary replaces the module's for the
# call, and an in-place update lands on what was passed. The outputs are the
# same, since training mode normalises with the batch's own statistics.
#
# Under ``grad``, the buffers must be inputs
# ------------------------------------------
# Outside a transform, either call runs. Inside ``torch.func.grad`` the
# parameters-only call fails: the module's buffers are tensors the function
# *captured* rather than received, and ``grad`` refuses to mutate those.
targets = torch.randn(8, 4, device=device)


def loss_of(params, inputs):
    return ((functional_call(model, params, (inputs,)) - targets) ** 2).mean()


with expect_error(
    RuntimeError,
    match=(
        r"^During a grad \(vjp, jvp, grad, etc\) transform, the function provided attempted to call "
        r"in-place operation \(aten::add_\.Tensor\) that would mutate a captured Tensor\. This is not "
        r"supported; please rewrite the function being transformed to explicitly accept the mutated "
        r"Tensor\(s\) as inputs\.$"
    ),
):
    grad(loss_of)(params, inputs)
check(model[1].num_batches_tracked, 1, label="model's num_batches_tracked after the failed call")

# %%
# The refused operation is ``num_batches_tracked.add_(1)``, the first update
# a BatchNorm makes in training mode; it failed before anything changed.
# Passing the buffers as an argument, as the message suggests, fixes it.
# ``grad`` differentiates with respect to its first argument only (its
# ``argnums=0`` default), so the buffers are inputs that it does not
# differentiate:


def loss_with_buffers(params, buffers, inputs):
    return ((functional_call(model, (params, buffers), (inputs,)) - targets) ** 2).mean()


grads = grad(loss_with_buffers)(params, buffers, inputs)
check(buffers["1.num_batches_tracked"], 2, label="buffers['1.num_batches_tracked']")
check(model[1].num_batches_tracked, 1, label="model's num_batches_tracked")

reference = copy.deepcopy(model)
((reference(inputs) - targets) ** 2).mean().backward()
check(
    {name: torch.allclose(grads[name], p.grad, atol=1e-6) for name, p in reference.named_parameters()},
    {name: True for name in params},
    label="grads match backward() on a copy",
)
check(model[0].weight.grad, None, label="model[0].weight.grad")

model.eval()
check(list(grad(loss_of)(params, inputs)), list(params), label="eval mode, parameters only: gradients of")
model.train()

# %%
# The gradients are those that ``backward()`` computes on a copy of the
# model, and the passed ``num_batches_tracked`` counted the call, as a
# module's own would. In eval mode BatchNorm normalises with the running statistics and
# updates nothing, so the parameters-only call runs under ``grad`` too.
#
# ``grad`` against ``autograd.grad``
# ----------------------------------
# :ref:`functional_gradients` shows that ``torch.func.grad`` and
# ``backward()`` compute the same numbers and that the transforms never
# write ``.grad``. ``torch.autograd.grad`` does not write ``.grad`` either,
# but it differentiates a graph already recorded, so the output it is
# given must have been recorded from tensors that require a gradient (the
# error below names element 0 of the outputs); ``grad`` takes a function
# and plain tensors, and records what it needs itself.
x = torch.tensor([1.0, 2.0, 3.0], device=device)


def cube_sum(x):
    return (x**3).sum()


check(grad(cube_sum)(x), 3 * x**2, label="grad(cube_sum)(x)")
check(x.requires_grad, False, label="x.requires_grad")
with expect_error(
    RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a grad_fn$"
):
    torch.autograd.grad(cube_sum(x), x)

x_leaf = x.clone().requires_grad_()
(from_autograd,) = torch.autograd.grad(cube_sum(x_leaf), x_leaf)
check(from_autograd, 3 * x**2, label="torch.autograd.grad(cube_sum(x_leaf), x_leaf)")
check(x_leaf.grad, None, label="x_leaf.grad")

# %%
# Both return ``3x²`` and leave ``.grad`` alone. They part on what counts as
# one number. ``autograd.grad`` (like ``backward()``) accepts any output with
# one element; ``grad`` wants a tensor with no dimensions at all, so a loss
# reduced with ``keepdim=True``, shape ``[1]``, is refused, and so is a
# Python number:


def cube_sum_keepdim(x):
    return (x**3).sum(0, keepdim=True)


(from_autograd,) = torch.autograd.grad(cube_sum_keepdim(x_leaf), x_leaf)
check(from_autograd, 3 * x**2, label="torch.autograd.grad of an output of shape [1]")
with expect_error(
    RuntimeError,
    match=(
        r"^grad_and_value\(f\)\(\*args\): Expected f\(\*args\) to return a scalar Tensor, "
        r"got tensor with 1 dims\. Maybe you wanted to use the vjp or jacrev APIs instead\?$"
    ),
):
    grad(cube_sum_keepdim)(x)
with expect_error(
    RuntimeError,
    match=r"^grad_and_value\(f\)\(\*args\): Expected f\(\*args\) to return a Tensor, got <class 'float'>$",
):
    grad(lambda x: cube_sum(x).item())(x)

# %%
# ``.squeeze()`` the loss, or reduce it without ``keepdim``; ``.item()``
# leaves the tensor world, and nothing after it can be differentiated.
#
# A custom Function under ``vmap``
# --------------------------------
# :ref:`custom_function` writes ``torch.autograd.Function`` in the style of
# PyTorch 2: ``forward`` without ``ctx``, and a separate ``setup_context``.
# That style is what the ``torch.func`` transforms need; the older style,
# with ``ctx`` as ``forward``'s first argument, works with ``backward()``
# and fails under any transform:


class OldStyleCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * grad_output


x_leaf.grad = None
OldStyleCube.apply(x_leaf).sum().backward()
check(x_leaf.grad, 3 * x**2, label="x_leaf.grad from backward()")
with expect_error(
    RuntimeError,
    match=(
        r"^In order to use an autograd\.Function with functorch transforms \(vmap, grad, jvp, jacrev, "
        r"\.\.\.\), it must override the setup_context staticmethod\. For more details, please see "
        r"https://pytorch\.org/docs/main/notes/extending\.func\.html$"
    ),
):
    grad(lambda x: OldStyleCube.apply(x).sum())(x)

# %%
# In the new style, ``grad`` works at once, and ``vmap`` still refuses: it
# needs to know how the Function treats a batch dimension.


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * grad_output


batch = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, -2.0]], device=device)
check(grad(lambda x: Cube.apply(x).sum())(x), 3 * x**2, label="grad of Cube")
with expect_error(
    RuntimeError,
    match=(
        r"^You tried to vmap over Cube, but it does not have vmap support\. Please override and "
        r"implement the vmap staticmethod or set generate_vmap_rule=True\. For more details, please "
        r"see https://pytorch\.org/docs/main/notes/extending\.func\.html$"
    ),
):
    vmap(Cube.apply)(batch)


class BatchedCube(Cube):
    generate_vmap_rule = True


check(vmap(BatchedCube.apply)(batch), batch**3, label="vmap of BatchedCube")
per_sample = vmap(grad(lambda x: BatchedCube.apply(x).sum()))(batch)
check(per_sample, 3 * batch**2, label="vmap(grad) of BatchedCube")

# %%
# With ``generate_vmap_rule = True``, ``vmap`` runs ``forward``,
# ``setup_context`` and ``backward`` themselves on batched tensors, which
# works when they are made of PyTorch operations. A ``forward`` that leaves
# PyTorch, through NumPy for instance, cannot run on a batched tensor, which
# has no memory of its own to hand over:


class NumpyCube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return torch.from_numpy(x.cpu().numpy() ** 3).to(x.device)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * grad_output


with expect_error(RuntimeError, match=r"^Cannot access data pointer of Tensor that doesn't have storage$"):
    vmap(NumpyCube.apply)(batch)


class NumpyCubeWithRule(NumpyCube):
    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, x):
        # element-wise: the batch dimension stays where it is
        return NumpyCubeWithRule.apply(x), in_dims[0]


check(vmap(NumpyCubeWithRule.apply)(batch), batch**3, label="vmap of NumpyCubeWithRule")

# %%
# A ``vmap`` staticmethod receives the whole batch as one plain tensor, with
# ``in_dims`` saying where its batch dimension is, and returns the output
# and where the output's batch dimension is. An element-wise Function
# leaves it where it is, so calling the Function on the whole batch is the
# rule.
#
# BatchNorm under ``vmap`` in training mode
# -----------------------------------------
# ``vmap`` over groups of samples (five tasks of eight samples each, or
# five ensemble members fed different data) runs the model once per group.
# With the model's buffers or one shared copy, BatchNorm refuses in
# training mode: each group would update the same ``running_mean`` in
# place.
groups = torch.randn(5, 8, 3, device=device)


def forward(params, buffers, batch):
    return functional_call(model, (params, buffers), (batch,))


with expect_error(
    RuntimeError,
    match=(
        r"^Batch norm got a batched tensor as input while the running_mean or running_var, which will "
        r"be updated in place, were not batched\."
    ),
):
    vmap(forward, in_dims=(None, None, 0))(params, buffers, groups)
check(buffers["1.num_batches_tracked"], 3, label="buffers['1.num_batches_tracked'] after the failed call")

model.eval()
check(vmap(forward, in_dims=(None, None, 0))(params, buffers, groups).shape, (5, 8, 4), label="eval mode")
model.train()

# %%
# The message goes on to suggest ``track_running_stats=False``. The failed
# call has already counted itself: BatchNorm increases
# ``num_batches_tracked`` (here the shared copy's, 2 → 3) before it
# normalises, and the check that refuses comes with the normalisation. In
# eval mode nothing is updated, and ``vmap`` runs. In training mode there
# are two ways out. The first gives each group its own buffers, batched
# like the data (``in_dims=0``), so that each group updates its own
# running statistics:
group_buffers = {name: b.expand(5, *b.shape).clone() for name, b in buffers.items()}
start = {name: b.clone() for name, b in buffers.items()}
outputs = vmap(forward, in_dims=(None, 0, 0))(params, group_buffers, groups)

alone, running_means = [], []
for batch_of_group in groups:
    own = {name: b.clone() for name, b in start.items()}
    alone.append(forward(params, own, batch_of_group))
    running_means.append(own["1.running_mean"])
check(torch.allclose(outputs, torch.stack(alone)), True, label="outputs match one group at a time")
check(
    group_buffers["1.running_mean"], torch.stack(running_means), label="running means vs one group at a time"
)
check(group_buffers["1.num_batches_tracked"], [4] * 5, label="num_batches_tracked per group")

draw_matrix(
    group_buffers["1.running_mean"],
    rows=[f"group {g}" for g in range(5)],
    columns=[f"running_mean[{i}]" for i in range(4)],
    title="vmap(forward, in_dims=(None, 0, 0))",
).set_size_inches(6.5, 3.6)
plt.show()

# %%
# One row per group, one column per channel: five different running means,
# each the one that group's batch alone gives (checked against a loop, as
# are the outputs), and each group counted its own call (4, after the three
# earlier counts in ``buffers``). The copies start from the same values, so
# the rows differ only through the groups' data.
#
# The second way is ``torch.func.replace_all_batch_norm_modules_``, which
# switches every BatchNorm in the model to ``track_running_stats=False``
# and removes its running statistics:
replace_all_batch_norm_modules_(model)
check(model[1].track_running_stats, False, label="model[1].track_running_stats")
check(
    (model[1].running_mean, model[1].running_var, model[1].num_batches_tracked),
    (None, None, None),
    label="model[1]'s running statistics",
)
outputs = vmap(forward, in_dims=(None, None, 0))(params, {}, groups)
loop = torch.stack([forward(params, {}, g) for g in groups])
check(torch.allclose(outputs, loop), True, label="vmap matches a loop over the groups")

model.eval()
eval_outputs = forward(params, {}, groups[0])
model.train()
train_outputs = forward(params, {}, groups[0])
check(torch.equal(eval_outputs, train_outputs), True, label="eval-mode output equals training-mode output")

# %%
# ``vmap`` now runs with no buffers at all, and matches a loop over the
# groups. The price is eval mode: with no running statistics, BatchNorm
# normalises with the batch's own statistics in eval mode too (the last
# check), so a model patched this way predicts differently from the
# original at inference time. Keeping an unpatched original does not help
# by itself: training through a patched copy never updates the original's
# running statistics. Here a new model is trained for three steps through
# a patched copy, on parameters it shares with the original:
fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).to(device)
patched = replace_all_batch_norm_modules_(copy.deepcopy(fresh))
shared = {name: p.detach() for name, p in fresh.named_parameters()}  # the same storage as fresh's
start_weight = fresh[0].weight.detach().clone()
group_targets = torch.randn(5, 8, 4, device=device)


def group_loss(params, batch, target):
    return ((functional_call(patched, params, (batch,)) - target) ** 2).mean()


for _ in range(3):
    step_grads = vmap(grad(group_loss), in_dims=(None, 0, 0))(shared, groups, group_targets)
    with torch.no_grad():
        for name, p in shared.items():
            p -= 0.1 * step_grads[name].mean(0)
check(torch.equal(fresh[0].weight, start_weight), False, label="fresh[0].weight equals its start")
check(fresh[1].running_mean.tolist(), [0.0] * 4, label="fresh[1].running_mean")
check(fresh[1].running_var.tolist(), [1.0] * 4, label="fresh[1].running_var")
check(fresh[1].num_batches_tracked, 0, label="fresh[1].num_batches_tracked")

# %%
# The parameters moved; the running statistics stayed where a new
# BatchNorm starts, mean 0 and variance 1, and no batch was counted. Either
# batch the buffers as above, or, after training, compute the statistics
# once: run training data through the unpatched model, which has the
# trained parameters, in training mode and without ``vmap``
# (``momentum=None`` makes the running statistics a cumulative average
# of the batches'), then switch it to eval mode:
fresh[1].momentum = None
fresh[1].reset_running_stats()  # start from mean 0, variance 1 and no batches counted
with torch.no_grad():
    for batch_of_group in groups:
        fresh(batch_of_group)
    features = fresh[0](groups)  # [5, 8, 4]: the input of the BatchNorm, group by group
fresh.eval()
check(fresh[1].num_batches_tracked, 5, label="fresh[1].num_batches_tracked, recomputed")
check(fresh[1].running_mean, features.mean(dim=(0, 1)), label="running_mean vs the mean of all the data")
check(fresh[1].running_var, features.var(dim=1).mean(0), label="running_var vs the groups' mean variance")
bn = fresh[1]
by_hand = (features[0] - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps) * bn.weight + bn.bias
check(torch.allclose(fresh(groups[0]), by_hand, atol=1e-6), True, label="eval mode: normalised with these")

# %%
# With batches of equal size, the running mean is the mean of all the
# training data; the running variance is the mean of the five batches'
# variances (each with Bessel's correction, over eight samples). In eval
# mode the model now normalises with these, as the last check computes by
# hand.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the running statistics, the gradients and the messages are checked on the
# runner that built this page. PyTorch's documentation describes the same
# APIs: ``torch.func.functional_call``, ``torch.func.grad``,
# ``torch.func.replace_all_batch_norm_modules_``, and the note *Extending
# torch.func with autograd.Function*, which the messages above link to.
