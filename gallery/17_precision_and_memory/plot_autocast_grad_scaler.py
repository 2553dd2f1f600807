"""
.. _autocast_grad_scaler:

Autocast and gradient scaling
=============================

``torch.autocast`` runs some operations in a 16-bit float type and leaves
the others in float32; ``torch.amp.GradScaler`` multiplies the loss before
``backward()`` so that small float16 gradients do not round to zero. This
example checks which 16-bit type each device uses by default, which dtype
each step of a small forward pass gets, why a float16 gradient needs the
scale and a bfloat16 one does not, what
autograd saves and what lands in ``.grad``, then follows the scaler
through one training step: the scaled gradients, ``unscale_()`` before
clipping, a step that is skipped because a gradient is ``inf``, and the
error ``unscale_() has already been called on this optimizer since the last
update().``

.. questions::

   - Why do I need ``GradScaler`` with float16 but not bfloat16?
   - Should I unscale gradients before clipping with ``GradScaler``?
   - Why does ``GradScaler`` skip some optimizer steps?
   - Which operations run in float16 under ``torch.autocast``?
"""

# %%
# Which operations autocast lowers
# --------------------------------
# Inside ``torch.autocast(device_type=..., dtype=...)``, each operation
# looks up its name in per-device lists: matrix products such as ``linear``
# run in the low-precision type, losses such as ``mse_loss`` run in
# float32, and operations on neither list, such as ``relu``, run in the
# dtype of their inputs. Without ``dtype=``, autocast uses each device's
# default, which ``torch.get_autocast_dtype`` returns: float16 for CUDA,
# bfloat16 for the CPU. This page uses those defaults, bfloat16 on the CPU
# runner and float16 on a GPU runner. The parameters themselves stay
# float32.
import matplotlib.pyplot as plt
import torch
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

check(torch.get_autocast_dtype("cuda"), torch.float16, label='torch.get_autocast_dtype("cuda")')
check(torch.get_autocast_dtype("cpu"), torch.bfloat16, label='torch.get_autocast_dtype("cpu")')
low = torch.get_autocast_dtype(device.type)
print(f"low-precision dtype on this runner: {low}")

torch.manual_seed(0)
layer = nn.Linear(4, 2).to(device)
x = torch.randn(8, 4, device=device)
target = torch.randn(8, 2, device=device)

with torch.autocast(device_type=device.type, dtype=low):
    out = layer(x)
    act = torch.relu(out)
    loss = nn.functional.mse_loss(act, target)
    doubled = x * 2
    exp_out = torch.exp(out)

check(out.dtype is low, True, label="out.dtype is low (linear)")
check(act.dtype is low, True, label="act.dtype is low (relu follows its input)")
check(loss.dtype, torch.float32, label="loss.dtype (mse_loss)")
check(doubled.dtype, torch.float32, label="doubled.dtype (x * 2, not on any list)")
check(layer.weight.dtype, torch.float32, label="layer.weight.dtype")
# exp is on the float32 list for CUDA, on no list for the CPU
check(exp_out.dtype, torch.float32 if device.type == "cuda" else low, label="exp_out.dtype")

# %%
# ``x * 2`` is on neither list and its input is float32, so it stays
# float32: autocast does not lower everything, only what it knows to be
# safe and fast. ``mse_loss`` is on the float32 list: it takes the 16-bit
# ``act`` and computes the loss in float32. The lists are not the same on
# every device: for CUDA, ``exp``, ``log``, ``softmax`` and ``layer_norm``
# run in float32; for the CPU they are on no list, so ``torch.exp(out)``
# stays bfloat16 on the CPU runner and is float32 on a GPU (the check
# above states both; the CUDA record, PyTorch 2.11.0 on an H200, agreed).
#
# What autograd records and saves
# -------------------------------
# The casts are operations like any other, so they are in the graph:
graph = autograd_graph(
    loss,
    names={"layer.weight": layer.weight, "layer.bias": layer.bias, "out": out, "act": act, "loss": loss},
)
check(
    [node.drawn_title for node in graph.nodes],
    [
        "MseLossBackward0 (loss)",
        "ToCopyBackward0",
        "ReluBackward0 (act)",
        "AddmmBackward0 (out)",
        "ToCopyBackward0",
        "TBackward0",
        "ToCopyBackward0",
        "AccumulateGrad (layer.bias)",
        "AccumulateGrad (layer.weight)",
    ],
    label="the nodes of the graph",
)
check(out.grad_fn._saved_mat1.dtype is low, True, label="what AddmmBackward0 saved of x is low")
print("bytes per element of what it saved:", out.grad_fn._saved_mat1.element_size())
check(loss.grad_fn._saved_self.dtype, torch.float32, label="what MseLossBackward0 saved of act")
draw_graph(graph, title="loss = mse_loss(relu(layer(x)), target)")
plt.show()

