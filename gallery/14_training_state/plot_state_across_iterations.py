"""
.. _state_across_iterations:

State carried across iterations
===============================

A recurrent model that carries its hidden state ``h`` from one batch to the
next fails at the second batch with "Trying to backward through the graph a
second time"; a moving average of the weights computed with autograd on
does not fail at all. Both keep the graphs of earlier iterations alive.
This example shows where the old graph is, why ``retain_graph=True`` is the
wrong fix (with an optimizer the error becomes "modified by an inplace
operation"; without one, every backward pass runs back to the first batch),
and the fixes: ``h = h.detach()`` at each batch boundary, and updates
under ``torch.no_grad()``.

.. questions::

   - Why does carrying my RNN hidden state fail on the second batch?
   - Should I use ``retain_graph=True`` for a hidden state across batches?
   - How do I detach the hidden state for truncated backpropagation?
   - How do I update an EMA of weights without building a graph?
"""

# %%
# A hidden state carried to the next batch
# ----------------------------------------
# The smallest recurrent model: one weight ``w`` and the recurrence
# :math:`h_t = w h_{t-1} + x_t`, with no activation, so that every gradient
# below can be worked out by hand. The stream is cut into batches of two
# time steps, every input is 1, and the loss of a batch is
# :math:`(h - 1)^2` at its last step.
import matplotlib.pyplot as plt
import torch

from autograd_notes import autograd_graph, check, draw_graph, draw_series, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

SECOND_PASS = (
    r"^Trying to backward through the graph a second time \(or directly access saved tensors after "
    r"they have already been freed\)\. Saved intermediate values of the graph are freed when you call "
    r"\.backward\(\) or autograd\.grad\(\)\. Specify retain_graph=True if you need to backward through "
    r"the graph a second time or if you need to access saved tensors after calling backward\.$"
)
stream = torch.ones(6, 2, device=device)  # six batches of two time steps


def fresh():
    """The weight at 0.5 and its optimizer, for each loop below."""
    w = torch.tensor(0.5, device=device, requires_grad=True)
    return w, torch.optim.SGD([w], lr=0.1)


def forward(h, batch):
    """Run the recurrence over one batch; return the last state and the batch's loss."""
    for x in batch:
        h = w * h + x
    return h, (h - 1) ** 2


w, optimizer = fresh()
h = torch.zeros((), device=device)
h, loss = forward(h, stream[0])
optimizer.zero_grad()
loss.backward()
optimizer.step()
check(w.grad, 1.0, label="w.grad, batch 1")

carried = h
h, loss = forward(h, stream[1])
graph = autograd_graph(loss, names={"w": w, "carried": carried, "h": h, "loss": loss})
check(len(graph.nodes), 11, label="len(graph.nodes)")
freed = [
    f"{node.title}: {saved.drawn}" for node in graph.nodes for saved in node.saved if saved.status == "freed"
]
check(freed, ["MulBackward0: other ∅", "MulBackward0: self ∅", "MulBackward0: other ∅"], label="freed")
draw_graph(graph, title="h, loss = forward(h, stream[1])")
plt.show()

# %%
# The graph below the second batch's loss: ``PowBackward0 (loss)`` and
# ``SubBackward0`` at the top, then, for each of the four time steps, an
# ``AddBackward0`` and a ``MulBackward0``, down to the one blue leaf ``w``,
# which every ``MulBackward0`` also points to. The two upper
# ``MulBackward0`` nodes, from the second batch, saved ``self (w) [] v1``
# and the state before them (``other``). The two lower ones, from the first
# batch, below ``AddBackward0 (carried)``, show grey ``other ∅`` and
# ``self ∅`` entries: the first backward pass freed what they saved.
#
# ``carried``, the state handed over from the first batch, is the output of
# the first batch's graph, so the new graph grows on top of the old one.
# The second backward pass reaches the freed nodes and stops:
with expect_error(RuntimeError, match=SECOND_PASS):
    loss.backward()

