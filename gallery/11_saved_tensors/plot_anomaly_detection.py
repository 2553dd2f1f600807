"""
.. _anomaly_detection:

Anomaly detection
=================

When ``backward()`` fails, its error names a node of the graph but not the
line of your code that created it. Anomaly detection records, for every
node, where the forward pass created it, and reports that place when the
node fails. This example turns it on for an in-place error and for a NaN
produced during the backward pass, shows what it adds to each, and what it
costs.

.. questions::

   - How do I find which line caused an in-place autograd error?
   - What does ``torch.autograd.set_detect_anomaly`` do?
   - Where does ``returned nan values in its 0th output`` come from in the backward pass?
   - Does anomaly detection slow down training?
"""

# %%
# An error that names a node, not a line
# --------------------------------------
# The in-place error of :ref:`detach_inplace_saved`: ``z = y**2`` saved
# ``y``, and ``y`` was then zeroed through ``y.detach()``.
import warnings

import matplotlib.pyplot as plt
import torch

from autograd_notes import autograd_graph, check, draw_graph, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

x = torch.tensor(3.0, device=device, requires_grad=True)
y = x + 1
z = y**2
y.detach().zero_()
graph = autograd_graph(z, names={"x": x, "y": y, "z": z})
check(graph.modified, ["PowBackward0 (z): saved self (y) [] v1 ≠ v0"], label="modified in place")
draw_graph(graph, title="z = y**2; y.detach().zero_()")
plt.show()

with expect_error(
    RuntimeError,
    match=(
        r"^one of the variables needed for gradient computation has been modified by an inplace "
        r"operation: \[torch\.(cuda\.)?FloatTensor \[\]\], which is output 0 of Add, is at version 1; "
        r"expected version 0 instead\. Hint: enable anomaly detection to find the operation that failed "
        r"to compute its gradient, with torch\.autograd\.set_detect_anomaly\(True, check_nan=False\)\.$"
    ),
):
    z.backward()

# %%
# The graph before ``backward()``: ``PowBackward0``, the node of ``z``,
# saved ``y`` (shape ``[]``) at version 0, and ``y`` is now at version 1,
# marked in red with ``⚠`` and ``v1 ≠ v0``; below it are ``AddBackward0``,
# the node of ``y``, and the leaf ``x``. The error calls ``y`` "output 0
# of Add" and does not name ``PowBackward0``; the names in the picture are
# the ones this page gave.
#
# The traceback ends inside ``backward()``: the graph runs in PyTorch's
# engine, far from the code that built it. In a model with hundreds of
# nodes, "output 0 of Add" does not say which addition, nor which node
# needed it. The hint suggests the tool for this.
#
# The same error with anomaly detection
# -------------------------------------
# ``torch.autograd.set_detect_anomaly(True)`` can be called once, or used
# as a context manager as here, which restores the previous setting. Under
# it, the node that fails also emits a ``UserWarning`` holding the
# traceback of the forward call that created it. That traceback contains
# the file paths of the machine that ran it, so instead of printing it the
# example catches it and checks its first line and that it contains the
# line ``z = y**2``.
with torch.autograd.set_detect_anomaly(True):
    check(torch.is_anomaly_enabled(), True, label="torch.is_anomaly_enabled()")
    x = torch.tensor(3.0, device=device, requires_grad=True)
    y = x + 1
    z = y**2
    y.detach().zero_()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with expect_error(
            RuntimeError,
            match=(
                r"^one of the variables needed for gradient computation has been modified by an inplace "
                r"operation: \[torch\.(cuda\.)?FloatTensor \[\]\], which is output 0 of Add, is at "
                r"version 1; expected version 0 instead\. Hint: the backtrace further above shows the "
                r"operation that failed to compute its gradient\. The variable in question was changed "
                r"in there or anywhere later\. Good luck!$"
            ),
        ):
            z.backward()
check(torch.is_anomaly_enabled(), False, label="torch.is_anomaly_enabled() after the block")

check([record.category.__name__ for record in caught], ["UserWarning"], label="warnings caught")
trace = str(caught[0].message).splitlines()
check(
    trace[0],
    "Error detected in PowBackward0. Traceback of forward call that caused the error:",
    label="its first line",
)
check("    z = y**2" in trace, True, label="'z = y**2' is in its traceback")

