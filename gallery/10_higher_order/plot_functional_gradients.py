"""
.. _functional_gradients:

``torch.func`` beside ``backward()``
====================================

``torch.func`` computes gradients as functions of functions: ``vjp``,
``jacrev`` and ``grad`` return the numbers that ``backward()`` would write
into ``.grad``. This example computes the vector-Jacobian product of one
function in five ways and checks that they agree, then shows what differs
when they are mixed: the transforms never write ``.grad``, refuse a
``backward()`` inside them, and return tensors that are part of a graph.

.. questions::

   - Why is ``.grad`` still None after calling ``torch.func.grad``?
   - Can I call ``backward()`` inside a ``torch.func`` transform?
   - Does ``torch.func.vjp`` give the same result as ``backward(v)``?
   - Why does ``torch.func.grad`` say ``Expected f(*args) to return a scalar Tensor``?
"""

# %%
# ``vjp`` returns what ``backward(v)`` stores
# -------------------------------------------
# The function and the numbers are those of :ref:`vector_jacobian_product`:
# ``y = 3p + 2q² + log(r)`` element by element, and the upstream gradient
# ``v``. ``torch.func.vjp`` runs ``f`` and returns its output and a function
# that maps an upstream gradient to the gradients of the inputs.
import torch
from torch.func import grad, jacrev, vjp

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()


def f(p, q, r):
    return 3 * p + 2 * q**2 + torch.log(r)


p = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
q = torch.tensor([3.0, 4.0, 5.0], device=device, requires_grad=True)
r = torch.tensor([6.0, 7.0, 8.0], device=device, requires_grad=True)
v = torch.tensor([0.1, 1.0, 0.0001], device=device)

y, vjp_fn = vjp(f, p, q, r)
vjp_p, vjp_q, vjp_r = vjp_fn(v)
check(vjp_p, [3e-1, 3.0, 3e-4], label="vjp_p")
check(vjp_q, [1.2, 16.0, 2e-3], label="vjp_q")
check(vjp_r, [1.6667e-2, 1.4286e-1, 1.25e-5], rtol=1e-4, atol=0.0, label="vjp_r")
check((p.grad, q.grad, r.grad), (None, None, None), label="(p.grad, q.grad, r.grad)")

# %%
# These are the gradients of the other page, ``3v``, ``4q·v`` and ``v/r``
# (rounded to five digits, hence the tolerance of ``vjp_r``). None of them
# was written into ``.grad``: a transform *returns* gradients, it never
# accumulates them on the leaves.
#
# ``backward(v)`` and an explicit Jacobian agree
# ----------------------------------------------
# Now the same product through ``backward(v)``, which fills ``.grad``, and
# through Jacobians, from ``torch.func.jacrev`` and from
# ``torch.autograd.functional.jacobian``:
f(p, q, r).backward(v)
check(p.grad, vjp_p, label="p.grad vs vjp_p")
check(q.grad, vjp_q, label="q.grad vs vjp_q")
check(r.grad, vjp_r, label="r.grad vs vjp_r")

from torch.autograd.functional import jacobian

jac_p, jac_q, jac_r = jacrev(f, argnums=(0, 1, 2))(p, q, r)
check(jac_q, torch.diag(torch.tensor([12.0, 16.0, 20.0])), label="jac_q")
jacobians = jacobian(f, (p, q, r))
for name, jac_rev, jac_fn, vjp_x in zip(
    ("p", "q", "r"), (jac_p, jac_q, jac_r), jacobians, (vjp_p, vjp_q, vjp_r), strict=True
):
    check(jac_rev, jac_fn, label=f"jacrev vs jacobian, d y / d {name}")
    check(v @ jac_rev, vjp_x, label=f"v @ jac_{name} vs vjp_{name}")

import matplotlib.pyplot as plt

from autograd_notes import draw_matrix

inputs = [f"{name}[{i}]" for name in "pqr" for i in range(3)]
draw_matrix(
    torch.cat([jac_p, jac_q, jac_r], dim=1),
    rows=["y[0]", "y[1]", "y[2]"],
    columns=inputs,
    title="jacrev(f, argnums=(0, 1, 2))(p, q, r)",
)
plt.show()

# %%
# The three Jacobians side by side, one row per output element ``y[i]``,
# one column per input element, each cell the derivative of its row's
# output with respect to its column's input: the stronger the blue, the
# larger. Only the diagonal of each block is not 0: 3 for ``p``, ``4q``
# (12, 16, 20) for ``q``, ``1/r`` for ``r``.
#
# The checks compare with ``torch.testing.assert_close``'s default
# tolerances for ``float32``: the methods may sum the same terms in another
# order, so equality to the last bit is not promised. ``jacrev`` builds the
# full 3×3 Jacobians (diagonal here, since ``y[i]`` depends only on the
# ``i``-th inputs) row by row, one vector-Jacobian product per row of the
# identity, batched; ``v @ J`` then gives the product that ``vjp`` computed
# directly, without any matrix.
#
# ``grad`` wants a scalar function
# --------------------------------
# ``torch.func.grad`` is the transform closest to ``loss.backward()``: it
# differentiates a function that returns one number. Given ``f``, whose
# output has three elements, it refuses, pointing at ``vjp`` and ``jacrev``:
with expect_error(
    RuntimeError,
    match=(
        r"^grad_and_value\(f\)\(\*args\): Expected f\(\*args\) to return a scalar Tensor, "
        r"got tensor with 1 dims\. Maybe you wanted to use the vjp or jacrev APIs instead\?$"
    ),
):
    grad(f)(p, q, r)


def weighted(p, q, r):
    return (v * f(p, q, r)).sum()


