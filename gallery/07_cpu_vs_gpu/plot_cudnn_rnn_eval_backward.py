"""
.. _cudnn_rnn_eval_backward:

RNN backward in eval mode
=========================

A gradient through an ``nn.LSTM`` or ``nn.GRU`` in ``eval()`` mode is what a
saliency map, an adversarial attack or a gradient penalty at evaluation time
needs. On a CPU it is computed like any other; on an NVIDIA GPU, where the
RNN runs in cuDNN, backward refuses it with "cudnn RNN backward can only be
called in training mode" (the CUDA record of PyTorch 2.11.0, on an H200, shows
it). This example computes the input gradient of an
LSTM in ``eval()`` mode, shows the two ways around the refusal (cuDNN
switched off around the forward pass, or the RNN in ``train()`` mode with a
dropout of 0) with what each costs, and checks on the runner that
``train()`` with a dropout of 0 gives the ``eval()`` outputs and gradients,
to the bit on a CPU, and that a dropout above 0 does not.

.. questions::

   - Why does ``cudnn RNN backward can only be called in training mode`` appear at eval time?
   - How do I get input gradients of an LSTM in eval mode on a GPU?
   - Does ``train()`` change the output of an ``nn.LSTM`` without dropout?
   - What does ``torch.backends.cudnn.flags(enabled=False)`` cost?
"""

# %%
# The input gradient of an LSTM in ``eval()`` mode
# ------------------------------------------------
# Two stacked LSTM layers read a sequence of 6 steps of 3 features (one
# sequence in the batch). ``input_gradient`` returns the output and the
# gradient of its last step's sum with respect to the input: what a saliency
# map draws, and what an FGSM attack follows. The model is in ``eval()``
# mode, as it is after training.
import torch
from torch import nn

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
print(f"runner device: {device.type}")

torch.manual_seed(0)
lstm = nn.LSTM(input_size=3, hidden_size=4, num_layers=2).to(device)  # dropout=0, the default
x = torch.randn(6, 1, 3).to(device)  # drawn on the CPU: the same numbers on every runner


def input_gradient(rnn, x):
    """The RNN's output, and d(output[-1].sum()) / d(input), both detached."""
    x = x.detach().requires_grad_()
    output, _ = rnn(x)
    (gradient,) = torch.autograd.grad(output[-1].sum(), x)
    return output.detach(), gradient


lstm.eval()
if device.type == "cuda":  # cuDNN on NVIDIA GPUs; MIOpen, on ROCm, has the same check in its own words
    with expect_error(
        RuntimeError, match=r"^(cudnn|miopen) RNN backward can only be called in training mode"
    ):
        input_gradient(lstm, x)
else:
    output_eval, gradient_eval = input_gradient(lstm, x)
    check(
        gradient_eval[0, 0],
        [0.0005, 0.0128, -0.0054],
        label="input gradient, eval(), first step",
        atol=1e-4,
        rtol=0,
    )

# %%
# On a CPU runner the gradient is computed. There too ``nn.LSTM`` runs as
# one fused kernel per layer, oneDNN's (the profiler shows
# ``aten::mkldnn_rnn_layer``, and ``MkldnnRnnLayerBackward0`` in backward),
# and that kernel's backward works in ``eval()`` mode. On an NVIDIA GPU,
# ``nn.LSTM`` runs as one cuDNN call, which schedules the kernels of every
# step and layer itself, and in ``eval()`` mode PyTorch asks
# cuDNN for its *inference* forward pass, which keeps none of the buffers
# (the *reserve space*) the backward kernel reads. The refusal comes from
# that inference pass, not from the fusion of the steps into one kernel. The
# backward then stops with "cudnn RNN backward can only be called in
# training mode": the GPU branch above expects it, and the CUDA record (PyTorch
# 2.11.0, an H200) shows it raised in ``torch.autograd.grad``. The error comes when
# the gradient is asked for, not at the forward pass, and ``model.eval()`` may have
# been called far from it, in an evaluation loop or by a library.
#
# Way 1: cuDNN switched off around the forward pass
# -------------------------------------------------
# ``torch.backends.cudnn.flags(enabled=False)`` keeps cuDNN out of what runs
# inside it: on a GPU the LSTM is then expected to run step by step, as matrix products
# and PyTorch's fused LSTM cell (``_thnn_fused_lstm_cell``), which backward can go through
# in ``eval()`` mode (from PyTorch's source; the CUDA record, PyTorch 2.11.0 on an H200,
# shows the gradient computed, not which kernels ran). On a CPU, which never runs cuDNN,
# the block changes nothing. The forward pass must be inside the block, since it decides
# which backward is recorded. Its gradient is the reference for the rest of this page.
with torch.backends.cudnn.flags(enabled=False):
    output_reference, gradient_reference = input_gradient(lstm, x)

