"""
.. _ddp_checkpointing:

Activation checkpointing under DDP
==================================

``DistributedDataParallel`` (DDP) starts averaging the gradients across
processes while the backward pass still runs, and it learns that a
gradient is ready from a hook on each parameter. The reentrant variant of
activation checkpointing (``use_reentrant=True``) runs backward passes of
its own, which that bookkeeping was not made for. This example shows the
error "Expected to mark a variable ready only once" with
``find_unused_parameters=True`` and with a block checkpointed twice, a
case where the same mistake raises nothing while a part of the gradient
skips the all-reduce, and two fixes: ``use_reentrant=False`` and
``static_graph=True``.

.. questions::

   - Why does DDP say ``Expected to mark a variable ready only once``?
   - How do I use activation checkpointing with DistributedDataParallel?
   - What does ``static_graph=True`` do in DDP?
   - Why does ``find_unused_parameters=True`` fail with reentrant checkpointing?
"""

# %%
# A model, a process group and a reference
# ----------------------------------------
# ``Net`` has a first layer ``stem``, a ``block`` that ``forward`` runs
# through ``checkpoint`` (``repeats`` times in a row, with the same
# weights) and a ``head``; on request it also has a second head, ``aux``,
# that this loss does not use, as in a model with several tasks. Every
# ``Net`` starts with the same weights. DDP runs in a process group of one
# process (``gloo``, as in :ref:`micro_batches`), which is enough to see
# DDP's bookkeeping; the reference gradients come from the same network
# without DDP and without checkpointing.
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel
from torch.utils.checkpoint import checkpoint

from autograd_notes import check, draw_matrix, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()


class Net(nn.Module):
    def __init__(self, use_reentrant, repeats=1, aux=False, frozen_stem=False):
        super().__init__()
        torch.manual_seed(0)
        self.stem = nn.Linear(8, 16)
        self.block = nn.Sequential(nn.Linear(16, 16), nn.Tanh())
        self.head = nn.Linear(16, 1)
        if aux:
            self.aux = nn.Linear(16, 1)
        self.stem.requires_grad_(not frozen_stem)
        self.use_reentrant, self.repeats, self.frozen_stem = use_reentrant, repeats, frozen_stem

    def forward(self, x):
        h = self.stem(x)
        if self.frozen_stem:
            h.requires_grad_()  # so that a reentrant checkpoint still gives the block a gradient
        for _ in range(self.repeats):
            if self.use_reentrant is None:
                h = self.block(h)
            else:
                h = checkpoint(self.block, h, use_reentrant=self.use_reentrant)
        return self.head(h)


torch.manual_seed(1)
data = torch.randn(32, 8).to(device)


def gradients(net):
    """Every parameter's gradient, by name (a parameter without one is left out)."""
    return {name: p.grad.clone() for name, p in net.named_parameters() if p.grad is not None}


def reference(**options):
    net = Net(None, **options).to(device)
    net(data).pow(2).mean().backward()
    return gradients(net)


def train(net, steps=2, **ddp_options):
    """Run ``steps`` training steps of ``net`` under DDP.

    Returns the gradients of the last step and, for each parameter, the
    largest difference between its final ``.grad`` and what the all-reduce
    was given: 0 when the whole gradient went through the all-reduce.
    """
    ddp = DistributedDataParallel(net, **ddp_options)
    sent = []

    def recording_hook(state, bucket):
        sent.extend((p, g.clone()) for p, g in zip(bucket.parameters(), bucket.gradients(), strict=True))
        return default_hooks.allreduce_hook(None, bucket)

    ddp.register_comm_hook(None, recording_hook)
    names = {p: name for name, p in net.named_parameters()}
    for _ in range(steps):
        sent.clear()
        net.zero_grad()
        ddp(data).pow(2).mean().backward()
    unsent = {names[p]: round((p.grad - g).abs().max().item(), 4) for p, g in sent if p.grad is not None}
    return gradients(net), dict(sorted(unsent.items()))


def same(a, b):
    return a.keys() == b.keys() and all(torch.allclose(a[k], b[k], rtol=1e-5, atol=1e-6) for k in a)


folder = tempfile.TemporaryDirectory()
dist.init_process_group("gloo", rank=0, world_size=1, init_method=Path(folder.name, "init").as_uri())

plain = reference()
grads, unsent = train(Net(use_reentrant=True).to(device))
check(same(grads, plain), True, label="same(grads, plain)")
check(set(unsent.values()), {0.0}, label="set(unsent.values())")

