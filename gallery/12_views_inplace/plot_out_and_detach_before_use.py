"""
.. _out_and_detach_before_use:

``out=`` and early detached edits
=================================

Two ways of writing results into existing memory behave in opposite ways.
An ``out=`` argument is refused as soon as any tensor involved requires
grad. An in-place edit through ``detach()`` is always allowed, and when it
happens *before* the edited tensor is used, no later check can notice it.
This example shows the ``out=`` error and its fixes, then follows such an
early edit through a backward pass to show which gradient comes out, and
why it is neither the gradient before the edit nor the gradient after it.

.. questions::

   - Why does ``out=`` say ``arguments don't support automatic differentiation``?
   - Why is my gradient wrong but no error after a ``detach()`` edit?
   - How do I write into a preallocated tensor without breaking autograd?
"""

# %%
# ``out=`` with a tensor that requires grad
# -----------------------------------------
# Writing the sum into a preallocated ``result`` is refused when the input
# ``a`` requires grad.
import matplotlib.pyplot as plt
import torch

from autograd_notes import autograd_graph, check, draw_graph, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

a = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
result = torch.zeros(3, device=device)
with expect_error(
    RuntimeError,
    match=r"^add\(\): functions with out=\.\.\. arguments don't support automatic differentiation, "
    r"but one of the arguments requires grad\.$",
):
    torch.add(a, 1, out=result)
check(result, [0.0, 0.0, 0.0], label="result")
check(result._version, 0, label="result._version")

# %%
# The ``out=`` variant of an operation has no derivative formula. PyTorch
# defines backward formulas for the functional form (``torch.add(a, 1)``)
# and for the in-place form (``a.add_(1)`` on a non-leaf is recorded, as
# ``y.mul_(2)`` is further down), but not for the form that writes into a
# tensor the caller passed in. Rather than produce a result that silently has no
# history, PyTorch refuses, naming the function, before writing anything:
# ``result`` is untouched. Any argument counts, the ``out`` tensor too:
b = torch.tensor([1.0, 2.0, 3.0], device=device)
buffer = torch.zeros(3, device=device, requires_grad=True)
with expect_error(
    RuntimeError,
    match=r"^exp\(\): functions with out=\.\.\. arguments don't support automatic differentiation",
):
    torch.exp(b, out=buffer)

# %%
# Two fixes, depending on what the result is for. If a gradient must flow
# through it, drop ``out=`` and let the operation create its result. If the
# result is only a value (a statistic, a log entry), say so with
# ``torch.no_grad()`` or ``detach()``: nothing is recorded, and ``out=``
# is accepted.
c = torch.add(a, 1)
check(c.grad_fn, "AddBackward0", label="c.grad_fn")

with torch.no_grad():
    torch.add(a, 1, out=result)
check(result, [2.0, 3.0, 4.0], label="result")
check(result.requires_grad, False, label="result.requires_grad")

torch.mul(a.detach(), 2, out=result)
check(result, [2.0, 4.0, 6.0], label="result")

# %%
# An edit through ``detach()`` after the tensor is saved
# ------------------------------------------------------
# ``detach()`` is the other way to write into a tensor's memory, and
# autograd does not refuse it. :ref:`detach_inplace_saved` shows what it
# checks instead: every tensor saved for backward remembers its version,
# and an edit made *after* the saving is reported at backward.
x = torch.tensor(2.0, device=device, requires_grad=True)
y = x * 3
z = y**2
y.detach().mul_(2)
graph = autograd_graph(z, names={"x": x, "y": y, "z": z})
check(graph.modified, ["PowBackward0 (z): saved self (y) [] v1 ≠ v0"], label="modified in place")
draw_graph(graph, title="z = y**2; y.detach().mul_(2)")
plt.show()
with expect_error(RuntimeError, match=r"which is output 0 of Mul, is at version 1; expected version 0"):
    z.backward()

# %%
# ``PowBackward0``, the node of ``z``, saved ``y`` (shape ``[]``) at
# version 0; ``y`` is now at version 1, in red with ``⚠`` and
# ``v1 ≠ v0``. Below it, ``MulBackward0`` of ``y = x * 3`` saved the 3 as
# ``other``, and the leaf ``x`` is at the bottom.
#
# The same edit before the tensor is used
# ---------------------------------------
# Now ``y`` is doubled through ``detach()`` *before* ``z = y**2`` uses it.
# Backward runs without any message.
x = torch.tensor(2.0, device=device, requires_grad=True)
y = x * 3
y.detach().mul_(2)
z = y**2
show_state(x=x, y=y, z=z)
check(y.grad_fn._saved_self, None, label="y.grad_fn._saved_self")
check(z.grad_fn._saved_self, 12.0, label="z.grad_fn._saved_self")
check(z.grad_fn._saved_self._version, 1, label="z.grad_fn._saved_self._version")
graph = autograd_graph(z, names={"x": x, "y": y, "z": z})
check(graph.modified, [], label="modified in place")
draw_graph(graph, title="y.detach().mul_(2); z = y**2")
plt.show()
z.backward()
check(z, 144.0, label="z")
check(x.grad, 72.0, label="x.grad")

