"""
.. _activation_checkpointing:

Activation checkpointing
========================

``torch.utils.checkpoint.checkpoint(block, h)`` keeps only the input of
``block`` for backward and runs ``block`` a second time during the backward
pass to rebuild the rest. This example checks that the gradients are those of
the plain run, counts the bytes each version saves, and shows the traps of
the older variant, ``use_reentrant=True``: parameters left with a ``.grad``
of ``None`` after the warning "None of the inputs have requires_grad=True.
Gradients will be None", the error "When use_reentrant=True,
torch.utils.checkpoint is incompatible with .grad()", and the warning
"the use_reentrant parameter should be passed explicitly". It ends with
dropout, whose mask the recomputation must replay, and with
``save_on_cpu``, under which an in-place edit made after the forward pass
raises no error.

.. questions::

   - How does activation checkpointing reduce memory?
   - Why does ``checkpoint`` warn ``None of the inputs have requires_grad=True``?
   - What does ``the use_reentrant parameter should be passed explicitly`` want?
   - Does activation checkpointing work with dropout?
"""

# %%
# The block runs twice, the gradients are the same
# ------------------------------------------------
# Two blocks, each ``Linear(16, 64)``, ``Tanh``, ``Linear(64, 16)``, on a
# batch of 32 rows. ``forward`` runs them plainly, or each inside
# ``checkpoint``. A forward pre-hook on the first block records whether
# gradients were enabled each time the block ran.
import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from autograd_notes import check, draw_series, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()


def make_blocks(n, dropout=None):
    torch.manual_seed(0)

    def block():
        layers = [nn.Linear(16, 64), nn.Tanh()]
        if dropout:
            layers.append(nn.Dropout(dropout))
        return nn.Sequential(*layers, nn.Linear(64, 16))

    return nn.ModuleList(block() for _ in range(n))


def forward(blocks, h, use_reentrant="plain", **options):
    for block in blocks:
        if use_reentrant == "plain":
            h = block(h)
        else:
            h = checkpoint(block, h, use_reentrant=use_reentrant, **options)
    return h


def gradients(blocks):
    """Every parameter's gradient in one flat tensor."""
    return torch.cat([parameter.grad.flatten() for parameter in blocks.parameters()])


def difference(gradients, reference):
    """The largest difference between two sets of gradients."""
    return (gradients - reference).abs().max()


blocks = make_blocks(2).to(device)
runs = []
blocks[0].register_forward_pre_hook(lambda module, args: runs.append(torch.is_grad_enabled()))
torch.manual_seed(1)
data = torch.randn(32, 16, device=device)

forward(blocks, data).pow(2).sum().backward()
plain = gradients(blocks)
check(runs, [True], label="runs, plain")

blocks.zero_grad(set_to_none=True)
runs.clear()
out = forward(blocks, data, use_reentrant=False)
check(runs, [True], label="runs after the forward pass")
out.pow(2).sum().backward()
check(runs, [True, True], label="runs after backward")
check(difference(gradients(blocks), plain), 0.0, rtol=0.0, atol=1e-5, label="difference from plain")

# %%
# The checkpointed block ran once in the forward pass and once more in
# ``backward()``, both times with gradients enabled. The first run built the
# block's nodes but kept none of the tensors they saved; the second run
# computes those tensors again when backward first needs one of them. The
# gradients equal those of the plain run.
#
# ``use_reentrant=True``: the first block gets no gradient
# --------------------------------------------------------
# The older variant wraps the block in a custom ``autograd.Function``. Its
# forward runs the block under ``torch.no_grad()``, and whether its output
# requires a gradient depends only on its tensor *arguments*. The first
# block of a network is fed with data, which does not require grad:
NO_INPUT_GRAD = r"^None of the inputs have requires_grad=True\. Gradients will be None$"
blocks.zero_grad(set_to_none=True)
runs.clear()
with expect_warning(UserWarning, match=NO_INPUT_GRAD):
    h = checkpoint(blocks[0], data, use_reentrant=True)
out = blocks[1](h)
out.pow(2).sum().backward()
check(runs, [False], label="runs")
check(h.grad_fn, None, label="h.grad_fn")
check(
    [[parameter.grad is None for parameter in block.parameters()] for block in blocks],
    [[True] * 4, [False] * 4],
    label="parameter.grad is None, per block",
)

