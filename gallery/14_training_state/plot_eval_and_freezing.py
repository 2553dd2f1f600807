"""
.. _eval_and_freezing:

``eval()``, ``no_grad()`` and frozen layers
===========================================

``model.eval()`` and ``torch.no_grad()`` are often taken for one another,
and so are freezing a layer and hiding it from autograd. This example shows
what each one changes: ``eval()`` switches ``Dropout`` and ``BatchNorm`` to
their inference behaviour but still records a graph; ``no_grad()`` records
nothing but leaves ``Dropout`` dropping and ``BatchNorm`` updating its
statistics. Then it freezes a layer with ``requires_grad_(False)``: the
graph skips its parameters, their ``.grad`` stays ``None`` and optimizers
leave them alone, except when ``.grad`` holds zeros from before the freeze.
Such a freeze leaves ``BatchNorm`` updating its statistics, and under
``DistributedDataParallel`` a change of ``requires_grad`` after wrapping
fails, silently one way and loudly the other. Last, it shows that
``no_grad()`` inside ``forward`` cuts more than the layer it wraps.

.. questions::

   - Difference between ``model.eval()`` and ``torch.no_grad()``?
   - How do I freeze some layers of a model?
   - Why does my frozen BatchNorm still update its running statistics?
   - Why does ``no_grad`` inside ``forward`` stop earlier layers from training?
"""

# %%
# ``eval()`` still records the graph
# ----------------------------------
# A small model with ``BatchNorm`` and ``Dropout``. In evaluation mode its
# output is the same at every call, and it still has a ``grad_fn``: the
# operations were recorded, and the graph keeps the tensors its backward
# would need.
import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import (
    autograd_graph,
    check,
    draw_graph,
    draw_spread,
    expect_error,
    runner_device,
    show_state,
)

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 1)).to(
    device
)
x = torch.randn(16, 4).to(device)  # drawn on the CPU: the same numbers on every runner

model.eval()
out = model(x)
check(out.grad_fn, "AddmmBackward0", label="out.grad_fn")
check(out.requires_grad, True, label="out.requires_grad")
check(torch.equal(model(x), out), True, label="torch.equal(model(x), out)")
saved = [s.shape for s in autograd_graph(out).nodes[0].saved]
check(saved, [(16, 8), (8, 1)], label="shapes saved by out.grad_fn")

# %%
# The last layer's node saved its input, the ``[16, 8]`` activations, and
# its weight: an evaluation loop run this way keeps every batch's
# activations for as long as its output lives (:ref:`accumulating_history`
# counts them). ``eval()`` only sets a flag, ``training``, on the model and
# every module in it; modules such as ``Dropout`` and ``BatchNorm`` read
# it, autograd never does.
#
# ``no_grad()`` keeps the training behaviour
# ------------------------------------------
# Back in training mode, the same input, twenty times under
# ``torch.no_grad()``:
model.train()
tracked = model[1].num_batches_tracked.item()
with torch.no_grad():
    in_train_mode = [model(x)[0].item() for _ in range(20)]
    check(model(x).grad_fn, None, label="model(x).grad_fn under no_grad()")
check(len(set(in_train_mode)) > 1, True, label="different values")
check(model[1].num_batches_tracked.item() - tracked, 21, label="BatchNorm updates")

model.eval()
with torch.no_grad():
    in_eval_mode = [model(x)[0].item() for _ in range(20)]
with torch.inference_mode():
    inferred = model(x)
check(len(set(in_eval_mode)), 1, label="different values, eval() and no_grad()")
check(inferred[0], [in_eval_mode[0]], label="inferred[0], under inference_mode()")
draw_spread(
    {"torch.no_grad()": in_train_mode, "model.eval(); torch.no_grad()": in_eval_mode},
    reference=in_eval_mode[0],
    xlabel="model(x)[0].item()",
)
plt.show()

# %%
# Each dot is ``model(x)[0]``, one per call, twenty calls per row; the
# dashed line is the output in evaluation mode. The top row, training mode
# under ``torch.no_grad()``, is scattered: ``Dropout`` zeroed a different
# random set of activations at every call. The bottom row, ``eval()`` and
# ``no_grad()`` together, is twenty equal values, stacked in one column on
# the line.
#
# ``no_grad()`` also left ``BatchNorm`` in training mode: every call (21
# here) normalised with the batch's own statistics and moved the running
# mean and variance that evaluation uses, so merely evaluating a model this
# way changes it. For inference, use both: ``model.eval()`` for the
# modules, ``torch.no_grad()`` or ``torch.inference_mode()`` for autograd
# (:ref:`inference_mode_vs_no_grad` shows what the second one adds).
#
# Freezing a layer
# ----------------
# ``requires_grad_(False)`` on a module turns its parameters into leaves
# that require no gradient. Here the middle one of three linear layers,
# ``net[2]``, is frozen:
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1)).to(device)
net[2].requires_grad_(False)
inputs = torch.randn(5, 3).to(device)
loss = net(inputs).pow(2).mean()
names = {"loss": loss}
for i in (0, 2, 4):
    names[f"net[{i}].weight"], names[f"net[{i}].bias"] = net[i].weight, net[i].bias
