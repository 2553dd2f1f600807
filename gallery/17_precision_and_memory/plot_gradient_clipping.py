"""
.. _gradient_clipping:

Where gradient clipping goes
============================

``torch.nn.utils.clip_grad_norm_`` rescales the gradients in place and
returns a number that is easy to misread. This example checks what that
number is (the total norm *before* clipping), that the norm is taken over
all parameters together and not one by one, how ``clip_grad_value_``
differs, what ``error_if_nonfinite=True`` raises (``The total norm of
order 2.0 for gradients from `parameters` is non-finite, so it cannot be
clipped``), and where the call belongs in a training step: after the last
``backward()`` of an accumulated step, after ``scaler.unscale_()``,
before ``optimizer.step()``.

.. questions::

   - What does ``clip_grad_norm_`` return?
   - Where does gradient clipping go in the training loop?
   - Difference between ``clip_grad_norm_`` and ``clip_grad_value_``?
   - Why are all my gradients NaN after ``clip_grad_norm_``?
"""

# %%
# The returned value is the norm before clipping
# ----------------------------------------------
# Two parameters ``a`` and ``b`` get the gradients ``[3, 4]`` and
# ``[0, 12]`` from one ``backward()``. Their norms are 5 and 12; put end to
# end, the four numbers have norm :math:`\sqrt{9 + 16 + 144} = 13`.
import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import check, draw_series, expect_error, runner_device, show_state

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

a = nn.Parameter(torch.zeros(2, device=device))
b = nn.Parameter(torch.zeros(2, device=device))
ca = torch.tensor([3.0, 4.0], device=device)
cb = torch.tensor([0.0, 12.0], device=device)


def backward_once():
    """Set a.grad = [3, 4] and b.grad = [0, 12], as a fresh step would."""
    a.grad, b.grad = None, None
    ((a * ca).sum() + (b * cb).sum()).backward()


backward_once()
a_grad = a.grad
total = nn.utils.clip_grad_norm_([a, b], max_norm=6.5)
check(total, 13.0, label="total (returned)")
check(total.device.type, device.type, label="total.device.type")
check(
    torch.stack([a.grad, b.grad]),
    [[1.5, 2.0], [0.0, 6.0]],
    label="torch.stack([a.grad, b.grad]) after clipping",
)
after = torch.linalg.vector_norm(torch.cat([a.grad, b.grad]))
check(after, 6.5, label="norm after clipping")
check(a.grad is a_grad, True, label="a.grad is the tensor it was before")
check(torch.cat([a.detach(), b.detach()]), [0.0] * 4, label="the parameters")
show_state(a=a, b=b)

# %%
# ``total`` is 13, the norm that was found, not the 6.5 that was left: a log
# of ``total`` over training shows how large the gradients were, which is
# what it is for. Clipping multiplied every gradient by the same factor,
# :math:`\min(6.5 / (13 + 10^{-6}), 1) \approx 0.5`, in place (a norm
# below ``max_norm`` gives a factor of 1): ``a.grad`` is still the same tensor,
# now holding new values, and the parameters themselves are untouched.
# ``total`` is a tensor on the gradients' device (``'cuda'`` in the CUDA record,
# PyTorch 2.11.0 on an H200): ``total.item()`` in a loop waits for the GPU.
#
# One norm for all parameters
# ---------------------------
# Clipping each parameter on its own with the same ``max_norm`` is a
# different operation: ``a``'s norm 5 is below 6.5 and stays, ``b``'s 12
# is cut to 6.5, and the gradient as a whole turns towards ``a``.
backward_once()
g = torch.cat([a.grad, b.grad])
for p in (a, b):
    nn.utils.clip_grad_norm_(p, max_norm=6.5)
per_parameter = torch.cat([a.grad, b.grad])
check(per_parameter, [3.0, 4.0, 0.0, 6.5], label="clipped one parameter at a time")
check(torch.linalg.vector_norm(per_parameter), 67.25**0.5, label="its norm")

backward_once()
check(nn.utils.clip_grad_value_([a, b], clip_value=3.0), None, label="clip_grad_value_ returns")
by_value = torch.cat([a.grad, b.grad])
check(by_value, [3.0, 3.0, 0.0, 3.0], label="clipped element by element at 3")

backward_once()
nn.utils.clip_grad_norm_([a, b], max_norm=6.5)
by_norm = torch.cat([a.grad, b.grad])

cosine = nn.functional.cosine_similarity
check(
    torch.stack([cosine(g, by_norm, dim=0), cosine(g, per_parameter, dim=0), cosine(g, by_value, dim=0)]),
    [1.0, 103 / (13 * 67.25**0.5), 57 / (13 * 27**0.5)],
    label="cosine with g: by norm, per parameter, by value",
)
draw_series(
    {
        "g": g.tolist(),
        "clip_grad_norm_([a, b], 6.5)": by_norm.tolist(),
        "clip_grad_norm_(p, 6.5) for p in (a, b)": per_parameter.tolist(),
        "clip_grad_value_([a, b], 3.0)": by_value.tolist(),
    },
    x=[0, 1, 2, 3],
    xlabel="i",
    title="torch.cat([a.grad, b.grad])[i]",
)
plt.show()

