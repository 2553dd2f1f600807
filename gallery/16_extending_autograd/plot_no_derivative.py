"""
.. _no_derivative:

Derivative not implemented
==========================

Some PyTorch operations run forward and record a node, but have no
backward formula: ``backward()`` then raises "the derivative for 'igamma:
input' is not implemented." or "derivative for aten::bincount is not
implemented". This example shows when the error comes, how to see it
coming, what ``torch.histc`` does instead, two fixes for a histogram loss
(a soft histogram, a custom Function with a chosen gradient) and the
second-order case of ``torch.cdist``: "the derivative for
'_cdist_backward' is not implemented."

.. questions::

   - Why does ``backward()`` say ``derivative for aten::bincount is not implemented``?
   - How do I make a histogram loss with torch.histc differentiable?
   - Why does a gradient penalty with torch.cdist fail on the second grad?
"""

# %%
# Forward runs, backward refuses
# ------------------------------
# A model fits a Gamma distribution by its CDF. Both parameters require a
# gradient. The forward pass works and records a node:
import matplotlib.pyplot as plt
import torch
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError
from torch.distributions import Gamma

from autograd_notes import check, draw_series, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device(torch.float64)
torch.manual_seed(0)

shape = torch.tensor(2.0, device=device, requires_grad=True)
rate = torch.tensor(1.5, device=device, requires_grad=True)
t = torch.tensor([0.5, 1.0, 2.0], device=device)
cdf = Gamma(shape, rate).cdf(t)
check(cdf, [0.173358, 0.442175, 0.800852], label="cdf")
check(cdf.grad_fn, "IgammaBackward0", label="cdf.grad_fn")
with expect_error(RuntimeError, match=r"the derivative for 'igamma: input' is not implemented"):
    cdf.sum().backward()
check([shape.grad, rate.grad], [None, None], label="[shape.grad, rate.grad]")
Gamma(shape.detach(), rate).cdf(t).sum().backward()
check(rate.grad, 0.810555, label="rate.grad, shape fixed")

# %%
# The CDF is ``igamma(shape, rate * t)``. PyTorch has a formula for its
# gradient with respect to the second input, not the first: the error is
# per input, and it comes only when backward reaches the node. Nothing was
# accumulated by the failed call; with the shape fixed, ``rate`` gets its
# gradient. The error is a ``NotImplementedError``, a kind of
# ``RuntimeError``: ``except RuntimeError`` catches it.
#
# Seeing it coming
# ----------------
# ``IgammaBackward0`` looks like any other node. An operation with no entry
# at all in PyTorch's list of formulas, such as ``bincount`` with weights
# (each sample adds its weight to its bin), gets a placeholder node whose
# name says it, and a message worded a little differently:
weights = torch.tensor([0.5, 1.0, 2.0], device=device, requires_grad=True)
per_bin = torch.bincount(torch.tensor([0, 2, 2], device=device), weights=weights)
check(per_bin, [0.5, 0.0, 3.0], label="per_bin")
check(per_bin.grad_fn, "torch::autograd::NotImplemented", label="per_bin.grad_fn")
with expect_error(RuntimeError, match=r"derivative for aten::bincount is not implemented"):
    per_bin.sum().backward()

# %%
# So the node's name warns for ``bincount``, not for ``igamma``. The sure
# test is one backward pass on a tiny input before a long run.
#
# A histogram loss
# ----------------
# A loss that compares the histogram of ``x = data + shift`` with a target
# histogram is the usual way to meet this page. ``torch.histc`` runs:
data = torch.randn(200).to(device)
shift = torch.tensor(0.0, device=device, requires_grad=True)
target = torch.histc(data + 0.5, bins=8, min=-2, max=2)
x = data + shift
hard = torch.histc(x, bins=8, min=-2, max=2)
check(hard, [10.0, 17.0, 25.0, 44.0, 46.0, 29.0, 13.0, 8.0], label="hard")
check([hard.requires_grad, hard.grad_fn], [False, None], label="[hard.requires_grad, hard.grad_fn]")
with expect_error(
    RuntimeError, match=r"element 0 of tensors does not require grad and does not have a grad_fn"
):
    ((hard - target) ** 2).sum().backward()

# %%
# On PyTorch 2.13.0, ``histc`` marks its output as not differentiable: no
# node, and the error is the one of :ref:`silent_graph_breaks`. Every
# recorded release, from 2.4.1 to 2.15.0, does the same: a loss built on
# ``histc`` alone never trains. Integer results behave like ``histc``;
# ``round`` has a node, but its gradient is zero:
edges = torch.linspace(-2, 2, 9, device=device)
integer_results = [x.argmax(), torch.bucketize(x, edges)]
check([r.requires_grad for r in integer_results], [False, False], label="argmax, bucketize: requires_grad")
check(x.round().grad_fn, "RoundBackward0", label="x.round().grad_fn")
check(torch.autograd.grad(x.round().sum(), shift)[0], 0.0, label="gradient through round")

# %%
# Fix 1: a soft histogram
# -----------------------
# Each bin counts the samples above its left edge minus those above its
# right edge. With a sigmoid of width ``0.1`` instead of a step, every
# count depends smoothly on every sample:


def soft_histogram(x, edges, width=0.1):
    above = torch.sigmoid((x[:, None] - edges) / width)
    return (above[:, :-1] - above[:, 1:]).sum(0)


soft = soft_histogram(x, edges)
check((soft.detach() - hard).abs().max(), 2.78, atol=0.01, rtol=0, label="largest |soft - hard|")
((soft - target) ** 2).sum().backward()
check(shift.grad, -3244.40, rtol=1e-4, atol=0, label="shift.grad")
centres = ((edges[:-1] + edges[1:]) / 2).tolist()
histograms = {"torch.histc(x, 8, -2, 2)": hard.tolist(), "soft_histogram(x, edges)": soft.tolist()}
draw_series(histograms, x=centres, xlabel="x")
plt.show()

# %%
# Two lines over the 8 bin centres, from -1.75 to 1.75: the counts of
# ``histc`` and of the soft histogram, close to each other, both peaking
# near 0. The soft counts differ from the hard ones by at most 2.78. The
# gradient is negative: raising ``shift`` moves the histogram towards the
# target, made from ``data + 0.5``.
#
# Fix 2: the exact counts, with a chosen gradient
# -----------------------------------------------
# To keep the exact ``histc`` counts in the loss, a custom Function
# (:ref:`custom_function`) calls it in ``forward`` and returns the soft
# histogram's gradient in ``backward``:


class HistcSurrogate(torch.autograd.Function):
    @staticmethod
    def forward(x, edges):
        return torch.histc(x, bins=len(edges) - 1, min=edges[0].item(), max=edges[-1].item())

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        x, edges = ctx.saved_tensors
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            (grad_x,) = torch.autograd.grad(soft_histogram(x, edges), x, grad_output)
        return grad_x, None


shift.grad = None
counts = HistcSurrogate.apply(data + shift, edges)
print(f"counts: {counts.tolist()}")
check(type(counts.grad_fn).__name__, "HistcSurrogateBackward", label="type(counts.grad_fn).__name__")
((counts - target) ** 2).sum().backward()
(expected,) = torch.autograd.grad(soft_histogram(data + shift, edges), shift, 2 * (hard - target))
check(shift.grad, expected, label="shift.grad, as the soft histogram sends it back")

# %%
# The counts are those of ``histc``; the gradient is not the one of the
# function computed, which is zero almost everywhere. ``gradcheck``
# (:ref:`gradcheck`) says so: its numerical Jacobian is all zeros, the one
# from ``backward`` is not.
points = torch.tensor([-0.3, 0.2, 1.1], dtype=torch.float64, device=device, requires_grad=True)
with expect_error(GradcheckError, match=r"Jacobian mismatch for output 0 with respect to input 0"):
    gradcheck(HistcSurrogate.apply, (points, edges.double()))

# %%
# That is the trade-off: the forward value is exact, the gradient a
# guess. Here the guess, -3102.6, has the sign of fix 1's gradient. Fix 1
# differentiates what it computes; fix 2 computes one function and
# differentiates another.
#
# Second derivatives: ``torch.cdist``
# -----------------------------------
# A gradient penalty differentiates a first gradient. ``cdist`` has a
# first derivative, but its backward has none:
a = torch.tensor([[0.0, 0.0], [1.0, 2.0]], device=device, requires_grad=True)
centre = torch.tensor([[1.0, 0.0], [3.0, 1.0], [0.0, 2.0]], device=device)
(g,) = torch.autograd.grad(torch.cdist(a, centre).sum(), a, create_graph=True)
check(g.grad_fn, "CdistBackwardBackward0", label="g.grad_fn")
with expect_error(RuntimeError, match=r"the derivative for '_cdist_backward' is not implemented"):
    torch.autograd.grad((g**2).sum(), a)
plain = ((a[:, None] - centre[None]) ** 2).sum(-1).sqrt()
check(plain, torch.cdist(a, centre), label="distances from basic operations")
(g,) = torch.autograd.grad(plain.sum(), a, create_graph=True)
(gg,) = torch.autograd.grad((g**2).sum(), a)
check(gg, [[-1.822192, -3.011929], [0.642229, 3.967740]], label="second gradient")
mm = torch.cdist(a, centre, compute_mode="use_mm_for_euclid_dist")
(g,) = torch.autograd.grad(mm.sum(), a, create_graph=True)
# through a matrix product, the values agree to about 1e-5, not to the last bit
check(
    torch.autograd.grad((g**2).sum(), a)[0],
    gg,
    label="second gradient, use_mm_for_euclid_dist",
    rtol=1e-4,
    atol=1e-4,
)

# %%
# The node of the first gradient, ``CdistBackwardBackward0``, raises on
# 2.13.0; the recorded 2.14.1 and 2.15.0 compute it (see the table at the
# end). The same distances written with subtraction, squares and ``sqrt``
# can be differentiated twice; so can ``cdist`` with
# ``compute_mode="use_mm_for_euclid_dist"``, built from a matrix product.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# it checks each message, node name and gradient above on the runner that
# built this page. PyTorch's documentation of ``histc``, ``bincount``,
# ``cdist`` and ``torch.autograd.Function`` describes the operations used.
