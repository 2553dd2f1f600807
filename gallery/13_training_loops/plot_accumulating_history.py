"""
.. _accumulating_history:

Summing losses keeps graphs alive
=================================

``total_loss += loss`` looks like bookkeeping, but ``loss`` is a tensor with
a graph behind it, and so the sum is too. This example counts what that
sum keeps alive, iteration by iteration: the nodes of every iteration's
graph, and, in a loop that never calls ``backward()`` (an evaluation loop),
every tensor those graphs saved. Then it shows the fixes, ``loss.item()``
and ``loss.detach()``, and why an evaluation loop belongs in
``torch.no_grad()``.

.. questions::

   - Why does ``total_loss += loss`` cause a memory leak?
   - Should I log the loss with ``loss.item()`` or ``loss.detach()``?
   - Why does my evaluation loop keep running out of memory?
"""

# %%
# What a graph keeps
# ------------------
# ``graph_size`` walks a graph from one node through ``next_functions``, as
# backward would, and counts the distinct nodes it reaches, the distinct
# tensors those nodes saved for backward (their ``_saved_*`` attributes),
# and the elements of those tensors. Counting is deterministic; measuring
# memory would not be.
import itertools

import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import autograd_graph, check, draw_graph, draw_series, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 2
device = runner_device()


def graph_size(node):
    """Nodes, saved tensors and saved elements reachable from ``node``; freed tensors are not counted."""
    seen, stack, saved = set(), [node], {}
    while stack:
        current = stack.pop()
        if current is None or current in seen:
            continue
        seen.add(current)
        for name in dir(current):
            if not name.startswith("_saved_"):
                continue
            try:
                value = getattr(current, name)
            except RuntimeError:  # freed by an earlier backward()
                continue
            if isinstance(value, torch.Tensor):
                # one storage counted once: the input batch is saved by every iteration's graph
                saved[value.untyped_storage().data_ptr()] = value.numel()
        stack.extend(child for child, _ in current.next_functions)
    return {"nodes": len(seen), "saved tensors": len(saved), "saved elements": sum(saved.values())}


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1)).to(device)
inputs = torch.randn(16, 3, device=device)
targets = torch.randn(16, 1, device=device)


def growth(sizes):
    """What each graph size adds to the one before it."""
    return [{key: later[key] - earlier[key] for key in later} for earlier, later in itertools.pairwise(sizes)]


def compute_loss():
    return ((model(inputs) - targets) ** 2).mean()


loss = compute_loss()
check(
    graph_size(loss.grad_fn),
    {"nodes": 12, "saved tensors": 4, "saved elements": 200},
    label="graph_size(loss.grad_fn)",
)

# %%
# One loss has a graph of 12 nodes: eight for the operations of the forward
# pass (two ``addmm``, two ``t`` that transpose the weights, ``tanh``, the
# subtraction, the power and the mean) and one ``AccumulateGrad`` per
# parameter. Its nodes saved four tensors: the input batch (16 × 3), the
# output of ``tanh`` (16 × 8, needed by both ``tanh``'s and the second
# layer's gradient), the second layer's weight (8) and the difference
# before squaring (16): 200 numbers.
#
# Summing losses in an evaluation loop
# ------------------------------------
# An evaluation loop computes the loss on each batch (here, the same batch
# four times) and adds it up. With
# ``+=`` and no ``torch.no_grad()``, the sum is a tensor with a ``grad_fn``.
total_loss = 0
eval_sizes = []
for iteration in range(1, 5):
    loss = compute_loss()
    total_loss += loss
    eval_sizes.append(graph_size(total_loss.grad_fn))
    print(f"after iteration {iteration}: {eval_sizes[-1]}")
check(total_loss.grad_fn, "AddBackward0", label="total_loss.grad_fn")
check(
    growth(eval_sizes),
    [{"nodes": 9, "saved tensors": 2, "saved elements": 144}] * 3,
    label="growth at iterations 2, 3 and 4",
)

# %%
# Each ``+=`` adds an ``AddBackward0`` node whose inputs are the previous
# sum and the new loss, so ``total_loss`` reaches every iteration's graph,
# and none of them can be freed. Each iteration adds 9 nodes and 2 saved
# tensors of 144 numbers: the output of ``tanh`` and the difference, which
# are new for every batch. The input batch and the weights are shared by
# all iterations and counted once. With real batch sizes and models, the
# saved activations of every batch pile up until memory runs out.
#
# Here is the graph of such a sum after two iterations:
total_loss = 0
for _ in range(2):
    total_loss += compute_loss()
names = {"total_loss": total_loss, "inputs": inputs}
for name, parameter in model.named_parameters():
    index, attribute = name.split(".")
    names[f"model[{index}].{attribute}"] = parameter
