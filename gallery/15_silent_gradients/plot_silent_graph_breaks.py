"""
.. _silent_graph_breaks:

Gradients that are ``None`` or zero
===================================

Some operations return a tensor that the graph does not reach, or one whose
gradient is zero everywhere, and raise no error: ``argmax``, comparisons and
integer casts have no ``grad_fn``; ``round``, ``floor`` and ``sign`` have one,
but it sends back zeros; ``torch.tensor([...])`` of results and ``float()``
(which warn, once per process), ``.item()`` (which does not) and a trip
through NumPy copy the values and drop the history. This example
shows, for each, the graph that is left and what ``.grad`` becomes (``None``
for a leaf that no gradient reached, zeros where one did), the one case
that does raise ("element 0 of tensors does not require grad and does not
have a grad_fn"), and the fixes: ``torch.stack``, differentiable
surrogates, and staying in torch.

.. questions::

   - Why is my gradient zero after ``round()`` or ``floor()``?
   - How do I backpropagate through ``argmax``?
   - Why does ``torch.tensor([a, b])`` of results lose the gradient?
   - Does ``.item()`` or converting to NumPy break the graph?
"""

# %%
# Integer and boolean results have no history
# -------------------------------------------
# ``x`` stands for three scores that require a gradient. The index of the
# largest, a mask of the positive ones and integer casts are all new
# tensors without a ``grad_fn``: gradients are only defined for floating
# point (and complex) values, so autograd does not record these operations.
import math
import warnings

import matplotlib.pyplot as plt
import numpy as np
import torch

from autograd_notes import (
    autograd_graph,
    check,
    draw_graph,
    expect_error,
    expect_warning,
    runner_device,
    show_state,
)

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

x = torch.tensor([0.4, -1.3, 2.6], device=device, requires_grad=True)
predicted = x.argmax()
positive = x > 0
as_long = x.to(torch.int64)
check(predicted, 2, label="x.argmax()")
dtypes = [str(t.dtype) for t in (predicted, positive, as_long, x.int())]
check(dtypes, ["torch.int64", "torch.bool", "torch.int64", "torch.int32"], label="their dtypes")
show_state(x=x, predicted=predicted, positive=positive, as_long=as_long)
with expect_error(RuntimeError, match=r"^only Tensors of floating point dtype can require gradients$"):
    as_long.requires_grad_()

# %%
# ``x.to(torch.int64)`` (like ``.long()`` and ``.int()``) neither fails nor
# warns: it returns a tensor with ``requires_grad=False``, and turning that
# flag back on is refused for an integer tensor. A loss built only from
# such results has no graph at all, and that is the one case where
# ``backward()`` says so:
loss = (predicted.float() - 1.0) ** 2
check(loss.grad_fn, None, label="loss.grad_fn")
with expect_error(
    RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a grad_fn$"
):
    loss.backward()

# %%
# A mask is harmless as long as it multiplies values that keep their
# history: ``x * (x > 0)`` sends the gradient 1 to positive scores and 0 to
# the others. To differentiate through a choice, replace the index by a
# surrogate: the "soft argmax" ``softmax(x) · [0, 1, 2]`` is close to the
# index of the largest score and has a gradient.
masked = (x * positive).sum()
check(torch.autograd.grad(masked, x)[0], [1.0, 0.0, 1.0], label="gradient of (x * (x > 0)).sum()")
soft = torch.softmax(x, dim=0) @ torch.arange(3.0, device=device)
check(soft, 1.7862, rtol=0.0, atol=1e-4, label="soft argmax")
check(torch.autograd.grad(soft, x)[0], [-0.1750, -0.0141, 0.1891], rtol=0.0, atol=1e-4, label="its gradient")

# %%
# Rounding keeps the graph and loses the gradient
# -----------------------------------------------
# ``round``, ``floor`` and ``sign`` return floats with a ``grad_fn``, so
# nothing looks wrong, but each is a step function: flat wherever it is
# differentiable, so its backward returns zeros.
for name, step in (("round", torch.round), ("floor", torch.floor), ("sign", torch.sign)):
    x.grad = None
    out = step(x)
    (out * torch.tensor([1.0, 2.0, 3.0], device=device)).sum().backward()
    check(out.grad_fn, f"{name.capitalize()}Backward0", label=f"x.{name}().grad_fn")
    check(x.grad, [0.0, 0.0, 0.0], label="x.grad")

# %%
# Here ``x.grad`` is a tensor of zeros, not ``None``: the gradient did reach
# ``x``, and it is 0. Training makes no progress and reports no error.
# The straight-through estimator keeps the rounded value in the forward
# pass and pretends, in the backward pass, that rounding was the identity:
# ``x + (x.round() - x).detach()`` adds a constant correction to ``x``.
x.grad = None
ste = x + (x.round() - x).detach()
loss = (ste * torch.tensor([1.0, 2.0, 3.0], device=device)).sum()
check(ste, [0.0, -1.0, 3.0], label="ste")
graph = autograd_graph(loss, names={"x": x, "ste": ste, "loss": loss})
nodes = ["SumBackward0 (loss)", "MulBackward0", "AddBackward0 (ste)", "AccumulateGrad (x)"]
check([node.drawn_title for node in graph.nodes], nodes, label="the nodes of the graph")
draw_graph(graph, title="ste = x + (x.round() - x).detach()")
plt.show()
loss.backward()
check(x.grad, [1.0, 2.0, 3.0], label="x.grad")