# %%
# The four values of ``torch.cat([a.grad, b.grad])`` (``a.grad[0]``,
# ``a.grad[1]``, ``b.grad[0]``, ``b.grad[1]`` at positions 0 to 3): ``g``,
# unclipped, is ``3, 4, 0, 12``; ``clip_grad_norm_`` over both parameters
# halves every value to ``1.5, 2, 0, 6``, a line of the same shape;
# clipping one parameter at a time gives ``3, 4, 0, 6.5``, which lowers
# only the last point; ``clip_grad_value_`` at 3 gives ``3, 3, 0, 3``.
#
# Only the total-norm clipping keeps the direction of the gradient
# (cosine 1 with ``g``); per-parameter clipping and value clipping change
# the direction (cosines 0.966 and 0.844): the step still goes downhill,
# but no longer along the gradient. ``clip_grad_value_`` clamps each element to
# :math:`[-3, 3]` and, unlike ``clip_grad_norm_``, returns ``None``.
#
# A gradient that is not finite
# -----------------------------
# An ``inf`` in any gradient makes the total norm ``inf``. By default the
# gradients are still multiplied by :math:`6.5 / \infty = 0`, which turns
# the ``inf`` into ``nan`` and every finite gradient into 0.
# ``error_if_nonfinite=True`` refuses instead and leaves the gradients
# as they were:
backward_once()
with torch.no_grad():
    a.grad[0] = float("inf")
NON_FINITE = (
    r"^The total norm of order 2\.0 for gradients from `parameters` is non-finite, so it cannot be clipped\. "
    r"To disable this error and scale the gradients by the non-finite norm anyway, "
    r"set `error_if_nonfinite=False`$"
)
with expect_error(RuntimeError, match=NON_FINITE):
    nn.utils.clip_grad_norm_([a, b], max_norm=6.5, error_if_nonfinite=True)
check(
    torch.stack([a.grad, b.grad]),
    [[float("inf"), 4.0], [0.0, 12.0]],
    label="torch.stack([a.grad, b.grad]) after the error",
)

total = nn.utils.clip_grad_norm_([a, b], max_norm=6.5)
check(total, float("inf"), label="total (default error_if_nonfinite=False)")
show_state(a=a, b=b)
check(a.grad[0].isnan().item(), True, label="a.grad[0] is nan")
check(torch.cat([a.grad[1:], b.grad]), [0.0, 0.0, 0.0], label="the finite gradients")

backward_once()
with torch.no_grad():
    a.grad[0] = float("nan")
with expect_error(RuntimeError, match=NON_FINITE):
    nn.utils.clip_grad_norm_([a, b], max_norm=6.5, error_if_nonfinite=True)
total = nn.utils.clip_grad_norm_([a, b], max_norm=6.5)
check(total.isnan().item(), True, label="a.grad[0] = nan: total is nan")
check(torch.cat([a.grad, b.grad]).isnan().tolist(), [True] * 4, label="which gradients are nan")

# %%
# After the ``inf``, a plain SGD step would write ``nan`` into ``a[0]``
# and leave the other values where they are. A ``nan`` is worse, as the
# last block shows: ``error_if_nonfinite=True`` refuses it with the same
# error, but by default the total norm is ``nan``, so is the factor
# (clamping a ``nan`` leaves a ``nan``), and every gradient becomes
# ``nan``: a step would write ``nan`` into every parameter.
# Mixed-precision training meets ``inf``
# gradients routinely: there ``scaler.step()`` skips the step and the
# returned ``total`` is ``inf`` or ``nan``, which is how such a step shows
# in a log (:ref:`autocast_grad_scaler`).
#
# Clipping before ``backward()`` does nothing
# -------------------------------------------
# ``clip_grad_norm_`` works on what ``.grad`` holds when it is called.
# Called before ``backward()``, after ``zero_grad()`` has set the
# gradients to ``None``, it finds nothing to clip and returns 0; the
# gradients that ``backward()`` then writes are never clipped:
optimizer = torch.optim.SGD([a, b], lr=0.1)
optimizer.zero_grad()
check(a.grad, None, label="a.grad after zero_grad()")
check(nn.utils.clip_grad_norm_([a, b], max_norm=6.5), 0.0, label="clip_grad_norm_ before backward()")
((a * ca).sum() + (b * cb).sum()).backward()
check(
    torch.stack([a.grad, b.grad]),
    [[3.0, 4.0], [0.0, 12.0]],
    label="torch.stack([a.grad, b.grad]) after backward()",
)

# %%
# With gradient accumulation
# --------------------------
# With two micro-batches per step, ``.grad`` holds a partial sum after the
# first ``backward()``. Clipping there clips the first micro-batch alone;
# the second is added unclipped, and the final clip sees a sum that is
# already distorted. Here the first micro-batch gives ``b`` the gradient
# ``[0, 12]`` and the second gives ``a`` ``[3, 4]``:
micro_batches = [(torch.zeros(2, device=device), cb), (ca, torch.zeros(2, device=device))]


