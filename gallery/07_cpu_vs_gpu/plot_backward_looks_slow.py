"""
.. _backward_looks_slow:

Why backward looks slow
=======================

A timer around ``loss.backward()`` often says that the backward pass takes
far longer than the forward. Part of that is real: for a stack of linear
layers, the backward pass does up to twice the forward's products (1.67 times for this
page's network; more with checkpointing), plus work the count leaves out (below). Much of the
rest is how a GPU is timed (PyTorch's CUDA notes): a call returns once its kernels are queued, so
a timer read without ``torch.cuda.synchronize()`` charges the forward's
work to whichever later call waits for the GPU, and the first iterations
also pay for setting things up. This example counts instead of timing
(the floating-point operations of each pass, which are the same on every
run), shows how to measure a pass correctly, and, on a GPU runner, checks
where a naive timer puts the work. It prints no time: times change from
run to run.

.. questions::

   - Why is ``loss.backward()`` so much slower than the forward pass?
   - Does the backward pass cost twice as much as the forward?
   - How do I time a forward and backward pass on a GPU correctly?
   - Why is the first training iteration slower than the next ones?
"""

# %%
# Counting the work of each pass
# ------------------------------
# ``torch.utils.flop_counter.FlopCounterMode`` counts the floating-point
# operations of the matrix products (and convolutions) the code runs (a product of an
# ``m x k`` and a ``k x n`` matrix counts ``2 * m * k * n``). One counter
# around the forward pass of a small network, another around its
# backward pass:
import torch
from torch.utils.flop_counter import FlopCounterMode

from autograd_notes import check, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
print(f"runner device: {device.type}")
torch.manual_seed(0)

model = torch.nn.Sequential(
    torch.nn.Linear(256, 512),
    torch.nn.ReLU(),
    torch.nn.Linear(512, 512),
    torch.nn.ReLU(),
    torch.nn.Linear(512, 10),
).to(device)
x = torch.randn(64, 256, device=device)  # a batch of 64: the input needs no gradient

with FlopCounterMode(display=False) as forward_count:
    loss = model(x).square().mean()
with FlopCounterMode(display=False) as backward_count:
    loss.backward()
forward_flops, backward_flops = forward_count.get_total_flops(), backward_count.get_total_flops()
check([forward_flops, backward_flops], [50_987_008, 85_196_800], label="[forward, backward] FLOPs")
print(f"backward / forward: {backward_flops / forward_flops:.3f}")

# %%
# The backward pass did 1.67 times the forward's arithmetic, not 2. Each
# linear layer multiplies its input by its weight once in the forward pass;
# its backward pass multiplies the gradient of its output twice, once for
# the gradient of the weight and once for the gradient of the input. The
# first layer's input is the data, which needs no gradient, so autograd
# skips that product there. The ReLUs, the bias gradients (sums) and the
# loss are not counted: next to the products, they are small.
#
# Layer by layer
# --------------
# Each linear layer is run again on its own, on the input it saw in the
# forward pass, which requires a gradient as it did there (all but the
# first), and both passes are counted:
inputs = []
hooks = [layer.register_forward_hook(lambda m, args, out: inputs.append(args[0])) for layer in model[::2]]
model(x)
for hook in hooks:
    hook.remove()

per_layer = {}
for index, (layer, seen) in enumerate(zip(model[::2], inputs, strict=True)):
    h = seen.detach().requires_grad_(index > 0)  # as in the model: the data needs no gradient
    with FlopCounterMode(display=False) as forward_count:
        out = layer(h)
    with FlopCounterMode(display=False) as backward_count:
        out.backward(torch.ones_like(out))
    name = f"Linear({layer.in_features}, {layer.out_features})"
    per_layer[name] = [forward_count.get_total_flops(), backward_count.get_total_flops()]

ratios = {name: backward / forward for name, (forward, backward) in per_layer.items()}
check(
    ratios,
    {name: 1.0 if i == 0 else 2.0 for i, name in enumerate(per_layer)},
    label="backward / forward, per layer",
)
check(sum(b for _, b in per_layer.values()), backward_flops, label="the layers' backward FLOPs, summed")

# %%
# Every layer whose input requires a gradient does exactly twice its
# forward's products backward; the first layer does exactly as many. The
# layers' backward FLOPs add up to the whole pass's count above, so
# nothing else in the backward pass runs a matrix product.
import matplotlib.pyplot as plt

