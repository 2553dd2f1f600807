"""
.. _float_differences:

Float32 gradients on CPU and GPU
================================

A float32 gradient is rarely exact, and two correct ways of computing it
rarely agree in every bit: summing a batch's contributions in another
order, or on another device, changes the last bits. This example computes
one weight gradient in several ways, compares each with a float64
reference using tolerances, never equality, and shows the setting that
makes a GPU differ by much more than the last bits: TensorFloat-32 (TF32)
in matrix multiplications, set today with
``torch.backends.cuda.matmul.fp32_precision``, and the error PyTorch raises
when code mixes that setting with the older ``allow_tf32`` flags.

.. questions::

   - Why do CPU and GPU gradients differ in the last digits?
   - How should I compare float32 gradients in a test?
   - Does TF32 change my gradients on an A100 or H100?
   - Why does reading ``allow_tf32`` raise an error about legacy APIs?
"""

# %%
# One gradient, three ways
# ------------------------
# The gradient of ``tanh(inputs @ weights).sum()`` with respect to
# ``weights``, for 256×256 matrices, is computed in float64 on the CPU (the
# reference), in float32 on the runner's device in one batch, and in float32
# on the runner's device as the sum of four micro-batches of 64 rows, as
# gradient accumulation computes it. The inputs are made once, on the CPU,
# so all three start from the same numbers.
import math

import torch

from autograd_notes import check, expect_error, runner_device, runner_info

# sphinx_gallery_thumbnail_number = 1
torch.manual_seed(0)
device = runner_device()
print(f"runner device: {device.type}")

size = 256
inputs = torch.randn(size, size)
start = torch.randn(size, size) / size**0.5


def weight_gradient(dtype, on, micro_batches=1):
    """The gradient with respect to the weights, in ``dtype`` on ``on``, summed over micro-batches."""
    weights = start.to(device=on, dtype=dtype, copy=True).requires_grad_()
    for rows in inputs.to(device=on, dtype=dtype).chunk(micro_batches):
        torch.tanh(rows @ weights).sum().backward()
    return weights.grad


def relative_error(gradient, reference):
    """Largest absolute difference, relative to the largest value of ``reference``."""
    return ((gradient.cpu().double() - reference).abs().max() / reference.abs().max()).item()


reference = weight_gradient(torch.float64, "cpu")
one_batch = weight_gradient(torch.float32, device)
four_parts = weight_gradient(torch.float32, device, micro_batches=4)

# The errors themselves vary with the machine's kernels: the page (and its
# records) show whether they are within the bound, not their digits.
check(relative_error(one_batch, reference) <= 1e-5, True, label="relative error, one batch, at most 1e-5")
check(relative_error(four_parts, reference) <= 1e-5, True, label="relative error, four parts, at most 1e-5")
RECORDED = {"x86_64": False, "NVIDIA H200": True}  # what was recorded: x86_64 CPUs, an H200
identical, machine = torch.equal(one_batch, four_parts), runner_info().device_name
if machine in RECORDED:
    check(identical, RECORDED[machine], label="one batch and four parts bitwise identical")
else:  # another CPU or GPU: what it does is printed, not judged
    print(f"one batch and four parts bitwise identical on {machine}: {identical}")
# (checked there only, every x86_64 CPU included: the kernels decide; others may round either way)
scale = one_batch.abs().max().item()
check(round(scale), 55, label="largest gradient entry, rounded")
torch.testing.assert_close(four_parts, one_batch, rtol=1e-5, atol=1e-5 * scale)
print("torch.testing.assert_close(four_parts, one_batch, rtol=1e-5, atol=1e-5 * scale): passed")

# %%
# Both float32 gradients are within about a millionth of the largest
# gradient value of the reference (the checks allow up to 1e-5): they agree
# with it, and with each other, to about six significant digits. Yet on
# the CPU runner they are not equal, on the same device and with the same
# inputs. The gradient of the weights sums one contribution per input row:
# in one batch a single matrix multiplication adds all 256 inside its
# kernel, while the micro-batches round four partial sums to float32 and
# add them into ``.grad``. Rounding depends on the order of the additions,
# so the last bits differ. The CUDA record (PyTorch 2.11.0, an NVIDIA H200)
# showed them bitwise identical there: its kernel happened to add in an
# order that rounds alike. Which orders agree depends on the kernels, so a
# gradient computed on a CPU and on a GPU usually differs in the last bits. A test that
# compares gradients with ``==`` or ``torch.equal`` fails on such a change,
# however correct. ``torch.testing.assert_close`` passes with a tolerance
# scaled to the gradient, as here; its float32 defaults (an absolute 1e-5,
# a relative 1.3e-6) suit values near 1 and can fail on a gradient that sums
# hundreds of terms, like this one, whose largest entry is 55.
#
# TF32: a setting of matrix multiplications
# -----------------------------------------
# Since the Ampere generation, NVIDIA GPUs can multiply float32 matrices in
# TensorFloat-32: the inputs keep 10 of their 23 mantissa bits, and the
# products are added in float32. PyTorch keeps it off by default for
# matrix multiplications (since version 1.12), and on for cuDNN
# convolutions. Since PyTorch 2.9 the setting is ``fp32_precision`` on each
# backend: ``"ieee"`` for full float32, ``"tf32"``, or ``"none"`` to follow
# the level above. The attributes exist in every build, so their defaults are
# checked on every runner:
check(torch.backends.cuda.matmul.fp32_precision, "none", label="torch.backends.cuda.matmul.fp32_precision")
check(torch.backends.cudnn.conv.fp32_precision, "tf32", label="torch.backends.cudnn.conv.fp32_precision")
check(torch.get_float32_matmul_precision(), "highest", label="torch.get_float32_matmul_precision()")

