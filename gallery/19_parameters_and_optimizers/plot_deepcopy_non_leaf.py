"""
.. _deepcopy_non_leaf:

``deepcopy`` fails on non-leaf tensors
======================================

``copy.deepcopy`` copies every tensor a module holds, and it refuses any
tensor that is not a leaf of the autograd graph. A module that keeps a
result of its forward pass as a plain attribute (a cached activation, a
weight computed from a parameter) can no longer be copied once it has run
with gradients on, and the copy made for an EMA model or a teacher model
fails. This example raises the error, shows the legacy
``torch.nn.utils.weight_norm``, which fails before any forward pass, and
fixes both: detach or clear the cached tensor, copy before the first
forward pass, or use ``torch.nn.utils.parametrizations.weight_norm``.

.. questions::

   - Why does ``copy.deepcopy`` say ``Only Tensors created explicitly by the user``?
   - Why can't I deepcopy my model to make an EMA or teacher copy?
   - Why does deepcopy fail on a model with ``weight_norm``?
   - How do I copy a model that caches tensors in forward?
"""

# %%
# A module that caches its activation
# -----------------------------------
# The encoder below keeps its last activation in ``self.features``, to be
# read later by a feature loss. Before any forward pass, the attribute is
# ``None`` and the module copies:
import copy

import torch
from torch import nn

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 2)
        self.features = None

    def forward(self, x):
        self.features = torch.tanh(self.linear(x))  # kept for a feature loss
        return self.features


torch.manual_seed(0)
model = Encoder().to(device)
inputs = torch.randn(4, 3).to(device)  # drawn on the CPU: the same numbers on every runner
check(copy.deepcopy(model).features, None, label="copy before forward: features")

# %%
# One training forward pass later, ``self.features`` is a result of the
# graph, and the copy fails:
model(inputs).sum().backward()
check(model.features.is_leaf, False, label="model.features.is_leaf")
check(model.features.grad_fn, "TanhBackward0", label="model.features.grad_fn")
deepcopy_message = (
    r"^Only Tensors created explicitly by the user \(graph leaves\) support the deepcopy protocol"
)
with expect_error(RuntimeError, match=deepcopy_message):
    copy.deepcopy(model)

# %%
# ``copy.deepcopy`` walks the module's ``__dict__`` and copies each tensor
# it meets by calling that tensor's ``__deepcopy__``, as the traceback
# shows. That method raises for any tensor with a ``grad_fn``, before
# copying it: neither keeping the graph, shared with the original, nor
# dropping it. The error does not say which tensor it met; here it is
# ``model.features``, the one attribute that is not a leaf. The backward
# pass above does not change that: ``features`` keeps its ``grad_fn`` as
# long as it lives.
#
# Its graph, down to the parameters it came from:
import matplotlib.pyplot as plt

from autograd_notes import autograd_graph, draw_graph

names = {"features": model.features, "linear.weight": model.linear.weight, "linear.bias": model.linear.bias}
features_graph = autograd_graph(model.features, names=names)
check(
    [node.drawn_title for node in features_graph.nodes if not node.is_leaf],
    ["TanhBackward0 (features)", "AddmmBackward0", "TBackward0"],
    label="nodes below model.features",
)
draw_graph(features_graph, title="self.features = torch.tanh(self.linear(x))")
plt.show()

# %%
# The top node, ``TanhBackward0 (features)``, is the ``grad_fn`` that
# makes ``features`` a non-leaf; below it, the linear layer's
# ``AddmmBackward0`` and the two blue leaves, ``linear.weight`` and
# ``linear.bias``. Only those leaves can be deep-copied.
# :ref:`non_leaf_grad` shows the other thing a non-leaf lacks: a ``.grad``.
#
# The error comes from a forward pass run with gradients on, not from the
# module itself. A forward pass under
# ``torch.no_grad()``, as in evaluation, caches a tensor without a graph,
# and the copy works:
with torch.no_grad():
    model(inputs)
check(model.features.is_leaf, True, label="after a no_grad forward: model.features.is_leaf")
copied = copy.deepcopy(model)
check(torch.equal(copied.features, model.features), True, label="copied.features equals model.features")

