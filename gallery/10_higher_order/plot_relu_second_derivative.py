"""
.. _relu_second_derivative:

The second derivative of ReLU
=============================

ReLU is linear on each side of 0, so its second derivative is 0 wherever it
exists, and autograd returns 0 at the kink too. This example differentiates
a small ReLU network twice in its input and gets a Hessian of exact zeros,
shows that the first derivative is a staircase, compares smooth activations
(``Softplus``, ``GELU``, ``SiLU``) and ``Softplus`` with a large ``beta``,
and finds what stays nonzero: the mixed second derivatives in the weights of
two layers. It ends with what a gradient penalty gets through ReLU, and the
gradient PyTorch gives ReLU at exactly 0.

.. questions::

   - Why is the Hessian of my ReLU network with respect to its input exactly zero?
   - Can I use second-order methods (Newton's method, the Hessian) with a ReLU network?
   - Which activation should I use for a gradient penalty or a physics-informed loss?
   - What is the gradient of ``torch.relu`` at exactly 0?
"""

# %%
# The gradient of a gradient is zero
# ----------------------------------
# A network ``Linear(3, 8)``, ``ReLU``, ``Linear(8, 1)`` and one input ``x``
# of 3 numbers. ``create_graph=True`` records the first derivative
# (:ref:`create_graph`), and one more ``torch.autograd.grad`` per entry of it
# gives the rows of the Hessian.
import torch
from torch import nn
from torch.func import jacrev

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
torch.manual_seed(0)

relu_net = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
x = torch.randn(3).to(device).requires_grad_()

(g,) = torch.autograd.grad(relu_net(x).squeeze(), x, create_graph=True)
check(g.requires_grad, True, label="g.requires_grad")
check(g.count_nonzero(), 3, label="g.count_nonzero()")
H = torch.stack([torch.autograd.grad(g[i], x, retain_graph=True)[0] for i in range(3)])
check(H.shape, (3, 3), label="H.shape")
check(H.count_nonzero(), 0, label="H.count_nonzero()")

# %%
# The first derivative ``g`` has no zero and is connected to ``x``: the
# second call raises no error. Yet all 9 entries of the Hessian are 0.
# Between kinks, ``relu_net`` is a linear function of ``x``, so its slope
# does not change when ``x`` moves a little.
#
# Autograd computes ReLU's backward as ``grad * (h > 0)``, ``h`` the input of
# ``ReLU``. The mask ``h > 0`` is a step: its derivative in ``h`` is 0, and
# autograd records exactly that. The result is 0, not a rounding error.
#
# The other tools agree. ``torch.autograd.functional.hessian`` runs the same
# double backward; ``jacrev(jacrev(f))`` composes ``torch.func``'s reverse
# mode twice:


def f(x):
    return relu_net(x).squeeze()


check(torch.autograd.functional.hessian(f, x).count_nonzero(), 0, label="autograd.functional.hessian")
check(jacrev(jacrev(f))(x.detach()).count_nonzero(), 0, label="jacrev(jacrev(f))")

# %%
# Both give 9 zeros. ``torch.func.hessian`` is ``jacfwd(jacrev(f))``: the
# same matrix, with forward mode on the outside, whose first call warns on
# recent releases (:ref:`forward_mode`). This page and
# :ref:`parameter_hessian` compose ``jacrev`` instead.
#
# A smooth activation has curvature
# ---------------------------------
# The same two ``Linear`` layers, with ``Softplus``, ``GELU`` and ``SiLU`` in
# place of ``ReLU``:
counts = {}
for activation in (nn.Softplus(), nn.GELU(), nn.SiLU()):
    smooth_net = nn.Sequential(relu_net[0], activation, relu_net[2])
    hessian = jacrev(jacrev(lambda x, net=smooth_net: net(x).squeeze()))(x.detach())
    counts[type(activation).__name__] = hessian.count_nonzero().item()
check(counts, {"Softplus": 9, "GELU": 9, "SiLU": 9}, label="Hessian entries not 0")

