"""
.. _data_parallel:

The loss that ``nn.DataParallel`` gathers
=========================================

``nn.DataParallel(model)`` splits each batch over the visible GPUs, runs a
copy of the model (a *replica*) on each part and gathers what the replicas
return. A model that returns its own loss then returns one loss per GPU: a
vector, and ``loss.backward()`` is expected to fail with "grad can be
implicitly created only for scalar outputs" (from PyTorch's code: the CUDA
record, on one H200, has no second GPU). This example shows what runs where
there is no second GPU, builds the same vector by hand to compare ``.mean()`` with
``.sum()``, shows what happens to an attribute that ``forward`` changes on
a replica, runs the wrapper PyTorch recommends instead,
``DistributedDataParallel``, on two processes, and shows what both
wrappers do to ``BatchNorm``.

.. questions::

   - Why does ``nn.DataParallel`` give ``grad can be implicitly created only for scalar outputs``?
   - Should I use ``loss.mean()`` or ``loss.sum()`` with DataParallel or DDP?
   - Why are attributes set in ``forward`` lost under DataParallel?
   - Should I use DataParallel or DistributedDataParallel?
"""

# %%
# A model that returns its own loss
# ---------------------------------
# Many training scripts let the model compute its loss, so that one call
# does everything. ``Regression`` also counts its calls in ``self.calls``
# and notes each batch size in ``self.sizes``, two kinds of state that
# ``forward`` changes. The batch has 8 samples.
import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import check, draw_matrix, expect_error, expect_warning, run_ranks, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
# DataParallel takes every visible device of the first accelerator it finds, CUDA, else XPU (never
# MPS), whatever the runner chose: the page's model goes to the first of them, or stays on the CPU
if torch.cuda.is_available():
    device, gpus = torch.device("cuda", 0), torch.cuda.device_count()
elif hasattr(torch, "xpu") and torch.xpu.is_available():
    device, gpus = torch.device("xpu", 0), torch.xpu.device_count()
else:
    device, gpus = torch.device("cpu"), 0
ranks_device = device if device.type == "cuda" else torch.device("cpu")  # gloo: CPU or CUDA tensors


class Regression(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 1)
        self.calls = 0
        self.sizes = []

    def forward(self, x, y):
        self.calls += 1
        self.sizes.append(len(x))
        return nn.functional.mse_loss(self.linear(x), y)


torch.manual_seed(0)
model = Regression().to(device)
inputs = torch.randn(8, 4).to(device)  # drawn on the CPU: the same numbers on every runner
targets = torch.randn(8, 1).to(device)


def weight_grad(loss):
    """The first row of the weight's gradient after ``loss.backward()``, from a clean start."""
    model.zero_grad()
    loss.backward()
    return model.linear.weight.grad[0].clone()


dp = nn.DataParallel(model)
check(dp.device_ids, list(range(gpus)), label="dp.device_ids")
print("dp.module is model:", dp.module is model)

# %%
# ``dp.device_ids`` lists the GPUs that ``DataParallel`` will use: all of
# them, by default (CUDA's, else Intel's XPUs). On this runner the list is
# what the check shows (``[0]`` in the CUDA record, one H200); with no such GPU (a CPU, a Mac's
# MPS) it is empty, and the wrapper then simply calls ``model``.
#
# One call, one loss per GPU
# --------------------------
# With two or more GPUs, ``dp(inputs, targets)`` cuts the batch into at
# most one part per GPU (``inputs.chunk(n)``, which can make fewer parts
# than there are GPUs: 8 samples on 6 GPUs make 4 parts of 2), copies the
# model to each GPU that gets a part, runs the copies side by side, and
# gathers their losses on the first GPU. The second branch below runs only
# on such a machine; the third one runs everywhere else, this runner
# included. On Intel's XPUs (the first branch) ``DataParallel`` cannot cut
# the batch at all: the functions it cuts and copies with are built for
# CUDA alone, so every call is expected to fail (reported in PyTorch's
# issue 143239 and in Intel's, not run here):
check([len(x) for x in inputs.chunk(6)], [2, 2, 2, 2], label="sizes of inputs.chunk(6)")
SCALARS_GATHERED = (
    r"^Was asked to gather along dimension 0, but all input tensors were scalars; "
    r"will instead unsqueeze and return a vector\.$"
)
SCALAR_ONLY = r"^grad can be implicitly created only for scalar outputs$"
n = len(dp.device_ids)
calls = model.calls
if device.type == "xpu":  # reported (pytorch/pytorch#143239), not run here: its scatter is CUDA's alone
    with expect_error(AttributeError, match=r"^module 'torch\._C' has no attribute '_scatter'$"):
        dp(inputs, targets)
