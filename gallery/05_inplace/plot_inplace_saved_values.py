"""
.. _inplace_saved_values:

What in-place operations save
=============================

``x.mul_(2)`` overwrites ``x``, and backward still returns the right
gradient. Each node saves only what its gradient formula needs, and an
in-place operation is no exception. This example reads what the node of
five in-place operations saved: a factor alone (``mul_(2)``), a copy of the
old ``x`` taken before it was overwritten (``mul_(y)``, ``pow_(2)``), or
the new ``x`` itself (``exp_()``, ``sigmoid_()``). It then shows when a
version error comes instead: when the overwritten tensor is one that some
node saved itself, not a copy of it.

.. questions::

   - How does ``x.mul_(2)`` get a gradient if the old ``x`` is overwritten?
   - Does an in-place operation save a copy of its input for backward?
   - Why does ``pow_(2)`` save a copy of ``x`` but ``sigmoid_()`` does not?
   - Which in-place operations on ``x`` make backward fail later?
"""

# %%
# A factor is all ``mul_(2)`` needs
# ---------------------------------
# ``x`` below is a copy of the leaf ``a``, with a ``grad_fn`` like any
# layer's output. ``x.mul_(2)`` doubles it in place. Its node keeps what
# the derivative :math:`\partial (2x) / \partial x = 2` needs, and nothing
# else:
import torch

from autograd_notes import check, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
x = a.clone()
x.mul_(2)
check(x, [2.0, 4.0], label="x")
check(x._version, 1, label="x._version")
check(x.grad_fn._saved_other, 2, label="x.grad_fn._saved_other")
check(x.grad_fn._saved_self, None, label="x.grad_fn._saved_self")
x.sum().backward()
check(a.grad, [2.0, 2.0], label="a.grad")

# %%
# The node saved the 2 as ``_saved_other`` and no ``self``: the old values
# of ``x``, now gone, are not part of the formula. The gradient is 2 for
# each element (the table at the end compares it with that of ``x * 2``).
#
# A copy of the old value
# -----------------------
# Multiply by a tensor ``y`` that requires a gradient too, and the formula
# of ``y``'s gradient, :math:`\partial (x y) / \partial y = x`, needs the
# ``x`` that the multiplication overwrites. The node kept a copy of it:
a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
y = torch.tensor([3.0, 4.0], device=device, requires_grad=True)
x = a.clone()
x.mul_(y)
saved_self = x.grad_fn._saved_self
saved_other = x.grad_fn._saved_other
check(x, [3.0, 8.0], label="x")
check(x._version, 1, label="x._version")
check(saved_self, [1.0, 2.0], label="x.grad_fn._saved_self")
check(saved_self._version, 0, label="x.grad_fn._saved_self._version")
memory = x.untyped_storage().data_ptr()
check(saved_self.untyped_storage().data_ptr() == memory, False, label="_saved_self shares x's memory")
check(torch.equal(saved_other, y), True, label="torch.equal(x.grad_fn._saved_other, y)")
check(saved_other._version, 0, label="x.grad_fn._saved_other._version")

import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

tensors = {"x": x, "x.grad_fn._saved_self": saved_self, "x.grad_fn._saved_other": saved_other}
draw_tensors(tensors, title="x = a.clone(); x.mul_(y)")
plt.show()

# %%
# Each grey strip is a storage with its values, each coloured row a tensor
# over it, with its shape, its version and its ``grad_fn`` or
# ``requires_grad``. ``x`` holds the product ``3.``, ``8.`` at ``v1``.
# ``_saved_self`` has a strip of its own with the old ``1.``, ``2.`` at
# ``v0``: a copy, taken before ``mul_`` wrote into ``x``. ``_saved_other``
# is ``y`` (``3.``, ``4.``).
#
# Backward reads the copy, and returns :math:`y` for ``a`` and the old
# :math:`x` for ``y``:
x.sum().backward()
check(a.grad, [3.0, 4.0], label="a.grad")
check(y.grad, [1.0, 2.0], label="y.grad")