# %%
# The same three nodes as before, and nothing in red: ``PowBackward0``
# saved ``y`` at ``v1`` and finds it at version 1. ``MulBackward0`` of
# ``x * 3`` and the leaf ``x`` are unchanged; no node stands for the
# doubling.
#
# ``y``'s version went to 1, as before. But ``PowBackward0`` saved ``y``
# after the edit, at version 1, and finds version 1 at backward: the check
# passes, because it only compares the version at saving time with the
# version at backward. The multiplication ``x * 3`` saved no tensor at
# all (``_saved_self`` is ``None``: its gradient needs only the 3), so
# there is nothing else to check.
#
# Which gradient is 72?
# ---------------------
# Compare with the two honest versions of this computation: ``y`` not
# edited, and ``y`` doubled by an operation that autograd records.
x = torch.tensor(2.0, device=device, requires_grad=True)
z = (x * 3) ** 2
z.backward()
check(x.grad, 36.0, label="x.grad without the edit")

x = torch.tensor(2.0, device=device, requires_grad=True)
y = x * 3
y.mul_(2)
z = y**2
graph = autograd_graph(z, names={"x": x, "y": y, "z": z})
check(
    [node.drawn_title for node in graph.nodes],
    ["PowBackward0 (z)", "MulBackward0 (y)", "MulBackward0", "AccumulateGrad (x)"],
    label="the nodes of the graph",
)
draw_graph(graph, title="y.mul_(2); z = y**2")
plt.show()
z.backward()
check(x.grad, 144.0, label="x.grad with the edit recorded")

# %%
# With the edit recorded there are four nodes: ``PowBackward0`` of ``z``
# (``y`` saved at ``v1``), then ``MulBackward0`` of ``y.mul_(2)``, now the
# node of ``y``, then the ``MulBackward0`` of ``x * 3``, then the leaf
# ``x``. Each ``MulBackward0`` saved its factor as ``other``.
#
# Backward multiplies the local derivatives along the graph. The edited run
# used :math:`dz/dy = 2y = 24` at the edited value, which is right for the
# ``z`` that was computed, times :math:`dy/dx = 3` from ``x * 3``, the
# only history ``y`` has, because the doubling was not recorded. The true
# derivative of what was computed, :math:`z = (6x)^2`, is 144; without the
# edit, :math:`z = (3x)^2` gives 36. 72 is a mixture of the two, and
# nothing in PyTorch can detect it: no saved tensor was changed after it
# was saved.
#
# When an early edit is harmless
# ------------------------------
# On a leaf, the same early edit is just an update of its values, as an
# optimizer makes between steps (under ``torch.no_grad()``). The forward
# pass and the gradient both use the new values, and both are right:
w = torch.tensor(2.0, device=device, requires_grad=True)
w.detach().mul_(2)
loss = (w * 3) ** 2
loss.backward()
check(w, 4.0, label="w")
check(w.grad, 72.0, label="w.grad")

# %%
# :math:`d/dw\,(3w)^2 = 18w` is 72 at the new value 4. A leaf has no
# history for the edit to contradict. The danger on a leaf is elsewhere:
# code that takes ``w.detach()`` for a copy and edits it has changed the
# parameter itself (:ref:`detach_shares_storage`), and the version counter
# is the only trace. Use ``w.detach().clone()`` for a copy. On a non-leaf,
# write under a recorded operation (``y.mul_(2)`` or ``y = y * 2``) so that
# the history includes the edit.
#
# Sources
# -------
# - :ref:`source_000` claims that zeroing ``y.detach()`` in place makes
#   ``backward()`` fail when the squaring node saved ``y``, because that
#   node needs ``y``'s value. **Holds**, as rebuilt in
#   :ref:`detach_inplace_saved`, and only when the edit comes after the
#   saving: here the same kind of edit made before ``y**2`` saved ``y``
#   raises nothing, and gives a gradient that matches neither the edited
#   nor the unedited computation.
# - The ``out=`` error rebuilds no claim of the source documents; its
#   message is checked on the runner that built this page.
