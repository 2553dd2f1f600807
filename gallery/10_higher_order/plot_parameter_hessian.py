"""
.. _parameter_hessian:

The Hessian of a model's parameters
===================================

The Hessian of a loss with respect to a model's parameters holds every
second derivative: one row and one column per parameter entry. This example
computes it with ``torch.func`` through ``functional_call``, reads the
nested dict of blocks it returns, flattens it into one matrix and checks it
against a double-backward loop. It then shows which second derivatives a
ReLU network loses, and replaces the matrix by Hessian-vector products.

.. questions::

   - How do I compute the Hessian of the loss with respect to the model parameters?
   - Why is the second derivative of my ReLU network all zeros?
   - How do I compute a Hessian-vector product without the full Hessian?
"""

# %%
# A dict of dicts of blocks
# -------------------------
# ``torch.func`` differentiates a function, not a module.
# ``functional_call`` runs the model with the parameters of a dict, so the
# loss becomes a function of that dict: 11 parameter entries here.
import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn
from torch.autograd.functional import hvp
from torch.func import functional_call, grad, jacrev, vjp

from autograd_notes import check, draw_matrix, runner_device

# sphinx_gallery_thumbnail_number = 2
device = runner_device()
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1)).to(device)
inputs = torch.randn(8, 3).to(device)
targets = torch.randn(8, 1).to(device)
params = {name: p.detach() for name, p in model.named_parameters()}
names = list(params)


def loss_fn(params, net=model):
    return ((functional_call(net, params, (inputs,)) - targets) ** 2).mean()


def hessian(f):
    return jacrev(jacrev(f))  # the matrix torch.func.hessian gives, reverse over reverse


H = hessian(loss_fn)(params)
check(list(H), ["0.weight", "0.bias", "2.weight", "2.bias"], label="list(H)")
block = H["0.weight"]["0.bias"]
check(block.shape, params["0.weight"].shape + params["0.bias"].shape, label='H["0.weight"]["0.bias"].shape')
check(H["0.bias"]["0.weight"], block.permute(2, 0, 1), label='H["0.bias"]["0.weight"] vs that block')
check(H["2.bias"]["2.bias"], [[2.0]], label='H["2.bias"]["2.bias"]')

# %%
# ``torch.func.hessian`` computes the same matrix forward over reverse mode
# (:ref:`forward_mode`); here both passes are reverse mode. ``H[a][b]``
# holds the second derivatives in ``params[a]`` and ``params[b]``: its shape
# is the two shapes joined, ``(2, 3)`` and ``(2,)`` into ``(2, 3, 2)``.
# ``H[b][a]`` holds the same numbers, axes swapped. The loss is
# ``mean((o + b - y)²)`` in the last bias ``b``: its second derivative is 2.
#
# One square matrix
# -----------------
# Each block reshaped to ``(numel of a, numel of b)``, joined in the order of
# ``names``, gives an 11×11 matrix. Autograd builds the same one row by row:
# a gradient with ``create_graph=True`` (:ref:`create_graph`), then one
# ``torch.autograd.grad`` per entry of it, the loop that
# ``torch.autograd.functional.hessian`` runs by default.


def flat(tensors):
    return torch.cat([t.flatten() for t in tensors])


def matrix(blocks):
    rows = [torch.cat([blocks[a][b].reshape(params[a].numel(), -1) for b in names], dim=1) for a in names]
    return torch.cat(rows)


H_flat = matrix(H)
check(H_flat.shape, (11, 11), label="H_flat.shape")
asymmetry = (H_flat - H_flat.T).abs().max().round(decimals=6)
check(asymmetry, 0.0, atol=1e-6, rtol=0, label="largest |H_flat - H_flat.T|")
weights = list(model.parameters())
gradient = flat(torch.autograd.grad(loss_fn(dict(model.named_parameters())), weights, create_graph=True))
double_backward = torch.stack([flat(torch.autograd.grad(g, weights, retain_graph=True)) for g in gradient])
difference = (double_backward - H_flat).abs().max()
check(difference.round(decimals=6), 0.0, atol=1e-5, rtol=0, label="largest |double_backward - H_flat|")

# %%
# The matrix is symmetric, and the two ways agree within float32 rounding
# (both differences are printed rounded to six decimals).
#
# Why ReLU's second derivatives vanish
# ------------------------------------
# The same weights with ``ReLU`` in place of ``Tanh``. First the network
# alone: the Hessian of the mean of its outputs, with each activation.
relu_model = nn.Sequential(model[0], nn.ReLU(), model[2])