# %%
# With a smooth activation every entry of the Hessian is nonzero. It is
# ``W1ᵀ diag(w2 · σ''(h)) W1``: the curvature of the activation ``σ`` at
# each hidden unit, weighted by the last layer. With ReLU, ``σ''`` is 0 at
# every unit, and so is the whole product.
#
# The first derivative is a staircase
# -----------------------------------
# A network with one input, ``Linear(1, 6)``, ``ReLU``, ``Linear(6, 1)``,
# and 61 points from -3 to 3. The points do not interact, so one backward
# pass of the sum gives the derivative at each point.
torch.manual_seed(0)
net_1d = nn.Sequential(nn.Linear(1, 6), nn.ReLU(), nn.Linear(6, 1)).to(device)
sweep = torch.linspace(-3, 3, 61, device=device).unsqueeze(1).requires_grad_()
(slope,) = torch.autograd.grad(net_1d(sweep).sum(), sweep, create_graph=True)
(curvature,) = torch.autograd.grad(slope.sum(), sweep)
check(curvature.count_nonzero(), 0, label="curvature.count_nonzero()")

slope = slope.detach().squeeze(1)
changes = (slope[1:] - slope[:-1]).abs() > 1e-6
kinks = (-net_1d[0].bias / net_1d[0].weight.squeeze(1)).detach()  # where each hidden unit's h is 0
points = sweep.detach().squeeze(1)
kink_between = ((points[:-1, None] < kinks) & (kinks < points[1:, None])).any(dim=1)
check(changes.sum(), 6, label="steps of the slope in the sweep")
check(torch.equal(changes, kink_between), True, label="each step has a kink between its two points")

# %%
# The second derivative is 0 at all 61 points. The slope changes 6 times,
# once for each hidden unit, and only between two points that have a kink
# between them: the ``x`` where that unit's input crosses 0. Elsewhere
# it stays the same, however close to a kink. (A step is a change of more
# than ``1e-6``: within one piece, rounding alone could differ by less.)
#
# Softplus approaches ReLU
# ------------------------
# ``nn.Softplus(beta)`` is ``log(1 + exp(beta * x)) / beta``, a smooth ReLU.
# Its second derivative at 0 is ``beta / 4``. The figure below plots the
# activation and its two derivatives, both from autograd, on 21 points from
# -2 to 2, 0 included exactly:
import math

import matplotlib.pyplot as plt

from autograd_notes import draw_series

t = torch.arange(-10, 11, device=device) / 5


def derivatives(activation, t):
    t = t.detach().requires_grad_()
    y = activation(t)
    (d1,) = torch.autograd.grad(y.sum(), t, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), t)
    return y.detach(), d1.detach(), d2


relu_y, relu_d1, relu_d2 = derivatives(torch.relu, t)
soft_y, soft_d1, soft_d2 = derivatives(nn.Softplus(), t)
series = {
    "relu(x)": relu_y.tolist(),
    "relu'(x)": relu_d1.tolist(),
    "relu''(x)": relu_d2.tolist(),
    "softplus(x)": soft_y.tolist(),
    "softplus'(x)": soft_d1.tolist(),
    "softplus''(x)": soft_d2.tolist(),
}
draw_series(series, x=t.tolist(), xlabel="x", title="torch.autograd.grad(..., create_graph=True), twice")
plt.show()

check(relu_d1, (t > 0).float(), rtol=0, atol=0, label="relu'(x) vs (x > 0)")
check(relu_d2.count_nonzero(), 0, label="relu''(x): entries not 0")
check((soft_d2 > 0).all().item(), True, label="softplus''(x) > 0 everywhere")
sigmoid = torch.sigmoid(t)
largest = [(soft_d1 - sigmoid).abs().max(), (soft_d2 - sigmoid * (1 - sigmoid)).abs().max()]
check(
    [d.round(decimals=6).item() for d in largest], [0.0, 0.0], atol=1e-6, rtol=0, label="largest differences"
)

# %%
# Six lines over ``x`` from -2 to 2. ReLU's derivative is a step from 0 to 1,
# 0 at ``x = 0`` included; its second derivative is a flat line at 0.
# Softplus's derivative is a smooth ramp, the sigmoid, and its second
# derivative a positive bump at 0. They are ``sigmoid(x)`` and
# ``sigmoid(x) * (1 - sigmoid(x))``: the largest differences from these
# formulas, rounded to six decimals, are 0. (Autograd's operations and the
# formula's round differently, hence the rounding.)
#
# A larger ``beta`` narrows that bump. Its second derivative at 0 grows as
# ``beta / 4``, and at 1 it falls:
betas = [1.0, 10.0, 100.0]
probes = torch.tensor([0.0, 1.0, -2.0, 2.0], device=device)
at_zero, at_one, rise, distance = [], [], [], []
for beta in betas:
    y, d1, d2 = derivatives(nn.Softplus(beta=beta), probes)
    at_zero.append(d2[0].item())
    at_one.append(d2[1].item())
    rise.append(round((d1[3] - d1[2]).item(), 4))
    gap = (derivatives(nn.Softplus(beta=beta), t)[0] - relu_y).abs().max().item()
    distance.append(round(beta * gap, 4))