# %%
# ``retain_graph=True`` trades it for another error
# --------------------------------------------------
# The message suggests ``retain_graph=True``. In a training loop, that only
# moves the failure: the first batch's graph saved ``w`` at version 0, and
# ``optimizer.step()`` changed ``w`` in place.
w, optimizer = fresh()
h = torch.zeros((), device=device)
h, loss = forward(h, stream[0])
optimizer.zero_grad()
loss.backward(retain_graph=True)
optimizer.step()
h, loss = forward(h, stream[1])
optimizer.zero_grad()
check(
    autograd_graph(loss, names={"w": w}).modified,
    ["MulBackward0: saved self (w) [] v1 ≠ v0"],
    label="modified in place",
)
with expect_error(
    RuntimeError,
    match=r"^one of the variables needed for gradient computation has been modified by an inplace "
    r"operation: \[torch\.(cuda\.)?FloatTensor \[\]\] is at version 1; expected version 0 instead\. "
    r"Hint: enable anomaly detection",
):
    loss.backward(retain_graph=True)

# %%
# ``w`` is a leaf, so the message names no operation that produced it; the
# CUDA record (PyTorch 2.11.0, an H200) reads ``torch.cuda.FloatTensor []``,
# at the same versions. This is the error of :ref:`inplace_in_training`. The
# freed graph was only the symptom: the cause is that ``h`` brings the first
# batch's graph into the second, and ``retain_graph=True`` (see
# :ref:`retain_graph` and :ref:`retain_graph_not_needed`) keeps that graph
# alive instead of cutting it.
#
# Where nothing changes the weights between batches (here the step is left
# out, to look at the gradients alone), ``retain_graph=True`` lets the
# backward passes through, and each one runs back to the first batch:
w, optimizer = fresh()
h = torch.zeros((), device=device)
retained_nodes, retained_grads = [], []
for batch in stream:
    h, loss = forward(h, batch)
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    retained_nodes.append(len(autograd_graph(loss).nodes))
    retained_grads.append(w.grad.item())
check(retained_nodes, [7, 11, 15, 19, 23, 27], label="nodes per backward pass")
check(retained_grads[:2], [1.0, 4.8125], label="w.grad, batches 1 and 2")