grad_p, grad_q, grad_r = grad(weighted, argnums=(0, 1, 2))(p, q, r)
check(grad_q, vjp_q, label="grad_q vs vjp_q")
check(grad_p, vjp_p, label="grad_p vs vjp_p")
check(grad_r, vjp_r, label="grad_r vs vjp_r")

# the product v·J, five ways: one row each
products = {
    "vjp_fn(v)": (vjp_p, vjp_q, vjp_r),
    "backward(v)": (p.grad, q.grad, r.grad),
    "v @ jacrev(f)": (v @ jac_p, v @ jac_q, v @ jac_r),
    "v @ jacobian(f)": tuple(v @ jac for jac in jacobians),
    "grad(weighted)": (grad_p, grad_q, grad_r),
}
figure = draw_matrix(
    torch.stack([torch.cat(product).detach() for product in products.values()]),
    rows=list(products),
    columns=inputs,
)
figure.set_size_inches(figure.get_figwidth() + 0.6, figure.get_figheight())  # room for the rows' labels
plt.show()

# %%
# One row per way of computing the product of ``v`` with the Jacobian (the
# row ``backward(v)`` holds ``p.grad``, ``q.grad`` and ``r.grad``), one
# column per input element, the stronger the blue the larger: the five rows
# are the same numbers (equal within float32 tolerances, as checked), from
# 16 for ``q[1]`` down to ``1.25e-05`` for ``r[2]``.
#
# The scalar ``(v * y).sum()`` has ``v`` as its upstream gradient at ``y``
# (the argument of :ref:`vector_jacobian_product`), so its ``grad`` is the
# ``vjp`` with ``v``. The message names ``grad_and_value`` because ``grad``
# is built on it.
#
# Mixing the two styles
# ---------------------
# Code written for ``backward()`` reads ``.grad``; code written with
# ``torch.func`` uses return values. Mixed up, the first finds nothing: the
# calls above did not add to the ``.grad`` that ``backward(v)`` wrote.
check(q.grad, [1.2, 16.0, 2e-3], label="q.grad after jacrev and grad")
p.grad = q.grad = r.grad = None
grad(weighted, argnums=(0, 1, 2))(p, q, r)
check((p.grad, q.grad, r.grad), (None, None, None), label="(p.grad, q.grad, r.grad)")

optimizer = torch.optim.SGD([p, q, r], lr=0.1)
optimizer.step()
check(q, [3.0, 4.0, 5.0], label="q after optimizer.step()")

# %%
# An optimizer that steps after a ``torch.func`` call therefore does
# nothing, silently: its ``step()`` skips parameters whose ``.grad`` is
# ``None``. Pass the returned gradients on yourself, or use ``backward()``.
# The other direction fails loudly: ``backward()`` inside a transformed
# function is refused.


def loss_with_backward(p):
    loss = (p**2).sum()
    loss.backward()
    return loss


with expect_error(
    RuntimeError,
    match=(
        r"^backward\(\) called inside a functorch transform\. This is not supported, please use "
        r"functorch\.grad or functorch\.vjp instead or call backward\(\) outside of functorch transforms\.$"
    ),
):
    grad(loss_with_backward)(p)

# %%
# Returned gradients can carry a graph
# ------------------------------------
# The printed ``vjp_q`` above had a ``grad_fn``. Because ``q`` requires a
# gradient, the transforms' results are recorded as functions of it, as
# with ``create_graph=True`` (:ref:`create_graph`): ``vjp_q = 4q·v`` depends
# on ``q``, ``vjp_p = 3v`` does not.
check(vjp_q.grad_fn, "MulBackward0", label="vjp_q.grad_fn")
check(vjp_p.requires_grad, False, label="vjp_p.requires_grad")
check(vjp_q.grad_fn._saved_self, 2 * v, label="vjp_q.grad_fn._saved_self")

from autograd_notes import draw_graph

draw_graph(vjp_q, names={"q": q, "vjp_q": vjp_q}, title="vjp_q")
plt.show()

(d_sum_vjp_q,) = torch.autograd.grad(vjp_q.sum(), q)
check(d_sum_vjp_q, 4 * v, label="d(sum vjp_q)/dq")

# %%
# The graph below ``vjp_q``: gradients would flow down the arrows to the
# leaf ``q`` at the bottom (``AccumulateGrad``, in blue, shape ``[3]``).
# ``PowBackward0`` saved ``q`` (``exponent=1.0``: the :math:`q^1` of the
# derivative of :math:`q^2`), ``MulBackward1`` the number ``other=2.0``,
# and ``MulBackward0 (vjp_q)`` the gradient :math:`2v` that reached
# ``q**2``, which it multiplies by (``self [3] v0``). This is the graph that
# the transform recorded, and that the result keeps alive; the derivative
# of ``vjp_q.sum()`` went through it.
#
# That is useful for higher derivatives, and otherwise keeps a graph alive
# for as long as the result is. When only the numbers are needed, call the
# transforms on inputs that do not require a gradient (``p.detach()``), as
# ``torch.func`` code usually does, or ``detach()`` the results.
#
# Sources
# -------
# - :ref:`source_003` says that autograd computes a product with the
#   Jacobian, with ``y = 3a + 2b² + log(c)`` and ``v = [0.1, 1.0, 0.0001]``.
#   **Holds** for every method above: ``backward(v)``,
#   ``torch.func.vjp``, ``v`` times the Jacobian from ``torch.func.jacrev``
#   or ``torch.autograd.functional.jacobian``, and ``torch.func.grad`` of
#   ``(v * y).sum()`` give the same gradients, within ``float32``
#   tolerances. :ref:`vector_jacobian_product` rebuilds the claim itself.
