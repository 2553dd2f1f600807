"""
.. _cudagraph_overwritten:

Outputs that CUDA graphs overwrite
==================================

``torch.compile(mode="reduce-overhead")`` runs the compiled step on a GPU
as a CUDA graph: after a warm-up call and a recording call, every call
replays the graph, which writes its outputs to the same memory each time.
A loss kept in a list for logging, or any output kept across iterations,
is then overwritten by a later step. Reading it raises "accessing tensor
output of CUDAGraphs that has been overwritten by a subsequent run" only
for the warm-up and recording steps: in the CUDA record (PyTorch 2.11.0, an
NVIDIA H200), replays' outputs silently held the last step's loss, their
``.detach()`` too, and ``torch.compiler.cudagraph_mark_step_begin()`` saved
none of them. This example illustrates, on every runner and with a
plain-PyTorch stand-in, what a replay does to a kept tensor and why
``.clone()`` protects it; the compiled loop runs, and is checked, on a GPU.

.. questions::

   - Why does ``reduce-overhead`` raise ``accessing tensor output of CUDAGraphs that has been
     overwritten``?
   - How do I keep a loss across iterations with ``torch.compile(mode="reduce-overhead")``?
   - Does ``cudagraph_mark_step_begin()`` keep my old outputs alive?
   - Why does ``.detach()`` not save an output from a CUDA graph?
   - Why are all my logged losses the same with ``torch.compile(mode="reduce-overhead")``?
"""

# %%
# A compiled training loop that keeps its losses
# ----------------------------------------------
# ``train`` runs four steps of gradient descent on ``w``. At each step it keeps
# what ``keep`` makes of the loss (the loss itself, a logging list's usual
# entry), and the loss's value as a Python float, read at once. On a GPU the
# step is compiled with ``mode="reduce-overhead"``, which uses CUDA graphs
# there. On a CPU the compiled step would use no CUDA graph (and TorchInductor
# would need a C++ compiler to build it), so the loop runs the plain step
# there: the next section illustrates, on every runner, what a replay does.
import re
import warnings

import torch

from autograd_notes import check, runner_device

# sphinx_gallery_thumbnail_number = 2
device = runner_device()
print(f"runner device: {device.type}")

torch.manual_seed(0)
w0 = torch.randn(3, 2, device=device)
batches = torch.randn(4, 5, 3, device=device)  # 4 steps, 5 rows of 3 features


def row_losses(w, x):
    return (torch.tanh(x @ w) ** 2).sum(dim=1)


def loss_fn(w, x):
    return row_losses(w, x).mean()


def train(step, keep):
    """Four steps of gradient descent; what ``keep`` made of each loss, and each loss's value."""
    w = w0.clone().requires_grad_()
    kept, values = [], []
    for x in batches:
        loss = step(w, x)
        loss.backward()
        with torch.no_grad():
            w -= 0.5 * w.grad
        w.grad = None
        kept.append(keep(loss))
        values.append(loss.item())
    return kept, values


OVERWRITTEN = r"^Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run\."


def read_after(kept, values):
    """Each kept tensor read after the loop: whose step's loss it holds, or ``"raises"``."""
    read = []
    for tensor in kept:
        try:
            value = tensor.item()
        except RuntimeError as error:
            if not re.match(OVERWRITTEN, str(error)):
                raise
            read.append("raises")
        else:
            read.append(f"step {values.index(value) + 1}" if value in values else f"{value:.4f}")
    return read


if device.type == "cuda":
    # importing TorchInductor makes torch.jit warn that script_method is deprecated (2.10 to 2.13),
    # and it advises TF32 on a GPU that has it: PyTorch's own words, not about this page's code
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"`torch\.jit\.script_method` is deprecated")
        warnings.filterwarnings("ignore", message=r"TensorFloat32 tensor cores for float32 matrix")
        step = torch.compile(loss_fn, mode="reduce-overhead")
        kept, values = train(step, keep=lambda loss: loss)
        detached, _ = train(step, keep=torch.Tensor.detach)
        cloned, _ = train(step, keep=lambda loss: loss.detach().clone())
    print("losses read at each step:", [round(value, 4) for value in values])
    check(read_after(kept, values), ["raises", "raises", "step 4", "step 4"], label="kept losses, read after")
    check(read_after(detached, values), ["step 4"] * 4, label="their .detach(), a second loop")
    check(read_after(cloned, values), ["step 1", "step 2", "step 3", "step 4"], label="their .clone()")
