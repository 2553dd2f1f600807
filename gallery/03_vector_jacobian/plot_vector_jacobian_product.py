"""
.. _vector_jacobian_product:

``backward(v)`` is vᵀJ
======================

Called on a tensor with more than one element, ``backward()`` needs a
``gradient`` argument. This example shows that PyTorch then computes the
vector-Jacobian product vᵀJ, checks it against an explicit Jacobian, and
explains why ``v`` is the gradient of some loss with respect to the output,
not a free choice of weights. It ends with the two errors that a missing or
wrong-shaped ``gradient`` produces.

.. questions::

   - Why does ``backward()`` say ``grad can be implicitly created only for scalar outputs``?
   - What do I pass as the ``gradient`` argument of ``backward()`` (``Mismatch in shape``)?
   - Is ``y.backward(v)`` the same as ``(v * y).sum().backward()``?
   - How do I get one row of the Jacobian with ``backward()``?
"""

# %%
# A vector output and a vector ``gradient``
# -----------------------------------------
# ``y = 3p + 2q² + log(r)`` is computed element by element on three vectors,
# so ``y`` has three elements too. ``y.backward(v)`` takes one value per
# element of ``y``.
import torch

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()


def f(p, q, r):
    return 3 * p + 2 * q**2 + torch.log(r)


p = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
q = torch.tensor([3.0, 4.0, 5.0], device=device, requires_grad=True)
r = torch.tensor([6.0, 7.0, 8.0], device=device, requires_grad=True)
v = torch.tensor([0.1, 1.0, 0.0001], device=device)

y = f(p, q, r)
y.backward(v)
check(p.grad, [3e-1, 3.0, 3e-4], label="p.grad")
check(q.grad, [1.2, 16.0, 2e-3], label="q.grad")
check(r.grad, [1.6667e-2, 1.4286e-1, 1.25e-5], rtol=1e-4, atol=0.0, label="r.grad")

# %%
# Each element of a gradient is the matching element of ``v`` times the
# local derivative: ``p.grad = 3·v``, ``q.grad = 4q·v``, ``r.grad = v/r``.
# The expected values of ``r.grad`` are rounded to five digits, hence the
# relative tolerance of 1e-4.
#
# The same numbers from an explicit Jacobian
# ------------------------------------------
# ``torch.autograd.functional.jacobian`` builds the full matrices
# ``J_p = ∂y/∂p``, ``J_q`` and ``J_r``. Each is 3×3 and diagonal, because
# ``y[i]`` depends only on ``p[i]``, ``q[i]`` and ``r[i]``.
# Multiplying ``v`` from the left gives back what ``backward(v)`` stored.
from torch.autograd.functional import jacobian

jac_p, jac_q, jac_r = jacobian(f, (p, q, r))
check(jac_q, torch.diag(torch.tensor([12.0, 16.0, 20.0])), label="jac_q")
check(v @ jac_p, p.grad, label="v @ jac_p")
check(v @ jac_q, q.grad, label="v @ jac_q")
check(v @ jac_r, r.grad, label="v @ jac_r")

# %%
# Side by side, the three Jacobians form one 3×9 matrix ``J``, and ``v @ J``
# is one row of 9 gradients. ``draw_matrix`` draws ``J`` with that row
# under it:
import matplotlib.pyplot as plt

from autograd_notes import draw_matrix
from autograd_notes._figure_style import TEXT

jac = torch.cat([jac_p, jac_q, jac_r], dim=1)
grads = torch.cat([p.grad, q.grad, r.grad])
check(v @ jac, grads, label="v @ J")
figure = draw_matrix(
    torch.cat([jac, (v @ jac)[None]]),
    rows=["y[0]", "y[1]", "y[2]", "v @ J"],
    columns=[f"{leaf}[{i}]" for leaf in "pqr" for i in range(3)],
    title="v = [0.1, 1.0, 0.0001]",
)
figure.axes[0].axhline(2.5, color=TEXT, linewidth=1.5)  # J above, v @ J below
plt.show()