elif n > 1:
    with expect_warning(UserWarning, match=SCALARS_GATHERED):
        loss = dp(inputs, targets)
    k = len(inputs.chunk(n))  # at most n parts: chunk puts ceil(8 / n) samples in each, so 6 GPUs get 4 parts
    check(tuple(loss.shape), (k,), label="tuple(loss.shape)")
    with expect_error(RuntimeError, match=SCALAR_ONLY):
        loss.backward()
    check(model.calls - calls, 0, label="model.calls - calls")
    check(sorted(model.sizes[-k:]), sorted(len(x) for x in inputs.chunk(n)), label="model.sizes[-k:]")
    parts = zip(inputs.chunk(n), targets.chunk(n), strict=True)
    by_hand = weight_grad(torch.stack([model(x, y) for x, y in parts]).mean())
    check(weight_grad(loss.mean()), by_hand, label="gradient of loss.mean()", atol=1e-5, rtol=1e-4)
else:
    loss = dp(inputs, targets)
    check(tuple(loss.shape), (), label="tuple(loss.shape)")
    loss.backward()
    check(model.calls - calls, 1, label="model.calls - calls")
    check(model.sizes[-1], 8, label="model.sizes[-1]")
model.zero_grad()

# %%
# Without a second GPU (the third branch), one device did all the work:
# the loss is a 0-dim tensor, ``backward()`` works, and ``model.calls``
# went up by one. This is how a script that uses ``DataParallel`` behaves
# on a laptop, on a CPU runner and with one GPU (the model on ``cuda:0``; the CUDA record, on one
# H200, shows the same checks), so neither problem of this page shows there.
#
# On a runner with two or more CUDA GPUs the second branch runs; its checks say
# what is expected there, and no such run is recorded (the CUDA record has one GPU). Each replica
# returns a 0-dim loss; the gather, asked to join 0-dim tensors along
# dimension 0, warns that it turns each of them into a vector of one
# element, and returns a vector with one loss per part, on which
# ``loss.backward()`` raises the error above. ``loss.mean().backward()``
# works, and gives the gradient of the mean of the parts' losses computed
# one after the other. ``model.calls`` stays where it was, while
# ``model.sizes`` gains one entry per part of the batch (one per GPU used),
# each the size of that part: the section on replicas below explains both.
#
# The same vector, built by hand
# ------------------------------
# With two GPUs the gathered loss is expected to be the loss of each half of
# the batch, stacked (from PyTorch's source; no run on two GPUs is recorded). That is
# easy to compute on any device, which shows the error and its fixes on this runner too:
halves = list(zip(inputs.chunk(2), targets.chunk(2), strict=True))
losses = torch.stack([model(x, y) for x, y in halves])
print("losses:", losses)
with expect_error(RuntimeError, match=SCALAR_ONLY):
    losses.backward()

# %%
# ``backward()`` without an argument needs a single number to start from
# (:ref:`vector_jacobian_product`). The two ways out are ``losses.mean()``
# and ``losses.sum()``; they give different gradients, compared here with
# the gradient of one call on the whole batch:


whole = weight_grad(model(inputs, targets))
mean = weight_grad(torch.stack([model(x, y) for x, y in halves]).mean())
summed = weight_grad(torch.stack([model(x, y) for x, y in halves]).sum())
check(whole, [1.2357, 0.6630, -2.0608, -0.4541], label="whole", atol=1e-4, rtol=0)

draw_matrix(
    [whole.tolist(), mean.tolist(), summed.tolist()],
    rows=["model(inputs, targets)", "losses.mean()", "losses.sum()"],
    columns=["[0]", "[1]", "[2]", "[3]"],
    title="model.linear.weight.grad[0]",
)
plt.show()

