"""
.. _inference_mode_vs_no_grad:

``inference_mode`` versus ``no_grad``
=====================================

``torch.no_grad()`` and ``torch.inference_mode()`` both run operations
without recording a graph. This example shows the one difference that
bites: a tensor made under ``inference_mode`` is an *inference tensor*, which
autograd refuses to save for a gradient and which raises an error when it is
edited in place once the mode is left. It shows the
exact errors and the two fixes: a ``clone()`` outside the mode, or
``no_grad`` instead.

.. questions::

   - Difference between ``torch.inference_mode()`` and ``torch.no_grad()``?
   - Why do I get ``Inference tensors cannot be saved for backward``?
   - How do I train on a tensor created under ``inference_mode``?
   - Why do I get ``Inplace update to inference tensor outside InferenceMode``?
"""

# %%
# Both modes record nothing
# -------------------------
# The same multiplication of a leaf that requires a gradient, once under each
# mode. Neither result has a ``grad_fn`` or requires a gradient.
import torch

from autograd_notes import check, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)

with torch.no_grad():
    check(torch.is_grad_enabled(), False, label="no_grad: torch.is_grad_enabled()")
    check(torch.is_inference_mode_enabled(), False, label="no_grad: torch.is_inference_mode_enabled()")
    made_in_no_grad = x * 2

with torch.inference_mode():
    check(torch.is_grad_enabled(), False, label="inference_mode: torch.is_grad_enabled()")
    check(torch.is_inference_mode_enabled(), True, label="inference_mode: torch.is_inference_mode_enabled()")
    made_in_inference = x * 2

check(torch.is_inference_mode_enabled(), False, label="after both: torch.is_inference_mode_enabled()")
for name, t in [("made_in_no_grad", made_in_no_grad), ("made_in_inference", made_in_inference)]:
    check(t.requires_grad, False, label=f"{name}.requires_grad")
    check(t.grad_fn, None, label=f"{name}.grad_fn")

# %%
# ``inference_mode`` also turns gradients off (``torch.is_grad_enabled()``
# is ``False`` under both), so it can replace ``no_grad`` wherever the
# results only feed more inference. The difference is in what the results
# are:
check(made_in_no_grad.is_inference(), False, label="made_in_no_grad.is_inference()")
check(made_in_inference.is_inference(), True, label="made_in_inference.is_inference()")
with expect_error(RuntimeError, match=r"^Inference tensors do not track version counter\.$"):
    made_in_inference._version

import matplotlib.pyplot as plt

from autograd_notes import draw_tensors

draw_tensors({"x": x, "made_in_no_grad": made_in_no_grad, "made_in_inference": made_in_inference})
plt.show()

# %%
# Each tensor is a row under the strip of cells of its own memory, with its
# values; the row ends with its shape ``[2]``, its version when it has one,
# and ``requires_grad`` for the leaf ``x``. ``made_in_no_grad`` ends with
# ``v0``, like any tensor; ``made_in_inference`` ends with ``is_inference``
# and no version at all.
#
# An inference tensor skips the bookkeeping that autograd relies on: it has
# no version counter (so in-place edits of it cannot be detected), and that
# is part of what makes the mode faster than ``no_grad``. For the same
# reason the state tables of this site, which show ``_version``, cannot show
# an inference tensor.
#
# An inference tensor cannot be saved for backward
# ------------------------------------------------
# Outside the mode, multiplying ``x`` by the inference tensor is recorded,
# and the multiplication node would have to save its other factor for the
# gradient of ``x``. PyTorch refuses at once, during the forward pass:
with expect_error(
    RuntimeError,
    match=(
        r"^Inference tensors cannot be saved for backward\. Please do not use Tensors created in "
        r"inference mode in computation tracked by autograd\. To work around this, you can make a "
        r"clone to get a normal tensor and use it in autograd, or use `torch\.no_grad\(\)` instead "
        r"of `torch\.inference_mode\(\)`\.$"
    ),
):
    product = x * made_in_inference

# %%
# The error comes from ``x * made_in_inference`` itself, not from a later
# ``backward()``. An operation that saves nothing is accepted: the gradient
# of a sum does not need the values of its terms (see
# :ref:`retain_graph_not_needed`), so ``x + made_in_inference`` is recorded
# and its gradient reaches ``x``.
total = (x + made_in_inference).sum()
total.backward()
check(x.grad, [1.0, 1.0], label="x.grad")

# %%
# Whether a given use of an inference tensor works therefore depends on the
# operation, which makes "it worked in one place" no guarantee elsewhere.
#
# No in-place edit outside the mode
# ---------------------------------
# Inside ``inference_mode`` an inference tensor can be edited in place. Once
# the mode is left it cannot, and it cannot be made to require a gradient
# either:
values_after = {"x * 2": made_in_inference.tolist()}  # drawn below
with torch.inference_mode():
    made_in_inference.add_(1)
check(made_in_inference, [3.0, 5.0], label="made_in_inference")
values_after[".add_(1)"] = made_in_inference.tolist()

with expect_error(
    RuntimeError,
    match=(
        r"^Inplace update to inference tensor outside InferenceMode is not allowed\."
        r"You can make a clone to get a normal tensor before doing inplace update\."
        r"See https://github\.com/pytorch/rfcs/pull/17 for more details\.$"
    ),
):
    made_in_inference.add_(1)