from autograd_notes import draw_matrix

mflops = [[flops / 1e6 for flops in counts] for counts in per_layer.values()]
for name, (forward_mflop, backward_mflop) in zip(per_layer, mflops, strict=True):
    print(f"{name}: {forward_mflop:.3g} MFLOP forward, {backward_mflop:.3g} MFLOP backward")
figure = draw_matrix(
    mflops, rows=list(per_layer), columns=["forward", "backward"], title="MFLOP, batch of 64"
)
figure.set_size_inches(4.6, figure.get_figheight())
plt.show()

# %%
# One row per linear layer, in the order of the model, and the millions of
# floating-point operations (MFLOP) of its forward and of its backward
# pass for a batch of 64. ``Linear(256, 512)`` has 16.8 in both columns;
# ``Linear(512, 512)`` has 33.6, then 67.1; ``Linear(512, 10)`` has 0.655,
# then 1.31. The largest layer sets the total, and its backward pass is
# twice its forward.
#
# That is the part of "backward is slow" that is real: the ratio of products is the same on every
# device (the CUDA record, PyTorch 2.11.0 on an H200, counts the same FLOPs). The backward's time
# is not proportional to it, though: the counter leaves out the elementwise backward kernels
# (ReLU, bias sums), which are limited by memory rather than arithmetic, the accumulation of
# gradients into ``.grad`` (``AccumulateGrad``) and their allocation; it counts the forward that a
# checkpoint recomputes, in the backward pass (with ``use_reentrant=False``, only as far as
# backward needs it). A timer can show more than twice, or much less, for reasons of measurement,
# not of the backward's work.
#
# A call returns before the GPU is done
# -------------------------------------
# A CUDA operation puts its kernel in a queue and returns; the GPU works through the queue
# while Python goes on (PyTorch's CUDA notes, "Asynchronous execution"; checked below on a GPU).
# ``time.perf_counter()`` read around ``model(x)`` then measures the queuing, not the work. The first
# call that has to wait for the GPU pays for everything queued before it:
# ``loss.item()``, ``print(loss)``, a copy to the CPU, or ``backward()``
# itself whenever something in it has to wait. A timer around that call
# charges it the forward's work. PyTorch's CUDA notes give the two correct ways: call
# ``torch.cuda.synchronize()`` before reading the clock, or record
# ``torch.cuda.Event(enable_timing=True)`` on the stream and read
# ``start.elapsed_time(end)`` after a synchronize.
#
# On a GPU runner, the cell below runs 8 products of 3072 x 3072
# matrices forward and backward (8 weights, 8 saved inputs and 8
# gradients of 3072 x 3072 floats), reads both clocks, and checks only what
# a normal run cannot come out otherwise: the GPU is still busy when the forward call
# returns, the forward call returns in less than a tenth of the forward's
# GPU time, ``loss.item()`` then waits longer than ``backward()`` took, and
# the backward's GPU time is longer than the forward's. It prints no time.
import time

if device.type == "cuda":
    size = 3072  # 8 weights, 8 saved inputs and 8 gradients of 36 MiB each: about 1 GiB in all
    weights = [(torch.randn(size, size, device=device) / size**0.5).requires_grad_() for _ in range(8)]
    data = torch.randn(size, size, device=device)

    def chain():
        h = data
        for weight in weights:
            h = h @ weight
        return h.square().mean()

    def one_step():
        for weight in weights:
            weight.grad = None
        chain().backward()
        torch.cuda.synchronize()

    cuda_mallocs = []  # how many segments the caching allocator asks CUDA for in each step
    for _ in range(2):
        before = torch.cuda.memory_stats().get("segment.all.allocated", 0)
        one_step()
        cuda_mallocs.append(torch.cuda.memory_stats().get("segment.all.allocated", 0) - before)
    check(cuda_mallocs[1] < cuda_mallocs[0], True, label="the second step asks CUDA for less memory")

    for weight in weights:
        weight.grad = None
    start, forward_done, backward_done = (torch.cuda.Event(enable_timing=True) for _ in range(3))
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    start.record()
    loss = chain()
    forward_done.record()
    t1 = time.perf_counter()
    busy = not torch.cuda.current_stream().query()
    t2 = time.perf_counter()
    loss.backward()
    backward_done.record()
    t3 = time.perf_counter()
    loss.item()
    t4 = time.perf_counter()
    forward_gpu = start.elapsed_time(forward_done) / 1000  # milliseconds -> seconds
    backward_gpu = forward_done.elapsed_time(backward_done) / 1000
    check(busy, True, label="GPU still busy when the forward call returned")
    check(t1 - t0 < forward_gpu / 10, True, label="the forward call took < 1/10 of the forward's GPU time")
    check(t4 - t3 > t3 - t2, True, label="loss.item() waited longer than backward() took")
    check(backward_gpu > forward_gpu, True, label="backward's GPU time > forward's")