# %%
# The four elements of the weight's gradient, one row per loss: one call
# on the whole batch (top), the mean of the two halves' losses (middle)
# and their sum (bottom). The top two rows are the same, 1.24, 0.663,
# -2.06 and -0.454; the bottom row is twice them, 2.47, 1.33, -4.12 and
# -0.908.
#
# Each half's loss is already a mean over its samples, so the mean of the
# two is the mean over the batch, and ``.mean()`` gives the gradient one
# device would have computed. ``.sum()`` multiplies it by the number of
# parts, the GPUs used: with SGD the same script trains with a rate that grows
# with the machine it runs on, and with any optimizer a
# ``clip_grad_norm_`` threshold means something different on each machine.
#
# When the batch does not divide evenly
# -------------------------------------
# ``chunk`` gives 7 samples to two GPUs as 4 and 3, and the mean of the two
# means no longer weights every sample by 1/7: a sample of the part of 4
# counts 1/8, one of the part of 3 counts 1/6. A model that returns one
# loss per sample (``reduction="none"``) avoids it: the gather is expected to
# concatenate the per-sample losses into one vector of 7 (from the source, not run
# here), whose mean is the whole batch's loss.
seven = list(zip(inputs[:7].chunk(2), targets[:7].chunk(2), strict=True))
check([len(x) for x, _ in seven], [4, 3], label="sizes of the parts")
whole7 = weight_grad(model(inputs[:7], targets[:7]))
mean7 = weight_grad(torch.stack([model(x, y) for x, y in seven]).mean())
check(whole7, [0.6035, -0.5303, -2.3897, -0.9160], label="whole7", atol=1e-4, rtol=0)
check(mean7, [0.5753, -0.4886, -2.2870, -1.0033], label="mean7", atol=1e-4, rtol=0)


def per_sample(x, y):
    return nn.functional.mse_loss(model.linear(x), y, reduction="none").flatten()


concatenated = weight_grad(torch.cat([per_sample(x, y) for x, y in seven]).mean())
print(f"largest difference between concatenated and whole7: {(concatenated - whole7).abs().max():.4f}")

# %%
# The other common fix is to keep the loss out of the model: ``dp(inputs)`` is
# expected to gather the outputs, one row per sample (from the source, not run here),
# and the loss computed from them afterwards is a single number, as on one device.
#
# What ``forward`` changes on a replica
# -------------------------------------
# ``DataParallel`` builds its replicas anew at every call and drops them
# once the outputs are gathered. Each replica starts as a copy of
# ``model.__dict__``, the dictionary that holds the module's attributes;
# ``DataParallel`` then gives it the parameters on its GPU: copies, except
# on the first GPU, where they share the model's memory (see below). The
# method that makes that first copy, ``_replicate_for_data_parallel()``,
# is private, but calling it here shows what ``forward`` does to a replica
# on any device:
replica = model._replicate_for_data_parallel()
calls = model.calls
replica(inputs, targets)
print("replica.calls - calls:", replica.calls - calls)
check(model.calls - calls, 0, label="model.calls - calls")
check(replica.sizes is model.sizes, True, label="replica.sizes is model.sizes")

# %%
# ``self.calls += 1`` binds a new number to ``calls`` in the replica's own
# dictionary, which is thrown away after the call: ``model.calls`` never
# moves, and a counter, a step number or a cached tensor set this way in
# ``forward`` is lost at every step. ``self.sizes.append(...)`` changes the
# list that the replica shares with the model, so it survives, filled by
# several replicas at once, in whatever order their threads run: that is
# the second branch's ``model.sizes``, compared after sorting.
# ``DataParallel``'s documentation names one exception it guarantees: the
# replica on the first GPU shares its parameters and buffers with the
# model, so in-place updates made there are kept (the running statistics
# of ``BatchNorm`` rely on it); those of the other replicas are lost like
# the counter.
#
# What PyTorch recommends instead
# -------------------------------
# ``DataParallel``'s documentation recommends
# ``DistributedDataParallel`` (DDP), even on a single machine: one process
# per GPU, each with its own whole model, so nothing is replicated inside a
# call. ``run_ranks``, a helper of this site, starts two Python processes
# on this machine, joins them in a process group (``gloo``), calls a
# function in each with its *rank* (0 or 1) and returns what each
# returned. Each rank builds ``Regression`` with the seed of ``model``
# above, so its weights are ``model``'s, and gets its half of the batch,
# ``inputs.chunk(2)``, as two GPUs would:
from torch.nn.parallel import DistributedDataParallel


def ddp_halves(rank, world_size):
    torch.manual_seed(0)  # the weights of ``model``, on both ranks
    model = Regression().to(ranks_device)
    ddp = DistributedDataParallel(model)
    x, y = inputs.chunk(world_size)[rank].to(ranks_device), targets.chunk(world_size)[rank].to(ranks_device)
    loss = ddp(x, y)
    loss.backward()
    return {"shape": tuple(loss.shape), "grad": model.linear.weight.grad[0].clone(), "calls": model.calls}


