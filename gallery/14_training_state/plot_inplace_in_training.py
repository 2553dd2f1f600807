"""
.. _inplace_in_training:

In-place changes in training code
=================================

Three pieces of ordinary training code make ``backward()`` fail with "one of
the variables needed for gradient computation has been modified by an
inplace operation": an ``optimizer.step()`` between two backward passes over
one graph (a GAN, several losses, an actor and a critic), an
``nn.ReLU(inplace=True)`` after an operation that saved its output, and
``x += residual``. This example finds, in each case, the saved tensor whose
version counter moved, reads both versions in the error and in the graph,
and shows the fixes.

.. questions::

   - Why does my GAN training fail with ``modified by an inplace operation``?
   - Why does ``nn.ReLU(inplace=True)`` after ``sigmoid`` break backward?
   - Is ``x += residual`` safe in a residual block?
   - How do I backpropagate two losses before one optimizer step?
"""

# %%
# A step between two backward passes
# ----------------------------------
# A generator turns noise into ``fake`` samples and a discriminator scores
# them. Both losses are computed from the same ``score``; the
# discriminator's loss is backpropagated and its optimizer steps, then the
# generator's loss is backpropagated through the same graph.
import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import autograd_graph, check, draw_graph, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

# the start of the message, and its end (between them: the tensor and its versions)
MODIFIED = (
    r"^one of the variables needed for gradient computation has been modified by an inplace "
    r"operation: \[torch\.(cuda\.)?FloatTensor "
)
HINT = (
    r" instead\. Hint: enable anomaly detection to find the operation that failed to compute its "
    r"gradient, with torch\.autograd\.set_detect_anomaly\(True, check_nan=False\)\.$"
)

torch.manual_seed(0)
generator = nn.Linear(2, 3).to(device)
discriminator = nn.Linear(3, 1).to(device)
opt_g = torch.optim.SGD(generator.parameters(), lr=0.1)
opt_d = torch.optim.SGD(discriminator.parameters(), lr=0.1)
noise = torch.randn(4, 2).to(device)

fake = generator(noise)
score = discriminator(fake)
loss_d = nn.functional.softplus(score).mean()  # binary cross-entropy of the score against the label 0
loss_g = nn.functional.softplus(-score).mean()  # ... and against the label 1
show_state(weight=discriminator.weight)
loss_d.backward(retain_graph=True)
opt_d.step()
show_state(weight=discriminator.weight)
check(generator.weight.grad is None, False, label="generator.weight.grad is None")

names = {"fake": fake, "score": score, "loss_g": loss_g, "noise": noise}
names |= {f"generator.{n}": p for n, p in generator.named_parameters()}
names |= {f"discriminator.{n}": p for n, p in discriminator.named_parameters()}
graph = autograd_graph(loss_g, names=names)
check(graph.modified, ["AddmmBackward0 (score): saved mat2 [3, 1] v2 ≠ v1"], label="modified in place")
draw_graph(graph, title="opt_d.step(); loss_g.backward()")
plt.show()

# %%
# The graph below ``loss_g``, drawn before its backward pass: from
# ``MeanBackward0 (loss_g)`` at the top through ``SoftplusBackward0``
# (which saved its input, ``self [4, 1] v0``) and ``NegBackward0`` to
# ``AddmmBackward0 (score)``, the discriminator's layer, framed in red. It
# saved ``fake`` as ``mat1 [4, 3] v0`` and the transposed weight as
# ``mat2 [3, 1]``, whose red line reads ``v2 ≠ v1``. Below it are the
# generator's ``AddmmBackward0 (fake)``, which saved ``noise`` as ``mat1``,
# two ``TBackward0`` nodes, and at the bottom the four parameters as blue
# ``AccumulateGrad`` leaves.
#
# ``nn.Linear`` fills its weight in place when it is built, so a new layer's
# weight is at version 1, and the layer saved it at version 1. The
# optimizer's update, ``weight.add_(grad, alpha=-lr)`` under
# ``torch.no_grad()`` (on a GPU, one ``torch._foreach_add_`` over all the
# parameters), is in place too: version 2. The second backward pass
# needs the old weight to send the gradient on to ``fake`` and refuses:
with expect_error(
    RuntimeError,
    match=MODIFIED
    + r"\[3, 1\]\], which is output 0 of AsStrided, is at version 2; expected version 1"
    + HINT,
):
    loss_g.backward()

