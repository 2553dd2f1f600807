"""
.. _nan_loss_without_nan_grad:

NaN losses and NaN gradients
============================

A NaN in the loss and a NaN in the gradient are two different events, and
one can happen without the other. ``F.cross_entropy`` over a batch whose
every target is ``ignore_index`` returns NaN, yet its gradient is exactly
zero; ``std()`` of a single element returns NaN with the warning "std():
degrees of freedom is <= 0", and its gradient is NaN as well; a distance
written with ``sqrt`` returns a clean 0 for two equal points and a NaN
gradient. This example checks each case, what anomaly detection says about
it, and a fix for each.

.. questions::

   - Why is my cross-entropy loss NaN when every target is ignored?
   - Why does ``std()`` of a batch of one give NaN gradients?
   - Why is the gradient NaN when my distance loss is zero?
   - Does a NaN loss always mean NaN gradients?
   - Does anomaly detection catch infinite gradients?
"""

# %%
# Every target ignored: a NaN loss, a zero gradient
# -------------------------------------------------
# Targets equal to ``ignore_index`` (-100 by default) mark positions that
# do not count, such as padding in a sequence. In this batch of two, both
# are padding.
import math
import warnings

import matplotlib.pyplot as plt
import torch
from torch.nn import functional as F  # noqa: N812 - the usual name

from autograd_notes import check, draw_tensors, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

logits = torch.tensor([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]], device=device, requires_grad=True)
target = torch.tensor([-100, -100], device=device)
ce_loss = F.cross_entropy(logits, target)
check(ce_loss.isnan().item(), True, label="ce_loss.isnan()")
check(ce_loss.grad_fn, "NllLossBackward0", label="ce_loss.grad_fn")
ce_loss.backward()
check(logits.grad, [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], label="logits.grad")
ce_grad = logits.grad

# %%
# With the default ``reduction="mean"``, the loss is the sum of the losses
# of the targets that count divided by how many count (their total weight,
# with ``weight=``). No target counts: :math:`0/0`, NaN. The backward pass
# (``NllLossBackward0``) writes a gradient only at the positions whose
# target counts, and there are none, so ``logits.grad`` is exactly zero: an
# optimizer step with it changes nothing that the gradient drives (weight
# decay and momentum still move the weights, as after any batch).
#
# The NaN is in what the loop sees, though. ``loss.item()`` hands the
# loop a Python float NaN:
check(math.isnan(ce_loss.item()), True, label="math.isnan(ce_loss.item())")

# %%
# A loop that stops or skips on ``loss.isnan()`` reacts to a batch that is
# harmless. A logged average of ``loss.item()`` stays NaN from this batch
# on, since any sum that takes in a NaN is NaN.
#
# A loss that stays a number sums the losses and divides by the count of
# targets that count, at least 1 (by their total weight when ``weight=`` is
# given, or by 1 when that total is 0). It gives the mean whenever one
# target counts, and 0 with a zero gradient when none does.
logits.grad = None
counted = (target != -100).sum().clamp(min=1)
safe_loss = F.cross_entropy(logits, target, reduction="sum") / counted
check(safe_loss, 0.0, label="safe_loss")
safe_loss.backward()
check(logits.grad, [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], label="logits.grad")

one_counts = torch.tensor([-100, 2], device=device)
check(
    F.cross_entropy(logits, one_counts, reduction="sum") / (one_counts != -100).sum().clamp(min=1),
    F.cross_entropy(logits, one_counts),
    label="the same as the mean when one target counts",
)
class_weight = torch.tensor([1.0, 2.0, 3.0], device=device)
total_weight = class_weight[one_counts[one_counts != -100]].sum()
check(
    F.cross_entropy(logits, one_counts, weight=class_weight, reduction="sum")
    / torch.where(total_weight > 0, total_weight, 1.0),
    F.cross_entropy(logits, one_counts, weight=class_weight),
    label="the same as the mean with weight=, divided by the total weight",
)

# %%
# The standard deviation of one element: NaN in both
# ---------------------------------------------------
# Normalising by the spread of a batch, ``(x - x.mean()) / x.std()``, is
# common; the last batch of an epoch can hold a single sample. ``std()`` of
# one element warns and returns NaN:
w = torch.tensor([3.0], device=device, requires_grad=True)
with expect_warning(UserWarning, match=r"^std\(\): degrees of freedom is <= 0\."):
    std_loss = w.std()
check(std_loss.isnan().item(), True, label="std_loss.isnan()")
check(std_loss.grad_fn, "StdBackward0", label="std_loss.grad_fn")
std_loss.backward()
check(w.grad.isnan().tolist(), [True], label="w.grad.isnan()")
std_grad = w.grad