# %%
# The first block ran once, without gradients, and was never run again:
# its output ``h`` has no ``grad_fn``, so backward stopped at the second
# block. The four parameters of the first block (two weights, two biases)
# kept ``.grad`` at ``None``, and an optimizer skips them: the block
# silently stops training, and the warning is the only trace
# (``use_reentrant=False`` has no such condition, as the first section
# showed). When every block is checkpointed this way, nothing in the loss
# requires a gradient, and it is ``backward()`` that fails:
with expect_warning(UserWarning, match=NO_INPUT_GRAD):
    out = forward(blocks, data, use_reentrant=True)
with expect_error(
    RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a grad_fn$"
):
    out.pow(2).sum().backward()

# %%
# ``use_reentrant=True`` only works with ``backward()``
# -----------------------------------------------------
# With an input that requires grad, the reentrant variant gives the plain
# gradients. But it runs a whole ``backward()`` of its own inside its node,
# so it cannot serve ``torch.autograd.grad`` (nor ``backward`` with
# ``inputs=``):
x = data.clone().requires_grad_()
blocks.zero_grad(set_to_none=True)
forward(blocks, x, use_reentrant=True).pow(2).sum().backward()
check(difference(gradients(blocks), plain), 0.0, rtol=0.0, atol=1e-5, label="difference from plain")

out = forward(blocks, x, use_reentrant=True)
check(out.grad_fn, "CheckpointFunctionBackward", label="out.grad_fn")
with expect_error(
    RuntimeError,
    match=(
        r"^When use_reentrant=True, torch\.utils\.checkpoint is incompatible with \.grad\(\) or passing "
        r"an `inputs` parameter to \.backward\(\)\. To resolve this error, you can either set "
        r"use_reentrant=False, or call \.backward\(\) without passing the `inputs` argument\.$"
    ),
):
    torch.autograd.grad(out.pow(2).sum(), x)

out = forward(blocks, x, use_reentrant=False)
check(out.grad_fn, "AddmmBackward0", label="out.grad_fn")
(x_grad,) = torch.autograd.grad(out.pow(2).sum(), x)
check(difference(x_grad, x.grad), 0.0, rtol=0.0, atol=1e-5, label="difference from x.grad")

# %%
# With ``use_reentrant=False`` the graph holds the block's own nodes
# (``AddmmBackward0`` of its last ``Linear``); only what they saved is
# replaced, by hooks on saved tensors (:ref:`saved_tensor_hooks`) that
# rerun the block when backward first asks for one of them.
#
# Leaving ``use_reentrant`` out
# -----------------------------
# The documentation asks for the argument to be passed. Without it:
with expect_warning(
    UserWarning,
    match=(
        r"^torch\.utils\.checkpoint: the use_reentrant parameter should be passed explicitly\. "
        r"Starting in PyTorch 2\.9, calling checkpoint without use_reentrant will raise an exception\. "
    ),
):
    out = checkpoint(blocks[0], x)
check(out.grad_fn, "CheckpointFunctionBackward", label="out.grad_fn")

# %%
# On torch 2.13 this is still a warning, although its text announces an
# exception from 2.9 on, and the default is still the reentrant variant
# (its ``CheckpointFunctionBackward`` node): with data as input, the
# silent ``None`` gradients above. Pass ``use_reentrant=False``.
#
# Dropout: the recomputation replays the mask
# -------------------------------------------
# Blocks with ``Dropout(0.5)`` draw a random mask in each forward run. The
# recomputation must draw the *same* mask, although other code used the
# random generator between the forward pass and backward (here, one
# ``torch.rand``). ``checkpoint`` saves the state of the random number
# generators (the CPU's, and the GPU's for tensors on a GPU) before the
# first run and restores it for the second (``preserve_rng_state=True``,
# the default):
dropout_blocks = make_blocks(2, dropout=0.5).to(device)


def dropout_run(use_reentrant, **options):
    dropout_blocks.zero_grad(set_to_none=True)
    torch.manual_seed(2)
    out = forward(dropout_blocks, data, use_reentrant, **options)
    torch.rand(3, device=device)  # other code uses the generator
    out.pow(2).sum().backward()
    return out.detach(), gradients(dropout_blocks)


