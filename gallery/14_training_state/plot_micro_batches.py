"""
.. _micro_batches:

Gradients accumulated over micro-batches
========================================

When a batch does not fit in memory, a training loop splits it into ``k``
micro-batches, calls ``backward()`` on each and takes one optimizer step:
``.grad`` adds up the ``k`` gradients (:ref:`gradient_accumulation`). This
example measures what that sum is: ``k`` times the full-batch gradient
unless each loss is scaled, and exactly the full-batch gradient when each
loss is divided by ``k`` (or weighted by its share of the samples). It then
shows where ``zero_grad()`` goes in such a loop, why a model with
``BatchNorm`` does not get its full-batch gradient this way, and what
``no_sync()`` changes under ``DistributedDataParallel``.

.. questions::

   - Why are my accumulated gradients k times too large?
   - Where does ``zero_grad()`` go when accumulating gradients?
   - Why does gradient accumulation with BatchNorm differ from a big batch?
   - Does ``no_sync()`` need to wrap the forward pass too?
"""

# %%
# One batch, four micro-batches
# -----------------------------
# A batch of 8 samples, a small model and a mean squared error. The
# reference is one ``backward()`` over the whole batch; ``grads`` gathers
# every parameter's ``.grad`` into one vector.
import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import check, draw_series, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1)).to(device)
inputs = torch.randn(8, 4).to(device)  # drawn on the CPU: the same numbers on every runner
targets = torch.randn(8, 1).to(device)
loss_fn = nn.MSELoss()  # the mean over the samples


def grads(module):
    """Every parameter's ``.grad``, flattened into one vector."""
    return torch.cat([p.grad.flatten() for p in module.parameters()])


loss_fn(model(inputs), targets).backward()
full = grads(model)
model.zero_grad()

k = 4
norms = {"loss.backward()": [], "(loss / k).backward()": []}
accumulated = {}
for code, scale in (("loss.backward()", 1), ("(loss / k).backward()", k)):
    for x, y in zip(inputs.chunk(k), targets.chunk(k), strict=True):
        loss = loss_fn(model(x), y)
        (loss / scale).backward()
        norms[code].append(grads(model).norm().item())
    accumulated[code] = grads(model)
    model.zero_grad()

undivided, divided = accumulated["loss.backward()"], accumulated["(loss / k).backward()"]
check(undivided, k * full, label="undivided (= k * full)", atol=1e-6, rtol=1e-5)
check(divided, full, label="divided (= full)", atol=1e-6, rtol=1e-5)
check(round(full.norm().item(), 2), 1.52, label="full.norm()", atol=0.005, rtol=0)
undivided_norms = [round(norm, 4) for norm in norms["loss.backward()"]]
check(undivided_norms, [2.7445, 3.9828, 3.8152, 6.0748], label="norms, undivided", atol=1e-3, rtol=0)
ratios = [d / u for d, u in zip(norms["(loss / k).backward()"], norms["loss.backward()"], strict=True)]
check([round(r, 4) for r in ratios], [0.25] * k, label="norms, divided / undivided", atol=1e-4, rtol=0)

norms["loss_fn(model(inputs), targets).backward()"] = [full.norm().item()] * k
draw_series(norms, ylabel="grads(model).norm()")
plt.show()

# %%
# Three lines against the number of micro-batches done, 1 to 4: the norm
# of the accumulated gradient with ``loss.backward()`` (blue) and with
# ``(loss / k).backward()`` (orange), and the norm of the full-batch
# gradient, 1.52, as a flat line (green). Undivided, the norm goes 2.74,
# 3.98, 3.82 and ends at 6.07, four times the flat line. Divided, each
# point is a quarter of the one above it, and the last one lands on the
# flat line. The vectors checked above agree element by element, to the
# rounding of ``float32``.
#
# Each micro-batch loss is a *mean* over its 2 samples, so the sum of four
# of them gives every sample a weight of 1/2 instead of the 1/8 of the
# full-batch mean. With plain SGD that is a learning rate four times too
# large; Adam, which divides by the size of the gradient, hides most of it,
# but gradient clipping, and a weight decay added to the gradient (Adam's
# ``weight_decay``, unlike AdamW's), then act on the wrong scale.
#
# Micro-batches of unequal size
# -----------------------------
# When the batch does not divide evenly (8 samples as 3, 3 and 2), dividing
# by ``k`` gives the last samples too much weight. Weighting each mean by
# its share of the samples, ``len(x) / len(inputs)``, is exact:
parts = list(zip(inputs.split(3), targets.split(3), strict=True))
check([len(x) for x, _ in parts], [3, 3, 2], label="micro-batch sizes")
for weight in ("1 / len(parts)", "len(x) / len(inputs)"):
    for x, y in parts:
        share = 1 / len(parts) if weight == "1 / len(parts)" else len(x) / len(inputs)
        (loss_fn(model(x), y) * share).backward()
    equal = torch.allclose(grads(model), full, rtol=1e-5, atol=1e-6)
    check(equal, weight != "1 / len(parts)", label=f"scaled by {weight}, equal to full")
    model.zero_grad()

