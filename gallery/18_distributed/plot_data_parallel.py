"""
.. _data_parallel:

The loss that ``nn.DataParallel`` gathers
=========================================

``nn.DataParallel(model)`` splits each batch over the visible GPUs, runs a
copy of the model (a *replica*) on each part and gathers what the replicas
return. A model that returns its own loss then returns one loss per GPU: a
vector, and ``loss.backward()`` fails with "grad can be implicitly created
only for scalar outputs". This example shows what runs where there is no
second GPU, builds the same vector by hand to compare ``.mean()`` with
``.sum()``, shows what happens to an attribute that ``forward`` changes on
a replica, and ends with the wrapper PyTorch recommends instead,
``DistributedDataParallel``.

.. questions::

   - Why does ``nn.DataParallel`` give ``grad can be implicitly created only for scalar outputs``?
   - Should I use ``loss.mean()`` or ``loss.sum()`` with DataParallel?
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

from autograd_notes import check, draw_matrix, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
if torch.cuda.is_available():
    device = torch.device("cuda", 0)  # DataParallel uses every visible GPU, whatever the runner chose


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
check(dp.device_ids, list(range(torch.cuda.device_count())), label="dp.device_ids")
check(dp.module is model, True, label="dp.module is model")

# %%
# ``dp.device_ids`` lists the GPUs that ``DataParallel`` will use: all of
# them, by default. On this runner the list is what the check shows; with
# no GPU it is empty, and the wrapper then simply calls ``model``.
#
# One call, one loss per GPU
# --------------------------
# With two or more GPUs, ``dp(inputs, targets)`` cuts the batch into at
# most one part per GPU (``inputs.chunk(n)``, which can make fewer parts
# than there are GPUs: 8 samples on 6 GPUs make 4 parts of 2), copies the
# model to each GPU that gets a part, runs the copies side by side, and
# gathers their losses on the first GPU. The first branch below runs only
# on such a machine; the second one runs everywhere else, this runner
# included:
check([len(x) for x in inputs.chunk(6)], [2, 2, 2, 2], label="sizes of inputs.chunk(6)")
SCALARS_GATHERED = (
    r"^Was asked to gather along dimension 0, but all input tensors were scalars; "
    r"will instead unsqueeze and return a vector\.$"
)
SCALAR_ONLY = r"^grad can be implicitly created only for scalar outputs$"
n = len(dp.device_ids)
calls = model.calls
if n > 1:
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
# Without a second GPU (the second branch), one device did all the work:
# the loss is a 0-dim tensor, ``backward()`` works, and ``model.calls``
# went up by one. This is how a script that uses ``DataParallel`` behaves
# on a laptop, on a CPU runner and on a machine with one GPU, so neither
# problem of this page shows there.
#
# On a runner with two or more GPUs the first branch runs; its checks say
# what is expected there, and no such run is recorded yet. Each replica
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
# With two GPUs the gathered loss is the loss of each half of the batch,
# stacked. That is easy to compute on any device, which shows the error
# and its fixes on this runner too:
halves = list(zip(inputs.chunk(2), targets.chunk(2), strict=True))
losses = torch.stack([model(x, y) for x, y in halves])
check(tuple(losses.shape), (2,), label="tuple(losses.shape)")
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
check(mean, whole, label="mean (= whole)", atol=1e-6, rtol=1e-5)
check(summed, 2 * whole, label="summed (= 2 * whole)", atol=1e-6, rtol=1e-5)
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
# GPUs: with SGD the same script trains with a learning rate that grows
# with the machine it runs on, and with any optimizer a
# ``clip_grad_norm_`` threshold means something different on each machine.
#
# When the batch does not divide evenly
# -------------------------------------
# ``chunk`` gives 7 samples to two GPUs as 4 and 3, and the mean of the two
# means no longer weights every sample by 1/7: a sample of the part of 4
# counts 1/8, one of the part of 3 counts 1/6. A model that returns one
# loss per sample (``reduction="none"``) avoids it: the gather
# concatenates the per-sample losses into one vector of 7, whose mean is
# the whole batch's loss.
seven = list(zip(inputs[:7].chunk(2), targets[:7].chunk(2), strict=True))
check([len(x) for x, _ in seven], [4, 3], label="sizes of the parts")
whole7 = weight_grad(model(inputs[:7], targets[:7]))
mean7 = weight_grad(torch.stack([model(x, y) for x, y in seven]).mean())
check(torch.allclose(mean7, whole7, rtol=1e-5, atol=1e-6), False, label="mean7 equals whole7")


def per_sample(x, y):
    return nn.functional.mse_loss(model.linear(x), y, reduction="none").flatten()


concatenated = weight_grad(torch.cat([per_sample(x, y) for x, y in seven]).mean())
check(concatenated, whole7, label="concatenated (= whole7)", atol=1e-6, rtol=1e-5)

# %%
# The other common fix is to keep the loss out of the model: ``dp(inputs)``
# gathers the outputs, one row per sample, and the loss computed from them
# afterwards is a single number, as on one device.
#
# What ``forward`` changes on a replica
# -------------------------------------
# ``DataParallel`` builds its replicas anew at every call and drops them
# once the outputs are gathered. Each replica starts as a copy of
# ``model.__dict__``, the dictionary that holds the module's attributes;
# ``DataParallel`` then gives it copies of the parameters on its GPU. The
# method that makes that first copy, ``_replicate_for_data_parallel()``,
# is private, but calling it here shows what ``forward`` does to a replica
# on any device:
replica = model._replicate_for_data_parallel()
calls, sizes = model.calls, len(model.sizes)
replica(inputs, targets)
check(replica.calls - calls, 1, label="replica.calls - calls")
check(model.calls - calls, 0, label="model.calls - calls")
check(replica.sizes is model.sizes, True, label="replica.sizes is model.sizes")
check(len(model.sizes) - sizes, 1, label="len(model.sizes) - sizes")

# %%
# ``self.calls += 1`` binds a new number to ``calls`` in the replica's own
# dictionary, which is thrown away after the call: ``model.calls`` never
# moves, and a counter, a step number or a cached tensor set this way in
# ``forward`` is lost at every step. ``self.sizes.append(...)`` changes the
# list that the replica shares with the model, so it survives, filled by
# several replicas at once, in whatever order their threads run: that is
# the first branch's ``model.sizes``, compared after sorting.
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
# call. Here it runs with a process group of one process (``gloo``, as in
# :ref:`micro_batches`):
import tempfile
from pathlib import Path

import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

folder = tempfile.TemporaryDirectory()
dist.init_process_group("gloo", rank=0, world_size=1, init_method=Path(folder.name, "init").as_uri())
try:
    ddp = DistributedDataParallel(model)
    calls = model.calls
    loss = ddp(inputs, targets)
    check(tuple(loss.shape), (), label="tuple(loss.shape)")
    check(weight_grad(loss), whole, label="weight gradient (= whole)", atol=1e-6, rtol=1e-5)
    check(model.calls - calls, 1, label="model.calls - calls")
finally:
    dist.destroy_process_group()
    folder.cleanup()

# %%
# Under DDP the model returns its 0-dim loss, ``backward()`` works as
# written, and the counter moves, because each process calls its own model
# and keeps it. DDP makes the processes agree on the gradient: its
# ``backward()`` averages the gradients of all processes, the counterpart
# of ``.mean()`` above. :ref:`ddp_checkpointing` shows how DDP decides
# when a gradient is ready, and where activation checkpointing breaks
# that.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# :ref:`vector_jacobian_product` checks the error for any non-scalar
# output. What it says about ``DataParallel`` follows PyTorch's
# documentation of ``torch.nn.DataParallel`` (its warnings about the
# vector of scalars, about replicas and about in-place updates on the first
# GPU) and its code in ``torch/nn/parallel/``; the checks above hold on the
# runner that built this page.