graph = autograd_graph(loss, names=names)
check(
    [node.tensor for node in graph.nodes if node.is_leaf],
    ["net[0].weight", "net[0].bias", "net[4].weight", "net[4].bias"],
    label="the leaves of the graph",
)
draw_graph(graph, title="loss = net(inputs).pow(2).mean()")
plt.show()

# %%
# The graph from ``MeanBackward0 (loss)`` and ``PowBackward0`` down: three
# ``AddmmBackward0`` nodes, one per linear layer, with two
# ``TanhBackward0`` between them, and four blue ``AccumulateGrad`` leaves,
# the weight (through ``TBackward0``) and the bias of ``net[0]`` and of
# ``net[4]``. The middle ``AddmmBackward0`` is the frozen layer: no arrow
# leads from it to ``net[2].weight`` or ``net[2].bias``, only down to the
# ``TanhBackward0`` below it. It saved its weight, transposed
# (``mat2 [2, 2]``), which the gradient of its *input* needs, and not its
# input, which only its weight's gradient would need; the first layer, whose
# input ``inputs`` needs no gradient, saved ``mat1 [5, 3]`` and no weight.
loss.backward()
show_state(**{f"net[{i}].weight": net[i].weight for i in (0, 2, 4)})

# %%
# The frozen weight has no gradient, ``None``, not zeros; the layers on both
# sides of it have theirs. An optimizer built over *all* the parameters
# skips every parameter whose ``.grad`` is ``None`` (:ref:`zero_grad_none`),
# so momentum, weight decay and Adam's moments never touch it:
for make in (
    lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=0.1),
    lambda params: torch.optim.AdamW(params, lr=0.1, weight_decay=0.1),
):
    optimizer = make(net.parameters())
    before = [p.detach().clone() for p in net.parameters()]
    for _ in range(3):
        optimizer.zero_grad()
        net(inputs).pow(2).mean().backward()
        optimizer.step()
    moved = [not torch.equal(p, b) for p, b in zip(net.parameters(), before, strict=True)]
    check(moved, [True, True, False, False, True, True], label=f"moved by {type(optimizer).__name__}")

# %%
# Unfreezing works the same way: ``requires_grad_(True)``, and the next
# ``backward()`` gives the layer a gradient, which an optimizer built over
# all the parameters uses at once. An optimizer built over the trainable
# parameters only, while the layer was frozen, never received it and goes
# on ignoring it:
filtered = torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.1)
net[2].requires_grad_(True)
everything = torch.optim.SGD(net.parameters(), lr=0.1)
net.zero_grad()
net(inputs).pow(2).mean().backward()
check(net[2].weight.grad is None, False, label="net[2].weight.grad is None")
before = net[2].weight.detach().clone()
filtered.step()
check(torch.equal(net[2].weight, before), True, label="unchanged after filtered.step()")
everything.step()
check(torch.equal(net[2].weight, before), False, label="unchanged after everything.step()")

# %%
# Freezing after zeros
# --------------------
# ``zero_grad(set_to_none=False)`` fills ``.grad`` with zeros instead of
# removing it. A parameter frozen after that keeps its tensor of zeros:
# ``backward()`` no longer writes to it, but the optimizer sees a gradient,
# zero, and applies momentum and weight decay. One parameter, one step with
# a gradient of 2, then a freeze and a second step:
for name, make in (
    ("SGD", lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=0.1)),
    ("AdamW", lambda params: torch.optim.AdamW(params, lr=0.1, weight_decay=0.1)),
):
    for to_none in (False, True):
        p = nn.Parameter(torch.tensor([1.0], device=device))
        optimizer = make([p])
        (2 * p).sum().backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=to_none)
        p.requires_grad_(False)
        optimizer.step()
        expected = {
            ("SGD", False): 0.5931,
            ("SGD", True): 0.79,
            ("AdamW", False): 0.8141,
            ("AdamW", True): 0.89,
        }[name, to_none]
        check(p.detach(), [expected], label=f"{name}, set_to_none={to_none}: p", atol=1e-4, rtol=0)

