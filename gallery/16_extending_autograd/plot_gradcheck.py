"""
.. _gradcheck:

Checking a backward with gradcheck
==================================

A hand-written ``backward`` (see :ref:`custom_function`) can return a wrong
gradient without any error. ``torch.autograd.gradcheck`` compares it with
finite differences. This example shows it passing in float64, failing with
"Jacobian mismatch for output 0 with respect to input 0" on a backward that
forgets a transpose, how to read the two Jacobians it prints, why float32
makes even a correct backward fail, what ``gradgradcheck`` adds, and the
options ``fast_mode``, ``check_undefined_grad`` and ``nondet_tol``.

.. questions::

   - How do I check that my custom backward is correct?
   - How do I read ``gradcheck``'s ``Jacobian mismatch for output``?
   - Why does ``gradcheck`` in float32 warn ``is not a double precision floating point``?
   - What does ``gradgradcheck`` test that ``gradcheck`` does not?
"""

# %%
# A matrix-vector product, right and wrong
# ----------------------------------------
# ``MatVec`` computes :math:`y = Ax`. The vector-Jacobian product that
# ``backward`` must return is :math:`A^\top g`; ``WrongMatVec`` returns
# :math:`A g`, a mistake that shapes do not catch when :math:`A` is square.
import matplotlib.pyplot as plt
import torch
from torch.autograd import gradcheck, gradgradcheck
from torch.autograd.function import once_differentiable
from torch.autograd.gradcheck import GradcheckError

from autograd_notes import check, draw_matrix, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device(torch.float64)


class MatVec(torch.autograd.Function):
    @staticmethod
    def forward(x, matrix):
        return matrix @ x

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[1])

    @staticmethod
    def backward(ctx, grad_output):
        (matrix,) = ctx.saved_tensors
        return matrix.mT @ grad_output, None


class WrongMatVec(MatVec):
    @staticmethod
    def backward(ctx, grad_output):
        (matrix,) = ctx.saved_tensors
        return matrix @ grad_output, None


A = torch.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [4.0, 0.0, 1.0]], dtype=torch.float64, device=device)
x = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64, device=device, requires_grad=True)
check(gradcheck(MatVec.apply, (x, A)), True, label="gradcheck(MatVec.apply, (x, A))")
MISMATCH = r"^Jacobian mismatch for output 0 with respect to input {},\nnumerical:"
with expect_error(GradcheckError, match=MISMATCH.format(0)):
    gradcheck(WrongMatVec.apply, (x, A))

# %%
# ``gradcheck`` moves each element of every input that requires a gradient
# (here ``x`` only; ``A`` does not) by ``eps=1e-6`` both ways and divides
# the change of the output by ``2 * eps``: the *numerical* Jacobian. It
# builds the *analytical* one by calling ``backward``. Both are printed
# with one row per input element and one column per output element. The
# same two matrices, rebuilt by hand:


def central_differences(f, x, eps=1e-6):
    """Row j: how every output moves when x[j] moves, as gradcheck measures it."""
    rows = []
    with torch.no_grad():
        for j in range(x.numel()):
            step = torch.zeros_like(x)
            step[j] = eps
            rows.append((f(x + step) - f(x - step)) / (2 * eps))
    return torch.stack(rows)


def wrong(v):
    return WrongMatVec.apply(v, A)


numerical = central_differences(wrong, x)
analytical = torch.autograd.functional.jacobian(wrong, x).T
check(analytical, A, label="analytical")
inputs, outputs = ["x[0]", "x[1]", "x[2]"], ["y[0]", "y[1]", "y[2]"]
draw_matrix(numerical, rows=inputs, columns=outputs, title="central_differences(wrong, x)")
draw_matrix(analytical, rows=inputs, columns=outputs, title="jacobian(wrong, x).T")
plt.show()