# %%
# ``"none"`` on ``cuda.matmul`` follows the CUDA backends' shared setting,
# ``torch.backends.cudnn.fp32_precision`` (so ``"tf32"`` set there reaches matrix multiplications
# too), then ``torch.backends.fp32_precision``: both ``"none"``, so the legacy default, full
# float32. Setting ``"tf32"`` allows TF32 in every float32 matrix multiplication on a CUDA device,
# those of the backward pass included. The gradient is computed again on the runner's device, and
# the setting is put back right after: it belongs to the whole process, and later code inherits it.
torch.backends.cuda.matmul.fp32_precision = "tf32"
with_tf32 = weight_gradient(torch.float32, device)
torch.backends.cuda.matmul.fp32_precision = "none"
if device.type != "cpu":  # on a CPU, a check further down says more: the gradient is one_batch's
    check(relative_error(with_tf32, reference) <= 1e-2, True, label="relative error with 'tf32' at most 1e-2")
magnitude = math.floor(math.log10(relative_error(with_tf32, reference)))
print(f"relative error with 'tf32', order of magnitude: 1e{magnitude}")

# %%
# Mixing the two APIs
# -------------------
# The legacy flags, ``torch.backends.cuda.matmul.allow_tf32`` and
# ``torch.set_float32_matmul_precision("high")``, still work, and write the
# new setting (``"high"`` sets ``cuda.matmul`` to ``"tf32"``). Code that sets
# the new attribute to allow TF32 and then reads a legacy flag, as an older library
# does, gets an error rather than an answer that could be wrong (with ``"ieee"`` they agree):
torch.backends.cuda.matmul.fp32_precision = "tf32"
with expect_error(
    RuntimeError,
    match=r"^PyTorch is checking whether allow_tf32_new is enabled for cuBlas matmul,Current status "
    r"indicate that you have used mix of the legacy and new APIs to set the TF32 status for cublas "
    r"matmul\. We suggest only using the new API to set the TF32 flag\.",
):
    torch.backends.cuda.matmul.allow_tf32
torch.backends.cuda.matmul.fp32_precision = "none"
check(torch.backends.cuda.matmul.allow_tf32, False, label="allow_tf32 after going back to 'none'")

torch.set_float32_matmul_precision("high")
check(torch.backends.cuda.matmul.fp32_precision, "tf32", label="fp32_precision after precision 'high'")
torch.set_float32_matmul_precision("highest")
torch.backends.cuda.matmul.fp32_precision = "none"

# %%
# The three float32 gradients against the reference, element by element:
# one in every 257 of the 65 536 elements of each.
import matplotlib.pyplot as plt

from autograd_notes import draw_spread


def relative_errors(gradient):
    """Each sampled element's distance from the reference, relative to the largest reference value."""
    return ((gradient.cpu().double() - reference).abs() / reference.abs().max()).flatten()[::257].tolist()


errors = {
    "one_batch": relative_errors(one_batch),
    "four_parts": relative_errors(four_parts),
    "with_tf32": relative_errors(with_tf32),
}
draw_spread(errors, xlabel="(gradient - reference).abs() / reference.abs().max()", log=True)
plt.show()

# %%
# One row per gradient, one dot per sampled element, on a logarithmic
# axis: how far the element is from the float64 reference, as a fraction
# of the largest reference value; an element equal to the reference would
# sit at the left edge. On a CPU runner ``one_batch`` and ``four_parts`` are two
# clouds of the same width, mostly below 1e-7, whose dots sit in different places (the
# same accuracy, other last bits; in the H200's record they coincided). On a CPU ``with_tf32`` is the
# ``one_batch`` cloud again, since ``cuda.matmul`` governs only CUDA
# devices. On a GPU that uses TF32 its largest error was of order 1e-4 in the CUDA record
# of PyTorch 2.11.0 (an H200): a thousand times the CPU's largest, about 1e-7.
#
# On a GPU that supports TF32 (an A100, an H100 and later), ``"tf32"`` makes
# the matrix multiplications of the forward and the backward pass use it,
# and the largest relative error of the gradient grew from the CPU's 1e-7 to the order of 1e-4 in the
# CUDA record: still a good gradient for training, but far beyond the last
# bits, and beyond the default tolerances of ``assert_close`` for float32.
# On a GPU the check above asserts only a loose bound (1e-2).
# The CPU has settings of its own, ``torch.backends.mkldnn.matmul.fp32_precision``
# (``"bf16"`` or ``"tf32"`` where the processor has the instructions):
# the CUDA setting changes nothing there, as this check shows on a CPU runner.
if device.type == "cpu":
    check(torch.equal(with_tf32, one_batch), True, label="with_tf32 and one_batch bitwise identical on a CPU")

# %%
# Sources
# -------
# No source document: this example rebuilds no claim of the documents listed
# in :ref:`sources`. Like the example
# :ref:`pin_memory_empty`, it documents differences between runners. What it states about
# PyTorch comes from PyTorch's CUDA notes on TF32 (off by default for matrix
# multiplications since 1.12, on for cuDNN convolutions, the
# ``fp32_precision`` settings and the warning against mixing them with the
# legacy flags), and from the docstring of
# ``torch.set_float32_matmul_precision``; every default and message is
# checked on the runner that built this page.