values_after[".add_(1)  ⚠"] = made_in_inference.tolist()

with expect_error(
    RuntimeError,
    match=r"^Setting requires_grad=True on inference tensor outside InferenceMode is not allowed\.$",
):
    made_in_inference.requires_grad_()
check(made_in_inference.requires_grad, False, label="made_in_inference.requires_grad")

# %%
# This is the usual way to meet these errors: a buffer, a cache or a
# parameter created or updated under ``inference_mode`` (during evaluation,
# say) and later used in training.
#
# The refused edit was made anyway
# --------------------------------
# The message says the update "is not allowed", but the values before the
# refused ``add_(1)`` were 3 and 5:
check(made_in_inference, [4.0, 6.0], label="made_in_inference after the refused add_(1)")

with expect_error(RuntimeError, match=r"^Inplace update to inference tensor outside InferenceMode"):
    made_in_inference[0] = 10.0
check(made_in_inference, [10.0, 6.0], label="made_in_inference after the refused assignment")
values_after["[0] = 10.0  ⚠"] = made_in_inference.tolist()

from autograd_notes import draw_matrix

figure = draw_matrix(
    list(values_after.values()), rows=list(values_after), columns=["[0]", "[1]"], title="made_in_inference"
)
figure.set_size_inches(3.6, figure.get_figheight())  # room for the rows' labels
plt.show()

# %%
# The values of ``made_in_inference`` (columns ``[0]`` and ``[1]``) after
# each statement on it (rows, top to bottom, in the order they ran): made
# as ``x * 2``, edited with ``.add_(1)`` inside ``inference_mode``, then
# the two edits outside it that raised a ``RuntimeError``, marked ``⚠``.
# The values change on every row, the last two included; the stronger the
# blue, the larger the value.
#
# The check comes *after* the operation has written its result: what fails
# is the step that would count the edit in the version counter, which an
# inference tensor does not have. An indexed assignment gets the same
# message and is made too. A program that catches this ``RuntimeError`` and
# goes on therefore works with edited values (``requires_grad_()``, by
# contrast, left the flag as it was). Treat the error as fatal and fix the
# code instead.
#
# The fixes: ``clone()`` outside the mode, or ``no_grad``
# -------------------------------------------------------
# ``clone()`` called *outside* the mode returns a normal tensor with the same
# values; everything refused above works on it.
normal = made_in_inference.clone()
check(normal.is_inference(), False, label="normal.is_inference()")
normal.add_(1)
check(normal, [11.0, 7.0], label="normal")

x.grad = None
(x * normal).sum().backward()
check(x.grad, [11.0, 7.0], label="x.grad")

with torch.inference_mode():
    cloned_inside = made_in_inference.clone()
check(cloned_inside.is_inference(), True, label="cloned_inside.is_inference()")
check(normal._version, 2, label="normal._version")
draw_tensors({"made_in_inference": made_in_inference, "normal": normal, "cloned_inside": cloned_inside})
plt.show()

# %%
# The three tensors drawn as above, each over a memory of its own with the
# values it holds. ``made_in_inference`` and ``cloned_inside`` end with
# ``is_inference`` and no version. ``normal`` has a version counter, at
# ``v2``: the copy that ``clone()`` wrote into it counts as one write (for
# a clone of an inference tensor, made outside the mode), its ``add_(1)``
# as the second.
#
# ``x.grad`` is ``normal``, the derivative of ``(x * normal).sum()`` with
# respect to ``x``. Where the clone is made matters: a clone made *inside*
# the mode is an inference tensor again.
#
# A tensor made under ``no_grad`` needs no fix. It is an ordinary tensor
# that happens to have no history: it can be saved, edited in place (its
# version counter counts the edit) and made to require a gradient.
made_in_no_grad.add_(1)
show_state(x=x, made_in_no_grad=made_in_no_grad)

from autograd_notes import draw_graph

x.grad = None
total = (x * made_in_no_grad).sum()
draw_graph(total, names={"x": x, "made_in_no_grad": made_in_no_grad}, title="(x * made_in_no_grad).sum()")
plt.show()
total.backward()
check(x.grad, [3.0, 5.0], label="x.grad")
made_in_no_grad.requires_grad_()
check(made_in_no_grad.is_leaf, True, label="made_in_no_grad.is_leaf")

# %%
# The graph of ``(x * made_in_no_grad).sum()``, drawn before its
# ``backward()``: gradients flow down the arrows from ``SumBackward0`` to
# the leaf ``x`` at the bottom (``AccumulateGrad``, in blue, shape
# ``[2]``). ``MulBackward0`` saved ``made_in_no_grad`` as its ``other``
# factor, shape ``[2]``, at version ``v1``, the version its in-place
# ``add_(1)`` gave it: saved and watched like any tensor.
#
# Use ``inference_mode`` for code whose outputs never come back into a
# recorded computation (serving a model, an evaluation loop whose results
# are only read), and ``no_grad`` when they might: a tensor made under
# ``no_grad`` only lacks the history of how it was made.
# :ref:`requires_grad_no_grad` shows what ``no_grad`` cuts from a graph.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`);
# it extends the ``no_grad`` examples of :ref:`gallery_graph_basics` to
# ``inference_mode``.
