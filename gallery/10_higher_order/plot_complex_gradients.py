"""
.. _complex_gradients:

Gradients of complex tensors
============================

Autograd differentiates complex tensors, with a convention to know: for a
real loss ``L`` of a complex ``z = x + iy``, ``z.grad`` is
``∂L/∂x + i·∂L/∂y``, which is twice the conjugate Wirtinger derivative
``∂L/∂z̄``. This example checks that convention against finite differences,
shows that it makes ``z - lr * z.grad`` a descent step (and that its
conjugate climbs), explains the error "grad can be implicitly created only
for real scalar outputs" that a complex output raises, and checks that
``torch.view_as_real`` and ``torch.view_as_complex`` pass gradients
through.

.. questions::

   - What gradient does PyTorch compute for complex tensors?
   - Should I conjugate ``z.grad`` before a gradient descent step?
   - Why does a complex loss say ``grad can be implicitly created only for real scalar outputs``?
   - Do gradients flow through ``view_as_real`` and ``view_as_complex``?
"""

# %%
# A real loss of a complex tensor
# -------------------------------
# ``|z|² = x² + y²``: its partial derivatives are ``2x`` and ``2y``, so by
# the convention above ``z.grad`` should be ``2x + 2iy = 2z``.
import matplotlib.pyplot as plt
import torch
from torch.func import grad

from autograd_notes import check, draw_series, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 1
device = runner_device(torch.float64, torch.complex128)

z = torch.tensor([1 + 2j, -0.5 + 1j, 3 - 1j], device=device, requires_grad=True)
loss = (z.abs() ** 2).sum()
loss.backward()
check(z.dtype, torch.complex64, label="z.dtype")
check(z.grad, 2 * z, label="z.grad vs 2 * z")
check(grad(lambda z: (z.abs() ** 2).sum())(z.detach()), 2 * z, label="torch.func.grad vs 2 * z")

# %%
# ``z.grad`` is ``2z``, element by element: ``2 + 4j`` for ``1 + 2j``, and
# ``torch.func.grad`` returns the same. The Wirtinger derivative of
# ``|z|² = z·z̄`` with respect to ``z̄`` is ``z``; PyTorch's gradient is twice
# that.
#
# The convention, against finite differences
# ------------------------------------------
# A less symmetric loss makes the check sharper: weighted squared distances
# to a point ``c`` plus the real part of ``z²``. Its conjugate Wirtinger
# derivative, worked out by hand, is ``w·(z − c) + z̄``. Finite differences
# move ``x`` and ``y`` separately by ``±ε``, in ``float64``
# (``complex128``) so that their rounding errors stay far below the
# tolerance of the check, 1e-6.
c = torch.tensor(2 - 1j, dtype=torch.complex128, device=device)
w = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, device=device)


def real_loss(z):
    return (w * (z - c).abs() ** 2).sum() + (z**2).real.sum()


z = torch.tensor([1 + 2j, -0.5 + 1j, 3 - 1j], dtype=torch.complex128, device=device, requires_grad=True)
real_loss(z).backward()

eps = 1e-6
finite_differences = []
with torch.no_grad():
    for k in range(3):
        step = torch.zeros(3, dtype=torch.complex128, device=device)
        step[k] = eps
        d_dx = (real_loss(z + step) - real_loss(z - step)) / (2 * eps)
        d_dy = (real_loss(z + 1j * step) - real_loss(z - 1j * step)) / (2 * eps)
        finite_differences.append(torch.complex(d_dx, d_dy))

check(z.grad, torch.stack(finite_differences), rtol=0.0, atol=1e-6, label="z.grad vs dL/dx + 1j * dL/dy")
check(z.grad, 2 * (w * (z - c) + z.conj()), label="z.grad vs 2 * dL/dz̄")

# %%
# Both hold: ``z.grad`` holds ``∂L/∂x`` in its real part and ``∂L/∂y`` in
# its imaginary part, the gradient of ``L`` seen as a function of the two
# real numbers ``x`` and ``y``. It is *not* ``∂L/∂z``, the other Wirtinger
# derivative, which is its conjugate divided by two.
#
# Why this convention: gradient descent just works
# ------------------------------------------------
# Seen as a vector of real pairs ``(x, y)``, ``z.grad`` is the ordinary
# gradient, the direction in which ``L`` grows fastest. So the update that
# optimizers apply to real parameters, ``z - lr * z.grad``, descends for
# complex ones too, and ``torch.optim.SGD`` takes complex parameters. One
# step on ``L = Σ|z − target|²`` from ``z = 0``:
target = torch.tensor([1 + 2j, -1 + 0.5j], device=device)


def distance(z):
    return ((z - target).abs() ** 2).sum()


z = torch.zeros(2, dtype=torch.complex64, device=device, requires_grad=True)
optimizer = torch.optim.SGD([z], lr=0.1)
loss = distance(z)
loss.backward()
optimizer.step()
check(loss.detach(), 6.25, label="loss before the step")
check(distance(z).detach(), 0.64 * 6.25, label="loss after one SGD step")
check(z, 0.2 * target, label="z after one SGD step")

# %%
# The step moved ``z`` a fifth of the way to ``target``:
# ``z.grad = 2(z − target)``, and ``0.1 × 2 = 0.2``; the distance was
# multiplied by ``0.8``, the loss by ``0.8² = 0.64``. Now fifteen steps of
# that update beside fifteen steps with the conjugate of the gradient, the
# mistake of code that conjugates ``z.grad`` because it was written for the
# other convention (a gradient proportional to ``∂L/∂z``):
steps = range(16)
losses = {"z - lr * z.grad": [], "z - lr * z.grad.conj()": []}
for rule, series in losses.items():
    z = torch.zeros(2, dtype=torch.complex64, device=device, requires_grad=True)
    for _ in steps:
        loss = distance(z)
        series.append(loss.item())
        (gradient,) = torch.autograd.grad(loss, z)
        with torch.no_grad():
            z -= 0.1 * (gradient if rule == "z - lr * z.grad" else gradient.conj())