# %%
# The out-of-place product ``x_out * y_out`` gives the same gradients, bit
# for bit. Its node saved ``x_out`` itself, in the memory ``x_out``
# already had, and wrote the product into a new tensor; ``mul_(y)`` wrote
# into ``x`` and added the copy. Each adds one tensor the size of ``x``:
# here the in-place form saves no memory.
a_out = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
y_out = torch.tensor([3.0, 4.0], device=device, requires_grad=True)
x_out = a_out.clone()
product = x_out * y_out
shares = product.grad_fn._saved_self.untyped_storage().data_ptr() == x_out.untyped_storage().data_ptr()
check(shares, True, label="x_out * y_out: _saved_self shares x_out's memory")
product.sum().backward()
check(torch.equal(a.grad, a_out.grad), True, label="torch.equal(a.grad, a_out.grad)")
check(torch.equal(y.grad, y_out.grad), True, label="torch.equal(y.grad, y_out.grad)")

# %%
# The copy is made only when a formula needs it. With a factor ``c`` that
# requires no gradient, no formula reads the old ``x``, and nothing is
# copied:
a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
c = torch.tensor([3.0, 4.0], device=device)
x = a.clone()
x.mul_(c)
check(x.grad_fn._saved_self, None, label="x.grad_fn._saved_self")
check(torch.equal(x.grad_fn._saved_other, c), True, label="torch.equal(x.grad_fn._saved_other, c)")

# %%
# ``pow_`` copies too
# -------------------
# The derivative of :math:`x^2` is :math:`2x`, the old ``x``. ``pow_(2)``
# keeps a copy of it, as ``mul_(y)`` did, with the exponent as a number:
a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
x = a.clone()
x.pow_(2)
saved_self = x.grad_fn._saved_self
check(x, [1.0, 4.0], label="x")
check(saved_self, [1.0, 2.0], label="x.grad_fn._saved_self")
check(saved_self._version, 0, label="x.grad_fn._saved_self._version")
check(
    saved_self.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
    False,
    label="shares x's memory",
)
check(x.grad_fn._saved_exponent, 2, label="x.grad_fn._saved_exponent")
x.sum().backward()
check(a.grad, [2.0, 4.0], label="a.grad")

a_out = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
(a_out.clone() ** 2).sum().backward()
check(torch.equal(a.grad, a_out.grad), True, label="torch.equal(a.grad, a_out.grad)")

# %%
# No error, and the gradient :math:`2x` is computed from the old values
# ``1.``, ``2.``, not from the new ``1.``, ``4.`` (which would give 2 and
# 8).
#
# The result is the derivative
# ----------------------------
# The derivative of :math:`e^x` is :math:`e^x`, and that of
# :math:`\sigma(x)` is :math:`\sigma(x)(1 - \sigma(x))`: both are read
# from the *result*. ``exp_()`` and ``sigmoid_()`` save the new ``x``
# itself, at the version their own write gave it, and copy nothing:
for name in ["exp_", "sigmoid_"]:
    a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    x = a.clone()
    getattr(x, name)()
    saved_result = x.grad_fn._saved_result
    check(x._version, 1, label=f"{name}: x._version")
    check(saved_result._version, 1, label=f"{name}: x.grad_fn._saved_result._version")
    shares = saved_result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    check(shares, True, label=f"{name}: _saved_result shares x's memory")
    check(torch.equal(saved_result, x), True, label=f"{name}: torch.equal(x.grad_fn._saved_result, x)")
    x.sum().backward()
    a_out = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    getattr(torch, name.removesuffix("_"))(a_out.clone()).sum().backward()
    check(torch.equal(a.grad, a_out.grad), True, label=f"{name}: torch.equal(a.grad, a_out.grad)")

check(a.grad, [0.19661193, 0.10499359], label="sigmoid_: a.grad")