# %%
# Two 3 × 3 grids, rows ``x[0]`` to ``x[2]``, columns ``y[0]`` to ``y[2]``.
# The first, from finite differences, is :math:`A^\top`: row ``x[0]`` reads
# ``1 0 4``, because :math:`y_0 = x_0 + 2x_1` and :math:`y_2 = 4x_0 + x_2`.
# The second, from ``WrongMatVec.backward``, is :math:`A`: row ``x[0]``
# reads ``1 2 0``. The diagonals agree (``1 1 1``) and every other cell is
# mirrored. A matrix that differs from the numerical one by a transpose
# means a missing ``.mT`` in ``backward``.
#
# Why float64
# -----------
# In float32 the step ``1e-6``, and the change it makes in the outputs,
# are only a few to about seventeen units in the last place of these inputs
# and outputs: both are rounded, and rounding ruins the differences.
# ``gradcheck`` warns, and fails even on the correct ``MatVec``:
x32, A32 = x.detach().float().requires_grad_(), A.float()
with expect_warning(
    UserWarning,
    match=r"^Input #0 requires gradient and is not a double precision floating point or complex\.",
):
    passed = gradcheck(MatVec.apply, (x32, A32), raise_exception=False)
check(passed, False, label="gradcheck in float32")
numerical32 = central_differences(lambda v: MatVec.apply(v, A32), x32)
# gradcheck's own test: the analytical Jacobian (here the exact A32.T) within atol + rtol * |numerical|
print("within gradcheck's tolerances:", torch.allclose(A32.T, numerical32, rtol=1e-3, atol=1e-5))
draw_matrix(numerical32 - A32.T, rows=inputs, columns=outputs, title="numerical32 - A32.T")
plt.show()

# %%
# The error of each cell of the float32 numerical Jacobian against the
# exact :math:`A^\top`: zero where :math:`A^\top` is zero, and elsewhere negative, from
# -0.0463 on the diagonal to -0.139 for ``x[2]``, ``y[1]``, on the CPU runner; the CUDA record
# (PyTorch 2.11.0, an H200) printed the same numerical Jacobian to four decimals.
# ``gradcheck``'s tolerances (``atol=1e-05``, ``rtol=0.001``) are meant for
# float64, where the same differences are exact to about ten digits: keep
# the check in float64, even for a Function that runs in float32.
#
# ``gradgradcheck``: the backward of the backward
# -----------------------------------------------
# With ``create_graph=True`` (second derivatives, gradient penalties), the
# work of ``backward`` is differentiated too. ``gradgradcheck`` checks that,
# with finite differences of ``backward`` itself:
check(gradgradcheck(MatVec.apply, (x, A)), True, label="gradgradcheck(MatVec.apply, (x, A))")


class OnceMatVec(MatVec):
    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        return MatVec.backward(ctx, grad_output)


with expect_error(GradcheckError, match=MISMATCH.format(1)):
    gradgradcheck(OnceMatVec.apply, (x, A))

# %%
# ``MatVec.backward`` is made of PyTorch operations, so its own gradient
# exists. ``@once_differentiable`` cuts it: the analytical Jacobian of
# ``backward`` with respect to the incoming gradient, its input 1, comes out
# as zeros against a numerical :math:`A`. The decorator's error is not
# raised: its node leads to a leaf made by detaching the result of
# ``backward``, not to the inputs, so ``torch.autograd.grad`` never runs
# it, and ``gradgradcheck``, which calls it with ``allow_unused=True``,
# counts the missing gradient as zeros (:ref:`custom_function` runs both
# ``torch.autograd.grad`` and ``backward()`` through such a node).
#
# ``fast_mode``
# -------------
# The full check calls ``forward`` twice per input element and ``backward``
# twice per output element (the second time to check it is reentrant): costly for large tensors.
# ``fast_mode=True`` compares one number, :math:`u^\top J v` for random
# vectors :math:`u` and :math:`v`, and only on a mismatch rebuilds both
# matrices to report them:
torch.manual_seed(0)
check(gradcheck(MatVec.apply, (x, A), fast_mode=True), True, label="fast_mode, MatVec")
with expect_error(
    GradcheckError,
    match=(
        r"^Jacobian mismatch for output 0 with respect to input 0,\n"
        r"numerical:-?[\d.e-]+\nanalytical:-?[\d.e-]+\n\n"
        r"The above quantities relating the numerical and analytical jacobians are computed \nin fast mode\."
    ),
):
    gradcheck(WrongMatVec.apply, (x, A), fast_mode=True)

