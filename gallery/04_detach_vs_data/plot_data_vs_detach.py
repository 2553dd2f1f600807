"""
.. _data_vs_detach:

``.data`` hides an edit
=======================

``out.data`` and ``out.detach()`` both return a tensor with the values of
``out``, over the same memory, and without its history. This example zeroes
the output of ``sigmoid`` in place through each of them: through ``.data``
backward runs and returns a wrong gradient, through ``detach()`` it refuses.
The difference is the version counter, which ``detach()`` shares with the
original and ``.data`` does not.

.. questions::

   - Difference between ``.data`` and ``.detach()``?
   - Why is my gradient silently zero after editing a tensor via ``.data``?
   - Is it still safe to use ``.data`` in PyTorch?
"""

# %%
# The gradient to expect
# ----------------------
# Left alone, backward through ``sigmoid`` gives its derivative
# :math:`s(1 - s)` with :math:`s = \mathrm{sigmoid}(a)`.
import torch

from autograd_notes import check, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 4
device = runner_device()

a = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
out = a.sigmoid()
out.sum().backward()
check(a.grad, [0.19661193, 0.10499359, 0.04517666], label="a.grad")

# %%
# To compute that derivative, ``SigmoidBackward0`` does not recompute the
# sigmoid: it saves its *output* ``out`` during the forward pass (its
# ``_saved_result``) and reads it during backward. Whatever happens to
# ``out`` in between changes the gradient.
#
# Zeroing through ``.data``
# -------------------------
# ``out.data`` is a second tensor over ``out``'s memory. Zeroing it in place
# zeroes ``out``; then backward runs as if nothing happened.
a = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
out = a.sigmoid()
out_data = out.data
check(out_data.requires_grad, False, label="out_data.requires_grad")
out_data.zero_()
check(out, [0.0, 0.0, 0.0], label="out")
check(out._version, 0, label="out._version")
check(out.grad_fn._saved_result, [0.0, 0.0, 0.0], label="out.grad_fn._saved_result")
show_state(a=a, out=out, out_data=out_data)

import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

check(out_data._version, 1, label="out_data._version")
draw_tensors({"a": a, "out": out, "out_data": out_data}, title="out.data.zero_()")
plt.show()

out.sum().backward()
check(a.grad, [0.0, 0.0, 0.0], label="a.grad")

# %%
# In the picture each grey strip is a storage with its values, and each
# coloured row under it a tensor over those cells, with its shape, its
# version and its ``grad_fn`` or ``requires_grad``. ``out``
# (``SigmoidBackward0``) and ``out_data`` share one strip of three zeros,
# yet ``out`` is at ``v0`` and ``out_data`` at ``v1``: two counters over
# one memory.
#
# The node's saved result is the zeroed memory. The table shows why backward
# uses it anyway: ``out_data`` shares ``out``'s storage but has a
# version counter of its own, so ``zero_()`` moved ``out_data``'s counter to
# 1 and left ``out``'s at 0. Backward compares ``out``'s counter with the 0
# it recorded when it saved ``out``, finds them equal, and computes
# :math:`s(1 - s)` from the zeros: a gradient of ``[0., 0., 0.]`` instead of
# the one above, with no error and no warning.
#
# Zeroing through ``detach()``
# ----------------------------
# The same edit through ``out.detach()`` changes ``out`` just as much, but
# now backward refuses to run.
a = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
out = a.sigmoid()
out_detached = out.detach()
check(out_detached.requires_grad, False, label="out_detached.requires_grad")
out_detached.zero_()
check(out, [0.0, 0.0, 0.0], label="out")
check(out._version, 1, label="out._version")
show_state(a=a, out=out, out_detached=out_detached)
check(out_detached._version, 1, label="out_detached._version")
draw_tensors({"a": a, "out": out, "out_detached": out_detached}, title="out.detach().zero_()")
plt.show()

with expect_error(
    RuntimeError,
    match=r"modified by an inplace operation: \[torch\.(cuda\.)?FloatTensor \[3\]\], "
    r"which is output 0 of Sigmoid, is at version 1; expected version 0 instead\. "
    r"Hint: .*set_detect_anomaly\(True, check_nan=False\)",
):
    out.sum().backward()
check(a.grad, None, label="a.grad")

# %%
# In the picture of this edit, ``out`` and ``out_detached`` are two rows
# over one strip of three zeros, and both end in ``v1``: one counter,
# moved by the edit, where ``.data`` had a second one.
#
# ``detach()`` returns a tensor that shares ``out``'s storage *and* its
# version counter, so the edit moved the counter that backward checks from 0
# to 1. The saved ``out`` no longer holds the values it was saved with, and
# backward stops before any gradient reaches ``a``. To change values behind
# autograd's back, ``detach()`` is the safer choice: an edit of a tensor
# that a graph saved *before* the edit is reported at backward, where
# ``.data`` says nothing. It is not a safe one: an edit made before the
# tensor is saved passes every check and can still give a wrong gradient
# (:ref:`out_and_detach_before_use`), so the only safe edit is the one that
# autograd records, or one made under ``torch.no_grad()`` on a leaf.
#
# The two edits, drawn before backward
# ------------------------------------
# ``draw_graph`` reads, without running backward, what each node saved and
# the version it saved it at. Here are both edits again, stopped before
# ``backward()``:
from autograd_notes import autograd_graph, draw_graph

a = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
out = a.sigmoid()
out.data.zero_()
through_data = autograd_graph(out.sum(), names={"a": a, "out": out})
check(through_data.modified, [], label="modified in place, through .data")
draw_graph(through_data, title="out.data.zero_()")

a = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
out = a.sigmoid()
out.detach().zero_()
through_detach = autograd_graph(out.sum(), names={"a": a, "out": out})
check(
    through_detach.modified,
    ["SigmoidBackward0 (out): saved result (out) [3] v1 ≠ v0"],
    label="modified in place, through detach()",
)
draw_graph(through_detach, title="out.detach().zero_()")
plt.show()

# %%
# In both pictures ``SigmoidBackward0`` saved ``out`` at version 0, and
# both edits zeroed it. After the ``.data`` edit the saved tensor is still
# at ``v0``: the picture, like backward, sees nothing wrong, because the
# counter that moved was ``.data``'s own. After the ``detach()`` edit it is
# at ``v1 ≠ v0``, in red: the error of backward, predicted before it runs.
#
# Sources
# -------
# - :ref:`source_001` claims that ``.data`` and ``.detach()`` both return a
#   tensor that does not require a gradient and shares its data with the
#   original. **Holds**: both edits above zero ``out``, and both tensors
#   have ``requires_grad=False``.
# - :ref:`source_001` claims that zeroing ``out.data`` after
#   ``out = a.sigmoid()`` zeroes ``out`` and that backward then gives
#   ``a.grad`` equal to ``[0., 0., 0.]``, a wrong gradient, without an
#   error. **Holds**.
# - :ref:`source_001` claims that the same edit through ``out.detach()``
#   makes backward raise a ``RuntimeError`` about an in-place modification.
#   **Holds**, with another wording: the document quotes an older PyTorch
#   whose message did not name the tensor. Today's message names it
#   (``output 0 of Sigmoid``, where older versions wrote
#   ``SigmoidBackward0``) and gives the version numbers, and its hint reads
#   ``set_detect_anomaly(True, check_nan=False)`` (the hint names the
#   older ``check_nan`` argument since PyTorch 2.11).
