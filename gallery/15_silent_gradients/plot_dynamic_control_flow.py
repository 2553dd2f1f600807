"""
.. _dynamic_control_flow:

Graphs that follow control flow
===============================

Autograd records the graph while the forward pass runs, so an ``if`` or a
``while`` on a tensor's value decides what the graph contains, and every
call builds a new one. This example shows one function taking two branches
and the gradient following each, a loop whose graph grows with the data,
and the parameters of the branch not taken: their ``.grad`` stays
``None``, optimizers skip them, ``torch.autograd.grad`` refuses them
("appears to not have been used in the graph") and
``DistributedDataParallel`` fails with "Expected to have finished reduction
in the prior iteration before starting a new one" unless it is told
``find_unused_parameters=True``.

.. questions::

   - Does autograd work with if statements and loops?
   - Why is ``.grad`` None for layers in a branch not taken?
   - How do I fix DDP's ``Expected to have finished reduction in the prior iteration``?
"""

# %%
# One function, two graphs
# ------------------------
# ``a`` is used when the input is positive, ``b`` otherwise. The test
# ``x > 0`` gives a tensor, and ``if`` asks for its truth value; on a GPU
# that copies it to the host and waits for the computation so far.
import matplotlib.pyplot as plt
import torch
import torch.distributed as dist
from torch import nn

from autograd_notes import (
    autograd_graph,
    check,
    draw_graph,
    draw_series,
    expect_error,
    runner_device,
)

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

a = torch.tensor(2.0, device=device, requires_grad=True)
b = torch.tensor(3.0, device=device, requires_grad=True)


def f(x):
    if x > 0:
        return a * x**2
    return b * x


x_pos = torch.tensor(1.5, device=device, requires_grad=True)
x_neg = torch.tensor(-1.0, device=device, requires_grad=True)
y_pos, y_neg = f(x_pos), f(x_neg)
graphs = [
    autograd_graph(y, names={"a": a, "b": b, "x": x, "y": y}) for x, y in ((x_pos, y_pos), (x_neg, y_neg))
]
check(
    [[node.drawn_title for node in graph.nodes] for graph in graphs],
    [
        ["MulBackward0 (y)", "PowBackward0", "AccumulateGrad (x)", "AccumulateGrad (a)"],
        ["MulBackward0 (y)", "AccumulateGrad (b)", "AccumulateGrad (x)"],
    ],
    label="the nodes of the two graphs",
)
draw_graph(graphs[0], title="y = f(torch.tensor(1.5))")
draw_graph(graphs[1], title="y = f(torch.tensor(-1.0))")
plt.show()

# %%
# Two graphs from the same code. For ``x = 1.5``: ``MulBackward0 (y)``,
# which saved ``a`` (``self``) and the result of the power (``other``),
# leads to ``PowBackward0`` (which saved ``x`` and ``exponent=2``), then to
# the leaf ``x``, and to the leaf ``a``. For ``x = -1.0``: one
# ``MulBackward0 (y)``, which saved ``b`` and ``x``, above the leaves ``b``
# and ``x``. All tensors are scalars (``[]``) at ``v0``. Neither graph
# contains the test ``x > 0``: a comparison has no gradient, and the
# branch not taken was never run, so there is nothing of it to record.
# Backward follows the graph it is given:
y_pos.backward()
check(x_pos.grad, 6.0, label="x_pos.grad, 2 * a * x")
check(a.grad, 2.25, label="a.grad, x**2")
check(b.grad, None, label="b.grad")
y_neg.backward()
check(x_neg.grad, 3.0, label="x_neg.grad, b")
check(b.grad, -1.0, label="b.grad, x")
check(a.grad, 2.25, label="a.grad")

# %%
# After the first backward ``b.grad`` is ``None``: no graph so far used
# ``b``. After the second, ``b`` has its gradient and ``a`` keeps the one
# it had, since the second graph does not reach ``a``.
#
# A loop as long as the data
# --------------------------
# ``double_until`` doubles its input until it reaches 20: the number of
# multiplications, and so of nodes, depends on the value.


def double_until(x, limit=20.0):
    while x < limit:
        x = x * 2
    return x


starts = list(range(1, 20))
nodes, gradients = [], []
for start in starts:
    x = torch.tensor(float(start), device=device, requires_grad=True)
    y = double_until(x)
    nodes.append(len(autograd_graph(y).nodes))
    y.backward()
    gradients.append(x.grad.item())
check(nodes, [6, 5, 4, 4, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], label="nodes")
check(gradients, [2.0 ** (n - 1) for n in nodes], label="gradients")
draw_series({"len(autograd_graph(y).nodes)": nodes}, x=starts, xlabel="x", steps=True)
plt.show()