# %%
# By default ``std`` applies Bessel's correction: it divides the sum of
# squared deviations by :math:`N - 1`, here 0, so the result is
# :math:`0/0`, NaN. The warning comes once, in the forward pass; the
# backward pass (``StdBackward0``) divides by the same zero and returns NaN
# without a warning. Unlike the previous case, this NaN is in the gradient.
# A plain optimizer step writes it into the weights, and
# ``clip_grad_norm_`` (:ref:`gradient_clipping`) first spreads it to every
# parameter, since the total norm becomes NaN. Under AMP, ``GradScaler``
# (:ref:`autocast_grad_scaler`) sees it, skips the step without a message
# and halves its scale; this happens again at every batch of one. Here on
# copies of ``w`` with its NaN gradient, and a second parameter ``other``
# with a finite one:
stepped = w.detach().clone().requires_grad_()
stepped.grad = std_grad.clone()
torch.optim.SGD([stepped], lr=0.1).step()
check(stepped.isnan().tolist(), [True], label="weight after a plain step")

clipped = w.detach().clone().requires_grad_()
clipped.grad = std_grad.clone()
other = torch.zeros(2, device=device, requires_grad=True)
other.grad = torch.tensor([0.5, 0.5], device=device)
total_norm = torch.nn.utils.clip_grad_norm_([clipped, other], max_norm=1.0)
check(total_norm.isnan().item(), True, label="total norm seen by clip_grad_norm_")
check(other.grad.isnan().tolist(), [True, True], label="other.grad after clipping")

scaled = w.detach().clone().requires_grad_()
scaled_optimizer = torch.optim.SGD([scaled], lr=0.1)
scaler = torch.amp.GradScaler(device.type)
scales = [scaler.get_scale()]
for _ in range(2):  # two batches of one
    scaled_optimizer.zero_grad()
    with expect_warning(UserWarning, match=r"^std\(\): degrees of freedom is <= 0\."):
        scaled_loss = scaled.std()
    scaler.scale(scaled_loss).backward()
    scaler.step(scaled_optimizer)
    scaler.update()
    scales.append(scaler.get_scale())
check(scaled, [3.0], label="weight after two steps under GradScaler")
check(scales, [65536.0, 32768.0, 16384.0], label="scaler.get_scale() before and after each step")

# %%
# With ``correction=0`` the division is by :math:`N = 1`: the standard
# deviation is 0, and its gradient is 0.
w.grad = None
population = w.std(correction=0)
check(population, 0.0, label="w.std(correction=0)")
population.backward()
check(w.grad, [0.0], label="w.grad")

# %%
# ``correction=0`` changes the result for every batch, not only the small
# ones; ``drop_last=True`` in the ``DataLoader``, or a check of the batch
# size before normalising, keeps batches of one out instead.
#
# The reverse: a finite loss, a NaN gradient
# ------------------------------------------
# A distance written by hand, the square root of a sum of squares, is 0
# for two equal points, a clean loss. Its gradient there is NaN;
# ``torch.linalg.vector_norm`` returns 0 instead.
p = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
anchor = torch.tensor([1.0, 2.0], device=device)
dist = ((p - anchor) ** 2).sum().sqrt()
check(dist, 0.0, label="dist")
dist.backward()
check(p.grad.isnan().tolist(), [True, True], label="p.grad.isnan()")
p_grad = p.grad

p.grad = None
torch.linalg.vector_norm(p - anchor).backward()
check(p.grad, [0.0, 0.0], label="p.grad with vector_norm")

# %%
# ``SqrtBackward0`` divides by twice its output, 0, and the gradient of the
# square multiplies the resulting :math:`\infty` by 0.
# :ref:`nan_through_masking` shows this product in detail, and that
# ``vector_norm``'s protection holds for the first derivative only. Here
# are the three losses and the gradients they sent back:
draw_tensors(
    {
        "ce_loss": ce_loss,
        "logits.grad": ce_grad,
        "std_loss": std_loss,
        "w.grad": std_grad,
        "dist": dist,
        "p.grad": p_grad,
    },
)
plt.show()

# %%
# Six tensors, each in its own memory. ``ce_loss`` (``NllLossBackward0``,
# shape ``[]``) holds ``nan``, and ``logits.grad`` (``[2, 3]``) holds six
# zeros. ``std_loss`` (``StdBackward0``, ``[]``) holds ``nan``, and
# ``w.grad`` (``[1]``) holds ``nan``. ``dist`` (``SqrtBackward0``, ``[]``)
# holds ``0.``, and ``p.grad`` (``[2]``) holds ``nan nan``. NaN in the
# first pair only in the loss, in the second in both, in the third only in
# the gradient.
#
# What anomaly detection sees
# ---------------------------
# ``torch.autograd.detect_anomaly()`` (:ref:`anomaly_detection`) checks the
# output of every backward node for NaN, not the loss. The ignored batch
# passes; the one-element ``std`` stops the backward pass at its node. As in
# :ref:`nan_through_masking`, the node's warning carries the forward
# traceback with the paths of the machine that ran it, so only its first
# line is checked.
with expect_warning(UserWarning, match=r"^Anomaly Detection has been enabled\."):
    anomaly_mode = torch.autograd.detect_anomaly()