# %%
# The warning names the node that failed, ``PowBackward0``, and its
# traceback goes through the forward line that created it, ``z = y**2``: the
# operation that needed the edited tensor. The error's hint changes
# accordingly ("the backtrace further above"): the culprit is ``y``, changed
# in place somewhere between that line and the backward call. In a script,
# the warning prints just before the error's own traceback.
#
# How it knows: a traceback stored in every node
# ----------------------------------------------
# In anomaly mode each node records the stack of the call that created it,
# in its ``metadata``; outside it, nothing is recorded.
with torch.autograd.set_detect_anomaly(True):
    recorded = x * 2
not_recorded = x * 2
check(sorted(recorded.grad_fn.metadata), ["traceback_"], label="sorted(recorded.grad_fn.metadata)")
check(len(not_recorded.grad_fn.metadata), 0, label="len(not_recorded.grad_fn.metadata)")

# %%
# Formatting a Python stack for every operation of the forward pass is what
# makes the mode slow, and each backward node is checked as it runs. Turn
# it on to find a failing node, never in a training run you want to finish.
#
# NaN produced during backward
# ----------------------------
# :math:`\sqrt{a} \cdot 0` is 0 for :math:`a = 0`, and so is its
# derivative. Autograd computes it as the chain rule's product
# :math:`0 \cdot \frac{1}{2\sqrt{a}} = 0 \cdot \infty`, which is NaN, and
# says nothing:
from autograd_notes import draw_tensors

a = torch.tensor(0.0, device=device, requires_grad=True)
out = torch.sqrt(a) * 0
out.backward()
check(a.grad.isnan().item(), True, label="a.grad is NaN")
check(out, 0.0, label="out")
draw_tensors({"a": a, "out": out, "a.grad": a.grad}, title="out = torch.sqrt(a) * 0; out.backward()")
plt.show()

# %%
# Three tensors of shape ``[]``, each in its own memory: ``a`` holds 0 and
# requires grad, ``out`` holds 0 and was made by ``MulBackward0``, and
# ``a.grad`` holds ``nan``.
#
# The forward pass gave a clean 0; the NaN appeared in the backward pass
# only, where a loss curve will not show it. With anomaly detection, whose
# ``check_nan`` defaults to ``True``, the output of every backward node is
# checked. ``torch.autograd.detect_anomaly()`` is the same switch as a
# context manager only; creating it warns:
with expect_warning(
    UserWarning,
    match=(
        r"^Anomaly Detection has been enabled\. This mode will increase the runtime "
        r"and should only be enabled for debugging\.$"
    ),
):
    anomaly_mode = torch.autograd.detect_anomaly()

a = torch.tensor(0.0, device=device, requires_grad=True)
with anomaly_mode:
    check(torch.is_anomaly_check_nan_enabled(), True, label="torch.is_anomaly_check_nan_enabled()")
    out = torch.sqrt(a) * 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with expect_error(
            RuntimeError, match=r"^Function 'SqrtBackward0' returned nan values in its 0th output\.$"
        ):
            out.backward()
check(a.grad, None, label="a.grad")

trace = str(caught[0].message).splitlines()
check(
    trace[0],
    "Error detected in SqrtBackward0. Traceback of forward call that caused the error:",
    label="first line of the warning",
)
check("    out = torch.sqrt(a) * 0" in trace, True, label="'out = torch.sqrt(a) * 0' is in its traceback")

# %%
# The error names the node whose output was NaN, ``SqrtBackward0``, and the
# warning names the forward line again; the backward pass stopped there, so
# ``a.grad`` was never written. The message's "0th output" is the gradient
# for the node's first input. The warning that ``detect_anomaly()`` gives
# when it is created is PyTorch's own statement of the cost.
#
# ``check_nan=False``
# -------------------
# The first error's hint asked for ``check_nan=False``: the traceback
# without the NaN check, which on a GPU makes the host wait for the result of
# every node (a cost no record measures). With it, the NaN goes through again:
a = torch.tensor(0.0, device=device, requires_grad=True)
with torch.autograd.set_detect_anomaly(True, check_nan=False):
    check(torch.is_anomaly_check_nan_enabled(), False, label="torch.is_anomaly_check_nan_enabled()")
    out = torch.sqrt(a) * 0
    out.backward()
check(a.grad.isnan().item(), True, label="a.grad is NaN")

# %%
# Use ``check_nan=True`` (the default) to find where NaNs start in the
# backward pass, and ``check_nan=False`` when chasing an in-place error,
# where the check only costs time. In both cases, switch the mode off
# again: the context managers above do it for you.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`);
# its first graph is that of :ref:`detach_inplace_saved`.
