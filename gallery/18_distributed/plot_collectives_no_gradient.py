"""
.. _collectives_no_gradient:

Collectives carry no gradient
=============================

A loss that compares samples across processes, such as the contrastive loss
of CLIP or SimCLR, needs the other ranks' embeddings, and
``torch.distributed.all_gather`` brings them in. But it fills the list with
plain tensors, outside the autograd graph, and the gradient that should
flow through the other ranks' parts is lost, most often without an error. This
example runs on two real processes and compares, with the gradient of the
same loss computed in one process, what ``all_gather`` gives, what the
common workaround ``gathered[rank] = tensor`` gives, and what the
autograd-aware ``torch.distributed.nn.functional.all_gather`` gives, with
the factor of ``world_size`` that ``DistributedDataParallel`` cancels. It
ends with ``all_reduce``, which autograd does not see either.

.. questions::

   - Why does ``torch.distributed.all_gather`` not propagate gradients?
   - Why does ``backward()`` fail on every rank after ``all_gather``?
   - Is the gradient of ``torch.distributed.nn.all_gather`` world_size times too large?
   - Can I backpropagate through ``dist.all_reduce``?
"""

# %%
# One loss over the whole batch, in one process
# ---------------------------------------------
# A batch of 4 samples, each seen in two views (two augmentations), and a
# linear encoder. ``contrastive_loss`` asks each embedding of the first
# view to pick its own sample among the embeddings of the second view, with a
# cross-entropy over the similarities (InfoNCE, the loss of CLIP and
# SimCLR). Computed in one process on the whole batch, it gives the
# reference gradient of the encoder's weight.
import matplotlib.pyplot as plt
import torch
import torch.distributed as dist
from torch import nn

from autograd_notes import check, draw_matrix, expect_error, expect_warning, run_ranks, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
if device.type != "cpu":  # the ranks' gloo group computes on the CPU: see the end of the page
    device = torch.device("cpu")
torch.manual_seed(0)
views = torch.randn(2, 4, 3).to(device)  # views[0] and views[1]: two views of the same 4 samples


def make_encoder():
    torch.manual_seed(2)  # the same weights in every process
    return nn.Linear(3, 2, bias=False)


def contrastive_loss(anchors, keys, first):
    """Each anchor's right key is ``keys[first + i]``; the mean cross-entropy over the anchors."""
    labels = torch.arange(len(anchors)) + first
    return nn.functional.cross_entropy(anchors @ keys.T, labels)


encoder = make_encoder()
contrastive_loss(encoder(views[0]), encoder(views[1]), first=0).backward()
reference = encoder.weight.grad
check(reference, [[-0.1783, 0.2331, -0.1871], [0.3533, 0.3238, 0.2194]], label="reference", atol=1e-4, rtol=0)

# %%
# Split over two ranks, the batch gives each rank 2 samples. Each rank
# computes the loss of its own anchors against every key: its first anchor's right key
# is key ``2 * rank``. The mean over 4 anchors is the mean of the two
# ranks' means, so the ranks' losses average to the loss above.
#
# Three ways to gather the keys
# -----------------------------
# ``gather`` collects the keys of every rank in three ways: plain
# ``dist.all_gather``, the same with the rank's own tensor put back in the
# list (a common workaround), and the autograd-aware
# ``torch.distributed.nn.functional.all_gather``. ``run_ranks`` starts two
# processes in one ``gloo`` process group and runs ``local_loss`` in each:
# one training step for each way, then the last way once more with the
# encoder wrapped in ``DistributedDataParallel`` (DDP).
from torch.distributed.nn import functional as dist_nn
from torch.nn.parallel import DistributedDataParallel

WAYS = ("dist.all_gather", "gathered[rank] = tensor", "dist_nn.all_gather")


def gather(tensor, way):
    """Every rank's ``tensor``, in rank order, gathered the ``way`` named."""
    if way == "dist_nn.all_gather":
        return list(dist_nn.all_gather(tensor))
    gathered = [torch.empty_like(tensor) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, tensor)
    if way == "gathered[rank] = tensor":
        gathered[dist.get_rank()] = tensor  # the local part, with its graph
    return gathered