def accumulate(clip_each, batches=micro_batches):
    a.grad, b.grad = None, None
    for ma, mb in batches:
        ((a * ma).sum() + (b * mb).sum()).backward()
        if clip_each:
            nn.utils.clip_grad_norm_([a, b], max_norm=6.5)
    if not clip_each:
        nn.utils.clip_grad_norm_([a, b], max_norm=6.5)
    return torch.cat([a.grad, b.grad])


check(accumulate(clip_each=False), [1.5, 2.0, 0.0, 6.0], label="clipped once, after the last backward()")
check(
    accumulate(clip_each=True),
    [3.0 * 6.5 / 67.25**0.5, 4.0 * 6.5 / 67.25**0.5, 0.0, 6.5 * 6.5 / 67.25**0.5],
    label="clipped after every backward()",
)
check(
    accumulate(clip_each=True, batches=micro_batches[::-1]),
    [1.5, 2.0, 0.0, 6.0],
    label="clipped after every backward(), micro-batches reversed",
)

# %%
# Clipped once, the accumulated gradient ``[3, 4, 0, 12]`` is halved, as in
# the first cell. Clipped after every micro-batch, ``b``'s ``[0, 12]`` is
# cut to ``[0, 6.5]`` before ``a``'s gradient arrives; the sum
# ``[3, 4, 0, 6.5]`` has norm :math:`\sqrt{67.25} \approx 8.2` and is
# scaled by :math:`6.5 / 8.2`: the result points along
# ``[3, 4, 0, 6.5]``, not along the accumulated gradient. The result depends
# on the order of the micro-batches, which an accumulated gradient
# (:ref:`gradient_accumulation`) should not: in the reverse order, ``a``'s
# ``[3, 4]`` (norm 5) passes unclipped and only the last clip acts, on the
# whole sum, so here it equals clipping once.
#
# So the order in a step is: every ``backward()`` of the step, then
# ``scaler.unscale_(optimizer)`` if a ``GradScaler`` is used (clipping
# scaled gradients compares them with a ``max_norm`` meant for true ones,
# see :ref:`autocast_grad_scaler`), then ``clip_grad_norm_``, then
# ``optimizer.step()``. Clipping after ``step()`` changes gradients that
# were already used.
#
# A hook that clamps is not norm clipping
# ---------------------------------------
# :ref:`tensor_hooks` clamps a gradient with a hook, ``grad.clamp(...)``.
# That is per-element clipping, like ``clip_grad_value_``, but it runs
# inside every ``backward()``, on each micro-batch's contribution before it
# is added to ``.grad``. Here four micro-batches, the two above twice,
# go through such hooks:
handles = [p.register_hook(lambda grad: grad.clamp(-3.0, 3.0)) for p in (a, b)]
a.grad, b.grad = None, None
for ma, mb in micro_batches + micro_batches:
    ((a * ma).sum() + (b * mb).sum()).backward()
check(torch.cat([a.grad, b.grad]), [6.0, 6.0, 0.0, 6.0], label="four micro-batches through the hooks")
for handle in handles:
    handle.remove()

# %%
# Each contribution was clamped to 3, but two non-zero contributions
# reached each parameter, so ``.grad`` holds 6 in three places: the bound applies to every
# ``backward()``, not to what the optimizer reads, and no norm is bounded
# at all. On a non-leaf tensor, such a hook also changes every gradient
# further back in the graph. For a limit on the size of the step, clip the
# accumulated ``.grad`` with ``clip_grad_norm_`` once per step.
# :ref:`mental_model` shows the ``AccumulateGrad`` node that writes a
# leaf's ``.grad``; a hook on the leaf runs just before it, at every
# ``backward()``.
#
# Sharded parameters
# ------------------
# Everything above assumes that each process holds whole gradients. Under
# FSDP each process holds only a shard of them, and the norm of a shard is
# not the norm of the gradient. With ``FullyShardedDataParallel`` (FSDP1),
# ``torch.nn.utils.clip_grad_norm_(model.parameters(), ...)`` sees the local
# flat shards only: every process computes the norm of its own shard,
# smaller than the gradient's, and scales its shard by its own factor. Call the root FSDP module's own
# ``model.clip_grad_norm_(max_norm)`` instead, on every process: it
# combines the local norms across processes into the global one (a
# non-root FSDP module refuses). With ``fully_shard`` (FSDP2) the
# gradients are ``DTensor`` objects, and ``torch.nn.utils.clip_grad_norm_``
# itself returns the global norm, as a ``DTensor``; only code that takes
# the local tensors out first (``.to_local()``) falls back into the trap.
# :ref:`sharded_gradients` checks both.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`); the
# values, the returned norms and the error message are checked on the runner that
# built this page; the CUDA record of 2.11.0 differs only in ``total.device.type``.