# %%
# Above the line, row ``y[i]`` and column ``p[j]`` hold
# :math:`\partial y_i / \partial p_j`, and so on for ``q`` and ``r``; the
# larger the value, the stronger the blue, and zeros are grey. Each block is
# diagonal, since ``y[i]`` depends only on ``p[i]``, ``q[i]`` and
# ``r[i]``. Below the line is ``v @ J``: the rows of ``J`` weighted by
# ``v = [0.1, 1, 0.0001]`` and added up, which are ``p.grad``, ``q.grad``
# and ``r.grad`` in that order.
#
# ``backward(v)`` never builds these matrices. It starts from ``v`` at the
# output and sends it through each node of the graph, every node turning the
# gradient it receives into the gradients of its inputs. The cost is that of
# one pass through the graph, whatever the size of J.
#
# One pass reads one row
# ----------------------
# A one-hot ``v`` picks a single row: ``backward`` with ``[0, 1, 0]``
# returns row ``y[1]`` of ``J``, the derivatives of one output with respect
# to every input. Building all of ``J`` this way takes one backward pass per
# output, which is what ``jacobian`` does by default. ``backward`` only ever
# computes such products from the output side (reverse mode); the products
# from the input side, ``J`` times a vector of input directions, are forward
# mode, a different API (:ref:`forward_mode`).
for leaf in (p, q, r):
    leaf.grad = None
f(p, q, r).backward(torch.tensor([0.0, 1.0, 0.0], device=device))
check(torch.cat([p.grad, q.grad, r.grad]), jac[1], label="gradients for v = [0, 1, 0]")
check(jac[1], [0.0, 3.0, 0.0, 0.0, 16.0, 0.0, 0.0, 1 / 7, 0.0], label="row y[1] of J")

# %%
# ``v`` is the gradient of a loss with respect to ``y``
# -----------------------------------------------------
# Reading ``v`` as "weights" is not wrong, but it hides where ``v`` comes
# from. If ``y`` feeds a scalar ``loss``, the chain rule gives
# ``∂loss/∂p = (∂loss/∂y)ᵀ · J_p``: the vector that ``backward`` wants is
# ∂loss/∂y, the *upstream* gradient. The weighted sum ``(v * y).sum()`` is
# the loss whose upstream gradient is exactly ``v``, so it gives the same
# gradients as ``y.backward(v)``:
for leaf in (p, q, r):
    leaf.grad = None
(v * f(p, q, r)).sum().backward()
check(p.grad, [3e-1, 3.0, 3e-4], label="p.grad from (v * y).sum()")

# %%
# For any other loss the upstream gradient is a different vector, and
# ``backward`` needs that one. Below, the graph is cut at ``y``: the loss is
# computed from a detached copy ``y_cut``, whose ``.grad`` after
# ``loss.backward()`` is ∂loss/∂y. Passing it to ``y.backward`` finishes the
# chain rule and gives the same gradients as one backward pass through the
# whole computation.
for leaf in (p, q, r):
    leaf.grad = None
target = torch.tensor([20.0, 40.0, 60.0], device=device)

y = f(p, q, r)
y_cut = y.detach().requires_grad_()
loss = ((y_cut - target) ** 2).mean()
loss.backward()
upstream = y_cut.grad
check(upstream, 2 * (y.detach() - target) / 3, label="upstream = dloss/dy")  # d mean((y - t)²) / dy
y.backward(upstream)

whole = torch.autograd.grad(((f(p, q, r) - target) ** 2).mean(), (p, q, r))
check(p.grad, whole[0], label="p.grad in two steps vs. in one")
check(q.grad, whole[1], label="q.grad in two steps vs. in one")
check(r.grad, whole[2], label="r.grad in two steps vs. in one")