# %%
# From ``MseLossBackward0 (loss)`` at the top, which saved its float32
# ``self`` and ``target`` (``[8, 2]``), a ``ToCopyBackward0`` leads to
# ``ReluBackward0 (act)``, then to ``AddmmBackward0 (out)``, which saved
# ``mat1 [8, 4]``. Below it, the bias goes through one ``ToCopyBackward0``
# and the weight through ``TBackward0`` and another ``ToCopyBackward0`` to
# the two ``AccumulateGrad`` leaves at the bottom.
#
# Each ``ToCopyBackward0`` is a cast that autocast inserted: the weight and
# the bias were copied to the low-precision type before the product, and
# ``act`` was copied back to float32 for the loss. ``mat1`` is the 16-bit
# copy of ``x`` (``x`` does not require grad, so its cast has no node), 2
# bytes per element instead of 4: that is how autocast halves the memory of
# activations that only the graph keeps. ``x`` itself stays alive here, so
# its copy adds memory (without autocast, ``AddmmBackward0`` would save
# ``x`` itself). In backward, each cast converts the
# gradient back to the dtype of its input, so the parameters' gradients
# arrive in float32 while the gradient of ``out`` is 16-bit:
out.retain_grad()
loss.backward()
check(layer.weight.grad.dtype, torch.float32, label="layer.weight.grad.dtype")
check(layer.bias.grad.dtype, torch.float32, label="layer.bias.grad.dtype")
check(out.grad.dtype is low, True, label="out.grad.dtype is low")
saved_without_autocast = layer(x).grad_fn._saved_mat1
check(saved_without_autocast.data_ptr() == x.data_ptr(), True, label="without autocast, mat1 is x's memory")

# %%
# Why float16 gradients need a scale
# ----------------------------------
# float16 has 5 exponent bits: its smallest positive value is about :math:`6 \cdot 10^{-8}`
# (a subnormal; the smallest normal one, printed below, is about :math:`6.1 \cdot 10^{-5}`), and
# anything much smaller rounds to zero. Gradients of activations deep in a network can be that
# small, and a gradient that rounds to zero no longer updates anything. Multiplying
# the loss by :math:`2^{16}` multiplies every gradient by the same factor
# (backward is linear in it), which moves them into range. bfloat16 has the
# 8 exponent bits of float32 (its smallest normal value is about
# :math:`1.2 \cdot 10^{-38}`, as for float32) and does not need this.
small = torch.tensor([1e-8, 1e-8 * 2**16], device=device)
print("small.to(torch.float16): ", ", ".join(f"{v:.4g}" for v in small.to(torch.float16).tolist()))
print("small.to(torch.bfloat16):", ", ".join(f"{v:.4g}" for v in small.to(torch.bfloat16).tolist()))
bf16, f16, f32 = torch.finfo(torch.bfloat16), torch.finfo(torch.float16), torch.finfo(torch.float32)
print(f"smallest normal value: bfloat16 {bf16.tiny:.4g}, float16 {f16.tiny:.4g}, float32 {f32.tiny:.4g}")
print(f"eps: bfloat16 {bf16.eps} (2**-7), float16 {f16.eps} (2**-10)")

# %%
# The same happens to a gradient inside backward. ``tiny_gradient`` casts a
# float32 leaf to a 16-bit type, as autocast does before a matrix product,
# multiplies it by :math:`10^{-4}` there, and returns to float32 for a loss
# that multiplies by :math:`10^{-4}` again. The gradient that reaches the
# 16-bit product is :math:`10^{-4}`, and the one it passes back to the leaf
# is :math:`10^{-8}`, computed in the 16-bit type. ``scale`` multiplies the
# loss as ``GradScaler`` does, and the leaf's gradient is divided by it
# afterwards, as ``unscale_()`` does:


def tiny_gradient(dtype, scale):
    leaf = torch.ones(2, device=device, requires_grad=True)
    product = leaf.to(dtype) * 1e-4
    loss = (product.float() * 1e-4).sum()
    (loss * scale).backward()
    return leaf.grad / scale


check(tiny_gradient(torch.float16, 1.0), [0.0, 0.0], label="float16, no scale")
check(tiny_gradient(torch.float16, 2.0**16), [1e-8, 1e-8], label="float16, scale 2**16", rtol=1e-2, atol=0.0)
check(tiny_gradient(torch.bfloat16, 1.0), [1e-8, 1e-8], label="bfloat16, no scale", rtol=1e-2, atol=0.0)

# %%
# In float16 the gradient :math:`10^{-8}` becomes exactly 0: the leaf would
# never move. Scaled by :math:`2^{16}`, the same product gives
# :math:`6.6 \cdot 10^{-4}`, well inside float16's range, and unscaling in
# float32 recovers :math:`10^{-8}` to about three digits. bfloat16 keeps
# :math:`10^{-8}` without any scale, with fewer digits (8 significant bits
# against float16's 11). That is why ``GradScaler`` belongs with float16,
# CUDA's default. GPUs from the Ampere generation on (A100, RTX 30 series
# and newer) run bfloat16 as fast as float16, and bfloat16 training there
# commonly runs without a scaler, trading the underflow for coarser
# rounding; on the CPU, bfloat16 is the default anyway.

# %%
# ``GradScaler`` multiplies the loss
# ----------------------------------
# ``torch.amp.GradScaler(device.type)`` exists for the CPU too (since
# PyTorch 2.3). Its scale starts at :math:`2^{16} = 65536`. The model
# here is one float32 parameter ``w``, starting at zero, and a loss
# ``(w * c).sum()`` whose gradient is ``c = [3, 4]``, so the numbers below
# are the same on every runner.
w = nn.Parameter(torch.zeros(2, device=device))
c = torch.tensor([3.0, 4.0], device=device)
optimizer = torch.optim.SGD([w], lr=0.1)
scaler = torch.amp.GradScaler(device.type)
check(scaler.is_enabled(), True, label="scaler.is_enabled()")
check(scaler.get_scale(), 65536.0, label="scaler.get_scale()")

loss = (w * c).sum()
scaler.scale(loss).backward()
check(w.grad, [3.0 * 65536, 4.0 * 65536], label="w.grad after scaler.scale(loss).backward()")

# %%
# ``.grad`` holds 65536 times the true gradient ``[3, 4]``. Anything that
# reads it before the scaler divides it back sees the scaled values.
# ``enabled=False`` turns the scaler into a pass-through, so the same loop
# runs without scaling (on bfloat16, say): ``scale()`` returns the loss
# itself.
off = torch.amp.GradScaler(device.type, enabled=False)
check(off.scale(loss) is loss, True, label="off.scale(loss) is loss")
check(off.get_scale(), 1.0, label="off.get_scale()")

# %%
# Unscale before clipping
# -----------------------
# Clipping compares the gradients' norm with a threshold that is meant for
# the true gradients. The true norm here is 5, below ``max_norm=10``, so
# clipping should change nothing. Clipping the scaled gradients sees a norm
# of :math:`5 \cdot 65536` and scales them down to norm 10; the scaler
# then divides by 65536, and the optimizer steps with gradients of norm
# :math:`10 / 65536` instead of 5:
max_norm = 10.0
norm_scaled = nn.utils.clip_grad_norm_([w], max_norm)
check(norm_scaled, 327680.0, label="norm seen when clipping the scaled gradients")
check(w.grad, [6.0, 8.0], label="w.grad after clipping the scaled gradients")
scaler.step(optimizer)  # unscales what clipping left, then steps
scaler.update()
check(w.detach(), [-0.1 * 6 / 65536, -0.1 * 8 / 65536], label="w after the wrong order")