# %%
# Where ``zero_grad()`` goes
# --------------------------
# A loop that accumulates takes one step every ``k`` micro-batches and
# clears the gradients right after that step, never in between. Here it
# trains a copy of the model for two batches of 8 samples; a second copy
# takes the same two steps on the whole batches, and a third clears at
# every micro-batch.
import copy

torch.manual_seed(1)
batches = [(torch.randn(8, 4).to(device), torch.randn(8, 1).to(device)) for _ in range(2)]


def train(zero_every_micro_batch):
    trained = copy.deepcopy(model)
    optimizer = torch.optim.SGD(trained.parameters(), lr=0.1)
    micro_batches = [pair for x, y in batches for pair in zip(x.chunk(k), y.chunk(k), strict=True)]
    for i, (x, y) in enumerate(micro_batches, start=1):
        if zero_every_micro_batch:
            optimizer.zero_grad()
        (loss_fn(trained(x), y) / k).backward()
        if i % k == 0:
            optimizer.step()
            optimizer.zero_grad()
    return torch.cat([p.detach().flatten() for p in trained.parameters()])


reference = copy.deepcopy(model)
optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
for x, y in batches:
    loss_fn(reference(x), y).backward()
    optimizer.step()
    optimizer.zero_grad()
full_steps = torch.cat([p.detach().flatten() for p in reference.parameters()])

accumulated_steps = train(zero_every_micro_batch=False)
check(accumulated_steps, full_steps, label="accumulated_steps (= full_steps)", atol=1e-6, rtol=1e-5)
wrong = (train(zero_every_micro_batch=True) - full_steps).abs().max().item()
check(round(wrong, 4), 0.1349, label="zeroed at every micro-batch: largest difference", atol=1e-4, rtol=0)

# %%
# Clearing only after the step gives the same parameters as training on the
# whole batches. Clearing before every ``backward()`` throws away three
# micro-batches of every four: each step then uses a quarter of the last
# micro-batch's gradient. Nothing fails; the model simply trains on a
# quarter of its data at a quarter of the learning rate.
#
# ``BatchNorm`` sees only its micro-batch
# ---------------------------------------
# In training mode ``BatchNorm`` normalises each sample with the mean and
# variance of the batch it arrives in, so a micro-batch of 2 is normalised
# with statistics of 2 samples, not 8. The loss of a micro-batch is then a
# different function, and no scaling of the losses recovers the full-batch
# gradient:
torch.manual_seed(0)
normed = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Tanh(), nn.Linear(3, 1)).to(device)
normed.train()
loss_fn(normed(inputs), targets).backward()
full_w = [[-0.8622, 0.9605, -0.7304]]
check(normed[3].weight.grad, full_w, label="full batch: normed[3].weight.grad", atol=1e-4, rtol=0)
normed.zero_grad()
for x, y in zip(inputs.chunk(k), targets.chunk(k), strict=True):
    (loss_fn(normed(x), y) / k).backward()
divided_w = [[0.1387, -0.1080, 0.1364]]
check(normed[3].weight.grad, divided_w, label="divided: normed[3].weight.grad", atol=1e-4, rtol=0)
check(normed[1].num_batches_tracked, 5, label="normed[1].num_batches_tracked")
normed.zero_grad()
for x, y in zip(inputs.chunk(2), targets.chunk(2), strict=True):
    (loss_fn(normed(x), y) / 2).backward()
halves_w = [[-0.4977, 0.6306, -0.4929]]
check(normed[3].weight.grad, halves_w, label="micro-batches of 4: normed[3].weight.grad", atol=1e-4, rtol=0)
with torch.no_grad():
    pair = normed[:2](inputs[:2])
check(pair.abs(), [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], label="normed[:2](inputs[:2]).abs()", atol=1e-3, rtol=0)