# %%
# On a GPU it is expected to cost time (not measured here): the LSTM runs as many small
# kernels, one step after another, instead of one cuDNN call. ``flags`` has a catch of its
# own: it sets every flag it is not given, for the block, so with ``enabled=True`` and a
# single option, the others return to their defaults. A ``deterministic=True`` set for the
# whole run is off inside ``flags(enabled=True, benchmark=True)``, and ``allow_tf32`` (with
# ``fp32_precision``, in the releases that have it) returns to its default as well (on every
# runner: these are plain settings, and the CUDA record gives the same two values). With
# ``enabled=False`` the cuDNN flags do not matter, but the ``fp32_precision`` that ``flags``
# resets is ``torch.backends.cudnn``'s, which ``torch.backends.cuda.matmul.fp32_precision``
# (cuBLAS's products) reads unless set itself.
torch.backends.cudnn.deterministic = True
with torch.backends.cudnn.flags(enabled=True, benchmark=True):
    check(
        torch.backends.cudnn.deterministic,
        False,
        label="deterministic, inside flags(enabled=True, benchmark=True)",
    )
check(torch.backends.cudnn.deterministic, True, label="deterministic, after the block")
torch.backends.cudnn.deterministic = False

# %%
# Where cuDNN stays on inside ``flags``, pass it every option the run relies
# on, ``deterministic=True`` included.
#
# Way 2: the RNN in ``train()`` mode, with a dropout of 0
# --------------------------------------------------------
# In ``nn.LSTM``, ``nn.GRU`` and ``nn.RNN``, ``train()`` changes the function only
# through the dropout between stacked layers (their ``dropout`` argument, 0 by
# default). With a dropout of 0, ``train()`` computes the same function, and on a GPU
# it makes cuDNN run its training forward pass, whose saved buffers backward can read
# (from the source; in the CUDA record, PyTorch 2.11.0 on an H200, that backward runs).
# Only the RNNs may be switched: ``model.train()`` on a whole model would also switch its
# ``nn.Dropout`` and ``nn.BatchNorm`` layers, which do change the output.


def rnns_in_train_mode(model):
    """Put ``model`` in eval() mode, except its RNN layers."""
    model.eval()
    for module in model.modules():
        if isinstance(module, nn.RNNBase):
            module.train()
    return model


output_train, gradient_train = input_gradient(rnns_in_train_mode(lstm), x)
# on a GPU, cuDNN's kernel against PyTorch's own operations: close, not equal (see below)
tolerance = {"rtol": 1e-2, "atol": 1e-4} if device.type == "cuda" else {}
check(output_train[-1], output_reference[-1], label="last step's output, train() with dropout=0", **tolerance)
check(gradient_train.squeeze(1), gradient_reference.squeeze(1), label="input gradient, train()", **tolerance)
if device.type == "cpu":
    # the same operations in the same order: the same bits
    check(torch.equal(output_train, output_reference), True, label="torch.equal(outputs)")
    check(torch.equal(gradient_train, gradient_reference), True, label="torch.equal(input gradients)")

