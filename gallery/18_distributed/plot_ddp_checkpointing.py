"""
.. _ddp_checkpointing:

Activation checkpointing under DDP
==================================

``DistributedDataParallel`` (DDP) starts averaging the gradients across
processes while the backward pass still runs, and it learns that a
gradient is ready from a hook on each parameter. The reentrant variant of
activation checkpointing (``use_reentrant=True``) runs backward passes of
its own, which that bookkeeping was not made for. This example runs DDP on
two processes, each with its own half of the batch, and shows the error
"Expected to mark a variable ready only once" with
``find_unused_parameters=True`` and with a block checkpointed twice, a
case where the same mistake raises nothing while a part of the gradient
skips the all-reduce, so that the two processes end with different
gradients, and two fixes: ``use_reentrant=False`` and
``static_graph=True``.

.. questions::

   - Why does DDP say ``Expected to mark a variable ready only once``?
   - How do I use activation checkpointing with DistributedDataParallel?
   - What does ``static_graph=True`` do in DDP?
   - Why does ``find_unused_parameters=True`` fail with reentrant checkpointing?
"""

# %%
# A model, two processes and a reference
# --------------------------------------
# ``Net`` has a first layer ``stem``, a ``block`` that ``forward`` runs
# through ``checkpoint`` (``repeats`` times in a row, with the same
# weights) and a ``head``; on request it also has a second head, ``aux``,
# that this loss does not use, as in a model with several tasks. Every
# ``Net`` starts with the same weights. ``run_ranks``, a helper of this
# site, starts two Python processes on this machine, joins them in a
# process group (``gloo``), calls a function in each with its *rank* (0 or
# 1) and returns what each returned; an error raised there is raised again
# here. ``train`` runs two training steps of a ``Net`` under DDP on the
# rank's half of a batch of 32 samples, as DDP is used: the same model on
# every process, different data. The reference is what DDP should give on
# both ranks: the average of the gradients of the two halves, computed here
# without DDP and without checkpointing.

import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.checkpoint import checkpoint

from autograd_notes import check, draw_matrix, expect_error, expect_warning, run_ranks, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device() if torch.cuda.is_available() else torch.device("cpu")  # gloo: CPU or CUDA


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


def train(rank, world_size, net, steps=2, **ddp_options):
    """Run ``steps`` steps of ``net`` under DDP on this rank's part of ``data``; return the last gradients."""
    ddp = DistributedDataParallel(net.to(device), **ddp_options)
    part = data.chunk(world_size)[rank]
    for _ in range(steps):
        net.zero_grad()
        ddp(part).pow(2).mean().backward()
    return gradients(net)


def reference(**options):
    """The average of the gradients of the two halves of ``data``, without DDP or checkpointing."""
    halves = []
    for part in data.chunk(2):
        net = Net(None, **options).to(device)
        net(part).pow(2).mean().backward()
        halves.append(gradients(net))
    return {name: (halves[0][name] + halves[1][name]) / 2 for name in halves[0]}


def same(a, b):
    return a.keys() == b.keys() and all(torch.allclose(a[k], b[k], rtol=1e-5, atol=1e-6) for k in a)


def one_checkpoint(rank, world_size):
    return train(rank, world_size, Net(use_reentrant=True))


plain = reference()
ranks = run_ranks(one_checkpoint)
check([same(grads, plain) for grads in ranks], [True, True], label="same(grads, plain) on rank 0 and rank 1")

# %%
# With one reentrant checkpoint, no unused parameter and DDP's defaults,
# two steps run on both ranks, and each ends with the reference gradients,
# the average of the two halves' gradients. DDP learns that a gradient is
# ready from a hook that runs when autograd accumulates it into ``.grad``;
# when all the parameters of a *bucket* (a group of gradients sent
# together) are ready, it starts that bucket's all-reduce once the buckets
# before it have started, and when the
# last bucket has started it schedules the end of its work for the end of
# the backward pass that is running at that moment. The next sections
# break that bookkeeping.
#
# An unused head and ``find_unused_parameters=True``
# --------------------------------------------------
# Add the ``aux`` head, which this loss never uses. Its parameters never
# get a gradient, so DDP's buckets never fill, and the second step says
# so, on the ranks:


def unused_head(rank, world_size):
    return train(rank, world_size, Net(use_reentrant=True, aux=True))


with expect_error(
    RuntimeError,
    match=r"^Expected to have finished reduction in the prior iteration before starting a new one\.",
):
    run_ranks(unused_head)