# %%
# So a script that copies its model after evaluating it runs, and the same
# script fails when the copy comes after a training step. The EMA or the
# teacher model copied in the middle of training is the usual victim.
#
# An EMA copy in a training loop
# ------------------------------
# ``torch.optim.swa_utils.AveragedModel`` keeps an average of a model's
# parameters, for example an exponential moving average (EMA). It makes its
# own copy of the module with ``copy.deepcopy`` when it is built, so it
# fails in the same way when built after a training step:
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

from autograd_notes import draw_series

model(inputs).sum().backward()
with expect_error(RuntimeError, match=deepcopy_message):
    AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))

# %%
# Building an ``AveragedModel`` is no way round the error. Once built,
# though, it never copies the module again (see below). The fixes let it,
# or a plain ``copy.deepcopy``, copy the model.
#
# Fix: detach the cached tensor, or clear it
# ------------------------------------------
# When the cache is only read, for logging or for a loss that needs no
# gradient, store it detached. It is then a leaf, cut from the graph, and
# it copies:


class DetachedEncoder(Encoder):
    def forward(self, x):
        out = torch.tanh(self.linear(x))
        self.features = out.detach()  # no graph kept
        return out


torch.manual_seed(0)
detached_model = DetachedEncoder().to(device)
detached_model(inputs).sum().backward()
check(detached_model.features.is_leaf, True, label="detached_model.features.is_leaf")
copied = copy.deepcopy(detached_model)
check(copied.features is detached_model.features, False, label="copied.features is detached_model.features")
check(
    torch.equal(copied.features, detached_model.features),
    True,
    label="copied.features equals detached_model.features",
)

# %%
# The copy has its own ``features``, equal in value. Detaching is wrong
# when the loss needs the gradient through the cached tensor (a feature
# loss of the student, say): then keep the graph, and clear the attribute
# before copying. The copy starts with an empty cache, and the next forward
# pass fills the original's again:
model.features = None
copied = copy.deepcopy(model)
check(copied.features, None, label="copy after clearing: features")
model(inputs)
check(model.features.grad_fn, "TanhBackward0", label="next forward: model.features.grad_fn")

# %%
# Fix: copy before the first forward pass
# ---------------------------------------
# An EMA or a teacher model can also be built once, before training starts,
# and then updated in place. ``AveragedModel`` does that: built before the
# first forward pass, it copies, and its ``update_parameters`` reads the
# model's parameters without copying the module:
torch.manual_seed(0)
model = Encoder().to(device)
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
distance = {"|model.weight - start|": [0.0], "|ema.weight - start|": [0.0]}
start = model.linear.weight.detach().clone()
for _ in range(5):
    optimizer.zero_grad()
    model(inputs).sum().backward()
    optimizer.step()
    previous = ema.module.linear.weight.detach().clone()  # the average before this update
    ema.update_parameters(model)
    distance["|model.weight - start|"].append(round((model.linear.weight - start).norm().item(), 4))
    distance["|ema.weight - start|"].append(round((ema.module.linear.weight - start).norm().item(), 4))
check(model.features.is_leaf, False, label="model.features.is_leaf during training")
check(ema.module.features, None, label="ema.module.features")
check(ema.n_averaged.item(), 5, label="ema.n_averaged")
check(ema.module.linear.weight is model.linear.weight, False, label="ema's weight is model's weight")
expected = 0.9 * previous + 0.1 * model.linear.weight.detach()
difference = round((ema.module.linear.weight - expected).abs().max().item(), 6)
check(
    difference,
    0.0,
    label="last update: largest |ema.weight - (0.9 * previous + 0.1 * model.weight)|",
    atol=1e-6,
    rtol=0,
)
model_distance, ema_distance = distance.values()
check(ema_distance[1], model_distance[1], label="step 1: |ema.weight - start|, equal to the model's")
lag = [m > e for m, e in zip(model_distance[2:], ema_distance[2:], strict=True)]
check(lag, [True] * 4, label="model farther from start than the EMA, steps 2-5")
draw_series(distance, x=range(6), xlabel="optimizer.step()", ylabel="|weight - start|")
plt.show()