# %%
# Each batch adds four nodes, and each backward pass runs all of them: the
# work per batch grows linearly, the total quadratically, and every saved
# tensor of every batch stays in memory. The gradient is that of full
# backpropagation through time. At batch 2, with :math:`h_1 = 1`,
# :math:`h_2 = 1.5`, :math:`h_3 = 1.75` and :math:`h_4 = 1.875`,
# :math:`\partial h_4 / \partial w = h_3 + w h_2 + w^2 h_1 = 2.75` and the
# gradient is :math:`2 (h_4 - 1) \cdot 2.75 = 4.8125`.
#
# The fix: ``h = h.detach()`` at the batch boundary
# -------------------------------------------------
# Truncated backpropagation through time keeps the *value* of the state and
# drops its history: the next batch starts from a constant.
w, optimizer = fresh()
h = torch.zeros((), device=device)
detached_nodes, detached_grads = [], []
for batch in stream:
    h = h.detach()
    h, loss = forward(h, batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    detached_nodes.append(len(autograd_graph(loss).nodes))
    detached_grads.append(round(w.grad.item(), 6))
check(detached_nodes, [7] * 6, label="nodes per backward pass")
check(detached_grads[:2], [1.0, 2.816], label="w.grad, batches 1 and 2")

# %%
# Every graph has seven nodes, and the optimizer steps between batches
# without any error. After the first step :math:`w = 0.5 - 0.1 \cdot 1 = 0.4`,
# so batch 2 starts from the constant :math:`h_2 = 1.5` and computes
# :math:`h_3 = 1.6`, :math:`h_4 = 1.64`. Its gradient stops at the
# boundary: :math:`\partial h_4 / \partial w = h_3 + w h_2 = 2.2`, and
# :math:`2 \cdot 0.64 \cdot 2.2 = 2.816`. The batch length is the window
# over which the gradient sees the past; the state itself still carries
# information across batches.
#
# A moving average kept with autograd on
# --------------------------------------
# An exponential moving average of the weights (for evaluation, or as a
# target network) is updated after every step. Written as a formula with
# autograd on, ``ema`` becomes a tensor with a ``grad_fn`` whose graph
# reaches every earlier update:
decay = 0.9
w, optimizer = fresh()
ema = w.detach().clone()
h = torch.zeros((), device=device)
ema_nodes = []
for batch in stream:
    h, loss = forward(h.detach(), batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    ema = decay * ema + (1 - decay) * w
    ema_nodes.append(len(autograd_graph(ema).nodes))
check(ema.grad_fn, "AddBackward0", label="ema.grad_fn")
check(ema_nodes, [3, 6, 9, 12, 15, 18], label="nodes below ema")
saved = {f"{node.title}: {entry.name}" for node in autograd_graph(ema).nodes for entry in node.saved}
check(sorted(saved), ["MulBackward0: other"], label="what the graph of ema saved")
ema_with_history = ema

# %%
# No error is raised: no backward pass goes through ``ema`` in the loop, and
# each multiplication by a Python number saved only that number, as
# ``other``, never ``w``, so the steps' in-place updates of ``w`` leave the
# graph valid. But each update adds three nodes that are never freed. Worse,
# a loss that uses the average, as a target, sends gradients through all of
# them into ``w``. The fix is to update the average under
# ``torch.no_grad()``, here in place with ``lerp_``, which computes
# ``ema + (1 - decay) * (w - ema)``, the same value:
w_online = w
w, optimizer = fresh()
ema = w.detach().clone()
h = torch.zeros((), device=device)
for batch in stream:
    h, loss = forward(h.detach(), batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        ema.lerp_(w, 1 - decay)
check(ema.grad_fn, None, label="ema.grad_fn")
check(ema, ema_with_history.item(), label="ema, the same value")

(through_history,) = torch.autograd.grad((w_online - ema_with_history) ** 2, w_online)
(constant_target,) = torch.autograd.grad((w - ema) ** 2, w)
check(through_history / constant_target, decay**6, rtol=1e-5, atol=0.0, label="ratio of the two gradients")

# %%
# With the decay :math:`d = 0.9`, update :math:`j` adds :math:`(1 - d)\,d^j`
# to :math:`\partial\,\mathrm{ema} / \partial w`, which sums to
# :math:`1 - d^6` after six updates. The gradient of
# :math:`(w - \mathrm{ema})^2` is then
# :math:`2 (w - \mathrm{ema}) (1 - (1 - d^6)) = 2 (w - \mathrm{ema})\,d^6`
# instead of :math:`2 (w - \mathrm{ema})`: the target's history silently
# shrinks it by :math:`0.9^6 \approx 0.53`. With the update under
# ``torch.no_grad()``, the target is a constant. A target network
# made with ``copy.deepcopy(model)`` has parameters that require a gradient,
# so its in-place update is refused outside ``torch.no_grad()`` (see
# :ref:`view_of_leaf`); ``copy.deepcopy(w)`` stands for one here:
import copy

target = copy.deepcopy(w)
with expect_error(
    RuntimeError, match=r"^a leaf Variable that requires grad is being used in an in-place operation\.$"
):
    target.lerp_(w, 1 - decay)

# %%
# What each loop keeps
# --------------------
draw_series(
    {
        "loss.backward(retain_graph=True)": retained_nodes,
        "h = h.detach()": detached_nodes,
        "ema = decay * ema + (1 - decay) * w": ema_nodes,
    },
    ylabel="len(autograd_graph(...).nodes)",
)
plt.show()

# %%
# The number of graph nodes after batches 1 to 6. With
# ``retain_graph=True`` the loss's graph rises in a straight line from 7 to
# 27, four nodes per batch; with ``h.detach()`` it stays at 7. The graph
# below the moving average rises from 3 to 18, three nodes per update; with
# the update under ``torch.no_grad()`` there is no graph at all. The same
# growth, from a running sum of losses, is the subject of
# :ref:`accumulating_history`; :ref:`mental_model` explains why a result
# keeps the graph it came from.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the messages, node counts and gradients are checked on the runner that
# built this page; the CUDA record of 2.11.0 differs only in the message.