# %%
# The same division by ``k`` that was exact for the model without
# ``BatchNorm`` gives a gradient for the last layer's weight with the
# opposite sign in every element. The last check shows why the difference
# is so large here: over a micro-batch of two samples, each feature is
# normalised to exactly one value above its mean and one below, so
# ``BatchNorm`` outputs :math:`\pm 1` (up to its ``eps``) whatever the
# inputs were, and most of what the first layer computed is lost. With
# larger micro-batches the gap shrinks, but it does not close: two
# micro-batches of 4 give the signs of the full batch, with smaller values.
#
# The running statistics differ too: when ``num_batches_tracked`` was
# checked it counted five updates (one for the full batch, four for the
# micro-batches), and the running mean and variance had moved four times,
# towards micro-batch statistics. Models that must accumulate use a
# normalisation without batch statistics (``LayerNorm``, ``GroupNorm``), or
# ``nn.SyncBatchNorm``, which shares statistics across the processes of a
# distributed run, not across the micro-batches of one process.
#
# ``no_sync()`` under ``DistributedDataParallel``
# -----------------------------------------------
# Wrapped in ``DistributedDataParallel`` (DDP), a model all-reduces its
# gradients across processes inside every ``backward()``. Accumulating over
# ``k`` micro-batches would then communicate ``k`` times for one step;
# ``with model.no_sync():`` skips the communication. But DDP decides
# whether a ``backward()`` will all-reduce when the *forward* pass runs:
# the forward and the backward of each of the first ``k - 1``
# micro-batches go inside the context, and the last micro-batch, forward
# and backward, outside it. Here a process group of one process (``gloo``,
# started through a file in a temporary folder) counts the all-reduces
# with a communication hook, for four uses of the context in the first
# three micro-batches: not at all, around forward and backward, around
# ``backward()`` only, and around the forward only:
import tempfile
from pathlib import Path

import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel


def micro_batch(wrapped, x, y, placement):
    """One forward and backward, with ``no_sync()`` used as ``placement`` says."""
    if placement == "around forward and backward":
        with wrapped.no_sync():
            loss = loss_fn(wrapped(x), y) / k
            loss.backward()
    elif placement == "around backward() only":
        loss = loss_fn(wrapped(x), y) / k
        with wrapped.no_sync():
            loss.backward()
    elif placement == "around the forward only":
        with wrapped.no_sync():
            loss = loss_fn(wrapped(x), y) / k
        loss.backward()
    else:
        loss = loss_fn(wrapped(x), y) / k
        loss.backward()


folder = tempfile.TemporaryDirectory()
dist.init_process_group("gloo", rank=0, world_size=1, init_method=Path(folder.name, "init").as_uri())
try:
    wrapped = DistributedDataParallel(model)
    all_reduces = []

    def counting_hook(state, bucket):
        all_reduces.append(bucket.index())
        return default_hooks.allreduce_hook(None, bucket)

    wrapped.register_comm_hook(None, counting_hook)
    expected = {
        "not used": [1, 2, 3, 4],
        "around forward and backward": [0, 0, 0, 1],
        "around backward() only": [1, 2, 3, 4],
        "around the forward only": [0, 0, 0, 1],
    }
    for placement, expected_counts in expected.items():
        all_reduces.clear()
        counts = []
        for i, (x, y) in enumerate(zip(inputs.chunk(k), targets.chunk(k), strict=True), start=1):
            micro_batch(wrapped, x, y, placement if i < k else "not used")
            counts.append(len(all_reduces))
        check(counts, expected_counts, label=f"all-reduces so far, no_sync() {placement}")
        equal = torch.allclose(grads(model), full, rtol=1e-5, atol=1e-6)
        check(equal, True, label="grads(model) equal to full")
        model.zero_grad()
finally:
    dist.destroy_process_group()
    folder.cleanup()

# %%
# Without ``no_sync()`` each of the four ``backward()`` calls all-reduced
# (the count goes 1, 2, 3, 4). With forward and backward inside it, the
# first three micro-batches added to ``.grad`` locally and only the fourth
# all-reduced (0, 0, 0, 1). With only ``backward()`` inside, the count is
# 1, 2, 3, 4 again, as if the context were not there: each forward, run
# outside it, had already prepared DDP's reducer to all-reduce during the
# next backward, and ``no_sync()`` only changes what the next forward
# does. The last count confirms it: around the forward alone, the context
# skips every all-reduce of the first three micro-batches, although their
# ``backward()`` runs outside it. The documentation of ``no_sync()`` warns:
# "The forward pass should be included inside the context manager, or else
# gradients will still be synchronized." Nothing else does: the misplaced
# context raises no error and no warning, and the gradients are right;
# only the saving is lost.
#
# In every case ``.grad`` holds the full-batch gradient. With one process
# the all-reduce averages a single gradient; with several, the average of
# the processes' accumulated sums is the sum of the averages that an
# all-reduce at every micro-batch would have given. Only the communication
# changes, which is the whole point of ``no_sync()``. Scaling each loss by
# ``1 / k`` is still the user's job. On a GPU the model and its gradients
# are there; ``gloo`` accepts them, copies them to host memory for the
# all-reduce and back (a real multi-GPU run would choose ``nccl``). The CUDA
# record (PyTorch 2.11.0, one H200) prints the same counts, checks and
# gradients as here; several GPUs and ``nccl`` are not recorded.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# :ref:`zero_grad_none` shows why the gradients cleared after each step are
# ``None`` rather than zeros, and :ref:`mental_model` the ``AccumulateGrad``
# node that adds every ``backward()``'s gradient into ``.grad``.