check(at_zero, [beta / 4 for beta in betas], label="softplus''(0) for beta = 1, 10, 100")
check(at_one[0] > at_one[1] > 0, True, label="softplus''(1): beta = 1 > beta = 10 > 0")
check(at_one[2], 0.0, rtol=0, atol=0, label="softplus''(1) for beta = 100")
rounded = {"atol": 1e-4, "rtol": 0}  # the values are rounded to 4 decimals
check(rise, [math.tanh(beta) for beta in betas], **rounded, label="softplus'(2) - softplus'(-2)")
check(distance, [math.log(2)] * 3, **rounded, label="beta * max |softplus(x) - relu(x)|")

# %%
# From -2 to 2 the slope rises by ``tanh(beta)``: 0.7616 for ``beta = 1``,
# 1 to four decimals for the others. That rise is the area under the bump: a
# larger ``beta`` puts all of ReLU's rise from 0 to 1 in a narrower, taller
# bump at 0, and Softplus's largest distance from ReLU is ``log(2) / beta``.
# In the limit the bump is a spike of area 1 at 0, which no tensor of
# numbers can hold: autograd returns 0 instead.
#
# At ``x = 1`` with ``beta = 100`` the second derivative is exactly 0. Where
# ``beta * x > threshold`` (``threshold=20`` by default), ``nn.Softplus``
# returns ``x`` itself, a line. A large ``beta`` brings back ReLU's zeros
# away from 0.
#
# What stays nonzero: products of weights
# ---------------------------------------
# In its weights, ``relu_net`` is ``w2 · relu(W1 x + b1) + b2``: a product of
# two weight matrices. Its derivative in ``w2[j]`` is ``relu(h[j])``, which
# depends on ``W1``. So the mixed block, in ``w2`` and ``W1``, is not 0:
W1, w2 = relu_net[0].weight, relu_net[2].weight
y = relu_net(x.detach()).squeeze()
(dw2,) = torch.autograd.grad(y, w2, create_graph=True)
mixed = torch.stack([torch.autograd.grad(dw2[0, j], W1, retain_graph=True)[0] for j in range(8)])
(dW1,) = torch.autograd.grad(y, W1, create_graph=True)
first = torch.stack([torch.autograd.grad(dW1.flatten()[i], W1, retain_graph=True)[0] for i in range(24)])

active = (relu_net[0](x.detach()) > 0).float()
expected = torch.eye(8, device=device)[:, :, None] * active[:, None, None] * x.detach()
check(mixed.shape, (8, 8, 3), label="mixed.shape")
check(active.sum(), 3.0, label="active hidden units")
check(mixed.count_nonzero(), 9, label="mixed.count_nonzero()")
check(torch.equal(mixed, expected), True, label="mixed equals active[j] * x[k] where i = j, else 0")
check(first.count_nonzero(), 0, label="second derivatives in W1 alone: entries not 0")


# %%
# ``mixed[j, i, k]`` is the second derivative in ``w2[j]`` and
# ``W1[i, k]``: ``x[k]`` when ``i = j`` and unit ``j`` is active, else 0. The
# 3 active units times 3 inputs give 9 nonzero entries, equal to the formula
# to the last bit (a product by 1 or 0). The block in ``W1`` alone is 0, for
# the reason the input's Hessian is. :ref:`parameter_hessian` draws the whole
# matrix, and shows that a loss like the mean squared error adds its own
# curvature, so the Hessian of a loss is not 0 even with ReLU.
#
# A gradient penalty through ReLU
# -------------------------------
# A gradient penalty (WGAN-GP, input-gradient regularisation) trains on
# ``|∂f/∂x|²``. Its gradient in the parameters goes through the first
# derivative, which ReLU makes a step function of ``h``:
def penalty_grads(net):
    (dx,) = torch.autograd.grad(net(x).squeeze(), x, create_graph=True)
    penalty = dx.pow(2).sum()
    return torch.autograd.grad(penalty, [net[0].weight, net[0].bias, net[2].weight])