# %%
# The number of nodes in the graph of ``y = double_until(x)`` for ``x``
# from 1 to 19, as a staircase: 6 nodes for 1, 5 for 2, 4 for 3 and 4,
# 3 from 5 to 9 and 2 from 10 to 19. Each node but the leaf ``x`` is one
# ``MulBackward0``, and the gradient is 2 to the power of their number:
# 32 for ``x = 1``, 2 from 10 on. A ``while`` on tensor values, a
# recursion, or an early exit in a loop (a solver that stops when it has
# converged) all behave like this.
#
# Parameters of the branch not taken
# ----------------------------------
# The same situation in a module: ``pos`` serves positive inputs, ``neg``
# the others. One training step on a positive batch:


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Linear(2, 1)
        self.neg = nn.Linear(2, 1)

    def forward(self, inputs):
        if inputs.sum() > 0:
            return self.pos(inputs)
        return self.neg(inputs)


torch.manual_seed(0)
model = Branchy().to(device)
before = model.neg.weight.detach().clone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.1)
batch = torch.ones(1, 2, device=device)
model(batch).sum().backward()
check(model.pos.weight.grad, [[1.0, 1.0]], label="model.pos.weight.grad")
check(model.neg.weight.grad, None, label="model.neg.weight.grad")
optimizer.step()
check(model.neg.weight, before, label="model.neg.weight after the step, as before")
check(model.neg.weight in optimizer.state, False, label="model.neg.weight in optimizer.state")

# %%
# The optimizer skipped ``neg`` altogether: no weight decay, no momentum
# buffer. A gradient of zeros would have been a step
# (:ref:`zero_grad_none`). Asking ``torch.autograd.grad`` for a gradient
# of such a parameter is an error, which names its position in the inputs:
loss = model(batch).sum()
params = (model.pos.weight, model.neg.weight)
with expect_error(
    RuntimeError,
    match=r"^The differentiated Tensor at index 1 appears to not have been used in the graph\. "
    r"Set allow_unused=True if this is the desired behavior\.$",
):
    torch.autograd.grad(loss, params, retain_graph=True)
_, unused = torch.autograd.grad(loss, params, retain_graph=True, allow_unused=True)
check(unused, None, label="with allow_unused=True")
_, unused = torch.autograd.grad(loss, params, materialize_grads=True)
check(unused, [[0.0, 0.0]], label="with materialize_grads=True")

# %%
# ``allow_unused=True`` returns ``None`` for the unused parameter,
# ``materialize_grads=True`` zeros of its shape; :ref:`create_graph` shows
# both options on a higher-order gradient, and :ref:`functional_gradients`
# the ``torch.func`` transforms, which take a function instead of a graph.
#
# ``DistributedDataParallel`` needs to be told
# --------------------------------------------
# DDP averages gradients across processes as backward produces them, and by
# default it waits for every parameter to get one before the next forward.
# A parameter that the branch taken did not use never gets one. Here a
# group of one process (the ``gloo`` backend, an in-memory store) is
# enough to show the error, raised at the *next* forward:
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
try:
    ddp = nn.parallel.DistributedDataParallel(model)
    ddp(batch).sum().backward()
    with expect_error(
        RuntimeError,
        match=r"(?s)^Expected to have finished reduction in the prior iteration before starting a new one\. "
        r"This error indicates that your module has parameters that were not used in producing loss\. "
        r".*\nParameter indices which did not receive grad for rank 0: 2 3\n",
    ):
        ddp(batch)
    ddp = nn.parallel.DistributedDataParallel(model, find_unused_parameters=True)
    for step_batch in (batch, -batch, batch):
        model.zero_grad()
        ddp(step_batch).sum().backward()
    check(model.neg.weight.grad, None, label="model.neg.weight.grad after a positive batch")
    check(model.pos.weight.grad, [[1.0, 1.0]], label="model.pos.weight.grad")
finally:
    dist.destroy_process_group()
names = [name for name, _ in model.named_parameters()]
check(names[2:], ["neg.weight", "neg.bias"], label="parameters 2 and 3")

# %%
# Parameters 2 and 3 are ``neg.weight`` and ``neg.bias``, in the order of
# ``model.parameters()`` (``TORCH_DISTRIBUTED_DEBUG=INFO`` makes the
# message name them). With ``find_unused_parameters=True``, DDP walks the
# graph after each forward and marks the parameters it does not reach as
# ready, so it no longer waits for them; positive and negative batches
# alternate without error, and after a positive one ``neg`` has no
# gradient, as without DDP (with several processes, it would receive the
# average over the processes, with zeros from this one, whenever another
# process's batch used it). The walk costs time at every step, which is
# why it is not the default. On a GPU the same code runs with the model there (``gloo``
# reduces CUDA tensors too): the CUDA record (PyTorch 2.11.0, an H200) shows the same
# messages and gradients as the CPU record of that release.
#
# :ref:`mental_model` describes the graph as a record of what ran;
# :ref:`silent_graph_breaks` lists the operations that leave a gradient
# ``None`` or zero even when every branch is taken.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the gradients, node counts and messages above are checked on the runner
# that built this page.