# %%
# The saved result *is* ``x``: same memory, version 1 on both. For these
# two functions the in-place form keeps no second tensor, and the gradient
# is the out-of-place one, bit for bit (``torch.equal``).
#
# Edited again
# ------------
# What each node saved decides what a *second* in-place edit of ``x``
# does. After ``exp_()`` the node saved ``x`` itself, so ``x.add_(1)``
# moves the saved tensor to version 2, and backward refuses it:
from autograd_notes import expect_error

MODIFIED = (
    r"one of the variables needed for gradient computation has been modified by an inplace operation: "
    r"\[torch\.(cuda\.)?FloatTensor \[2\]\], which is output 0 of \w+, is at version {now}; "
    r"expected version {saved} instead"
)

a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
x = a.clone()
x.exp_()
x.add_(1)
check(x._version, 2, label="x._version")
with expect_error(RuntimeError, match=MODIFIED.format(now=2, saved=1)):
    x.sum().backward()
check(a.grad, None, label="a.grad")

# %%
# After ``mul_(y)`` the same ``add_(1)`` is harmless: the node kept its
# own copy of the old ``x``, which the edit does not touch, and ``y``:
a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
y = torch.tensor([3.0, 4.0], device=device, requires_grad=True)
x = a.clone()
x.mul_(y)
mul_node = x.grad_fn
x.add_(1)
check(x._version, 2, label="x._version")
check(x.grad_fn.next_functions[0][0] is mul_node, True, label="x.grad_fn.next_functions[0][0] is mul_node")
check(mul_node._saved_self._version, 0, label="mul_node._saved_self._version")
x.sum().backward()
check(a.grad, [3.0, 4.0], label="a.grad")
check(y.grad, [1.0, 2.0], label="y.grad")

# %%
# ``x.add_(1)`` gave ``x`` a new node, whose first input is the
# multiplication's node (``mul_node``); that node's copy is still at
# version 0, and the gradients are those of :math:`x y + 1`.
#
# A tensor an earlier node saved
# ------------------------------
# The copy belongs to the in-place operation's own node. A node built
# *before* the edit, which saved ``x`` itself, gets no copy: here
# ``z = x * b`` saved ``x``, and the later ``x.mul_(2)`` overwrites it.
a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
b = torch.tensor([3.0, 4.0], device=device, requires_grad=True)
x = a.clone()
z = x * b
x.mul_(2)
check(x._version, 1, label="x._version")
with expect_error(RuntimeError, match=MODIFIED.format(now=1, saved=0)):
    z.sum().backward()

# %%
# ``z``'s node needs the old ``x`` for ``b``'s gradient and finds ``x`` at
# version 1 instead of 0. That is the error :ref:`detach_inplace_saved`
# explains. ``mul_(2)`` itself needed no old value; the tensor that fails
# is the one ``z``'s node saved.
#
# Five in-place operations side by side
# -------------------------------------
# For each operation, four questions, one per column below: did its node
# save a copy of the old ``x`` (memory of its own, the old values)? Did it
# save ``x`` itself (``x``'s memory)? Are the gradients of ``a`` and ``y``
# equal to the out-of-place ones? And does a later ``x.add_(1)`` make
# backward fail?
import re

from autograd_notes import draw_matrix

OPERATIONS = {
    "x.mul_(2)": (lambda x, y: x.mul_(2), lambda x, y: x * 2),
    "x.mul_(y)": (lambda x, y: x.mul_(y), lambda x, y: x * y),
    "x.pow_(2)": (lambda x, y: x.pow_(2), lambda x, y: x**2),
    "x.exp_()": (lambda x, y: x.exp_(), lambda x, y: x.exp()),
    "x.sigmoid_()": (lambda x, y: x.sigmoid_(), lambda x, y: x.sigmoid()),
}