def output_fn(params, net):
    return functional_call(net, params, (inputs,)).mean()


first, last = slice(0, 8), slice(8, 11)  # 0.weight and 0.bias; 2.weight and 2.bias
pairs = [(first, first), (last, last), (last, first)]
labels = [f"{name}{list(i)}" for name, p in params.items() for i in np.ndindex(*p.shape)]
for name, net, nonzero in (("Tanh", model, 32), ("ReLU", relu_model, 0)):
    H_out = matrix(hessian(output_fn)(params, net))
    draw_matrix(H_out, rows=labels, title=f"hessian(output_fn)(params, net) with {name}")
    plt.show()
    counts = [H_out[rows, columns].count_nonzero().item() for rows, columns in pairs]
    check(counts, [nonzero, 0, 8], label=f"{name}: entries not 0 in first, last, last × first layer")

# %%
# Each cell is the second derivative in its row's entry and its column's
# (columns numbered in the rows' order), blue if positive, red if negative.
# With ReLU the first layer's block, top left, is all 0: between kinks the
# output is linear in ``0.weight`` and ``0.bias``, ReLU's second derivative
# being 0. With Tanh it is not. The last layer's block is 0 with both: the
# output is linear in ``2.weight`` and ``2.bias``. The cross block is not:
# the derivative in ``2.weight`` is the hidden activation, which depends on
# the first layer. In the input, ReLU's second derivatives vanish too:
x = inputs[0]
check(hessian(lambda x: relu_model(x).sum())(x).count_nonzero(), 0, label="ReLU, in x: entries not 0")
check(hessian(lambda x: model(x).sum())(x).count_nonzero(), 9, label="Tanh, in x: entries not 0")

# %%
# The mean squared error is not linear in the output: it brings its own
# curvature. Its Hessian is ``(2/N) JᵀJ``, ``J`` the Jacobian of the N
# outputs in the parameters, plus ``from_net``, the Hessian of the outputs
# weighted by their errors, held fixed:
H_relu = matrix(hessian(loss_fn)(params, relu_model))
J = jacrev(lambda p: functional_call(relu_model, p, (inputs,)).squeeze(1))(params)
J = torch.cat([J[name].reshape(8, -1) for name in names], dim=1)
scale = 2 / 8 * (functional_call(relu_model, params, (inputs,)) - targets)  # the errors times 2/N, fixed
from_net = matrix(hessian(lambda p: (scale * functional_call(relu_model, p, (inputs,))).sum())(params))
rest = (H_relu - 2 / 8 * J.T @ J - from_net).abs().max().round(decimals=6)
check(rest, 0.0, atol=1e-5, rtol=0, label="largest |H_relu - (2/N) JᵀJ - from_net|")
counts = [t.count_nonzero().item() for t in (H_relu, 2 / 8 * J.T @ J, from_net[first, first])]
check(counts, [121, 121, 0], label="entries not 0 in H_relu, (2/N) JᵀJ, from_net's first layer")

# %%
# The first layer's block of ``from_net`` is 0, as the network's was, and
# ``(2/N) JᵀJ`` has no zero: with this loss no entry is 0, and that block is
# the loss's curvature alone. The zeros come from differentiating the output
# itself (or a loss linear in it) twice, in the first layer or the input: a
# property of ReLU, not a bug of autograd.
#
# The cost, and Hessian-vector products
# -------------------------------------
# P parameter entries give P×P entries: 121 here, 10¹² for a million
# parameters (4 TB in float32). Real models use Hessian-vector products
# instead: ``torch.func.jvp`` of ``torch.func.grad`` (forward over reverse),
# ``torch.func.vjp`` of it (reverse over reverse: ``H`` is symmetric, so
# ``vᵀH = Hv``), or ``torch.autograd.functional.hvp``. None builds ``H``.
v = {name: torch.randn(p.shape).to(device) for name, p in params.items()}
_, pull_back = vjp(grad(loss_fn), params)
(Hv,) = pull_back(v)
check(flat(Hv.values()), H_flat @ flat(v.values()), label="vjp(grad(loss_fn)) vs H_flat @ v")
_, Hv = hvp(lambda *ps: loss_fn(dict(zip(names, ps, strict=True))), tuple(params.values()), tuple(v.values()))
check(flat(Hv), H_flat @ flat(v.values()), label="hvp vs H_flat @ v")

# %%
# Both give ``H @ v`` shaped like the parameters (a dict from ``vjp``, a
# tuple from ``hvp``): vectors of P numbers, never the matrix.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`);
# it checks each shape, zero and product above on the runner that built it.