# %%
# On a CPU runner the outputs and the gradients are the same to the last bit. On a GPU
# they are checked within a relative tolerance of 1 %: in the CUDA record (PyTorch
# 2.11.0, an H200) the input gradient of step 2 prints ``0.0215`` where the reference has
# ``0.0214`` (the next cell prints it). cuDNN's RNN call and the operations run with
# cuDNN switched off do not add in the same order, and on Ampere and later GPUs cuDNN may
# multiply in TF32, with a 10-bit mantissa, while ``torch.backends.cudnn.allow_tf32`` is
# on (its default). Like the first way, this one keeps memory for backward: in training
# mode (from the source; not measured here) cuDNN's forward pass keeps a *reserve*
# buffer, which its inference pass does not allocate, and with cuDNN off autograd keeps
# the tensors that every step's operations save.
#
# The same weights with a dropout of 0.5 are another function in
# ``train()`` mode: every forward pass draws a new mask between the two
# layers. In ``eval()`` mode, with cuDNN off, they give the reference again.
dropping = nn.LSTM(input_size=3, hidden_size=4, num_layers=2, dropout=0.5).to(device)
dropping.load_state_dict(lstm.state_dict())

with torch.backends.cudnn.flags(enabled=False):
    _, gradient_dropping_eval = input_gradient(dropping.eval(), x)
check(
    gradient_dropping_eval.squeeze(1),
    gradient_reference.squeeze(1),
    label="input gradient, dropout=0.5, eval()",
)

torch.manual_seed(1)
output_dropping, gradient_dropping = input_gradient(dropping.train(), x)
check(torch.equal(output_dropping, output_reference), False, label="same output, dropout=0.5, train()")
check(torch.equal(gradient_dropping, gradient_reference), False, label="same gradient, dropout=0.5, train()")
_, gradient_again = input_gradient(dropping, x)
check(torch.equal(gradient_again, gradient_dropping), False, label="same gradient, next call")

# %%
# With a dropout above 0, ``train()`` is no way around the error: the
# gradient it gives is that of a randomly thinned network, another one at
# each call. Then only the first way gives the ``eval()`` gradient.
#
# The three gradients, drawn
# --------------------------
import matplotlib.pyplot as plt

from autograd_notes import draw_series


def per_step(gradient):
    """How much each input step moves the last output: |gradient| summed over the features."""
    return gradient.abs().sum(dim=(1, 2)).tolist()


draw_series(
    {
        "eval()": per_step(gradient_reference),
        "train(), dropout=0": per_step(gradient_train),
        "train(), dropout=0.5": per_step(gradient_dropping),
    },
    xlabel="step",
    title="|d output[-1].sum() / d x|",
)
plt.show()

# %%
# The horizontal axis is the step of the input sequence, from 1 to 6; the
# vertical axis is how much that step moves the last output (the absolute
# input gradient, summed over the 3 features): a saliency map of the
# sequence. The ``eval()`` gradient and the ``train()`` gradient with a
# dropout of 0 are the same values, so the line of ``train()``, drawn
# second, covers the line of ``eval()``: only its square markers show. The
# line of ``train()`` with a dropout of 0.5 leaves it: the thinned network
# gives each step another weight.
#
# Sources
# -------
# No source document: this example rebuilds no claim of the documents listed
# in :ref:`sources`. It is one of the runner differences of this section,
# next to :ref:`async_cuda_errors`. What it states about GPUs comes from
# PyTorch's code: in ``aten/src/ATen/native/cudnn/RNN.cpp``,
# ``_cudnn_rnn_backward_input`` checks its ``train`` argument with the
# message "cudnn RNN backward can only be called in training mode", and
# ``_cudnn_rnn`` allocates cuDNN's training reserve only when ``train`` is
# true (its inference branch leaves it empty), and gives cuDNN a dropout of 0
# when it is false. ``nn.LSTM`` passes ``self.training`` as that argument
# (``torch/nn/modules/rnn.py``). The PyTorch issue "Cannot backward on LSTM
# in evaluation mode on CUDA" (pytorch/pytorch#5878) calls the refusal a
# cuDNN limitation, and Captum's issue #564 reports it for integrated
# gradients, with ``torch.backends.cudnn.enabled = False`` as the
# workaround (this page's first way, for the block only).