else:
    kept, values = train(loss_fn, keep=lambda loss: loss)
    print("kept losses, read after the loop:", [round(loss.item(), 4) for loss in kept])
    print("losses read at each step:        ", [round(value, 4) for value in values])

# %%
# On a CPU runner the loop runs the plain step, whose every loss is new memory,
# so the kept losses are the losses: the two lines above illustrate that, and
# check nothing of ``torch.compile``. The GPU branch is what checks PyTorch.
# The CUDA record (PyTorch 2.11.0, an H200) reads each list after all three
# loops (each starts from ``w0``, so "step 4" is any loop's last). The kept
# losses of steps 1 and 2 (a warm-up run, then the run that records the graph)
# raise "Error: accessing tensor output of CUDAGraphs that has been overwritten
# by a subsequent run" (the record keeps "raises"; PyTorch's message goes on with
# the line that made the tensor and the advice "To prevent overwriting, clone the
# tensor outside of torch.compile() or call torch.compiler.cudagraph_mark_step_begin()
# before each model invocation"). Step 3's, a replay's output, raises nothing: it
# silently holds step 4's loss. The second loop through the same compiled step
# keeps the ``.detach()`` of each loss: every step is a replay then, and all
# four hold step 4's loss, without an error. The third loop keeps the
# ``.clone()`` of each loss, and each holds its own step's value.
#
# What a replay does to a kept tensor
# -----------------------------------
# A CUDA graph records the kernels of one call with the memory addresses they used, and
# each replay runs them again on the same addresses (PyTorch's CUDA graphs documentation): the
# outputs of every call are the same memory, written again. ``Replayed`` is
# a stand-in that does the same with plain PyTorch, on every runner: it
# computes the per-row losses of a batch, copies them into one output
# tensor, and returns that tensor. It illustrates the mechanism; it checks
# no CUDA graph.


class Replayed:
    """Call ``fn`` and return its result in one static output tensor, as a CUDA graph replay does."""

    def __init__(self, fn):
        self.fn = fn
        self.output = None

    def __call__(self, *args):
        with torch.no_grad():
            result = self.fn(*args)
        if self.output is None:
            self.output = result  # the first call allocates the static output
        else:
            self.output.copy_(result)  # every later call writes into it
        return self.output


replayed = Replayed(row_losses)
w = w0.clone()
kept, detached, cloned, means = [], [], [], []
for x in batches:
    losses = replayed(w, x)
    kept.append(losses)
    detached.append(losses.detach())
    cloned.append(losses.clone())
    means.append(losses.mean().item())

print("mean loss of each step, read at once:", [round(mean, 4) for mean in means])
print("kept, mean of each, read after the loop:", [round(t.mean().item(), 4) for t in kept])
print("detached, read after the loop:", [round(t.mean().item(), 4) for t in detached])
print("cloned, read after the loop:", [round(t.mean().item(), 4) for t in cloned])
check(
    detached[0].data_ptr() == replayed.output.data_ptr(), True, label="detached[0] reads the output's memory"
)
check(
    [replayed.output._version, detached[0]._version, cloned[0]._version],
    [3, 3, 0],
    label="versions of output, detached[0] and cloned[0]",
)

# %%
# Every kept tensor, and every ``.detach()`` of one, reads the memory of the
# static output, so after the loop each of them shows the last step's losses. A
# ``.detach()`` is a new tensor over the *same* memory: it leaves the
# autograd graph, not the buffer. ``.clone()`` copies the values into memory
# of its own, at the moment it runs. The memory of the first step, drawn:
import matplotlib.pyplot as plt

from autograd_notes import draw_series, draw_tensors

draw_tensors(
    {"output": replayed.output, "kept[0]": kept[0], "detached[0]": detached[0], "cloned[0]": cloned[0]}
)
plt.show()

# %%
# Each grey strip is one block of memory, with the five values it holds
# now; each row under it is a tensor that reads those cells, with its shape
# ``[5]`` and version. ``output``, ``kept[0]`` and ``detached[0]`` are rows
# of one strip: the static output, at ``v3`` after three copies into it,
# holding the fourth step's losses. ``cloned[0]`` has a strip of its own,
# with the first step's losses. The mean loss of each step, as a log would
# show it:
draw_series(
    {
        "kept[i].mean()": [t.mean().item() for t in kept],
        "cloned[i].mean()": [t.mean().item() for t in cloned],
    },
    xlabel="step",
)
plt.show()