check(
    torch.tensor(losses["z - lr * z.grad"]),
    [6.25 * 0.64**k for k in steps],
    rtol=1e-4,
    atol=0.0,
    label='losses["z - lr * z.grad"]',
)
check(
    torch.tensor(losses["z - lr * z.grad.conj()"]),
    [2 * 0.64**k + 4.25 * 1.44**k for k in steps],
    rtol=1e-4,
    atol=0.0,
    label='losses["z - lr * z.grad.conj()"]',
)
draw_series(losses, x=list(steps), xlabel="k", log=True, title="loss = ((z - target).abs() ** 2).sum()")
plt.show()

# %%
# The loss over 15 steps, on a logarithmic axis, from ``6.25`` at step 0.
# With ``z.grad`` (blue circles) it falls on a straight line, multiplied by
# ``0.64`` at each step, down to about ``7.7e-03``. With ``z.grad.conj()``
# (orange squares) it climbs from the first step on, to about ``1e+03``:
# the distances along the real parts, whose gradients the conjugate leaves
# alone, still shrink by a factor of ``0.8`` a step (the ``2·0.64ᵏ`` term),
# while the imaginary parts are pushed *away* from the target, their
# distances growing by a factor of ``1.2`` a step (the ``4.25·1.44ᵏ``
# term).
#
# A complex output needs a real loss
# ----------------------------------
# ``backward()`` without a ``gradient`` needs a *real* scalar, because only
# a real number can be minimised. A complex scalar is refused:
z = torch.tensor([1 + 2j, -0.5 + 1j], device=device, requires_grad=True)
total = (z * z).sum()
with expect_error(
    RuntimeError,
    match=r"^grad can be implicitly created only for real scalar outputs but got torch\.complex64$",
):
    total.backward(retain_graph=True)

# %%
# Pick the real quantity to differentiate: ``total.real``, ``total.abs()``
# or ``total.imag``. Passing ``gradient=1+0j`` to the complex output is the
# same as differentiating its real part; a ``float32`` ``gradient`` for a
# ``complex64`` output is refused.
total.real.backward(retain_graph=True)
of_real_part = z.grad
z.grad = None
total.backward(torch.tensor(1 + 0j, device=device), retain_graph=True)
check(z.grad, of_real_part, label="gradient=1+0j vs total.real.backward()")
check(z.grad, (2 * z).conj(), label="z.grad vs (2 * z).conj()")
with expect_error(
    RuntimeError,
    match=(
        r"^For complex Tensors, both grad_output and output are required to have the same dtype\. "
        r"Mismatch in dtype: grad_output\[0\] has a dtype of torch\.float32 and output\[0\] has a "
        r"dtype of torch\.complex64\.$"
    ),
):
    total.backward(torch.tensor(1.0, device=device))

# %%
# ``Re(Σz²)`` is ``Σ(x² − y²)``: its partial derivatives are ``2x`` and
# ``−2y``, so ``z.grad`` is ``2z̄``, the *conjugate* of the complex
# derivative ``2z`` of ``z²``. For a holomorphic function ``f`` and
# ``gradient=1``, ``z.grad`` is ``conj(f′(z))``, not ``f′(z)``.
#
# ``view_as_real`` and back
# -------------------------
# ``torch.view_as_real`` shows a complex tensor as a real one with a last
# dimension of 2 (real part, imaginary part), sharing its memory;
# ``torch.view_as_complex`` goes the other way. Both are views that
# autograd records, so gradients pass through in both directions, and
# code that only handles real tensors can work on complex ones.
z = torch.tensor([1 + 2j, -0.5 + 1j], device=device, requires_grad=True)
pairs = torch.view_as_real(z)
(pairs**2).sum().backward()
check(pairs._base is z, True, label="pairs._base is z")
check(pairs.grad_fn, "ViewAsRealBackward0", label="pairs.grad_fn")
check(z.grad, 2 * z, label="z.grad through view_as_real")

p = torch.tensor([[1.0, 2.0], [-0.5, 1.0]], device=device, requires_grad=True)
as_complex = torch.view_as_complex(p)
(as_complex.abs() ** 2).sum().backward()
check(as_complex.grad_fn, "ViewAsComplexBackward0", label="as_complex.grad_fn")
check(p.grad, 2 * p, label="p.grad through view_as_complex")
show_state(p=p, as_complex=as_complex)

# %%
# Both round trips give the gradient of ``|z|²`` again: ``2z`` for the
# complex leaf ``z`` seen through ``pairs``, and ``2p`` for the real leaf
# ``p`` seen as complex numbers, where each row of ``p.grad`` holds the real
# and imaginary parts of one element of ``2 * as_complex``. The table shows
# that ``as_complex`` shares the memory of ``p`` and has a ``grad_fn`` of
# its own, while ``p`` stays the leaf that receives ``.grad``
# (:ref:`mental_model`).
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the convention is the one PyTorch documents under "Autograd for Complex
# Numbers", checked here against finite differences on the runner that
# built this page. That note names the value ``∂L/∂z̄``; with the
# definition ``∂/∂z̄ = (∂/∂x + i·∂/∂y) / 2`` that it also gives, the value
# is twice that, as the checks above show (the factor 2 appears in the
# note's rule for functions from ℂ to ℝ). Gradients as return values are the subject of
# :ref:`functional_gradients`; what ``gradient`` means for a non-scalar
# output, of :ref:`vector_jacobian_product`.