# %%
# With ``set_to_none=True`` (the default) the frozen parameter stays where
# the first step left it, 0.79 with SGD and 0.89 with AdamW. With zeros
# it moves on. SGD adds the weight decay, :math:`0.1 \times 0.79`, to the
# zero gradient, and its momentum buffer still holds the 2.1 of the first
# step (the gradient 2 and the decay :math:`0.1 \times 1`), so ``p``
# becomes :math:`0.79 - 0.1\,(0.9 \times 2.1 + 0.079) = 0.5931`. AdamW
# shrinks it by its decay and keeps moving it along its first moment, to
# 0.8141. When freezing a
# layer in the middle of training, set its gradients to ``None``
# (``p.grad = None``) or call ``zero_grad()`` with its default.
#
# A frozen ``BatchNorm`` still updates its statistics
# ---------------------------------------------------
# ``requires_grad_(False)`` freezes parameters. The running mean and
# variance of ``BatchNorm`` are not parameters but buffers, which its
# forward pass updates in training mode without any gradient. Here a
# classifier whose ``backbone``, a linear layer and a ``BatchNorm``, is
# frozen, and whose last layer is not, keeps the backbone's output in
# evaluation mode, then takes three training steps on the 16 samples of
# ``x``:
torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8)).to(device)
classifier = nn.Sequential(backbone, nn.ReLU(), nn.Linear(8, 1)).to(device)
backbone.requires_grad_(False)
optimizer = torch.optim.SGD(classifier.parameters(), lr=0.1)
bn = backbone[1]
check(
    [name for name, _ in bn.named_buffers()],
    ["running_mean", "running_var", "num_batches_tracked"],
    label="buffers",
)


def train_steps(steps):
    """Take ``steps`` optimizer steps of ``classifier`` on ``x``."""
    for _ in range(steps):
        optimizer.zero_grad()
        classifier(x).pow(2).mean().backward()
        optimizer.step()


with torch.no_grad():
    evaluated = backbone.eval()(x)
classifier.train()
train_steps(3)
with torch.no_grad():
    features = backbone[0](x)
check(bn.weight.grad, None, label="bn.weight.grad")
check(bn.num_batches_tracked, 3, label="bn.num_batches_tracked")
check(bn.running_mean, (1 - 0.9**3) * features.mean(0), label="bn.running_mean", atol=1e-5, rtol=1e-4)
expected_var = (1 - 0.9**3) * features.var(0) + 0.9**3
check(
    torch.allclose(bn.running_var, expected_var, rtol=1e-4, atol=1e-5),
    True,
    label="bn.running_var as expected",
)

# %%
# The frozen ``BatchNorm`` has no gradient, so the optimizer leaves its
# weight and bias alone, yet it counted three batches. Its running mean
# went from zeros to :math:`1 - 0.9^3 = 0.271` times the mean of its input
# over the batch: with the default ``momentum`` of 0.1, each forward in
# training mode moves the statistics a tenth of the way towards the
# batch's. The running variance moved from ones towards the batch's
# variance in the same way. A pretrained backbone frozen this way forgets
# the statistics it was trained with, a little at every step, in favour of
# those of the data it is fine-tuned on; meanwhile, in training mode, it
# normalises each batch with that batch's own statistics.
#
# ``eval()`` on the frozen part stops the updates: ``BatchNorm`` then
# normalises with the running statistics it has, and leaves them alone.
# The first check below compares its output in evaluation mode with
# ``evaluated``, from before the three steps. But ``train()`` on the whole
# model, which training loops call at the start of every epoch, sets every
# module back to training mode, the frozen ones included:
backbone.eval()
with torch.no_grad():
    check(torch.allclose(backbone(x), evaluated), False, label="backbone(x) equal to evaluated")
frozen_mean = bn.running_mean.clone()
train_steps(3)
check(torch.equal(bn.running_mean, frozen_mean), True, label="running_mean unchanged")
check(bn.num_batches_tracked, 3, label="bn.num_batches_tracked after backbone.eval()")
check(classifier[2].training, True, label="classifier[2].training")
classifier.train()
train_steps(1)
check(bn.num_batches_tracked, 4, label="bn.num_batches_tracked after classifier.train()")

# %%
# Three steps had changed the frozen backbone's output in evaluation mode.
# After ``backbone.eval()`` three more steps left the statistics as they
# were, while the last layer stayed in training mode and kept learning:
# ``eval()`` and ``train()`` set the flag of the module they are called on
# and of its children, nothing else. One call to ``classifier.train()``
# undid it, and the next step updated the statistics again. A loop that
# freezes a part with ``BatchNorm`` calls ``eval()`` on that part after
# every ``train()`` of the model (or overrides the model's ``train()`` to
# do it). ``BatchNorm`` with ``track_running_stats=False`` has no running
# statistics to protect, but always normalises with the batch's own.
#
# Freezing and unfreezing under ``DistributedDataParallel``
# ---------------------------------------------------------
# ``DistributedDataParallel`` (DDP) decides which gradients to all-reduce
# across processes when it is built: it keeps the parameters that require
# a gradient at that moment and attaches its all-reduce to them. Here a
# process group of one process (``gloo``, an in-memory store) wraps a
# network shaped like ``net``, its middle layer frozen, and a communication
# hook names the parameters of every all-reduce. The middle layer is then
# unfrozen and the network trained again, wrapped anew, and last frozen
# again after wrapping:
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel

torch.manual_seed(0)
layers = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1)).to(device)
layers[2].requires_grad_(False)
names = {parameter: name for name, parameter in layers.named_parameters()}
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
try:
    reduced = []

    def naming_hook(state, bucket):
        reduced.extend(names[parameter] for parameter in bucket.parameters())
        return default_hooks.allreduce_hook(None, bucket)

    wrapped = DistributedDataParallel(layers)
    wrapped.register_comm_hook(None, naming_hook)
    for frozen in (True, False):
        layers[2].requires_grad_(not frozen)
        reduced.clear()
        layers.zero_grad()
        wrapped(inputs).pow(2).mean().backward()
        check(
            sorted(reduced),
            ["0.bias", "0.weight", "4.bias", "4.weight"],
            label=f"all-reduced, frozen={frozen}",
        )
    check(layers[2].weight.grad is None, False, label="layers[2].weight.grad is None")

    wrapped = DistributedDataParallel(layers)
    wrapped.register_comm_hook(None, naming_hook)
    reduced.clear()
    wrapped(inputs).pow(2).mean().backward()
    check(len(reduced), 6, label="all-reduced after wrapping again")

    layers[2].requires_grad_(False)
    wrapped(inputs).pow(2).mean().backward()
    with expect_error(
        RuntimeError,
        match=r"^Expected to have finished reduction in the prior iteration before starting a new one\.",
    ):
        wrapped(inputs)
finally:
    dist.destroy_process_group()

# %%
# Unfrozen after wrapping, ``layers[2]`` gets a gradient, but DDP never
# all-reduces it: the hook saw the same four parameters before and after.
# With one process nothing is lost. With several, each fed its own data,
# each process would keep its own gradient for ``layers[2]``, the
# optimizers would step the replicas of that layer apart, and nothing
# would say so: DDP synchronises parameters only when it is built. Its documentation warns:
# "This module assumes all parameters are registered in the model by the
# time it is created. No parameters should be added nor removed later."
# Changing ``requires_grad`` adds or removes a parameter as far as DDP is
# concerned, since it builds its reducer "for all parameters that require
# grads" (a comment in ``_build_params_for_reducer``, in
# ``torch/nn/parallel/distributed.py``). Wrapping the model again, on every
# process, after the change makes DDP all-reduce all six parameters (the
# new wrapper also broadcasts the first process's parameters to the
# others). The reverse change fails loudly instead: a parameter frozen
# after wrapping never gets a gradient, DDP waits for it, and the next
# forward raises the error that :ref:`dynamic_control_flow` explains. In the
# CUDA record (PyTorch 2.11.0, one H200; ``gloo`` reduces CUDA tensors too)
# the same code gives the same names and the same error.
#
# ``no_grad()`` in ``forward`` cuts everything before it
# ------------------------------------------------------
# Wrapping the middle layer's call in ``torch.no_grad()`` also leaves its
# parameters without gradients, even though they require one again since
# the unfreezing above. But its output then has no ``grad_fn`` at all, so
# nothing below it gets a gradient either:
net.zero_grad()
hidden = net[1](net[0](inputs))
with torch.no_grad():
    hidden = net[3](net[2](hidden))
check(hidden.requires_grad, False, label="hidden.requires_grad")
net[4](hidden).pow(2).mean().backward()
show_state(**{f"net[{i}].weight": net[i].weight for i in (0, 2, 4)})

# %%
# Only the last layer has a gradient: ``net[0]``, never frozen, lost its
# gradient along with that of ``net[2]``. ``requires_grad_(False)``
# stops the gradients *to* a layer's parameters and lets them flow through
# it; ``torch.no_grad()`` stops them at the layer, for everything recorded
# before it. This is the same cut that :ref:`requires_grad_no_grad` makes on
# single tensors. The CUDA record (PyTorch 2.11.0, an H200) prints the same
# tables and checks, ``bn.running_mean`` with ``device='cuda:0'``; its figure
# is not recorded, and its top row is expected to differ (other dropout masks).
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# :ref:`mental_model` describes the leaves and the ``AccumulateGrad``
# nodes that freezing removes from the graph.