# %%
# The graph of ``loss``: ``SumBackward0 (loss)``, ``MulBackward0`` (which
# saved the weights ``[3]`` as ``other``), ``AddBackward0 (ste)`` and the
# leaf ``x``. There is no ``RoundBackward0`` and no ``SubBackward0``: the
# correction was detached, so the only path to ``x`` is the addition, and
# ``x.grad`` receives the weights 1, 2, 3 unchanged.
#
# ``torch.tensor`` of results copies numbers
# ------------------------------------------
# ``torch.tensor`` builds a new leaf from data: given a list of tensors, it
# converts each of them to a Python number and keeps nothing else. Here a
# loss adds two penalty terms, built that way, to a term computed from
# ``x``; ``scale`` is used only in a penalty. PyTorch warns ("Converting a
# tensor with requires_grad=True to a scalar may lead to unexpected
# behavior"), once per element, but only while ``torch.set_warn_always``
# is on; otherwise it warns the first time in a process and never again.
x.grad = None
scale = torch.tensor(3.0, device=device, requires_grad=True)
warned_always = torch.is_warn_always_enabled()
torch.set_warn_always(True)
try:
    with expect_warning(
        UserWarning,
        match=r"^Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior\.\n"
        r"Consider using tensor\.detach\(\) first\.",
    ):
        penalties = torch.tensor([x[0] * scale, x[2] * 2], device=device)
finally:
    torch.set_warn_always(warned_always)
loss = (x**2).sum() + penalties.sum()
show_state(penalties=penalties, loss=loss)
check(loss.grad_fn.next_functions[1][0], None, label="loss.grad_fn.next_functions[1][0]")
draw_graph(loss, names={"x": x, "loss": loss}, title="loss = (x**2).sum() + penalties.sum()")
plt.show()
loss.backward()
check(x.grad, [0.8, -2.6, 5.2], label="x.grad")
check(scale.grad, None, label="scale.grad")

# %%
# The graph has four nodes: ``AddBackward0 (loss)``, ``SumBackward0``,
# ``PowBackward0``, which saved ``x`` at ``v0``, and the leaf ``x``. The
# penalties are absent: ``penalties`` is a leaf that does not require
# grad, so the addition has nothing to send their gradient to (its second
# entry in ``next_functions`` is ``None``). ``x.grad``
# is :math:`2x` alone, and ``scale.grad`` is ``None``: no gradient reached
# that leaf at all. ``torch.stack`` (or ``torch.cat`` to join along an
# existing dimension) builds the same values as a recorded operation:
x.grad = None
penalties = torch.stack([x[0] * scale, x[2] * 2])
loss = (x**2).sum() + penalties.sum()
check(penalties.grad_fn, "StackBackward0", label="penalties.grad_fn")
names = {"x": x, "scale": scale, "penalties": penalties, "loss": loss}
draw_graph(loss, names=names, title="penalties = torch.stack([x[0] * scale, x[2] * 2])")
plt.show()
loss.backward()
check(x.grad, [0.8 + 3.0, -2.6, 5.2 + 2.0], label="x.grad")
check(scale.grad, 0.4, label="scale.grad")

# %%
# Now ``AddBackward0 (loss)`` has two ``SumBackward0`` below it. The left
# one leads to ``PowBackward0`` and ``x`` as before; the right one to
# ``StackBackward0 (penalties)`` (``dim=0``), then to one ``MulBackward0``
# per penalty. The first saved ``scale`` and ``x[0]`` (``other (scale) []``
# and ``self []``, at ``v0``) and leads to both ``SelectBackward0``
# (``index=0``) and the leaf ``scale``; the second saved only the constant 2
# and leads to ``SelectBackward0`` (``index=2``). Both selections end at the
# leaf ``x``, which now receives 3 more in ``x.grad[0]`` and 2 more in
# ``x.grad[2]``; ``scale.grad`` is ``x[0]``, 0.4.
#
# ``.item()``, ``.tolist()`` and NumPy
# ------------------------------------
# ``.item()`` and ``.tolist()`` return Python numbers without a warning,
# and so do ``int()`` and ``bool()``. ``float()``, and the functions of
# ``math``, which call it, emit the warning of ``torch.tensor`` above (since
# PyTorch 2.8), under the same rule: once per process, unless
# ``torch.set_warn_always`` is on.
torch.set_warn_always(True)
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        numbers = [x.sum().item(), x.tolist()[0], int(x[2]), bool(x[0])]
    with expect_warning(
        UserWarning, match=r"^Converting a tensor with requires_grad=True to a scalar"
    ) as float_warnings:
        numbers += [float(x.sum()), math.exp(x[0])]
