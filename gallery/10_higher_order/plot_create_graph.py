"""
.. _create_graph:

Derivatives of derivatives: ``create_graph``
============================================

A gradient is a tensor like any other, but by default it is computed without
recording a graph, so it cannot be differentiated again. This example takes
the second and third derivatives of :math:`x^3` with
``torch.autograd.grad(..., create_graph=True)``, shows the error without it,
and then the options for an input that the output does not depend on:
the error by default, ``None`` with ``allow_unused=True``, zeros with
``materialize_grads=True``; and the error for a frozen parameter, which
``allow_unused`` does not excuse.

.. questions::

   - How do I compute second derivatives in PyTorch?
   - Why can't I differentiate the gradient returned by ``autograd.grad``?
   - Does ``backward(create_graph=True)`` cause a memory leak?
   - What do ``allow_unused`` and ``materialize_grads`` do?
   - Why does ``autograd.grad`` say ``One of the differentiated Tensors does not require grad``?
"""

# %%
# A first derivative that can be differentiated
# ---------------------------------------------
# For :math:`y = x^3` at :math:`x = 3`: :math:`y' = 3x^2 = 27`,
# :math:`y'' = 6x = 18` and :math:`y''' = 6`. ``torch.autograd.grad``
# returns the gradients as a tuple instead of writing ``.grad``;
# ``create_graph=True`` records the computation of the gradient itself.
import torch

from autograd_notes import check, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

x = torch.tensor(3.0, device=device, requires_grad=True)
y = x**3

(dy,) = torch.autograd.grad(y, x, create_graph=True)
check(dy, 27.0, label="dy")
check(dy.grad_fn, "MulBackward0", label="dy.grad_fn")

import matplotlib.pyplot as plt

from autograd_notes import autograd_graph, draw_graph

draw_graph(dy, names={"x": x, "dy": dy}, title="(dy,) = torch.autograd.grad(y, x, create_graph=True)")
plt.show()

(d2y,) = torch.autograd.grad(dy, x, create_graph=True)
check(d2y, 18.0, label="d2y")

(d3y,) = torch.autograd.grad(d2y, x)
check(d3y, 6.0, label="d3y")
check(x.grad, None, label="x.grad")

# %%
# The graph below ``dy``, drawn right after it was computed: gradients would
# flow down the arrows to the leaf ``x`` at the bottom (``AccumulateGrad``,
# in blue, shape ``[]``). It is the backward formula of ``pow``, recorded:
# ``PowBackward0`` computes :math:`x^2` and saved ``x`` with
# ``exponent=2.0``, ``MulBackward1`` multiplies by the saved number
# ``other=3.0``, and ``MulBackward0 (dy)`` by the gradient that the pass
# started from, 1, which it saved (``self [] v0``).
#
# With ``create_graph=True`` the backward pass of ``pow`` is itself a
# recorded computation (:math:`3x^2` ends in a multiplication, hence
# ``MulBackward0``), so ``dy`` is connected to ``x`` and can be
# differentiated. Each order needs its own ``create_graph=True`` except the
# last. ``torch.autograd.grad`` never touches ``.grad``: ``x.grad`` is still
# ``None``.
#
# Without ``create_graph``
# ------------------------
# By default the gradient is a plain tensor with no history:
y = x**3
(dy,) = torch.autograd.grad(y, x)
check(dy, 27.0, label="dy")
check(dy.grad_fn, None, label="dy.grad_fn")
check(dy.requires_grad, False, label="dy.requires_grad")

with expect_error(
    RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a grad_fn$"
):
    torch.autograd.grad(dy, x)

# %%
# The message is the one of a loss computed under ``no_grad``
# (:ref:`backward_misuse`), and for the same reason: ``dy`` has no
# ``grad_fn`` to go back through. Nothing in it mentions ``create_graph``,
# so remember this cause when it appears in code that differentiates a
# gradient (a gradient penalty, a Hessian-vector product).
#
# ``backward(create_graph=True)`` warns
# -------------------------------------
# ``backward()`` takes ``create_graph=True`` too, and then ``x.grad`` has a
# history. PyTorch warns that this creates a reference cycle:
x = torch.tensor(3.0, device=device, requires_grad=True)
y = x**3
warned_always = torch.is_warn_always_enabled()
torch.set_warn_always(True)  # otherwise PyTorch gives this warning once per process
try:
    with expect_warning(
        UserWarning,
        match=(
            r"^Using backward\(\) with create_graph=True will create a reference cycle between the "
            r"parameter and its gradient which can cause a memory leak\. We recommend using autograd\.grad "
            r"when creating the graph to avoid this\."
        ),
    ):
        y.backward(create_graph=True)
finally:
    torch.set_warn_always(warned_always)
check(x.grad, 27.0, label="x.grad")
check(x.grad.requires_grad, True, label="x.grad.requires_grad")
cycle = autograd_graph(x.grad, names={"x": x, "x.grad": x.grad})
check(x.grad.grad_fn.name(), "torch::autograd::CopyBackwards", label="x.grad.grad_fn.name()")
check([node.tensor for node in cycle.nodes if node.is_leaf], ["x"], label="the leaf below x.grad")
draw_graph(cycle, title="y.backward(create_graph=True)")
plt.show()
x.grad = None  # breaks the cycle