elif device.type == "cpu":
    print("runner device is cpu: a CPU call returns when its work is done; the checks run on a GPU")
else:
    print(f"runner device is {device.type}: its work is queued too; this page checks the CUDA case only")

# %%
# On a CPU runner there is nothing to check here: each operation runs on
# the thread that calls it, and returns when its work is done. MPS and XPU are expected to
# queue their work as CUDA does (their documentation; not run here), so a timer misleads
# there, but this page checks only the CUDA case (``torch.mps.synchronize()`` and
# ``torch.xpu.synchronize()`` are the fences there). In the CUDA record (PyTorch 2.11.0,
# an H200) the four checks hold: the forward call returns while its kernels still run, so
# the time a timer gives it is a small fraction of its work; ``backward()`` returns as soon
# as its kernels are queued (the engine does not wait for the GPU); ``loss.item()`` copies
# the loss to the CPU and so waits for all of it, and a timer around it,
# or around the next line that waits, shows the whole step. The events
# measure the GPU's own time, where the backward pass is expected to take
# about twice the forward (15 products of the same size against 8); the
# record shows only that it took longer, since the page prints no time.
# Other GPUs and other releases are not recorded.
#
# The first step of a training loop is expected to be slow for other reasons (PyTorch's CUDA
# notes): the caching allocator asks CUDA for memory (``cudaMalloc``) that later steps reuse
# (in the CUDA record, the second step asked CUDA for less memory than the first), CUDA loads
# its kernels and creates its libraries' handles on first use (not run here), and with
# ``torch.backends.cudnn.benchmark = True`` cuDNN tries several algorithms
# for each new convolution shape. Time steps after a few warm-up steps.
#
# ``torch.utils.benchmark``
# -------------------------
# ``torch.utils.benchmark.Timer`` does this for you: it runs warm-up
# calls first, synchronizes the GPU (any accelerator, in recent releases)
# around each measurement, and runs with one thread unless told
# otherwise, so that measurements compare. The statement below counts its
# own calls and the threads it sees:
from torch.utils import benchmark

calls = []


def step():
    calls.append(torch.get_num_threads())
    model.zero_grad(set_to_none=True)
    model(x).square().mean().backward()


timer = benchmark.Timer(stmt="step()", globals={"step": step}, label="forward + backward")
measurement = timer.timeit(3)
check(len(calls), 5, label="calls of the statement, warm-up included")
check(sorted(set(calls)), [1], label="threads seen by the statement")

# %%
# ``timeit(3)`` ran the statement 5 times: 2 warm-up calls, then the 3
# it timed, each with one thread. ``print(measurement)`` would show the
# time per call; this page does not print it, since it changes from
# run to run. For a comparison, ``timer.blocked_autorange()`` picks the
# number of calls itself, and ``Timer(..., num_threads=...)`` sets the
# threads.
#
# Sources
# -------
# No source document: this example rebuilds no claim of the documents
# listed in :ref:`sources`. The FLOP counts are checked above on the
# runner that built the page. What it states about GPUs comes from
# PyTorch's CUDA notes ("Asynchronous execution": operations are queued,
# time measurements without synchronization are not accurate,
# ``torch.cuda.Event`` and ``torch.cuda.synchronize``), the documentation
# of ``torch.backends.cudnn.benchmark``, the CUDA notes on the caching
# allocator, and ``torch.utils.benchmark.Timer``'s documentation (warm-up,
# synchronization, one thread by default). :ref:`async_cuda_errors` shows
# the same queue from the side of errors.