def embed(rank, world_size):
    """A fresh encoder, and the embeddings of this rank's samples in both views."""
    encoder = make_encoder()
    anchors = encoder(views[0].chunk(world_size)[rank])
    keys = encoder(views[1].chunk(world_size)[rank])
    return encoder, anchors, keys


def local_loss(rank, world_size):
    results = {}
    for way in WAYS:
        encoder, anchors, keys = embed(rank, world_size)
        gathered = gather(keys, way)
        contrastive_loss(anchors, torch.cat(gathered), first=rank * len(anchors)).backward()
        flags = [[part.requires_grad, part.grad_fn is not None] for part in gathered]
        results[way] = {"flags": flags, "grad": encoder.weight.grad}
    encoder = make_encoder()
    model = DistributedDataParallel(encoder)  # averages the gradients over the ranks in backward()
    anchors, keys = model(torch.cat([view.chunk(world_size)[rank] for view in views])).chunk(2)
    gathered = gather(keys, "dist_nn.all_gather")
    contrastive_loss(anchors, torch.cat(gathered), first=rank * len(anchors)).backward()
    results["under DDP"] = encoder.weight.grad
    return results


DEPRECATED = (
    r"^torch\.distributed\.nn\.functional\.all_gather is deprecated, "
    r"use torch\.distributed\._functional_collectives\.all_gather_single instead\.$"
)
with expect_warning(FutureWarning, match=DEPRECATED):
    ranks = run_ranks(local_loss, world_size=2)

# %%
# ``all_gather`` returns plain tensors
# ------------------------------------
# For each way, whether each part of the gathered list requires a gradient
# and has a ``grad_fn``:
flags = "[requires_grad, has a grad_fn] of each part"
for rank in (0, 1):
    check(
        ranks[rank]["dist.all_gather"]["flags"],
        [[False, False], [False, False]],
        label=f"rank {rank}: {flags}",
    )
print(f"put back, {flags}:", ranks[0]["gathered[rank] = tensor"]["flags"])
check(ranks[0]["dist_nn.all_gather"]["flags"], [[True, True], [True, True]], label=f"dist_nn: {flags}")

# %%
# With plain ``all_gather`` every part is a plain tensor, the rank's own
# keys included: ``all_gather`` copies values into the tensors it is given,
# and autograd records no node for it. The loss still has a graph, through
# the anchors, so ``backward()`` runs and raises nothing. What reached the
# encoder is the gradient of the loss with every key held constant, which
# one process computes by detaching the keys:


def one_process(rank, live):
    """Rank ``rank``'s loss in one process, where only the keys of the ranks in ``live`` keep their graph."""
    encoder = make_encoder()
    anchors = encoder(views[0].chunk(2)[rank])
    parts = encoder(views[1]).chunk(2)
    keys = torch.cat([part if owner in live else part.detach() for owner, part in enumerate(parts)])
    contrastive_loss(anchors, keys, first=rank * len(anchors)).backward()
    return encoder.weight.grad


plain = [ranks[rank]["dist.all_gather"]["grad"] for rank in (0, 1)]
for rank in (0, 1):
    check(plain[rank], one_process(rank, live=()), label=f"rank {rank}: grad (= keys detached)")

# %%
# Put the local keys back
# -----------------------
# The workaround gives back its graph to the rank's own part:
workaround = [ranks[rank]["gathered[rank] = tensor"]["grad"] for rank in (0, 1)]
for rank in (0, 1):
    check(workaround[rank], one_process(rank, live=(rank,)), label=f"rank {rank}: grad (= own keys live)")

# %%
# Now the gradient also flows through the rank's own keys, but only as its
# own loss uses them. Rank 0's keys are keys of rank 1's loss too (rank 1's
# anchors must *not* pick them), and that part of their gradient is
# computed on rank 1, in rank 1's graph, where rank 0's keys are a plain
# copy. It never comes back to rank 0.
#
# The autograd-aware collective
# -----------------------------
# ``torch.distributed.nn.functional.all_gather`` (the same function as
# ``torch.distributed.nn.all_gather``) returns the parts as the outputs of
# an autograd function. Its backward sends each part's gradient
# back to the rank that owns it, and sums there what every rank computed
# for that part (in PyTorch's source, an all-to-all followed by a sum, or
# a reduce-scatter with NCCL). Compared with the reference, split into the
# part that flows through each rank's samples:


def reference_part(owner):
    """The reference gradient, through rank ``owner``'s samples only (the other rows detached)."""
    encoder = make_encoder()
    rows = [encoder(view).chunk(2) for view in views]
    anchors, keys = (torch.cat([p if r == owner else p.detach() for r, p in enumerate(v)]) for v in rows)
    contrastive_loss(anchors, keys, first=0).backward()
    return encoder.weight.grad


parts = [reference_part(0), reference_part(1)]
# the two parts add up to the reference: the sum rule of derivatives, no collective
aware = [ranks[rank]["dist_nn.all_gather"]["grad"] for rank in (0, 1)]
for rank in (0, 1):
    check(aware[rank], 2 * parts[rank], label=f"rank {rank}: grad (= 2 * reference_part({rank}))")
mean = (aware[0] + aware[1]) / 2
print("mean over the ranks:", mean)  # the sum of the two parts above, halved: the reference
for rank in (0, 1):
    check(ranks[rank]["under DDP"], reference, label=f"rank {rank}: grad under DDP (= reference)")

# %%
# Each rank's gradient is now the part of the reference gradient that flows
# through its own samples, times 2, the number of ranks. The backward of the
# collective *sums* the gradients that the ranks' losses send to each part,
# so each rank differentiates the sum of the two losses, while the one
# process differentiated their mean, the loss of the whole batch. DDP
# removes that factor: it all-reduces the gradients and divides by the
# number of ranks, and under DDP both ranks got the reference. The
# ``FutureWarning`` says that PyTorch deprecates this function in favour of
# ``all_gather_single`` of ``torch.distributed._functional_collectives``,
# whose backward, in PyTorch's source, sums over the ranks too (a
# reduce-scatter); it is not run on this page.
#
# What the optimizer gets
# -----------------------
# Under DDP the optimizer of every rank gets the mean of the ranks'
# gradients. For each way of gathering, that mean against the reference:
ddp_mean = {
    "one process (reference)": reference,
    "dist.all_gather": (plain[0] + plain[1]) / 2,
    "gathered[rank] = tensor": (workaround[0] + workaround[1]) / 2,
    "dist_nn.all_gather": mean,
}
wrong = ("dist.all_gather", "gathered[rank] = tensor")
largest = {
    name: round(((ddp_mean[name] - reference).abs() / reference.abs()).max().item(), 2) for name in wrong
}
check(
    largest, {"dist.all_gather": 1.06, "gathered[rank] = tensor": 0.08}, label="largest relative difference"
)
print("dist.all_gather, mean over the ranks:", ddp_mean["dist.all_gather"])
draw_matrix(
    [grad.flatten().tolist() for grad in ddp_mean.values()],
    rows=list(ddp_mean),
    columns=[f"[{i}, {j}]" for i in range(2) for j in range(3)],
    title="encoder.weight.grad, mean over the ranks",
)
plt.show()

# %%
# One row per way of computing the gradient, one column per element of the
# encoder's 2 × 3 weight. The first row is the reference, computed in one
# process; the last one, the mean of what the autograd-aware collective
# gave the two ranks, repeats it value for value. The second row, plain
# ``all_gather``, is far from the reference: -0.0070 where the reference
# has -0.178, and even the opposite sign in the last column, -0.0137 for
# 0.219. The third row, the workaround, looks right at a glance, each
# element within 8 percent of the reference, and is still another gradient.
#
# The training runs, the loss goes down, and nothing warns: the encoder
# learns from a different objective, in which other ranks' samples are
# fixed targets for this rank's anchors. The more ranks, the larger the
# missing part: with the workaround on 8 ranks, 7 of every 8 keys that a
# rank's loss uses carry no gradient.
#
# When every rank computes the whole loss
# ---------------------------------------
# Some scripts gather both views and compute, on every rank, the loss of
# the whole batch. With plain ``all_gather`` nothing in that loss keeps a
# graph, and ``backward()`` fails at once. One rank is enough to see it:


def whole_loss(rank, world_size, way):
    encoder, anchors, keys = embed(rank, world_size)
    everything = [torch.cat(gather(tensor, way)) for tensor in (anchors, keys)]
    contrastive_loss(*everything, first=0).backward()
    return encoder.weight.grad


def whole_loss_plain(rank, world_size):
    return whole_loss(rank, world_size, "dist.all_gather")


NO_GRAD_FN = r"^element 0 of tensors does not require grad and does not have a grad_fn$"
with expect_error(RuntimeError, match=NO_GRAD_FN):
    run_ranks(whole_loss_plain, world_size=1)

# %%
# The error comes from the rank; ``run_ranks`` raises it again on the page.
# On two ranks, both repairs run:


def whole_loss_repaired(rank, world_size):
    return [whole_loss(rank, world_size, way) for way in ("gathered[rank] = tensor", "dist_nn.all_gather")]


with expect_warning(FutureWarning, match=DEPRECATED):
    whole = run_ranks(whole_loss_repaired, world_size=2)
for rank in (0, 1):
    put_back_grad, aware_grad = whole[rank]
    check(put_back_grad, parts[rank], label=f"rank {rank}, put back: grad (= reference_part({rank}))")
    check(aware_grad, 2 * put_back_grad, label=f"rank {rank}, dist_nn: grad (= 2 * put back)")
# the means follow from the checks above: printed
print("put back, mean over the ranks:", (whole[0][0] + whole[1][0]) / 2)
print("dist_nn, mean over the ranks:", (whole[0][1] + whole[1][1]) / 2)

# %%
# Here the workaround is exact on each rank: every rank's loss is the whole
# loss, so the gradient through its own part is all the gradient that part
# gets, and the sum over the ranks is the reference. The autograd-aware
# collective gives each rank twice that, because it adds the same gradient
# computed by both ranks: with :math:`n` ranks, :math:`n` times. This is
# the factor reported in PyTorch issue #58005 as a gradient scaled by the
# world size. Which one is right depends on what combines the ranks'
# gradients: DDP's mean halves both, so the workaround then trains on half
# the gradient (the ``1 / world_size`` that users of such losses report,
# and correct by multiplying the loss by the world size), while the
# autograd-aware collective gives the reference exactly, in this form of
# the loss as in the one above.
#
# ``all_reduce`` in place
# -----------------------
# A statistic of the whole batch needs ``all_reduce``. Here each rank
# scores its samples (the sum of each embedding) and normalises the scores
# with a softmax over the whole batch, whose denominator sums over both
# ranks. ``dist.all_reduce`` works in place; the autograd-aware version
# returns a new tensor. The same function also all-reduces a leaf that
# requires a gradient, as code that averages parameters by hand does:


def global_softmax(rank, world_size):
    results = {}
    for how in ("dist.all_reduce", "dist_nn.all_reduce"):
        encoder, anchors, _ = embed(rank, world_size)
        scores = anchors.sum(1)
        total = scores.exp().sum()
        if how == "dist.all_reduce":
            dist.all_reduce(total)  # in place
            results["total"] = [total.requires_grad, total._version]
        else:
            total = dist_nn.all_reduce(total)
        (total.log() - scores).mean().backward()  # -log_softmax over the 4 samples, mean over this rank's
        results[how] = encoder.weight.grad
    weight = make_encoder().weight  # a leaf that requires grad
    version = weight._version
    dist.all_reduce(weight)
    results["leaf"] = [weight._version - version, torch.equal(weight, 2 * make_encoder().weight)]
    return results


NO_AUTOGRAD_KERNEL = (
    r"^c10d::allreduce_: an autograd kernel was not registered to the Autograd key\(s\) "
    r"but we are trying to backprop through it\. This may lead to silently incorrect behavior\."
)
ALL_REDUCE_DEPRECATED = (
    r"^torch\.distributed\.nn\.functional\.all_reduce is deprecated, "
    r"use torch\.distributed\._functional_collectives\.all_reduce instead\.$"
)
with expect_warning(UserWarning, match=NO_AUTOGRAD_KERNEL):
    with expect_warning(FutureWarning, match=ALL_REDUCE_DEPRECATED):
        reduced = run_ranks(global_softmax, world_size=2)