graph = autograd_graph(total_loss, names=names)
check(len(graph.nodes), eval_sizes[1]["nodes"], label="len(graph.nodes), as after iteration 2")
check(graph.modified, [], label="modified in place")
draw_graph(graph, title="for _ in range(2): total_loss += compute_loss()")
plt.show()

# %%
# ``AddBackward0 (total_loss)`` at the top leads to the newer loss's
# ``MeanBackward0`` and to the ``AddBackward0`` of ``0 + loss`` at the
# first iteration, which leads to the older loss's graph: two copies of
# ``MeanBackward0``, ``PowBackward0``, ``SubBackward0``, two
# ``AddmmBackward0``, ``TanhBackward0`` and two ``TBackward0``, side by
# side, that meet at the four ``AccumulateGrad`` leaves of the parameters
# at the bottom. Each copy lists its own saved tensors, ``result [16, 8]``
# of ``tanh`` and ``self [16, 1]`` of the power among them; both name
# ``inputs`` as the ``mat1 [16, 3]`` of the first layer.
#
# Summing losses in a training loop
# ---------------------------------
# A training loop calls ``loss.backward()`` on each loss, and backward frees
# the tensors that the graph saved. The nodes, however, are still reachable
# from the sum:
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
total_loss = 0
train_sizes = []
for iteration in range(1, 5):
    optimizer.zero_grad()
    loss = compute_loss()
    loss.backward()
    optimizer.step()
    total_loss += loss
    train_sizes.append(graph_size(total_loss.grad_fn))
    print(f"after iteration {iteration}: {train_sizes[-1]}")
check(
    growth(train_sizes),
    [{"nodes": 9, "saved tensors": 0, "saved elements": 0}] * 3,
    label="growth at iterations 2, 3 and 4",
)
with expect_error(RuntimeError, match=r"^Trying to backward through the graph a second time"):
    total_loss.backward()

# %%
# The two loops side by side, what ``total_loss`` keeps after each
# iteration:
eval_saved = [size["saved elements"] for size in eval_sizes]
train_saved = [size["saved elements"] for size in train_sizes]
check([eval_saved, train_saved], [[200, 344, 488, 632], [0, 0, 0, 0]], label="[eval_saved, train_saved]")
check(
    [size["nodes"] for size in eval_sizes] == [size["nodes"] for size in train_sizes],
    True,
    label="same nodes in both loops",
)
draw_series({"eval_saved": eval_saved, "train_saved": train_saved}, xlabel="iteration")
plt.show()

# %%
# The elements of the saved tensors reachable from ``total_loss``, after
# iterations 1 to 4. Without ``backward()`` (``eval_saved``) they rise in
# a straight line, 200, 344, 488, 632: 144 more per iteration. With
# ``backward()`` (``train_saved``) they stay at 0. The number of nodes is the same in
# both loops and grows by 9 per iteration.
#
# Here the chain grows by the same 9 nodes per iteration but keeps no saved
# tensor: the leak is small per step, but it never stops, and
# ``total_loss`` is a tensor whose graph can no longer be used (backward
# through it fails, see :ref:`retain_graph`). Either way, the sum was meant
# to be a number.
#
# The fixes
# ---------
# ``loss.item()`` returns a Python float, so the sum is a float.
# ``loss.detach()`` returns a tensor without history, so the sum is a
# tensor without history, which stays on the device.
total_loss = 0.0
for _ in range(4):
    loss = compute_loss()
    total_loss += loss.item()
check(type(total_loss).__name__, "float", label="type(total_loss)")

total_loss = torch.zeros((), device=device)
for _ in range(4):
    loss = compute_loss()
    total_loss += loss.detach()
check(total_loss.grad_fn, None, label="total_loss.grad_fn")
check(total_loss.requires_grad, False, label="total_loss.requires_grad")

# %%
# With either fix, every iteration's graph is freed as soon as its ``loss``
# is replaced by the next one. ``item()`` copies the value to the host, and
# on a GPU it waits for the computation to finish; ``detach()`` does not,
# which matters when it is called at every step. For an evaluation loop the
# better fix is to build no graph at all: under ``torch.no_grad()`` the loss
# has no ``grad_fn``, and nothing is saved in the first place.
with torch.no_grad():
    loss = compute_loss()
check(loss.grad_fn, None, label="loss.grad_fn under no_grad")

# %%
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`).
# It makes countable a warning of PyTorch's FAQ ("Don't accumulate history
# across your training loop"): with ``backward()`` in the loop, what
# accumulates is the chain of nodes; without it, every saved activation.