# %%
# This is how ``gradient`` is meant to be used: when ``y`` is an intermediate
# result (the output of one part of a larger model), ``v`` is what the rest
# of the model sends back. An arbitrary ``v`` computes the gradient of
# ``(v * y).sum()``, which is only useful if that is the loss you meant.
#
# A scalar output needs no ``gradient``
# -------------------------------------
# For a single-element output, ``backward()`` uses ∂y/∂y = 1 as the upstream
# gradient. At ``p = 0.1``, ``q = 1``, ``r = 0.1`` the gradients are 3,
# 4q = 4 and 1/r = 10, and passing ``torch.ones_like(y)`` explicitly changes
# nothing.
p = torch.tensor(0.1, device=device, requires_grad=True)
q = torch.tensor(1.0, device=device, requires_grad=True)
r = torch.tensor(0.1, device=device, requires_grad=True)
y = f(p, q, r)

y.backward(retain_graph=True)
check(p.grad, 3.0, label="p.grad")
check(q.grad, 4.0, label="q.grad")
check(r.grad, 10.0, label="r.grad")

for leaf in (p, q, r):
    leaf.grad = None
y.backward(torch.ones_like(y))
check(r.grad, 10.0, label="r.grad with an explicit gradient of 1")

# %%
# A non-scalar output without ``gradient``
# ----------------------------------------
# With more than one element there is no natural upstream gradient, and
# PyTorch refuses to pick one (it does not assume a sum or a mean):
p = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
y = 3 * p
with expect_error(RuntimeError, match=r"^grad can be implicitly created only for scalar outputs$"):
    y.backward()

# %%
# ``y.sum().backward()`` is the usual fix when the sum is the intended loss;
# it is the same as ``y.backward(torch.ones_like(y))``.
#
# A ``gradient`` of the wrong shape
# ---------------------------------
# ``gradient`` must have the shape of ``y``: one upstream value per element.
with expect_error(
    RuntimeError,
    match=(
        r"^Mismatch in shape: grad_output\[0\] has a shape of torch\.Size\(\[2\]\) "
        r"and output\[0\] has a shape of torch\.Size\(\[3\]\)\.$"
    ),
):
    y.backward(torch.tensor([0.1, 1.0], device=device))

# %%
# The check happens before any gradient is computed, so ``p.grad`` is still
# empty after both errors.
check(p.grad, None, label="p.grad")

# %%
# Sources
# -------
# - :ref:`source_003` computes ``y = 3a + 2b² + log(c)`` for
#   ``a = [1, 2, 3]``, ``b = [3, 4, 5]``, ``c = [6, 7, 8]`` and
#   ``y.backward([0.1, 1.0, 0.0001])``, and prints ``a.grad = [3e-1, 3, 3e-4]``,
#   ``b.grad = [1.2, 16, 2e-3]``, ``c.grad = [1.6667e-2, 1.4286e-1, 1.25e-5]``.
#   **Holds** on the runner that built this page.
# - The same document says that autograd computes a product with the Jacobian.
#   **Holds**: the gradients equal vᵀJ with J from
#   ``torch.autograd.functional.jacobian``.
# - It finds the gradients 3, 4 and 10 for the scalars ``a = 0.1``,
#   ``b = 1``, ``c = 0.1`` without a ``gradient`` argument. **Holds**.
# - It explains that ``gradient`` is the derivative of the final loss with
#   respect to each element of the output, not an arbitrary weighting.
#   **Holds**: cutting the graph at ``y`` and passing ∂loss/∂y gives the
#   gradients of one pass through the whole computation.
# - It calls the ``gradient`` argument "the accumulator". **Does not hold**
#   as worded: ``gradient`` is the vector ``v`` of the product vᵀJ, used once;
#   what accumulates is ``.grad``, which each backward call adds to
#   (:ref:`gradient_accumulation`).
# - It says PyTorch uses forward- and reverse-mode differentiation together.
#   **Does not hold** for ``backward``: it is reverse mode only, one
#   vector-Jacobian product per pass, and a one-hot ``v`` reads one row of
#   ``J`` (checked above). Forward mode exists as a separate API,
#   ``torch.autograd.forward_ad`` and ``torch.func.jvp`` (:ref:`forward_mode`).
# - It states that a non-scalar output needs a ``gradient``. **Holds**, with
#   the error "grad can be implicitly created only for scalar outputs"; a
#   ``gradient`` of another shape is refused with "Mismatch in shape".