# %%
# The tensor ``[3, 1]`` is ``discriminator.weight.t()``, a view that shares its
# base's version counter. After its base changed in place, autograd describes
# the view as an ``as_strided`` of it, hence "output 0 of AsStrided". The CUDA
# record (PyTorch 2.11.0, an H200) reads ``torch.cuda.FloatTensor``, with the
# same versions (and ``AsStridedBackward0``, as 2.11.0 writes on any device).
# Note also that ``loss_d.backward()`` filled the generator's ``.grad``: the
# discriminator's loss flowed through ``fake`` into the generator.
#
# Fix: ``detach()`` for one step, a new forward for the other
# ------------------------------------------------------------
# The usual GAN step trains the discriminator on ``fake.detach()``, so its
# graph stops at the samples, and then runs the discriminator again, with
# its new weights, for the generator's loss:
opt_d.zero_grad()
opt_g.zero_grad()
fake = generator(noise)
loss_d = nn.functional.softplus(discriminator(fake.detach())).mean()
loss_d.backward()
opt_d.step()
check(generator.weight.grad, None, label="generator.weight.grad after loss_d.backward()")

score = discriminator(fake)
loss_g = nn.functional.softplus(-score).mean()
check(autograd_graph(loss_g).modified, [], label="modified in place")
loss_g.backward()
opt_g.step()
check(generator.weight.grad is None, False, label="generator.weight.grad is None")
check(discriminator.weight._version, 3, label="discriminator.weight._version")

# %%
# The new ``score`` saved the weight at version 3, after the step, so
# nothing it saved has changed. The discriminator's ``.grad`` now holds
# ``loss_g``'s gradient too, which is why its next step starts with
# ``opt_d.zero_grad()``.
#
# Fix: every backward pass, then the step
# ---------------------------------------
# When both losses should update the same parameters with the gradients at
# the same weights (a main and an auxiliary loss, an actor and a critic on a
# shared body), the order is: every ``backward()``, then ``step()``. The
# gradients accumulate in ``.grad``, and they equal the gradients of the sum
# of the losses, computed first with ``torch.autograd.grad``:
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(8, 3).to(device)
out = model(inputs)
loss_fit = ((out - 1) ** 2).mean()
loss_aux = out.abs().mean()
of_the_sum = torch.autograd.grad(loss_fit + loss_aux, list(model.parameters()), retain_graph=True)
loss_fit.backward(retain_graph=True)
loss_aux.backward()
opt.step()
check(
    all(torch.allclose(g, p.grad) for g, p in zip(of_the_sum, model.parameters(), strict=True)),
    True,
    label="the .grad of two passes == the gradients of the sum",
)

# %%
# ``nn.ReLU(inplace=True)`` after ``sigmoid``
# -------------------------------------------
# The derivative of :math:`\sigma(z)` is :math:`\sigma(z)(1 - \sigma(z))`,
# computed from the output, so ``sigmoid`` saves its result. An in-place
# ReLU applied to it writes into that saved result:
layer = nn.Linear(3, 3).to(device)
x = torch.randn(4, 3).to(device)
a = torch.sigmoid(layer(x))
before = a.detach().clone()
out = nn.ReLU(inplace=True)(a)
check(out is a, True, label="out is a")
check(torch.equal(a, before), True, label="a holds the same values")
graph = autograd_graph(out, names={"a": a, "x": x, "layer.weight": layer.weight, "layer.bias": layer.bias})
check(
    graph.modified,
    ["SigmoidBackward0: saved result (a) [4, 3] v1 ≠ v0"],
    label="modified in place",
)
draw_graph(graph, title="a = torch.sigmoid(layer(x)); nn.ReLU(inplace=True)(a)")
plt.show()