check(
    reduced[0]["total"],
    [True, 0],
    label="rank 0, after dist.all_reduce: [total.requires_grad, total._version]",
)
check(reduced[0]["leaf"], [0, True], label="rank 0, leaf: [versions added, weight doubled]")
with expect_error(
    RuntimeError, match=r"^a leaf Variable that requires grad is being used in an in-place operation\.$"
):
    make_encoder().weight /= 2

# %%
# ``dist.all_reduce`` summed the values in place and raised nothing, even on
# a leaf that requires a gradient, where an ordinary in-place division
# raises. It left the version counter where it was, so a tensor saved for
# backward and all-reduced afterwards would not be caught either. The
# ``UserWarning`` came from the ``backward()``: PyTorch found no autograd
# formula for ``c10d::allreduce_``, and says that the result may be
# silently wrong. Compared with one process:


def softmax_loss(rank=None, live=(0, 1)):
    """One process: the mean over ``rank``'s samples (default: all); ``live`` ranks' scores keep a graph."""
    encoder = make_encoder()
    scores = encoder(views[0]).sum(1).chunk(2)
    scores = torch.cat([s if owner in live else s.detach() for owner, s in enumerate(scores)])
    losses = -scores.log_softmax(0)
    (losses.mean() if rank is None else losses.chunk(2)[rank].mean()).backward()
    return encoder.weight.grad


for rank in (0, 1):
    own = softmax_loss(rank, live=(rank,))
    check(
        reduced[rank]["dist.all_reduce"], own, label=f"rank {rank}, in place: grad (= own loss, own scores)"
    )
    part = softmax_loss(live=(rank,))
    check(reduced[rank]["dist_nn.all_reduce"], 2 * part, label=f"rank {rank}, dist_nn: grad (= 2 * own part)")
in_place = (reduced[0]["dist.all_reduce"] + reduced[1]["dist.all_reduce"]) / 2
autograd_aware = (reduced[0]["dist_nn.all_reduce"] + reduced[1]["dist_nn.all_reduce"]) / 2
one_process = softmax_loss()
for name, mean in (("dist_nn", autograd_aware), ("in place", in_place)):
    largest = (mean - one_process).abs().max()
    print(f"{name}, mean over the ranks, largest difference from one process: {largest:.4f}")

# %%
# In place, each rank got the gradient of its own loss with the other
# rank's scores held constant: the backward passed the gradient through
# the collective as if it were not there, and the gradient that the other
# rank's loss sends through the shared denominator was lost, as plain
# ``all_gather`` lost the keys' gradient. The autograd-aware ``all_reduce``
# behaves as the autograd-aware ``all_gather``: its backward all-reduces
# the gradient, each rank gets twice its part of the one-process gradient,
# and DDP's mean is exact. Its backward all-reduces with the forward's own
# operation (``_AllReduce`` in ``torch/distributed/nn/functional.py``),
# which is right for a sum (or an average) only: with ``ReduceOp.MAX``, as
# in a softmax that subtracts the largest score across the ranks, the
# gradient is wrong, and nothing says so (the ``_functional_collectives``
# replacement refuses any operation but a sum).
#
# On a GPU runner this page still computes on the CPU: ``run_ranks`` joins its processes in a
# ``gloo`` group, and the one-process reference must match them; the CUDA record (PyTorch 2.11.0,
# an H200) prints the same values as the CPU record of that release. On GPUs with NCCL, the
# backward of the autograd-aware ``all_gather`` is a reduce-scatter instead of an all-to-all, with
# the same sums (from PyTorch's source; no NCCL run is recorded).
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`).
# What the collectives do in backward follows PyTorch's source,
# ``torch/distributed/nn/functional.py`` (``_AllGather.backward``,
# ``_AllReduce.backward``), and every gradient above is checked against
# one process on the runner that built this page. The factor of the world
# size is discussed in PyTorch issue #58005 and open_clip issue #616, and
# the ``1 / world_size`` of the workaround under DDP in
# pytorch-metric-learning issue #363. DDP's average of the gradients is
# documented with ``DistributedDataParallel`` and checked above;
# :ref:`micro_batches` shows when DDP all-reduces.
