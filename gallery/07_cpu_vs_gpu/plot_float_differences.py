"""
.. _float_differences:

Float32 on CPU and GPU
======================

The same float32 gradient computed on a CPU and on a GPU usually differs in
its last bits: the two add the same products in different orders, with
different instructions, and neither gives the exact result. This example
compares float32 gradients with a float64 reference using tolerances, never
equality, and shows the setting that makes a GPU differ by much more than
the last bits: TensorFloat-32 (TF32) in matrix multiplications, off by
default since PyTorch 1.12 and turned on by
``torch.set_float32_matmul_precision("high")``.
"""

# %%
# One gradient, three ways
# ------------------------
# The gradient of ``tanh(inputs @ weights).sum()`` with respect to
# ``weights``, for 256×256 matrices, is computed in float64 on the CPU (the
# reference), in float32 on the runner's device, and in float32 on the CPU.
# The inputs are made once, on the CPU, so all three start from the same
# numbers.
import torch

from autograd_notes import check, runner_device

# sphinx_gallery_thumbnail_number = 1
torch.manual_seed(0)
device = runner_device()
print(f"runner device: {device.type}")

size = 256
inputs = torch.randn(size, size)
start = torch.randn(size, size) / size**0.5


def weight_gradient(dtype, on):
    """The gradient with respect to the weights, computed in ``dtype`` on device ``on``."""
    weights = start.to(device=on, dtype=dtype, copy=True).requires_grad_()
    torch.tanh(inputs.to(device=on, dtype=dtype) @ weights).sum().backward()
    return weights.grad


def relative_error(gradient, reference):
    """Largest absolute difference, relative to the largest value of ``reference``."""
    return ((gradient.cpu().double() - reference).abs().max() / reference.abs().max()).item()


reference = weight_gradient(torch.float64, "cpu")
on_runner = weight_gradient(torch.float32, device)
on_cpu = weight_gradient(torch.float32, "cpu")

# The errors themselves vary with the machine's kernels: the page (and its
# records) show whether they are within the bound, not their digits.
check(relative_error(on_runner, reference) <= 1e-5, True, label="relative error on the runner at most 1e-5")
check(relative_error(on_cpu, reference) <= 1e-5, True, label="relative error on the CPU at most 1e-5")
if device.type != "cuda":
    # not checked (nor printed) on a GPU: which bits differ depends on the GPU and its kernels
    check(torch.equal(on_runner.cpu(), on_cpu), True, label="runner and CPU gradients bitwise identical")

# %%
# Both float32 gradients are within about a millionth of the largest
# gradient value (the checks allow up to 1e-5), so they agree with the
# float64 reference, and with each other, to about six significant digits.
# On a CPU runner the "runner" gradient *is* a CPU gradient, computed by the
# same code, and the two are bitwise identical. On a GPU runner they are
# close but usually not identical, and this page does not print which: it
# varies with the GPU and its libraries. Comparing them with ``==``, or with ``torch.equal``,
# makes a test that passes on one kind of runner and fails on the other;
# ``torch.testing.assert_close`` with tolerances passes on both.
#
# TF32: a setting, off by default for matmuls
# -------------------------------------------
# Since the Ampere generation, NVIDIA GPUs can multiply float32 matrices in
# TensorFloat-32: the inputs keep 10 of their 23 mantissa bits, and the
# products are added in float32. PyTorch turned this off by default for
# matrix multiplications in version 1.12, and kept it on for cuDNN
# convolutions. The flags exist in every build of PyTorch, so they are
# checked on every runner:
check(torch.backends.cuda.matmul.allow_tf32, False, label="torch.backends.cuda.matmul.allow_tf32")
check(torch.get_float32_matmul_precision(), "highest", label="torch.get_float32_matmul_precision()")
check(torch.backends.cudnn.allow_tf32, True, label="torch.backends.cudnn.allow_tf32")

# %%
# ``torch.set_float32_matmul_precision("high")`` allows TF32 in float32
# matrix multiplications, and sets ``allow_tf32`` with it. The gradient is
# computed again on the runner's device, and the precision is put back to
# its default right after: it is a setting of the whole process, which any
# later code would inherit.
torch.set_float32_matmul_precision("high")
check(torch.backends.cuda.matmul.allow_tf32, True, label="allow_tf32 with precision 'high'")
with_high = weight_gradient(torch.float32, device)
torch.set_float32_matmul_precision("highest")
check(torch.get_float32_matmul_precision(), "highest", label="precision restored")
check(torch.backends.cuda.matmul.allow_tf32, False, label="allow_tf32 restored")

check(relative_error(with_high, reference) <= 1e-2, True, label="relative error with 'high' at most 1e-2")

# %%
# The three float32 gradients against the reference, element by element:
# one in every 257 of the 65 536 elements of each.
import matplotlib.pyplot as plt

from autograd_notes import draw_spread


def relative_errors(gradient):
    """Each sampled element's distance from the reference, relative to the largest reference value."""
    return ((gradient.cpu().double() - reference).abs() / reference.abs().max()).flatten()[::257].tolist()


errors = {
    "on_runner": relative_errors(on_runner),
    "on_cpu": relative_errors(on_cpu),
    "with_high": relative_errors(with_high),
}
draw_spread(errors, xlabel="(gradient - reference).abs() / reference.abs().max()", log=True)
plt.show()

# %%
# One row per gradient, one dot per sampled element, on a logarithmic
# axis: how far the element is from the float64 reference, as a fraction
# of the largest reference value; an element equal to the reference would
# sit at the left edge. On a CPU runner ``on_runner`` and ``on_cpu`` are
# one and the same cloud, within the 1e-5 checked above (they are the same
# computation, bitwise identical as checked), and ``with_high`` is that
# cloud too unless the processor multiplies in reduced precision (see
# below). On a GPU runner ``on_runner`` and ``on_cpu`` are two clouds of
# about the same width whose dots differ, and ``with_high`` lies about a
# thousand times further right when the GPU uses TF32.
#
# On a GPU that supports TF32 (an A100, an H100 and later), "high" makes
# the matrix multiplications of the forward and the backward pass use it,
# and the relative error grows from about 1e-7 to roughly 1e-4 to 1e-3:
# still a good gradient for training, but far beyond the last bits, and
# beyond the default tolerances of ``assert_close`` for float32. The check
# only asserts the loose bound that holds on every runner (1e-2).
#
# On a CPU the setting is documented to change nothing: the docstring of
# ``torch.set_float32_matmul_precision`` says the flag "currently only
# affects one native device type: CUDA". Recent versions also hand the
# setting to oneDNN, the library behind some CPU matrix multiplications,
# which can use reduced precision on recent x86 processors with the
# instructions for it; so nothing here claims that "high" and "highest"
# give the same bits on a CPU.
#
# Sources
# -------
# No source document: this example rebuilds no claim of the documents listed
# in :ref:`sources`. It documents runner differences that
# :ref:`pin_memory_empty` touches with ``pin_memory``. What it states about
# PyTorch comes from the docstring of ``torch.set_float32_matmul_precision``
# (what "highest", "high" and "medium" allow, that "highest" is the default,
# and that the flag is equivalent to ``torch.backends.cuda.matmul.allow_tf32``),
# and from PyTorch's CUDA notes on TF32 (off by default for matrix
# multiplications since 1.12, on for cuDNN convolutions).