finally:
    torch.set_warn_always(warned_always)
check(
    [type(number).__name__ for number in numbers],
    ["float", "float", "int", "bool", "float", "float"],
    label="types",
)
check([len(caught), len(float_warnings.records)], [0, 2], label="warnings: without float(), with float()")

# %%
# All six are plain Python numbers, cut from the graph; only the last two
# say so. ``.numpy()`` refuses a tensor that requires grad (``x.cpu()``
# first makes the message the same on every runner, see
# :ref:`numpy_requires_grad`); the advice of the message, ``detach()``,
# works, and the way back into torch starts a new history:
with expect_error(
    RuntimeError,
    match=r"^Can't call numpy\(\) on Tensor that requires grad\. "
    r"Use tensor\.detach\(\)\.numpy\(\) instead\.$",
):
    x.cpu().numpy()
x.grad = None
clipped = torch.from_numpy(np.clip(x.detach().cpu().numpy(), 0.0, 1.0)).to(device)
loss = (x**2).sum() + clipped.sum()
loss.backward()
check(clipped.requires_grad, False, label="clipped.requires_grad")
check(x.grad, [0.8, -2.6, 5.2], label="x.grad")
x.grad = None
loss = (x**2).sum() + torch.clamp(x, 0.0, 1.0).sum()
loss.backward()
check(x.grad, [0.8 + 1.0, -2.6, 5.2], label="x.grad with torch.clamp")

# %%
# The clipped values count in the loss's value but not in its gradient;
# the same computation in torch, ``torch.clamp``, adds 1 where ``x`` lies
# inside ``[0, 1]``. A tensor rebuilt from a ``float`` or an array is a new
# leaf, like those of :ref:`tensor_kinds`; ``requires_grad_()`` on it would
# start a new graph, still not connected to ``x``.
#
# Summary
# -------
# Each operation runs again on ``x``, and the table shows the dtype and
# ``grad_fn`` of its result, and the gradient that ``out.sum()`` sends to
# ``x`` (``no graph`` when ``out`` does not require grad). The warning of
# ``torch.tensor``, already shown above, is filtered here.
operations = {
    "x.argmax()": lambda: x.argmax(),
    "x > 0": lambda: x > 0,
    "x.long()": lambda: x.long(),
    "x.to(torch.int64)": lambda: x.to(torch.int64),
    "x.round()": lambda: x.round(),
    "x.floor()": lambda: x.floor(),
    "x.sign()": lambda: x.sign(),
    "torch.tensor([x[0], x[2]])": lambda: torch.tensor([x[0], x[2]], device=device),
    "torch.from_numpy(...)": lambda: torch.from_numpy(x.detach().cpu().numpy()).to(device),
    "torch.stack([x[0], x[2]])": lambda: torch.stack([x[0], x[2]]),
    "x + (x.round() - x).detach()": lambda: x + (x.round() - x).detach(),
    "torch.clamp(x, 0.0, 1.0)": lambda: torch.clamp(x, 0.0, 1.0),
}
rows = [("operation", "dtype", "grad_fn", "gradient of out.sum()")]
for name, operation in operations.items():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Converting a tensor with requires_grad=True to a scalar")
        out = operation()
    gradient = torch.autograd.grad(out.sum(), x)[0].tolist() if out.requires_grad else "no graph"
    grad_fn = out.grad_fn.name() if out.grad_fn is not None else "None"
    rows.append((name, str(out.dtype).removeprefix("torch."), grad_fn, str(gradient)))
widths = [max(len(row[i]) for row in rows) for i in range(4)]
for row in rows:
    print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
steps = ["RoundBackward0", "FloorBackward0", "SignBackward0"]
fixes = ["StackBackward0", "AddBackward0", "ClampBackward1"]
check([row[2] for row in rows[1:]], ["None"] * 4 + steps + ["None"] * 2 + fixes, label="grad_fn")
zeros, fixed = ["[0.0, 0.0, 0.0]"] * 3, ["[1.0, 0.0, 1.0]", "[1.0, 1.0, 1.0]", "[1.0, 0.0, 0.0]"]
check([row[3] for row in rows[1:]], ["no graph"] * 4 + zeros + ["no graph"] * 2 + fixed, label="gradient")

# %%
# Only a loss with no graph at all raises; every other row above the three
# fixes at the bottom trains silently with a missing or zero contribution. When a gradient is ``None`` or
# smaller than expected, look on the way from the leaf to the loss for an
# operation marked ``no graph``; when it is zero, for one whose gradient is
# zeros. :ref:`dynamic_control_flow` shows the other
# common reason for ``None``: a parameter that the branch taken did not
# use. :ref:`mental_model` explains why a graph only exists where recorded
# operations on tensors built it.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# every ``grad_fn``, gradient and message above is checked on the runner
# that built this page.