# %%
# The traceback goes on from ``run_ranks`` into the lines that the rank
# named in brackets ran. Both ranks raise this error, each naming itself in
# the message; ``run_ranks`` raises rank 0's. The message suggests
# ``find_unused_parameters=True``: at the end of every ``forward``, DDP
# then walks the graph from the output to find the parameters that will
# get no gradient, and marks them ready as soon as the backward pass
# delivers its first gradient. With a reentrant checkpoint, that fails at
# the first ``backward()``:
TWICE = (
    r"^Expected to mark a variable ready only once\. This error is caused by one of the following reasons: "
    r"1\) Use of a module parameter outside the `forward` function\.(.|\n)*"
    r"Parameter at index \d+ with name block\.0\.(weight|bias) has been marked as ready twice\."
)


def unused_head_found(rank, world_size):
    return train(rank, world_size, Net(use_reentrant=True, aux=True), find_unused_parameters=True)


with expect_error(RuntimeError, match=TWICE):
    run_ranks(unused_head_found)


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
# The walk from the output, done here in this process without DDP, finds
# ``stem`` and ``head`` but not ``block``: a reentrant checkpoint runs its
# block under ``no_grad`` in the forward pass, so the graph holds one
# ``CheckpointFunctionBackward`` node and none of the block's own
# (:ref:`activation_checkpointing`). DDP's walk cannot see the block, so it
# counts its parameters as unused, ``aux`` or not, and marks them ready; then the
# checkpoint's backward reruns the block, the block's gradients arrive, and the same parameters
# are marked ready a second time. With ``use_reentrant=False`` the block's
# nodes are in the graph, and the walk finds every parameter but those of
# ``aux``.
#
# The same block, checkpointed twice
# ----------------------------------
# Without ``aux`` and with DDP's defaults, checkpointing the block twice in
# one ``forward`` (a layer whose weights are reused, as in a recurrent or
# weight-shared network) gives the same error:


def block_twice(rank, world_size):
    return train(rank, world_size, Net(use_reentrant=True, repeats=2))


with expect_error(RuntimeError, match=TWICE):
    run_ranks(block_twice)

# %%
# A hook on each parameter, registered with
# ``register_post_accumulate_grad_hook``, runs where DDP's hook runs: each
# time autograd accumulates into the parameter's ``.grad``. It counts how
# often that happens in one ``backward()``, in this process, without DDP:


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
# of its own over its recomputation of the block, on the same parameters, and each
# of those accumulates its contribution into ``.grad`` separately. DDP's hook fires
# twice for the same parameter in one iteration, which its bookkeeping forbids.
#
# When no error comes
# -------------------
# The error needs the second hook to fire while DDP still waits for other
# gradients. Here the ``stem`` is frozen, as in fine-tuning, and its
# output is made to require grad so that the reentrant checkpoint still
# gives the block a gradient; the block's parameters are then the last to
# arrive. ``apart`` gives, for each parameter, the largest difference
# between the two ranks' gradients:


def reentrant_frozen_stem(rank, world_size):
    return train(rank, world_size, Net(use_reentrant=True, repeats=2, frozen_stem=True))


def apart(first, second):
    """For each parameter, the largest difference between two ranks' gradients."""
    return {name: round((first[name] - second[name]).abs().max().item(), 4) for name in first}


frozen = reference(repeats=2, frozen_stem=True)
ranks = run_ranks(reentrant_frozen_stem)
reentrant_apart = apart(*ranks)
print("parameters:", list(reentrant_apart))
check(list(reentrant_apart.values()), [0.0373, 0.0069, 0.0, 0.0], label="apart(*ranks)", atol=2e-4, rtol=0)
check(
    [same(grads, frozen) for grads in ranks], [False, False], label="same(grads, frozen) on rank 0 and rank 1"
)
mean_of_ranks = {name: (ranks[0][name] + ranks[1][name]) / 2 for name in frozen}
check(same(mean_of_ranks, frozen), True, label="same(mean_of_ranks, frozen)")