# %%
# With one reentrant checkpoint, no unused parameter and DDP's defaults,
# two steps run and give the reference gradients, and every gradient went
# through the all-reduce. DDP learns that a gradient is ready from a hook
# that runs when autograd accumulates it into ``.grad``; when all the
# parameters of a *bucket* (a group of gradients sent together) are ready,
# it starts that bucket's all-reduce, and when the last bucket has started
# it schedules the end of its work for the end of the backward pass that
# is running at that moment. The next sections break that bookkeeping.
#
# An unused head and ``find_unused_parameters=True``
# --------------------------------------------------
# Add the ``aux`` head, which this loss never uses. Its parameters never
# get a gradient, so DDP's buckets never fill, and the second step says so:
with expect_error(
    RuntimeError,
    match=r"^Expected to have finished reduction in the prior iteration before starting a new one\.",
):
    train(Net(use_reentrant=True, aux=True).to(device))

# %%
# The message suggests ``find_unused_parameters=True``: at the end of
# every ``forward``, DDP then walks the graph from the output to find the
# parameters that will get no gradient, and marks them ready as soon as
# the backward pass delivers its first gradient. With a reentrant
# checkpoint, that fails at the first ``backward()``:
TWICE = (
    r"^Expected to mark a variable ready only once\. This error is caused by one of the following reasons: "
    r"1\) Use of a module parameter outside the `forward` function\.(.|\n)*"
    r"Parameter at index \d+ with name block\.0\.(weight|bias) has been marked as ready twice\."
)
with expect_error(RuntimeError, match=TWICE):
    train(Net(use_reentrant=True, aux=True).to(device), find_unused_parameters=True)


def reachable(net, output):
    """The names of the parameters of ``net`` that ``output``'s graph reaches."""
    names = {p: name for name, p in net.named_parameters()}
    found, nodes = set(), [output.grad_fn]
    while nodes:
        node = nodes.pop()
        if hasattr(node, "variable"):  # an AccumulateGrad node
            found.add(names[node.variable])
        nodes.extend(next_node for next_node, _ in node.next_functions if next_node is not None)
    return sorted(found)


for use_reentrant in (True, False):
    net = Net(use_reentrant, aux=True).to(device)
    found = reachable(net, net(data))
    if use_reentrant:
        check(
            found, ["head.bias", "head.weight", "stem.bias", "stem.weight"], label="found, use_reentrant=True"
        )
    else:
        every_used = [name for name, _ in net.named_parameters() if not name.startswith("aux")]
        check(found, sorted(every_used), label="found, use_reentrant=False")

# %%
# The walk from the output finds ``stem`` and ``head`` but not ``block``:
# a reentrant checkpoint runs its block under ``no_grad`` in the forward
# pass, so the graph holds one ``CheckpointFunctionBackward`` node and none
# of the block's own (:ref:`activation_checkpointing`). DDP counts the
# block's parameters as unused with ``aux`` and marks them ready; then the
# checkpoint's backward reruns the block, the block's gradients arrive,
# and the same parameters are marked ready a second time. With
# ``use_reentrant=False`` the block's nodes are in the graph, and the walk
# finds every parameter but those of ``aux``.
#
# The same block, checkpointed twice
# ----------------------------------
# Without ``aux`` and with DDP's defaults, checkpointing the block twice in
# one ``forward`` (a layer whose weights are reused, as in a recurrent or
# weight-shared network) gives the same error:
with expect_error(RuntimeError, match=TWICE):
    train(Net(use_reentrant=True, repeats=2).to(device))

# %%
# A hook on each parameter, registered with
# ``register_post_accumulate_grad_hook``, runs where DDP's hook runs: each
# time autograd accumulates into the parameter's ``.grad``. It counts how
# often that happens in one ``backward()``, without DDP:


def accumulations(use_reentrant):
    net = Net(use_reentrant, repeats=2).to(device)
    counts = dict.fromkeys(("stem.weight", "block.0.weight", "head.weight"), 0)
    for name, p in net.named_parameters():
        if name in counts:
            p.register_post_accumulate_grad_hook(lambda p, name=name: counts.update({name: counts[name] + 1}))
    net(data).pow(2).mean().backward()
    return list(counts.values())


rows = {"block(block(h))": None, "use_reentrant=False": False, "use_reentrant=True": True}
table = [accumulations(use_reentrant) for use_reentrant in rows.values()]
check(table, [[1, 1, 1], [1, 1, 1], [1, 2, 1]], label="accumulations")
draw_matrix(
    table,
    rows=list(rows),
    columns=["stem", "block.0", "head"],
    title="net(data).pow(2).mean().backward()",
)
plt.show()