# %%
# ``scaler.unscale_(optimizer)`` divides the gradients of that optimizer's
# parameters in place; then clipping sees the true norm, and ``step()`` does
# not divide a second time:
w = nn.Parameter(torch.zeros(2, device=device))
optimizer = torch.optim.SGD([w], lr=0.1)
scaler = torch.amp.GradScaler(device.type)
scaler.scale((w * c).sum()).backward()
scaler.unscale_(optimizer)
check(w.grad, [3.0, 4.0], label="w.grad after scaler.unscale_(optimizer)")
norm_true = nn.utils.clip_grad_norm_([w], max_norm)
check(norm_true, 5.0, label="norm seen after unscale_")
check(w.grad, [3.0, 4.0], label="w.grad after clipping (below max_norm)")

# %%
# The scaler remembers that this optimizer's gradients are unscaled until
# the next ``update()``; a second ``unscale_()`` would divide them again,
# so it raises:
with expect_error(
    RuntimeError,
    match=r"^unscale_\(\) has already been called on this optimizer since the last update\(\)\.$",
):
    scaler.unscale_(optimizer)
scaler.step(optimizer)
scaler.update()
check(w.detach(), [-0.3, -0.4], label="w after the right order")

# %%
# A step with ``inf`` is skipped
# ------------------------------
# With float16, a scale that is too large makes some gradients overflow to
# ``inf``. ``unscale_()`` (called by ``step()`` if the code did not) looks
# for ``inf`` and ``nan`` in the gradients; if it finds any, ``step()``
# does not call the optimizer, and ``update()`` halves the scale. After
# ``growth_interval`` steps in a row without one, ``update()`` doubles it.
# Here the loop runs 8 steps with ``growth_interval=2``, and the batches of
# steps 3 and 4 contain an ``inf``:
w = nn.Parameter(torch.zeros(2, device=device))
optimizer = torch.optim.SGD([w], lr=0.1)
scaler = torch.amp.GradScaler(device.type, growth_interval=2)
scales, w0 = [], []
for step in range(1, 9):
    optimizer.zero_grad()
    batch = torch.tensor([float("inf") if step in (3, 4) else 3.0, 4.0], device=device)
    scaler.scale((w * batch).sum()).backward()
    scaler.step(optimizer)
    scaler.update()
    scales.append(scaler.get_scale())
    w0.append(round(w[0].item(), 4))
check(scales, [65536.0, 131072.0, 65536.0, 32768.0, 32768.0, 65536.0, 65536.0, 131072.0], label="scales")
check(w0, [-0.3, -0.6, -0.6, -0.6, -0.9, -1.2, -1.5, -1.8], label="w[0] after each step", atol=1e-4, rtol=0.0)
draw_series(
    {"scaler.get_scale()": scales},
    xlabel="step",
    log=True,
    steps=True,
    title="scaler = torch.amp.GradScaler(device.type, growth_interval=2)",
)
plt.show()

# %%
# The scale after each of the 8 steps, on a logarithmic axis, as a
# staircase: 65536 after step 1, 131072 after step 2 (two good steps in a
# row), then 65536 and 32768 after the two steps with ``inf``, 32768 after
# step 5, 65536 after step 6, 65536 after step 7 and 131072 after step 8.
#
# ``w[0]`` moves by ``-0.1 · 3`` (the learning rate times the gradient 3)
# at every good step and does not move at
# steps 3 and 4: the optimizer never saw those gradients. A loss curve with
# a few skipped steps at the start of float16 training is this mechanism
# finding a scale that fits, not a bug. Clipping follows the same order on
# any runner, and what ``clip_grad_norm_`` returns is the subject of
# :ref:`gradient_clipping`; the bfloat16 rounding that autocast adds to a
# forward pass is one more source of the differences shown in
# :ref:`float_differences`.
#
# On a GPU the low-precision type is float16, and the checks of the first
# cells compare against it; the scaler cells run in float32, and the CUDA
# record (PyTorch 2.11.0, an H200) printed the same numbers as here.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the dtypes, the scale and the error message are checked on the runner
# that built this page, and in the CUDA record of PyTorch 2.11.0.