# %%
# The horizontal axis is the step, 1 to 4; the vertical axis is the mean of
# the losses that entry of the list holds when read after the loop. The
# ``cloned`` line is the real curve; the ``kept`` line is flat at the last
# step's value. CUDA graph trees, the part of ``torch.compile`` that runs
# the replays, guard against silent wrong numbers only in part (from
# PyTorch's source): when a step starts after a warm-up or a recording, they
# mark the memory of the warm-up's or recording's outputs still alive, and
# reading such a tensor raises the error above; after a replay they mark
# nothing. So the CUDA record shows the error for the warm-up and recording
# steps only, not for replays, nor for any ``.detach()`` made after the
# recording. With ``torch.cuda.graph``, ``CUDAGraph.replay()`` or
# ``torch.cuda.make_graphed_callables``, which set no such marks (from the
# source), every kept output is overwritten silently, as with ``Replayed``.
#
# ``cudagraph_mark_step_begin()`` keeps nothing alive
# ---------------------------------------------------
# The error message suggests calling ``torch.compiler.cudagraph_mark_step_begin()``
# before each call. It marks that the next compiled call *starts* a new step, and that call frees
# the outputs of the previous one: it never saves an output kept from an earlier call. It
# fixes the cases where ``torch.compile`` misplaces a step's start (a
# forward pass whose outputs still wait for a backward pass, or several
# calls that make one step), and it should be called where each step begins, with the outputs to
# keep cloned before. Once it has been called, only its calls start new
# steps (``torch.compile`` counts steps by them from then on), so it must be
# called at every step; the example of its documentation calls it once
# before two calls of a compiled function, which then make one step. On a
# GPU, the GPU branch checks what the kept losses hold, with every step
# marked: the CUDA record (PyTorch 2.11.0) printed that all four held the
# last step's loss, without an error (the loops above had recorded the graph):
if device.type == "cuda":

    def marked(w, x):
        torch.compiler.cudagraph_mark_step_begin()
        return step(w, x)

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"`torch\.jit\.script_method` is deprecated")
        kept, _ = train(marked, keep=lambda loss: loss)
    check(read_after(kept, values), ["step 4"] * 4, label="kept losses, each step marked")
else:
    print(f"not run on a {device.type.upper()} runner: without CUDA graphs, nothing is overwritten")

# %%
# So: to keep a value, keep ``loss.item()`` (a Python float, which waits for
# the GPU at each step) or ``loss.detach().clone()`` (a copy on the GPU),
# never the tensor the compiled step returned, nor its ``.detach()``: the
# table of PyTorch's documentation on CUDA graph trees says they "cannot
# persist memory between separate runs through your model". Where that
# does not suit a program, the default mode of ``torch.compile`` and
# ``mode="max-autotune-no-cudagraphs"`` compile without CUDA graphs.
#
# Sources
# -------
# No source document: this example rebuilds no claim of the documents listed
# in :ref:`sources`. It follows :ref:`compile_and_autograd`, which compiles
# with ``backend="aot_eager"``. What it states about GPUs comes from PyTorch:
# the message is built by ``format_dealloc_msg`` in
# ``torch/_inductor/cudagraph_trees.py`` (a variant for ``.grad`` tensors
# names "accessing gradient tensor output of CUDAGraphs"); the *Limitations*
# section of PyTorch's "CUDAGraph Trees" documentation shows the error with
# two calls of a compiled function and says to clone tensors of a prior
# iteration, or to mark where an iteration starts; the documentation of
# ``torch.compiler.cudagraph_mark_step_begin`` says it indicates that a new
# iteration is about to begin. The PyTorch issue "CUDAGraph capturing of
# iterating the same function/module" (pytorch/pytorch#170604) shows that
# marking each step still raises the error there (in this page's CUDA
# record, the marked loop raised nothing and read wrong values), and the pull request that
# proposed rewording the message (pytorch/pytorch#177192) says that
# cloning is the only way to keep an old output. The PyTorch issue
# pytorch/pytorch#144386 reports that the documentation's example raises
# nothing with CPU tensors.