logits.grad = None
with anomaly_mode:
    F.cross_entropy(logits, target).backward()
check(logits.grad, [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], label="logits.grad under anomaly detection")

w.grad = None
with anomaly_mode:
    with expect_warning(UserWarning, match=r"^std\(\): degrees of freedom is <= 0\."):
        std_loss = w.std()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with expect_error(
            RuntimeError, match=r"^Function 'StdBackward0' returned nan values in its 0th output\.$"
        ):
            std_loss.backward()
check(
    str(caught[0].message).splitlines()[0],
    "Error detected in StdBackward0. Traceback of forward call that caused the error:",
    label="first line of the warning",
)
check(w.grad, None, label="w.grad")

# %%
# Anomaly detection is silent about the first case because its gradient
# has no NaN, and it names ``StdBackward0`` in the second, before any
# gradient is written. A check of the loss alone mixes up the two: it flags
# the harmless batch and the harmful one alike, and it misses the third
# case, whose loss is a clean 0.
#
# Infinite gradients pass anomaly detection
# -----------------------------------------
# Anomaly detection looks for NaN only. The square root of 0 on its own,
# without the square that made the distance's gradient NaN, sends back an
# infinite gradient, and no error:
z = torch.zeros(2, device=device, requires_grad=True)
with anomaly_mode:
    z.sqrt().sum().backward()
check(z.grad, [math.inf, math.inf], label="z.grad under anomaly detection")

stepped = z.detach().clone().requires_grad_()
stepped.grad = z.grad.clone()
torch.optim.SGD([stepped], lr=0.1).step()
check(stepped, [-math.inf, -math.inf], label="weight after a plain step")

p.grad = None
with anomaly_mode:
    dist = ((p - anchor) ** 2).sum().sqrt()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with expect_error(
            RuntimeError, match=r"^Function 'PowBackward0' returned nan values in its 0th output\.$"
        ):
            dist.backward()
check(
    str(caught[0].message).splitlines()[0],
    "Error detected in PowBackward0. Traceback of forward call that caused the error:",
    label="first line of the warning",
)

# %%
# ``SqrtBackward0`` returns :math:`\infty`, which is not NaN, so anomaly
# detection lets it through, and a plain step makes the weights infinite.
# In the distance, the error comes one node later, at ``PowBackward0``,
# where :math:`\infty` times 0 becomes NaN; an infinite gradient that meets
# no such product reaches ``.grad`` unseen.
#
# One check for all the gradients
# -------------------------------
# Checking the gradients before the optimizer step catches what reaches the
# weights, NaN and infinite alike. ``clip_grad_norm_`` with
# ``error_if_nonfinite=True`` does it in one call, on copies of the NaN
# gradient of ``std`` and the infinite one of ``sqrt``:
for bad_grad in (std_grad, z.grad[:1]):
    clipped.grad = bad_grad.clone()
    other.grad = torch.tensor([0.5, 0.5], device=device)
    with expect_error(
        RuntimeError,
        match=r"^The total norm of order 2\.0 for gradients from `parameters` is non-finite, "
        r"so it cannot be clipped\. To disable this error and scale the gradients by the "
        r"non-finite norm anyway, set `error_if_nonfinite=False`$",
    ):
        torch.nn.utils.clip_grad_norm_([clipped, other], max_norm=1.0, error_if_nonfinite=True)
    check(other.grad, [0.5, 0.5], label="other.grad after the error")

clipped.grad = torch.tensor([3.0], device=device)
other.grad = torch.tensor([0.0, 4.0], device=device)
total_norm = torch.nn.utils.clip_grad_norm_([clipped, other], max_norm=1.0, error_if_nonfinite=True)
check(total_norm, 5.0, label="total norm of finite gradients")
check(clipped.grad, [0.6], label="clipped.grad after clipping")
check(other.grad, [0.0, 0.8], label="other.grad after clipping")

# %%
# The NaN and the infinite gradient both stop the step with an error,
# raised before any gradient is scaled. Finite gradients go through and are
# clipped as usual, here from a total norm of 5 to 1. The test is on the
# total norm, one number for all the parameters, so the program waits for
# the device once per step, not once per parameter as a loop of
# ``torch.isfinite(p.grad).all()`` would.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`).
# What it states about PyTorch comes from its documentation, checked
# above: the ``torch.nn.CrossEntropyLoss`` documentation (with
# ``reduction="mean"``, the weighted mean over the targets that are not
# ``ignore_index``), the ``torch.std`` documentation (the division by
# :math:`\max(0, N - \text{correction})`), the
# ``torch.autograd.detect_anomaly`` documentation (an error for a backward
# computation that gives NaN) and the ``torch.nn.utils.clip_grad_norm_``
# documentation (an error for a NaN or infinite total norm with
# ``error_if_nonfinite=True``).