# %%
# From the top: ``ReluBackward0 (a)``, which saved ``result (a) [4, 3] v1``;
# ``SigmoidBackward0``, framed in red, with the red line
# ``result (a) [4, 3] v1 ≠ v0``; the layer's ``AddmmBackward0``, which
# saved ``x`` as ``mat1``; ``TBackward0``; and the blue leaves
# ``layer.weight`` and ``layer.bias``. Both nodes saved the same tensor ``a``: ``ReluBackward0``
# after the write, at version 1, ``SigmoidBackward0`` before it, at
# version 0.
#
# A sigmoid is never negative, so the ReLU changed no value at all. It still
# counts as a write, and the version counter is all that backward compares:
with expect_error(
    RuntimeError,
    match=MODIFIED + r"\[4, 3\]\], which is output 0 of Sigmoid, is at version 1; expected version 0" + HINT,
):
    out.sum().backward()

# %%
# ``tanh`` (derivative :math:`1 - \tanh^2`) and ``exp`` (derivative
# :math:`e^z`) save their output as well and fail the same way, here with
# ``nn.functional.relu_``. Placed right after a layer, the same in-place
# ReLU is fine, and gives the gradient of the out-of-place ``torch.relu``:
for make in (torch.tanh, torch.exp):
    a = make(layer(x))
    nn.functional.relu_(a)
    name = make.__name__.capitalize()
    with expect_error(RuntimeError, match=MODIFIED + rf"\[4, 3\]\], which is output 0 of {name}, "):
        a.sum().backward()

(reference,) = torch.autograd.grad(torch.relu(layer(x)).sum(), layer.weight)
out = nn.ReLU(inplace=True)(layer(x))
check(out.grad_fn, "ReluBackward0", label="out.grad_fn")
check(autograd_graph(out).modified, [], label="modified in place")
out.sum().backward()
check(layer.weight.grad, reference, label="layer.weight.grad, as with torch.relu")

# %%
# A linear layer computes its gradients from its input and weight, never
# from its output, so nothing it saved is overwritten. Convolution and batch
# normalisation do not save the tensor they return either, which is why
# ``conv → bn → ReLU(inplace=True)`` works in many models:
conv_bn_relu = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(inplace=True)).to(device)
out = conv_bn_relu(torch.randn(2, 3, 6, 6).to(device))
check(autograd_graph(out).modified, [], label="modified in place")
out.sum().backward()
check(conv_bn_relu[0].weight.grad is None, False, label="conv_bn_relu[0].weight.grad is None")

# %%
# ``x += residual``
# -----------------
# A residual connection written with ``+=`` overwrites ``h`` after
# ``block`` has read it, and ``block``'s first layer saved ``h`` to compute
# its weight's gradient:
block = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3)).to(device)
h = layer(x)
h += block(h)
check(h.grad_fn, "AddBackward0", label="h.grad_fn")
check(h._version, 1, label="h._version")
check(
    autograd_graph(h, names={"h": h}).modified,
    ["AddmmBackward0: saved mat1 (h) [4, 3] v1 ≠ v0"],
    label="modified in place",
)
with expect_error(
    RuntimeError,
    match=MODIFIED + r"\[4, 3\]\], which is output 0 of Add, is at version 1; expected version 0" + HINT,
):
    h.sum().backward()

# %%
# A saved input is named in the message by its ``grad_fn`` at the time of
# the backward pass: for ``h``, the ``AddBackward0`` that ``+=`` gave it,
# not the layer that made it (a saved output, like ``sigmoid``'s, is named
# by the node that made it). ``h = h + block(h)`` makes a new tensor and
# leaves the one that ``block`` saved as it was:
h = layer(x)
h_out = h + block(h)
check([h._version, h_out._version], [0, 0], label="[h._version, h_out._version]")
check(autograd_graph(h_out).modified, [], label="modified in place")
h_out.sum().backward()
check(block[0].weight.grad is None, False, label="block[0].weight.grad is None")

# %%
# Whenever an error of this kind remains unexplained, anomaly detection
# names the line of the forward pass that created the failing node
# (:ref:`anomaly_detection`); :ref:`detach_inplace_saved` shows which edits
# backward notices and which it cannot, and :ref:`mental_model` why saved
# tensors carry a version. A hidden state carried from batch to batch with
# ``retain_graph=True`` meets the same error after the optimizer's step
# (:ref:`state_across_iterations`).
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the messages, versions and graphs are checked on the runner that built
# this page, the messages and versions also in the CUDA record of 2.11.0.