# %%
# No error, and the two ranks end the step with different gradients for
# the block's parameters: the block's weight gradients are up to 0.0373
# apart, its bias gradients up to 0.0069, while the ``head``'s gradients
# are equal on both ranks. Neither rank has the reference gradient, yet the
# mean of the two ranks' gradients is the reference. The first of the two reentrant backward passes made every
# parameter ready: the last bucket started, and DDP finished its work when
# that inner backward pass ended, since that is where it had scheduled it.
# The second pass then added its contribution to ``.grad`` with DDP no
# longer watching: that part of the gradient skipped the all-reduce and is
# each rank's own, computed from its own half of the batch. An optimizer
# step would move the two copies of the model apart, and DDP, which
# broadcasts the parameters only when it wraps the model, would never
# bring them back together, and no message would say so.
#
# The fixes
# ---------
# ``use_reentrant=False`` keeps the block's nodes in the one graph: the
# walk of ``find_unused_parameters`` finds them, and each parameter's
# gradient is accumulated once (the middle row of the figure above). DDP's
# documentation calls it the variant that works with DDP without
# limitations. ``static_graph=True`` keeps the reentrant checkpoint: DDP
# then assumes that every iteration uses the same parameters in the same
# way. In the first iteration it only counts how often each parameter's
# hook fires and all-reduces everything at the end of the backward pass;
# from then on it waits for the last of those hooks. ``fixed`` runs each
# fix on the three models of the sections above, with the DDP options they
# had:
FAILING = {
    "aux": (dict(aux=True), dict(find_unused_parameters=True)),
    "repeats=2": (dict(repeats=2), {}),
    "frozen_stem": (dict(repeats=2, frozen_stem=True), {}),
}


def fixed(rank, world_size):
    runs = {}
    for label, (model_options, ddp_options) in FAILING.items():
        net = Net(use_reentrant=False, **model_options)
        runs[f"{label}, use_reentrant=False"] = train(rank, world_size, net, **ddp_options)
        net = Net(use_reentrant=True, **model_options)
        runs[f"{label}, static_graph=True"] = train(rank, world_size, net, static_graph=True, **ddp_options)
    return runs


with expect_warning(UserWarning, match=r"^You passed find_unused_parameters=true to DistributedDataParallel"):
    ranks = run_ranks(fixed)
for label, (model_options, _) in FAILING.items():
    expected = reference(**model_options)
    for fix in ("use_reentrant=False", "static_graph=True"):
        check(
            [same(grads[f"{label}, {fix}"], expected) for grads in ranks],
            [True, True],
            label=f"{label}, {fix}",
        )

fixes_apart = [
    apart(*(grads[f"frozen_stem, {fix}"] for grads in ranks))
    for fix in ("use_reentrant=False", "static_graph=True")
]
check(
    [
        all(torch.equal(ranks[0][run][name], ranks[1][run][name]) for name in ranks[0][run])
        for run in ranks[0]
    ],
    [True] * len(ranks[0]),
    label="rank 0's gradients equal rank 1's bit for bit, every fix",
)


def largest(found, module):
    """The largest of the differences ``found`` for the parameters of ``module``."""
    return max(value for name, value in found.items() if name.startswith(module + "."))


modules = ["block.0", "head"]
draw_matrix(
    [[largest(found, module) for module in modules] for found in (reentrant_apart, *fixes_apart)],
    rows=["use_reentrant=True", "use_reentrant=False", "static_graph=True"],
    columns=modules,
    title="(rank0.grad - rank1.grad).abs().max()",
)
plt.show()

# %%
# The largest difference between the two ranks' gradients, over the
# parameters of the block and over those of the head (the columns), for
# the model with the frozen ``stem``: with the reentrant checkpoint (top
# row) and with each fix (the two rows below). It is 0.0373 for the block
# in the top row, and 0 everywhere else.
#
# Both fixes give the reference gradients on both ranks for the three
# models, for two steps each. ``aux`` keeps ``.grad`` at ``None``
# (``gradients`` omits it). ``static_graph`` finds unused parameters by
# itself; passing ``find_unused_parameters=True`` as well, as the ``aux``
# model does here, only earns the warning above, which both ranks gave and
# the page shows once. It is a promise, though: a model whose used
# parameters or number of checkpoint calls change from one iteration to
# the next (a branch taken only sometimes) must not use it.
# ``use_reentrant=False`` needs no such promise and is the one to choose;
# it also avoids the other traps of the reentrant variant
# (:ref:`activation_checkpointing`).
#
# On a CUDA GPU the model, data and gradients are on the GPU, and ``gloo`` all-reduces them via
# host memory: the CUDA record (PyTorch 2.11.0, both processes on one H200) shows the same errors
# and checks as the CPU record of that release. A multi-GPU run would use ``nccl``, one GPU per
# process; none is recorded.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`).
# What it says about DDP follows the documentation of
# ``torch.nn.parallel.DistributedDataParallel`` (its note on
# ``torch.utils.checkpoint`` and its ``static_graph`` argument) and
# DDP's reducer in PyTorch's source (``torch/csrc/distributed/c10d/reducer.cpp``);
# every error and gradient above is checked on the runner that built this
# page, on two processes.
