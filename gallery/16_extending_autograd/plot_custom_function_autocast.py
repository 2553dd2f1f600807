"""
.. _custom_function_autocast:

Custom Functions under autocast
===============================

Inside ``torch.autocast``, the ``forward`` of a custom
``torch.autograd.Function`` runs its matrix products in a 16-bit type like
any other code. Its ``backward`` runs later, when ``backward()`` is called
after the ``with`` block, and there autocast is off: a 16-bit gradient
meets a float32 tensor saved in forward, and the matrix product in
``backward`` fails with "expected m1 and m2 to have the same dtype" (``mat1``
and ``mat2`` on a GPU). This example shows that failure, the fix with
``torch.amp.custom_fwd`` and ``torch.amp.custom_bwd``, what
``cast_inputs=torch.float32`` changes, the dtype of each tensor in forward and
in backward, and why the decorators need a ``forward`` that takes ``ctx``.

.. questions::

   - Why does my custom Function fail under autocast with ``expected m1 and m2 to have the same dtype``?
   - How do I use ``torch.amp.custom_fwd`` and ``custom_bwd`` in a custom autograd Function?
   - Should I pass ``cast_inputs=torch.float32`` to ``custom_fwd``?
   - Why does ``custom_bwd`` say my backward node has no ``_fwd_used_autocast``?
"""

# %%
# A Function without the decorators
# ---------------------------------
# ``MatMul`` is a matrix product with its gradient written by hand, in the
# style that passes ``ctx`` to ``forward``. Both its methods call
# ``record``, which notes whether autocast is on at that moment and the
# dtype of each tensor there. The page uses bfloat16 on the CPU runner and
# float16, CUDA's usual choice, on a GPU runner. ``x`` and ``w`` are
# float32 leaves, and the loss is built inside the ``with`` block and
# differentiated after it, as in PyTorch's mixed-precision examples.
import torch

from autograd_notes import check, draw_matrix, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
low = torch.bfloat16 if device.type == "cpu" else torch.float16
LOW = str(low).removeprefix("torch.")  # "bfloat16" or "float16", in the expected lists below
print(f"autocast dtype on this runner: {low}")

seen = {}  # what forward and backward saw, by step


def record(step, **tensors):
    """Note under ``step`` whether autocast is on here, then each tensor's dtype."""
    on = "on" if torch.is_autocast_enabled(device.type) else "off"
    names = [f"{name} {str(t.dtype).removeprefix('torch.')}" for name, t in tensors.items()]
    seen[step] = [f"autocast {on}", *names]


def mm_forward(ctx, a, b):
    ctx.save_for_backward(a, b)
    out = a.mm(b)
    record("forward", a=a, b=b, out=out)
    return out


def mm_backward(ctx, grad_out):
    a, b = ctx.saved_tensors
    record("backward", grad_out=grad_out, a=a, b=b)
    grad_a, grad_b = grad_out.mm(b.t()), a.t().mm(grad_out)
    record("returned", grad_a=grad_a, grad_b=grad_b)
    return grad_a, grad_b


class MatMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return mm_forward(ctx, a, b)

    @staticmethod
    def backward(ctx, grad_out):
        return mm_backward(ctx, grad_out)


def run(function):
    """x, w as leaves; the loss under autocast, backward() after the block."""
    seen.clear()
    x = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], device=device, requires_grad=True)
    w = torch.tensor([[0.7, -0.2], [0.3, 0.9], [-0.5, 0.1]], device=device, requires_grad=True)
    with torch.autocast(device_type=device.type, dtype=low):
        y = function.apply(x, w)
        loss = y.sum()
    return x, w, y, loss


def summary(x):
    """For the figure: autocast on in forward, in backward; x.grad set (1 = yes)."""
    steps = [seen["forward"][0], seen["backward"][0]]
    return [float(step == "autocast on") for step in steps] + [float(x.grad is not None)]


figure_rows = {}  # one per class, for the figure
x, w, y, loss = run(MatMul)
check(seen["forward"], ["autocast on", "a float32", "b float32", f"out {LOW}"], label="MatMul, in forward")
check(y.grad_fn, "MatMulBackward", label="y.grad_fn")
with expect_error(
    RuntimeError,
    match=r"^expected m(at)?1 and m(at)?2 to have the same dtype, but got: c10::(BFloat16|Half) != float$",
):
    loss.backward()
check(
    seen["backward"],
    ["autocast off", f"grad_out {LOW}", "a float32", "b float32"],
    label="MatMul, in backward",
)
check([x.grad, w.grad], [None, None], label="[x.grad, w.grad]")
figure_rows["MatMul"] = summary(x)