# %%
# The graph below ``x.grad``, drawn before it was reset: the recorded
# formula of the graph of ``dy`` above, under one more node,
# ``CopyBackwards (x.grad)``, the recorded copy that ``backward()`` made to
# store the gradient in ``.grad``. At the bottom is the leaf ``x``
# (``AccumulateGrad``, in blue), whose ``.grad`` this is.
#
# ``x.grad`` refers to a graph that refers back to ``x``, so neither is
# freed until ``.grad`` is reset to ``None``, as the warning goes on to say.
# ``torch.autograd.grad`` returns the gradient instead of storing it on
# ``x``, which is why the warning recommends it. Do not rely on seeing the
# warning: PyTorch gives it only the first time in a process, unless
# ``torch.set_warn_always(True)`` is on, as it is for that one call above.
#
# An input that the output does not use
# -------------------------------------
# ``u`` requires a gradient but plays no part in ``y``. Asking
# ``torch.autograd.grad`` for it is an error by default:
u = torch.tensor(5.0, device=device, requires_grad=True)
y = x**3
with expect_error(
    RuntimeError,
    match=(
        r"^The differentiated Tensor at index 1 appears to not have been used in the graph\. "
        r"Set allow_unused=True if this is the desired behavior\.$"
    ),
):
    torch.autograd.grad(y, (x, u), retain_graph=True)

# %%
# "Index 1" is the position of ``u`` in the inputs. The default is strict
# because a gradient asked for but not connected is often a bug: a
# ``detach()`` or a ``.data`` on the way, or the wrong tensor passed. When
# it is intended, say so:
dx, du = torch.autograd.grad(y, (x, u), retain_graph=True, allow_unused=True)
check(dx, 27.0, label="dx")
check(du, None, label="du with allow_unused=True")

dx, du = torch.autograd.grad(y, (x, u), retain_graph=True, materialize_grads=True)
check(du, 0.0, label="du with materialize_grads=True")

# %%
# ``allow_unused=True`` returns ``None`` for ``u``; ``materialize_grads=True``
# returns a tensor of zeros of ``u``'s shape instead, which saves a ``None``
# test in code that adds or stacks the gradients. ``materialize_grads=True``
# implies ``allow_unused=True``, and contradicting it is refused:
with expect_error(
    ValueError,
    match=(
        r"^Expected allow_unused to be True or not passed when materialize_grads=True, "
        r"but got: allow_unused=False\.$"
    ),
):
    torch.autograd.grad(y, (x, u), allow_unused=False, materialize_grads=True)

# %%
# ``backward()`` has no such check: an unused leaf keeps ``.grad = None``
# without an error, which is how a layer that is accidentally left out of
# the loss goes unnoticed.
y.backward()
check(x.grad, 27.0, label="x.grad")
check(u.grad, None, label="u.grad")

# %%
# A frozen layer among the inputs
# -------------------------------
# A meta-learning step (MAML) or a gradient penalty differentiates the loss
# with respect to the model's parameters, keeping the graph. With the first
# layer frozen, passing all of ``model.parameters()`` fails:
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)).to(device)
model[0].requires_grad_(False)  # freeze the first layer
inputs = torch.randn(8, 3).to(device)
loss = model(inputs).pow(2).mean()
NOT_REQUIRED = r"^One of the differentiated Tensors does not require grad$"
with expect_error(RuntimeError, match=NOT_REQUIRED):
    torch.autograd.grad(loss, list(model.parameters()), create_graph=True)
with expect_error(RuntimeError, match=NOT_REQUIRED):
    torch.autograd.grad(loss, list(model.parameters()), create_graph=True, allow_unused=True)

# %%
# PyTorch checks every input before the backward pass starts. A tensor with
# ``requires_grad=False`` has no ``AccumulateGrad`` node in the graph, so
# there is nowhere to collect its gradient from. ``allow_unused=True`` is
# for another case, an input that requires grad but is not reached, like
# ``u`` above; and unlike that message, this one names no index.
#
# Ask only for the parameters that are trained:
trainable = [p for p in model.parameters() if p.requires_grad]
grads = torch.autograd.grad(loss, trainable, create_graph=True)
check(len(grads), 2, label="len(grads)")  # weight and bias of model[2]
check(grads[0].requires_grad, True, label="grads[0].requires_grad")

loss.backward()  # the graph is kept: create_graph implies retain_graph
check(grads[0], model[2].weight.grad, label="grads[0]")
check(grads[1], model[2].bias.grad, label="grads[1]")
check(model[0].weight.grad, None, label="model[0].weight.grad")

# %%
# The gradients are those that ``backward()`` stores, and they have a graph,
# so an outer loss can go through them. ``backward()`` skips the frozen
# layer without an error: its ``.grad`` stays ``None``.

# %%
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`).
# :ref:`retain_graph` explains the ``retain_graph=True`` used above to ask
# several questions of the same graph.