smooth_net = nn.Sequential(relu_net[0], nn.Softplus(), relu_net[2])
entries = "[W1, b1, w2]: entries not 0"
check([grad.count_nonzero().item() for grad in penalty_grads(relu_net)], [9, 0, 3], label=f"ReLU: {entries}")
softplus_counts = [grad.count_nonzero().item() for grad in penalty_grads(smooth_net)]
check(softplus_counts, [24, 8, 8], label=f"Softplus: {entries}")

# %%
# With ReLU the penalty's gradient in the first bias ``b1`` is all 0, and
# only the 3 active units' weights get one: ``∂f/∂x`` is
# ``W1ᵀ (active · w2ᵀ)``, with no ``b1`` in it. With Softplus every entry
# gets a gradient. A method that needs the curvature in the input (a Newton
# step in ``x``, the Laplacian of a physics-informed loss, which is the trace
# of ``H``) gets the zeros of the first section. Use a smooth activation
# there, such as ``Softplus``, ``GELU`` or ``SiLU``.
#
# ReLU's gradient at exactly 0
# ----------------------------
# ReLU has no derivative at 0: the slope is 0 on the left and 1 on the
# right. PyTorch picks 0. Two other ways to write ReLU pick otherwise:
z = torch.tensor([-1.0, 0.0, 1.0], device=device, requires_grad=True)
written = {
    "torch.relu(z)": torch.relu,
    "z.clamp(min=0)": lambda z: z.clamp(min=0),
    "torch.maximum(z, torch.zeros_like(z))": lambda z: torch.maximum(z, torch.zeros_like(z)),
}
at_0, has_graph = {}, []
for name, relu in written.items():
    (dz,) = torch.autograd.grad(relu(z).sum(), z, create_graph=True)
    check(dz[[0, 2]].tolist(), [0.0, 1.0], label=f"{name}: dz at -1 and 1")
    at_0[name] = dz[1].item()
    has_graph.append(dz.requires_grad)
print("dz at 0:", at_0)
check(at_0["torch.relu(z)"], 0.0, rtol=0, atol=0, label="torch.relu(z): dz at 0")
check(all(0 <= slope <= 1 for slope in at_0.values()), True, label="every dz at 0 is in [0, 1]")
check(has_graph, [True, False, False], label="dz.requires_grad for relu, clamp, maximum")

# %%
# All three equal ReLU at every ``z`` and have its slopes away from 0. At
# 0, ``torch.relu`` gives 0; ``clamp`` and ``maximum`` give a value from 0
# to 1 (the left slope, the right one or a value between), printed above
# for this runner's PyTorch. Code that needs ReLU's convention at exactly 0 should call
# ``torch.relu`` or ``nn.ReLU``.
#
# Only ``relu``'s derivative is recorded as a function of ``z`` (with
# derivative 0). The other two are recorded as constants, so asking for
# their second derivative is the error of a gradient without a graph
# (:ref:`create_graph`), not a tensor of zeros:
with expect_error(
    RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a grad_fn$"
):
    torch.autograd.grad(dz.sum(), z)


# %%
# ``dz`` is the last one, from ``torch.maximum``. In a network, the first
# derivative still depends on the weights, so it has a graph; but not on
# ``x``. With ``clamp`` in place of ``ReLU``, ``relu_net``'s Hessian in
# ``x`` is an error by default and zeros with ``materialize_grads=True``:
def clamp_net(x):
    return relu_net[2](relu_net[0](x).clamp(min=0))


(g,) = torch.autograd.grad(clamp_net(x).squeeze(), x, create_graph=True)
check(g.requires_grad, True, label="clamp_net: g.requires_grad")
UNUSED = (  # PyTorch 2.4.1 and 2.9.1 print the first wording, 2.15.0 the second (records of create_graph)
    r"^(One of the differentiated Tensors|The differentiated Tensor at index 0) appears to not have been "
    r"used in the graph\. Set allow_unused=True if this is the desired behavior\.$"
)
with expect_error(RuntimeError, match=UNUSED):
    torch.autograd.grad(g[0], x, retain_graph=True)
(row,) = torch.autograd.grad(g[0], x, retain_graph=True, materialize_grads=True)
check(row.count_nonzero(), 0, label="row 0 with materialize_grads=True: entries not 0")

# %%
# ``g`` has a graph through the weights, so the error above does not come;
# but no path leads back from it to ``x``. ``nn.ReLU`` records one, with
# derivative 0: the zeros of the first section, without an error.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`);
# it checks each zero, count and sign above on the runner that built it.