def run(operation, edit_again=False):
    """Apply ``operation`` to ``x = a.clone()`` and ``y``, then run backward.

    Return whether the node saved a copy of the old ``x``, whether it saved
    ``x`` itself, and the gradients of ``a`` and ``y``.
    """
    a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    y = torch.tensor([3.0, 4.0], device=device, requires_grad=True)
    x = a.clone()
    result = operation(x, y)
    node = result.grad_fn
    saved = [getattr(node, name) for name in dir(node) if name.startswith("_saved_")]
    tensors = [t for t in saved if isinstance(t, torch.Tensor) and t.shape == x.shape]
    memory = x.untyped_storage().data_ptr()
    copy = any(t.untyped_storage().data_ptr() != memory and torch.equal(t, a) for t in tensors)
    itself = any(t.untyped_storage().data_ptr() == memory for t in tensors)
    if edit_again:
        result.add_(1)
    result.sum().backward()
    return copy, itself, [a.grad, y.grad]


def fails_after_edit(operation):
    """Whether backward fails with the version error after a later ``x.add_(1)``."""
    try:
        run(operation, edit_again=True)
    except RuntimeError as error:
        if not re.search(MODIFIED.format(now=2, saved=1), str(error)):
            raise
        return True
    return False


def same(first, second):
    return all(
        (f is None and s is None) or (f is not None and s is not None and torch.equal(f, s))
        for f, s in zip(first, second, strict=True)
    )


table = []
for text, (in_place, out_of_place) in OPERATIONS.items():
    copy, itself, in_place_grads = run(in_place)
    _, _, out_of_place_grads = run(out_of_place)
    row = [copy, itself, same(in_place_grads, out_of_place_grads), fails_after_edit(in_place)]
    table.append([float(value) for value in row])
    print(
        f"{text:12}  copy: {copy!s:5}  itself: {itself!s:5}  same grad: {row[2]!s:5}  add_(1) fails: {row[3]}"
    )

check(
    table,
    [[0, 0, 1, 0], [1, 0, 1, 0], [1, 0, 1, 0], [0, 1, 1, 1], [0, 1, 1, 1]],
    label="[old x copied, x itself, same grad, add_(1) fails]",
)
columns = ["old x copied", "x itself", "same grad", "add_(1) fails"]
figure = draw_matrix(table, rows=list(OPERATIONS), columns=columns, title="what the node saved")
figure.set_size_inches(6.0, figure.get_figheight())  # room for the columns' labels
plt.show()

# %%
# One row per operation, one column per question; ``1`` (blue) means yes,
# ``0`` no. The ``same grad`` column is all ``1``: every in-place form gave
# the out-of-place gradients, bit for bit. The first
# two columns are never both ``1``: ``mul_(2)`` saved neither, ``mul_(y)``
# and ``pow_(2)`` a copy, ``exp_()`` and ``sigmoid_()`` ``x`` itself. Only
# the rows that saved ``x`` itself fail after a later ``x.add_(1)``.
#
# So none of these five in-place operations lost a value its own gradient
# needs: the old input was copied when a formula reads it, and otherwise
# the node kept the factor or the result. What a copy does not protect is
# a tensor that a node saved itself and that is edited later:
# ``z = x * b`` followed by ``x.mul_(2)``, or ``exp_()`` followed by
# ``add_(1)``. The version counter caught both. And where the old input is
# copied, the in-place form saves no memory over the out-of-place one.
# :ref:`retain_graph_not_needed` lists what twenty out-of-place operations
# save.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`);
# it checks what each node saved on the runner that built this page. The
# formulas, and so which of ``self``, ``other`` and ``result`` each node
# saves, are those of PyTorch's ``derivatives.yaml`` (in
# ``tools/autograd``). The copy of ``self`` for an in-place operation is
# made by the code PyTorch generates from that file
# (``tools/autograd/gen_variable_type.py``), which clones ``self`` before
# the operation writes into it whenever a formula it will run reads
# ``self``.