out_plain, grad_plain = dropout_run("plain")
out_kept, grad_kept = dropout_run(False)
out_lost, grad_lost = dropout_run(False, preserve_rng_state=False)
check(
    difference(grad_kept, grad_plain), 0.0, rtol=0.0, atol=1e-5, label="preserve_rng_state=True: difference"
)
check(torch.equal(out_lost, out_plain), True, label="preserve_rng_state=False: same forward output")
check(torch.allclose(grad_lost, grad_plain), False, label="preserve_rng_state=False: same gradients")

# %%
# With the state restored, the gradients are those of the plain run. With
# ``preserve_rng_state=False`` the forward output is the same, but the
# recomputation drew another mask, so the gradients belong to a network
# that never produced this output; no error says so. Turn the option off
# only for blocks that draw no random numbers.
#
# What is saved
# -------------
# A pair of saved-tensor hooks sees every tensor that the graph keeps
# (:ref:`saved_tensor_hooks`). ``saved_bytes`` adds up the bytes of the
# distinct ones, leaving out the parameters, which exist anyway:


def saved_bytes(blocks, use_reentrant):
    parameters = {parameter.untyped_storage().data_ptr() for parameter in blocks.parameters()}
    saved = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in parameters:
            saved[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        forward(blocks, data, use_reentrant=use_reentrant)
    return sum(saved.values())


depths = range(1, 7)
plain_bytes = [saved_bytes(make_blocks(n).to(device), "plain") for n in depths]
checkpointed_bytes = [saved_bytes(make_blocks(n).to(device), False) for n in depths]
check(plain_bytes, [10240 * n for n in depths], label="plain_bytes")
check(checkpointed_bytes, [2048 * n for n in depths], label="checkpointed_bytes")
draw_series(
    {"plain_bytes": plain_bytes, "checkpointed_bytes": checkpointed_bytes},
    x=list(depths),
    xlabel="n",
    title="blocks = make_blocks(n)",
)
plt.show()

# %%
# Saved bytes against the number of blocks ``n``, from 1 to 6: two straight
# lines, both proportional to ``n``. ``plain_bytes`` rises by 10240 per
# block, from 10240 to 61440; ``checkpointed_bytes`` by 2048, from 2048 to
# 12288.
#
# A plain block saves its input (32 × 16 floats, 2048 bytes, for the
# weight's gradient) and the output of ``Tanh`` (32 × 64, 8192 bytes, for
# ``Tanh``'s own gradient and the second weight's). A checkpointed block
# saves its input alone. During backward, a checkpointed block's
# activations exist again only while its own gradients are computed: the
# saving is paid for by one more forward run per block, which is why
# checkpointing is put on blocks whose activations are large and cheap to
# recompute.
#
# ``save_on_cpu``: moving instead of dropping
# -------------------------------------------
# ``torch.autograd.graph.save_on_cpu`` keeps every saved tensor, but in CPU
# memory, and copies it back to its device when backward reads it. Its
# ``pack_hook`` can be called directly to see what it keeps, with the
# default ``pin_memory=False`` and with ``pin_memory=True``:
offload = torch.autograd.graph.save_on_cpu()
home, packed = offload.pack_hook(data)
check(home == data.device, True, label="home == data.device")
check(packed.device.type, "cpu", label="packed.device.type")
if device.type == "cpu":  # elsewhere the packed tensor is on the CPU, data is not: a copy by necessity
    check(packed is data, True, label="packed is data")

pinned = torch.autograd.graph.save_on_cpu(pin_memory=True)
home, packed = pinned.pack_hook(data)
if device.type == "cuda":
    torch.cuda.synchronize()  # the copy to pinned memory is asynchronous
check(packed.device.type, "cpu", label="packed.device.type, pin_memory=True")
if device.type == "cpu":  # a copy on the CPU too (pinned only where this PyTorch sees a CUDA device)
    check(packed.data_ptr() != data.data_ptr(), True, label="packed is a copy, pin_memory=True")
# pinned whenever this PyTorch sees a CUDA device, whatever device the tensor is on
check(packed.is_pinned(), torch.cuda.is_available(), label="packed.is_pinned()")
check(torch.equal(pinned.unpack_hook((home, packed)), data), True, label="unpacked equals data")

blocks.zero_grad(set_to_none=True)
with offload:
    forward(blocks, data).pow(2).sum().backward()
check(difference(gradients(blocks), plain), 0.0, rtol=0.0, atol=1e-5, label="difference from plain")

# %%
# With the default ``pin_memory=False``, ``pack_hook`` calls
# ``tensor.cpu()``. For a GPU tensor that is a copy into CPU memory; on a CPU
# runner, as here, ``cpu()`` returns the very tensor it was given, so
# nothing is copied and the graph keeps the tensor itself. With
# ``pin_memory=True``, ``pack_hook`` always makes a new tensor and copies
# into it, even from CPU memory. Whether that copy is pinned depends on
# whether the backend named by ``save_on_cpu``'s ``device_type`` argument
# (``"cuda"`` by default, so ``torch.cuda.is_available()`` here) is
# available, not on the tensor's device (the check compares with it);
# sparse tensors are never pinned (PyTorch's source of ``save_on_cpu``).
# A CPU runner whose PyTorch sees a CUDA device makes pinned copies of CPU tensors.
# For GPU tensors the copy is asynchronous (``non_blocking`` in that source), hence the synchronisation,
# and the graph keeps no saved tensor in GPU memory until backward copies it back (a tensor still
# referenced elsewhere, such as the input, stays there). The CUDA record (PyTorch
# 2.11.0, an H200) printed ``packed.is_pinned(): True``.
# Either way the gradients are those of the plain run.
#
# An edit after the forward pass
# ------------------------------
# ``save_on_cpu`` is a pair of saved-tensor hooks, and under such hooks
# backward compares no versions (:ref:`detach_inplace_saved`). Without
# them, doubling the network's input in place between the forward pass and
# backward is refused, since the first ``Linear`` saved that input for its
# weight's gradient:
inputs = data.clone()
loss = forward(blocks, inputs).pow(2).sum()
inputs.mul_(2)
with expect_error(
    RuntimeError,
    match=(
        r"^one of the variables needed for gradient computation has been modified by an inplace "
        r"operation: \[torch\.(cuda\.)?FloatTensor \[32, 16\]\] is at version 1; expected version 0 instead\."
    ),
):
    loss.backward()

blocks.zero_grad(set_to_none=True)
inputs = data.clone()
with offload:
    loss = forward(blocks, inputs).pow(2).sum()
inputs.mul_(2)
loss.backward()
edited = gradients(blocks)
first = blocks[0][0].weight.numel()  # the first weight comes first in gradients()
if device.type == "cuda":
    # pack_hook copied the input to CPU memory; the edit does not reach the copy
    check(difference(edited, plain), 0.0, rtol=0.0, atol=1e-5, label="difference from plain")
else:
    check(
        difference(edited[:first], 2 * plain[:first]),
        0.0,
        rtol=0.0,
        atol=1e-5,
        label="first weight: difference from 2 * plain",
    )
    check(
        difference(edited[first:], plain[first:]),
        0.0,
        rtol=0.0,
        atol=1e-5,
        label="other parameters: difference from plain",
    )

# %%
# Under ``save_on_cpu`` the same edit raises nothing. On a CPU runner, as
# here, the graph kept the input itself, so backward read the doubled
# values: the first weight's gradient is twice the plain one, the other
# gradients (computed from tensors nobody edited) are unchanged, and
# nothing says that anything went wrong. On a GPU the other branch runs:
# ``pack_hook`` copies the input into CPU memory during the forward pass,
# the edit does not reach that copy, and in the CUDA record (PyTorch 2.11.0
# on an H200) every gradient was the plain one. So the same code gives
# different gradients on the two kinds of runner, and neither raises.
#
# ``checkpoint`` trades compute for memory,
# ``save_on_cpu`` trades transfers for it; :ref:`retain_graph_not_needed`
# lists what common nodes save, and :ref:`mental_model` places saved tensors
# in the whole picture.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the messages, the gradients and the byte counts are checked on the runner
# that built this page, and held in the CUDA record of PyTorch 2.11.0.