ranks = run_ranks(ddp_halves)
check([r["shape"] for r in ranks], [(), ()], label="tuple(loss.shape) on rank 0 and rank 1")
check(ranks[0]["grad"], whole, label="rank 0's weight gradient (= whole)", atol=1e-6, rtol=1e-5)
check(ranks[1]["grad"], whole, label="rank 1's weight gradient (= whole)", atol=1e-6, rtol=1e-5)
check([r["calls"] for r in ranks], [1, 1], label="model.calls on rank 0 and rank 1")

# %%
# Under DDP the model returns its 0-dim loss, ``backward()`` works as
# written, and the counter moves on each rank, because each process calls
# its own model and keeps it. Each rank computed the gradient of its own
# half's loss; DDP's ``backward()`` averaged the two, and both ranks end
# with ``whole``, the gradient of the whole batch: the counterpart of
# ``.mean()`` above. :ref:`ddp_checkpointing` shows how DDP decides when a
# gradient is ready, and where activation checkpointing breaks that.
#
# ``BatchNorm``: each part normalised apart
# -----------------------------------------
# A ``BatchNorm`` layer in training mode normalises its input with the
# mean and variance of the batch it is given. Under ``DataParallel`` (from its
# documentation and source; not run here) each replica is given one GPU's part, and
# normalises it with that part's statistics. The replicas update the running statistics
# (``running_mean``, ``running_var``) in place, and only the first GPU's replica shares
# its buffers with the model (the guarantee of ``DataParallel``'s documentation named
# above): the model is expected to keep what the first part gave.
# Under DDP each rank normalises its own part too. ``Normalised`` puts a
# ``BatchNorm1d`` before the linear layer; each rank runs two steps on its
# half of the batch, and the same model is run on the whole batch here in
# one process:


class Normalised(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm1d(4)
        self.linear = nn.Linear(4, 1)

    def forward(self, x, y):
        return nn.functional.mse_loss(self.linear(self.norm(x)), y)


def normalised_halves(rank, world_size):
    torch.manual_seed(0)
    model = Normalised().to(ranks_device)
    ddp = DistributedDataParallel(model)
    x, y = inputs.chunk(world_size)[rank].to(ranks_device), targets.chunk(world_size)[rank].to(ranks_device)
    running_means = []
    for _ in range(2):
        model.zero_grad()
        ddp(x, y).backward()
        running_means.append(model.norm.running_mean.clone())
    return {"grad": model.linear.weight.grad[0].clone(), "running_means": running_means}


torch.manual_seed(0)
normalised = Normalised().to(device)
normalised(inputs, targets).backward()
whole_normalised = normalised.linear.weight.grad[0].clone()
ranks = run_ranks(normalised_halves)
check(ranks[1]["grad"], ranks[0]["grad"], label="rank 1's weight gradient (= rank 0's)")
check(
    torch.allclose(ranks[0]["grad"], whole_normalised.to(ranks_device), rtol=1e-5, atol=1e-6),
    False,
    label="rank 0's weight gradient equals whole_normalised",
)
check(whole_normalised, [1.0502, 0.7607, -1.8269, -1.0673], label="whole_normalised", atol=1e-4, rtol=0)
check(
    ranks[0]["grad"], [0.9851, 0.6598, -1.4446, -0.9573], label="rank 0's weight gradient", atol=1e-4, rtol=0
)

draw_matrix(
    [whole_normalised.tolist(), ranks[0]["grad"].tolist(), ranks[1]["grad"].tolist()],
    rows=["whole_normalised", 'ranks[0]["grad"]', 'ranks[1]["grad"]'],
    columns=["[0]", "[1]", "[2]", "[3]"],
    title="normalised.linear.weight.grad[0]",
)
plt.show()

# %%
# The four elements of the linear layer's weight gradient of
# ``Normalised``: on the whole batch in one process (top row), and on rank
# 0 and rank 1 under DDP (the two rows below). The two ranks agree with
# each other, 0.985, 0.66, -1.44 and -0.957, and not with the top row,
# 1.05, 0.761, -1.83 and -1.07.
#
# Without ``BatchNorm`` the average of the two halves' gradients was the
# whole batch's gradient; with it, each half was normalised with its own
# mean and variance, so each rank's loss is not a part of the whole
# batch's loss, and averaging cannot give that loss's gradient. Each ``DataParallel``
# replica is expected to normalise its GPU's part the same way (from the source, not run here).
#
# The running statistics follow another rule. By default DDP broadcasts
# rank 0's buffers to every rank at the beginning of each ``forward``
# (``broadcast_buffers``, ``True`` by default; PyTorch 2.13 deprecates it for ``forward_sync_buffers``,
# which, set to ``False``, still lets the broadcast when DDP wraps the model include them), then each rank
# updates its own copy with its own half, with the momentum of 0.1:
first_half, second_half = (x.mean(0).to(ranks_device) for x in inputs.chunk(2))
after_step_1 = [r["running_means"][0] for r in ranks]
check(after_step_1[0], 0.1 * first_half, label="rank 0's running_mean after step 1", atol=1e-6, rtol=1e-5)
check(after_step_1[1], 0.1 * second_half, label="rank 1's running_mean after step 1", atol=1e-6, rtol=1e-5)
after_step_2 = [r["running_means"][1] for r in ranks]
check(
    after_step_2[0],
    0.9 * after_step_1[0] + 0.1 * first_half,
    label="rank 0's running_mean after step 2",
    atol=1e-6,
    rtol=1e-5,
)
check(
    after_step_2[1],
    0.9 * after_step_1[0] + 0.1 * second_half,
    label="rank 1's running_mean after step 2",
    atol=1e-6,
    rtol=1e-5,
)

# %%
# After the first step each rank's ``running_mean`` holds 0.1 times its own
# half's mean. The second step starts from rank 0's value on both ranks,
# then each adds its own half: the two ranks end with different running
# statistics, rank 0's from the first half alone, rank 1's from rank 0's
# previous value and its own last half. The model saved from rank 0, the usual
# place, evaluates with statistics of one part of each batch, as the model
# under ``DataParallel`` is expected to keep the first GPU's (from its documentation).
#
# ``SyncBatchNorm``
# -----------------
# ``nn.SyncBatchNorm.convert_sync_batchnorm(model)`` replaces each
# ``BatchNorm`` layer with a ``SyncBatchNorm`` layer, which computes the
# mean and variance over the parts of all the processes of the group, so
# that each is normalised with the whole batch's statistics. Here it is
# tried on two ranks, with the model on the CPU on every runner:
converted = nn.SyncBatchNorm.convert_sync_batchnorm(Normalised())
check(type(converted.norm).__name__, "SyncBatchNorm", label="type(converted.norm).__name__")


def synchronised_halves(rank, world_size):
    torch.manual_seed(0)
    model = nn.SyncBatchNorm.convert_sync_batchnorm(Normalised())
    ddp = DistributedDataParallel(model)
    ddp(inputs.chunk(world_size)[rank].cpu(), targets.chunk(world_size)[rank].cpu()).backward()
    return model.linear.weight.grad[0].clone()


with expect_error(ValueError, match=r"^SyncBatchNorm layers only work with GPU modules$"):
    run_ranks(synchronised_halves)


def synchronised_on_gpu(rank, world_size):
    torch.manual_seed(0)
    model = nn.SyncBatchNorm.convert_sync_batchnorm(Normalised()).to(device)
    ddp = DistributedDataParallel(model)
    ddp(inputs.chunk(world_size)[rank], targets.chunk(world_size)[rank]).backward()
    return model.linear.weight.grad[0].clone()


if device.type == "cuda":
    for rank, gradient in enumerate(run_ranks(synchronised_on_gpu)):
        check(
            gradient,
            whole_normalised,
            label=f"rank {rank}'s weight gradient, SyncBatchNorm (= whole_normalised)",
            atol=1e-5,
            rtol=1e-4,
        )

# %%
# DDP refuses a CPU model that holds a ``SyncBatchNorm`` layer, when it
# wraps it. ``SyncBatchNorm``'s documentation says it supports DDP with one
# GPU per process; with ``gloo``, the two processes can also share one GPU,
# as in the CUDA record (PyTorch 2.11.0, one H200). On a
# machine with CUDA the last branch above runs the same two halves with the model on
# the GPU, and in that record both ranks end with ``whole_normalised``, 1.05, 0.761, -1.83 and
# -1.07, the whole batch's gradient, since both halves are normalised with the whole batch's
# statistics. Runs with one GPU per process, or with ``nccl``, are not recorded.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# :ref:`vector_jacobian_product` checks the error for any non-scalar
# output. What it says about ``DataParallel`` follows PyTorch's
# documentation of ``torch.nn.DataParallel`` (its warnings about the
# vector of scalars, about replicas and about in-place updates on the first
# GPU) and its code in ``torch/nn/parallel/``; what it says about DDP's
# buffers and ``SyncBatchNorm`` follows the documentation of
# ``DistributedDataParallel`` (``broadcast_buffers``,
# ``forward_sync_buffers``) and of ``torch.nn.SyncBatchNorm``. The checks
# above hold on the runner that built this page, on two processes for DDP.