# %%
# ``check_undefined_grad``: outputs nobody used
# ---------------------------------------------
# A Function with two outputs, when the loss uses only one, gets ``None``
# for the other if it called ``ctx.set_materialize_grads(False)`` (it
# otherwise gets zeros). ``gradcheck`` differentiates each output alone,
# so it sends exactly that ``None``:


class SinCos(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.sin(), x.cos()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        (x,) = ctx.saved_tensors
        return grad_sin * x.cos() - grad_cos * x.sin()


NONE_TIMES_TENSOR = r"^unsupported operand type\(s\) for \*: 'NoneType' and 'Tensor'$"
with expect_error(TypeError, match=NONE_TIMES_TENSOR):
    gradcheck(SinCos.apply, (x,))
with expect_error(TypeError, match=NONE_TIMES_TENSOR):
    SinCos.apply(x)[0].sum().backward()


class SafeSinCos(SinCos):
    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        undefined.append((grad_sin is None, grad_cos is None))
        (x,) = ctx.saved_tensors
        grad = torch.zeros_like(x)
        if grad_sin is not None:
            grad = grad + grad_sin * x.cos()
        if grad_cos is not None:
            grad = grad - grad_cos * x.sin()
        return grad


undefined = []  # (grad_sin is None, grad_cos is None) at each call of SafeSinCos.backward
check(gradcheck(SafeSinCos.apply, (x,)), True, label="gradcheck(SafeSinCos.apply, (x,))")
check((True, True) in undefined, True, label="a backward call with both None")
undefined.clear()
check(gradcheck(SafeSinCos.apply, (x,), check_undefined_grad=False), True, label="check_undefined_grad=False")
check((True, True) in undefined, False, label="a backward call with both None, without the option")

# %%
# The failure is the ``TypeError`` of ``backward`` itself, not a
# ``GradcheckError``, and the same one that ``sin.sum().backward()`` meets.
# ``SafeSinCos`` passes the check with its default
# ``check_undefined_grad=True``, which also calls ``backward`` with every
# output gradient undefined: only that option makes the call with both
# ``None``.
#
# ``nondet_tol``: a backward that varies
# --------------------------------------
# ``gradcheck`` also runs ``backward`` twice on the same gradient and
# requires the very same result. A backward built on atomic additions, like
# ``index_add_`` on a GPU (:ref:`nondeterministic_index_add`), can vary in its
# last bits; here a relative noise of :math:`10^{-12}` stands in for it:


class NoisyMatVec(MatVec):
    @staticmethod
    def backward(ctx, grad_output):
        (matrix,) = ctx.saved_tensors
        grad = matrix.mT @ grad_output
        return grad * (1 + 1e-12 * torch.rand_like(grad)), None


with expect_error(
    GradcheckError,
    match=(
        r"^Backward is not reentrant, i\.e\., running backward with same input and grad_output multiple "
        r"times gives different values, although analytical gradient matches numerical gradient\."
        r"The tolerance for nondeterminism was 0\.0\."
    ),
):
    gradcheck(NoisyMatVec.apply, (x, A))
check(gradcheck(NoisyMatVec.apply, (x, A), nondet_tol=1e-9), True, label="with nondet_tol=1e-9")

# %%
# The gradient itself matches; only the two runs differ. ``nondet_tol`` accepts differences up to its
# value between them (and, in fast mode, in an output expected to be zero); nothing else. The graph
# that these Functions' nodes join is the one of :ref:`mental_model`.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# gradcheck's verdicts and messages (up to "numerical:") and the Jacobian built from ``backward`` are
# checked on the runner that built this page; finite differences are drawn or printed, not checked.