# %%
# How many times one ``backward()`` accumulates into the ``.grad`` of the
# weights of ``stem``, ``block.0`` and ``head`` (the columns) when the
# block runs twice: once each without checkpointing (top row) and with
# ``use_reentrant=False`` (middle row); with ``use_reentrant=True``
# (bottom row), twice for ``block.0``, once for the others.
#
# In one graph, the two uses of the block's weight meet before its
# ``AccumulateGrad`` node: autograd adds the two contributions and
# accumulates once. Each reentrant checkpoint instead runs a ``backward()``
# of its own over its copy of the block, and each of those accumulates its
# contribution into ``.grad`` separately. DDP's hook fires twice for the
# same parameter in one iteration, which its bookkeeping forbids.
#
# When no error comes
# -------------------
# The error needs the second hook to fire while DDP still waits for other
# gradients. Here the ``stem`` is frozen, as in fine-tuning, and its
# output is made to require grad so that the reentrant checkpoint still
# gives the block a gradient; the block's parameters are then the last to
# arrive:
frozen = reference(repeats=2, frozen_stem=True)
grads, unsent = train(Net(use_reentrant=True, repeats=2, frozen_stem=True).to(device))
check(same(grads, frozen), True, label="same(grads, frozen)")
check(list(unsent), ["block.0.bias", "block.0.weight", "head.bias", "head.weight"], label="list(unsent)")
check(list(unsent.values()), [0.1002, 0.0401, 0.0, 0.0], label="list(unsent.values())", atol=2e-4, rtol=0)

# %%
# No error, and ``.grad`` holds the reference gradient, yet for the
# block's parameters it is not what the all-reduce averaged. The first of
# the two reentrant backward passes made every parameter ready: the last
# bucket started, and DDP finished its work when that inner backward pass
# ended, since that is where it had scheduled it. The second pass then
# added its contribution to ``.grad`` with DDP no longer watching. With
# one process this changes nothing; with several, the second contribution
# stays local to each process instead of being averaged, their gradients
# differ, and so do their models after the optimizer step, without a
# message.
#
# The fixes
# ---------
# ``use_reentrant=False`` keeps the block's nodes in the one graph: the
# walk of ``find_unused_parameters`` finds them, and each parameter's
# gradient is accumulated once (the middle row of the figure). DDP's
# documentation calls it the variant that works with DDP without
# limitations. ``static_graph=True`` keeps the reentrant checkpoint: DDP
# then assumes that every iteration uses the same parameters in the same
# way. In the first iteration it only counts how often each parameter's
# hook fires and all-reduces everything at the end of the backward pass;
# from then on it waits for the last of those hooks. Each fix runs here
# on the three models that failed:
failing = {
    "aux": (dict(aux=True), dict(find_unused_parameters=True)),
    "repeats=2": (dict(repeats=2), {}),
    "frozen_stem": (dict(repeats=2, frozen_stem=True), {}),
}
for label, (model_options, ddp_options) in failing.items():
    expected = reference(**model_options)
    grads, unsent = train(Net(use_reentrant=False, **model_options).to(device), **ddp_options)
    check(
        same(grads, expected) and set(unsent.values()) == {0.0}, True, label=f"{label}, use_reentrant=False"
    )
    grads, unsent = train(Net(use_reentrant=True, **model_options).to(device), static_graph=True)
    check(same(grads, expected) and set(unsent.values()) == {0.0}, True, label=f"{label}, static_graph=True")

with expect_warning(UserWarning, match=r"^You passed find_unused_parameters=true to DistributedDataParallel"):
    train(Net(use_reentrant=True, aux=True).to(device), find_unused_parameters=True, static_graph=True)
dist.destroy_process_group()
folder.cleanup()

# %%
# Both fixes give the reference gradients on the three models, with every
# gradient through the all-reduce, for two steps each. ``aux`` keeps
# ``.grad`` at ``None`` (``gradients`` omits it). ``static_graph``
# finds unused parameters by itself; passing ``find_unused_parameters=True``
# as well only earns the warning above. It is a promise, though: a model
# whose used parameters or number of checkpoint calls change from one
# iteration to the next (a branch taken only sometimes) must not use it.
# ``use_reentrant=False`` needs no such promise and is the one to choose;
# it also avoids the other traps of the reentrant variant
# (:ref:`activation_checkpointing`).
#
# On a GPU the model, data and gradients are on the GPU, and ``gloo``
# all-reduces them via host memory (a multi-GPU run would use ``nccl``):
# the same errors, counts and checks are expected; no GPU run is recorded yet.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`).
# What it says about DDP follows the documentation of
# ``torch.nn.parallel.DistributedDataParallel`` (its note on
# ``torch.utils.checkpoint`` and its ``static_graph`` argument) and
# DDP's reducer in PyTorch's source (``torch/csrc/distributed/c10d/reducer.cpp``);
# every error and gradient above is checked on the runner that built this
# page.