# %%
# The model's cache holds a graph through the whole loop, and nothing
# fails: the module was copied once, before the first forward pass, and
# the EMA's own ``features`` stays ``None`` since the EMA runs no forward
# pass here. The chart shows how far each weight is from where it started
# after each step. The first update copies the model's values, so both
# curves meet at step 1; each later update keeps nine tenths of the
# average and takes a tenth of the model, so the EMA curve stays below the
# model's. A teacher model built by hand needs the same order: the copy
# first, then in-place updates under ``torch.no_grad()``.

# %%
# The legacy ``weight_norm``
# --------------------------
# ``torch.nn.utils.weight_norm`` splits a weight into a direction and a
# norm, two parameters, and stores the weight computed from them as a plain
# attribute. That weight has a ``grad_fn`` from the moment the layer is
# built, so the layer cannot be copied even before any forward pass. The
# function is deprecated, and says so:
from autograd_notes import expect_warning

with expect_warning(FutureWarning, match=r"`torch\.nn\.utils\.weight_norm` is deprecated"):
    legacy = nn.utils.weight_norm(nn.Linear(3, 2).to(device))
check(
    sorted(name for name, _ in legacy.named_parameters()),
    ["bias", "weight_g", "weight_v"],
    label="parameters",
)
check(legacy.weight.is_leaf, False, label="legacy.weight.is_leaf")
with expect_error(RuntimeError, match=deepcopy_message):
    copy.deepcopy(legacy)
built_weight = legacy.weight
legacy(inputs)
check(legacy.weight is built_weight, False, label="legacy.weight is the weight built with the layer")
check(legacy.weight.is_leaf, False, label="after a forward: legacy.weight.is_leaf")

# %%
# This is the case the error message itself names, with a link to the
# pull request that added the hint. Each forward pass stores a newly
# computed weight, again a non-leaf, so the layer never copies.
#
# Fix: ``parametrizations.weight_norm``
# -------------------------------------
# The replacement, ``torch.nn.utils.parametrizations.weight_norm``, keeps
# the two parameters in a parametrization and computes the weight each time
# it is read, so the module stores no non-leaf tensor:
parametrized = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2).to(device))
parametrized(inputs).sum().backward()
check(
    sorted(name for name, _ in parametrized.named_parameters()),
    ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"],
    label="parameters",
)
check(parametrized.weight.is_leaf, False, label="parametrized.weight.is_leaf")
copied = copy.deepcopy(parametrized)
pairs = list(zip(parametrized.parameters(), copied.parameters(), strict=True))
check([p is q for p, q in pairs], [False, False, False], label="copied parameters are the same objects")
check([torch.equal(p, q) for p, q in pairs], [True, True, True], label="copied parameters equal in value")
check(torch.equal(copied.weight, parametrized.weight), True, label="copied.weight equals parametrized.weight")
check(
    torch.equal(copied(inputs), parametrized(inputs)), True, label="the copy's output equals the original's"
)

# %%
# ``parametrized.weight`` still has a ``grad_fn``, but it is made anew at
# each read and never stored, so ``copy.deepcopy`` meets only the three
# leaves: the copy's parameters are new objects with the same values, and
# the copy computes the same output.
#
# The parameters' names differ from the legacy ones (``weight_g`` and
# ``weight_v``). A ``state_dict`` saved from a legacy layer still loads
# into the new one, which gives the same output:
loaded = parametrized.load_state_dict(legacy.state_dict())
check([loaded.missing_keys, loaded.unexpected_keys], [[], []], label="[missing_keys, unexpected_keys]")
difference = (parametrized(inputs) - legacy(inputs)).abs().max().item()
check(difference, 0.0, label="largest |output - legacy output| after loading", atol=1e-6, rtol=0)

# %%
# So a model trained with the legacy function can switch to the
# parametrization and keep its trained values, and copy.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`);
# each flag, node and comparison above is checked on the runner that built
# this page. The message is raised by ``Tensor.__deepcopy__`` in PyTorch's
# ``torch/_tensor.py``, which refuses any tensor that is not a leaf before
# copying anything; ``AveragedModel`` in ``torch/optim/swa_utils.py`` builds
# its copy with ``copy.deepcopy``.