# %%
# In ``forward`` autocast was on, so ``a.mm(b)`` cast both float32 inputs
# to 16 bits and returned a 16-bit ``out``. ``save_for_backward`` had kept
# the inputs as they came, in float32. ``backward()`` ran after the block:
# autocast was off, the gradient of ``out`` arrived in ``out``'s dtype,
# and ``grad_out.mm(b.t())`` met a 16-bit and a float32 matrix. Neither
# gradient reached ``x`` or ``w``.
#
# A built-in product does not fail this way. Autocast's casts are
# operations like any other, so around a built-in ``mm`` they are recorded
# as nodes, and ``MmBackward0`` saves the 16-bit copies:
with torch.autocast(device_type=device.type, dtype=low):
    y_builtin = x.mm(w)
inputs = [next_node.name() for next_node, _ in y_builtin.grad_fn.next_functions]
check(inputs, ["ToCopyBackward0", "ToCopyBackward0"], label="MmBackward0's inputs")
check(y_builtin.grad_fn._saved_mat2.dtype is low, True, label="what MmBackward0 saved of w is low")
leaves = [next_node.variable for next_node, _ in y.grad_fn.next_functions]
check([leaves[0] is x, leaves[1] is w], [True, True], label="MatMulBackward leads to [x, w] themselves")

# %%
# ``apply`` runs ``forward`` without recording its operations, so the
# casts inside it leave no node: ``MatMulBackward`` leads straight to the
# two float32 leaves, and its ``backward`` gets the float32 tensors it
# saved. Nothing tells it that ``forward`` ran under autocast.
#
# The fix: ``custom_fwd`` and ``custom_bwd``
# ------------------------------------------
# ``@torch.amp.custom_fwd(device_type=...)`` on ``forward`` notes on
# ``ctx`` whether autocast was on and with which dtype;
# ``@torch.amp.custom_bwd(device_type=...)`` on ``backward`` runs it in
# that same autocast state. The device type is ``device.type``, so the
# same class works on either runner. Each goes under ``@staticmethod``:


class MatMulAmp(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type=device.type)
    def forward(ctx, a, b):
        return mm_forward(ctx, a, b)

    @staticmethod
    @torch.amp.custom_bwd(device_type=device.type)
    def backward(ctx, grad_out):
        return mm_backward(ctx, grad_out)


x, w, y, loss = run(MatMulAmp)
loss.backward()
check(seen["forward"], ["autocast on", "a float32", "b float32", f"out {LOW}"], label="MatMulAmp, in forward")
check(seen["backward"], ["autocast on", f"grad_out {LOW}", "a float32", "b float32"], label="in backward")
check(seen["returned"], ["autocast on", f"grad_a {LOW}", f"grad_b {LOW}"], label="returned by backward")
check([x.grad.dtype, w.grad.dtype], [torch.float32, torch.float32], label="[x.grad.dtype, w.grad.dtype]")
figure_rows["MatMulAmp"] = summary(x)

# %%
# ``backward`` now ran with autocast on: ``grad_out.mm(b.t())`` cast
# ``b`` to 16 bits as the forward product did, and both gradients came out
# 16-bit. Autograd casts each gradient that ``backward`` returns to the
# dtype of its input, so ``x.grad`` and ``w.grad`` are float32, like the
# leaves.
#
# Their values went through 16 bits, though. The float32 reference is the
# same product without autocast, with built-in operations:
x_ref = x.detach().clone().requires_grad_()
w_ref = w.detach().clone().requires_grad_()
x_ref.mm(w_ref).sum().backward()
check(x_ref.grad, [[0.5, 1.2, -0.4], [0.5, 1.2, -0.4]], label="x_ref.grad (float32, no autocast)")
check(x.grad, x_ref.grad, label="x.grad (MatMulAmp)", rtol=2**-7, atol=0.0)
check(w.grad, w_ref.grad, label="w.grad (MatMulAmp)", rtol=2**-7, atol=0.0)
check(torch.equal(x.grad, x_ref.grad), False, label="x.grad equals x_ref.grad exactly")

x_builtin = x.detach().clone().requires_grad_()
w_builtin = w.detach().clone().requires_grad_()
with torch.autocast(device_type=device.type, dtype=low):
    loss_builtin = x_builtin.mm(w_builtin).sum()
loss_builtin.backward()
check(x.grad, x_builtin.grad, label="x.grad, as the built-in mm under autocast gives it")
check(w.grad, w_builtin.grad, label="w.grad, as the built-in mm under autocast gives it")

# %%
# The loss is a plain sum, so the gradient of ``x`` is each row sum of ``w``:
# ``[0.5, 1.2, -0.4]``. On the CPU runner, ``MatMulAmp`` gives ``1.2031`` for
# ``1.2``: ``w`` was rounded to 16 bits in ``backward``, and so was the product;
# in float16 the CUDA record (PyTorch 2.11.0, an H200) gave ``1.2002``. Hence
# the relative tolerance of :math:`2^{-7}`, the ``eps`` of bfloat16 (float16's is
# :math:`2^{-10}`). The built-in ``mm`` under autocast gives the same gradients,
# within the checks' tolerance (the CUDA record printed ``1.2002`` for both): with
# ``custom_bwd``, the hand-written ``backward`` rounds as the built-in one does.
#
# ``cast_inputs``: a Function that stays in float32
# -------------------------------------------------
# Some Functions need float32 inside, for accuracy or because their code
# only supports it. Called inside autocast, ``cast_inputs=torch.float32``
# casts the floating-point inputs to float32 and runs ``forward`` with autocast
# off (outside autocast it does nothing); ``custom_bwd`` then does the same for ``backward``:


class MatMulFloat32(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type=device.type, cast_inputs=torch.float32)
    def forward(ctx, a, b):
        return mm_forward(ctx, a, b)

    @staticmethod
    @torch.amp.custom_bwd(device_type=device.type)
    def backward(ctx, grad_out):
        return mm_backward(ctx, grad_out)


x, w, y, loss = run(MatMulFloat32)
loss.backward()
check(
    seen["forward"], ["autocast off", "a float32", "b float32", "out float32"], label="MatMulFloat32, forward"
)
check(seen["backward"], ["autocast off", "grad_out float32", "a float32", "b float32"], label="in backward")
check(seen["returned"], ["autocast off", "grad_a float32", "grad_b float32"], label="returned by backward")
check(x.grad, x_ref.grad, label="x.grad (MatMulFloat32)")
check(w.grad, w_ref.grad, label="w.grad (MatMulFloat32)")
figure_rows["MatMulFloat32"] = summary(x)

with torch.autocast(device_type=device.type, dtype=low):
    MatMulFloat32.apply(x.detach().to(low), w.detach())
check(seen["forward"][1], "a float32", label="a 16-bit a, as forward saw it")

# %%
# Everything stayed float32, even the output under autocast, and the
# gradients equal the float32 reference within ``check``'s default
# float32 tolerance. The last call passed a 16-bit ``a``, as an earlier
# autocast layer would hand it over: ``forward`` received it as float32.
# Choose ``cast_inputs=torch.float32`` for a Function that must compute in
# float32, and ``MatMulAmp``'s plain decorators for one whose products may
# run in 16 bits, as built-in ones do.
#
# Autocast, in forward and in backward
# ------------------------------------
# The three runs above, one row per class (``summary`` noted each): whether
# ``forward`` and ``backward`` ran with autocast on, and whether
# ``backward()`` set ``x.grad``.
import matplotlib.pyplot as plt

print("[autocast in forward, in backward, x.grad set]:", figure_rows)
figure = draw_matrix(
    list(figure_rows.values()),
    rows=list(figure_rows),
    columns=["forward", "backward", "x.grad"],
    title="autocast on in forward? in backward? x.grad set?",
)
figure.set_size_inches(5.0, figure.get_figheight())  # room for the title
plt.show()

# %%
# A blue ``1`` is yes, an uncoloured ``0`` is no. ``MatMul``'s row is
# ``1 0 0``: forward under autocast, backward without it, and no gradient.
# ``MatMulAmp``'s is ``1 1 1``: autocast in both, and a gradient.
# ``MatMulFloat32``'s is ``0 0 1``: autocast in neither, and a gradient.
# Both decorated classes give ``backward`` the autocast state of
# ``forward``; only the undecorated one splits them.
#
# The decorators need ``ctx`` in ``forward``
# ------------------------------------------
# :ref:`custom_function` writes ``forward`` without ``ctx`` and saves
# tensors in ``setup_context``. ``custom_fwd`` writes its notes on the
# first argument of ``forward``, whatever it is; here, that is the tensor
# ``a``:


class MatMulSplit(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type=device.type)
    def forward(a, b):
        return a.mm(b)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    @torch.amp.custom_bwd(device_type=device.type)
    def backward(ctx, grad_out):
        return mm_backward(ctx, grad_out)


x, w, y, loss = run(MatMulSplit)
check(hasattr(x, "_fwd_used_autocast"), True, label="the note is on x")
with expect_error(
    AttributeError, match=r"^'MatMulSplitBackward' object has no attribute '_fwd_used_autocast'$"
):
    loss.backward()

# %%
# ``custom_fwd`` set ``_fwd_used_autocast`` on ``x``, the first argument,
# and ``custom_bwd`` looked for it on ``ctx`` and did not find it. With the
# decorators, keep the older style: ``forward(ctx, ...)`` saving what
# ``backward`` needs, as ``MatMulAmp`` does. :ref:`autocast_grad_scaler`
# shows which operations autocast lowers, what the built-in nodes save, and
# the gradient scaler that float16 needs.
#
# On a GPU the autocast dtype is float16: the CUDA record (PyTorch 2.11.0, an H200) showed
# "expected mat1 and mat2 to have the same dtype, but got: c10::Half != float", where the CPU
# says ``m1``, ``m2`` and ``c10::BFloat16`` (the pattern above allows both).
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`).
# It rests on PyTorch's documentation of ``torch.amp.custom_fwd`` and
# ``torch.amp.custom_bwd``, and on the section about custom autograd
# Functions of its "Automatic Mixed Precision examples" page; every dtype,
# gradient and message above is checked on the runner that built this page.
