"""
.. _batched_gradients:

Batched gradients in one call
=============================

``torch.autograd.grad(..., is_grads_batched=True)`` computes many
vector-Jacobian products of one recorded graph in a single call: the rows of
a Jacobian, or one product per vector of a batch. This example checks both
against a loop of separate calls and against ``torch.func``, then looks at
how the batch is run: by batching rules where PyTorch has them, by a silent
for-loop where it has none, and not at all where even the loop cannot work,
as when code writes a batch in place into a tensor that is not one.

.. questions::

   - How do I compute a whole Jacobian with one ``autograd.grad`` call?
   - What does ``is_grads_batched=True`` do?
   - Why is ``is_grads_batched`` no faster than a loop for some layers?
   - Why does a hook using ``.item()`` fail with ``is_grads_batched``?
   - Why does ``vmap`` say ``inplace arithmetic(self, *extra_args) is not possible``?
"""

# %%
# The rows of a Jacobian in one call
# ----------------------------------
# ``y = sin(W x)`` maps four inputs to three outputs. Each backward pass
# computes one vector-Jacobian product uᵀJ (:ref:`vector_jacobian_product`),
# and a one-hot ``u`` gives one row of J. With ``is_grads_batched=True``,
# the first dimension of ``grad_outputs`` is a batch of such vectors: the
# three rows of the identity give the three rows of J in one call. A hook on
# ``y`` records the gradients that reach it.
import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.func import jacrev, vjp, vmap

from autograd_notes import check, draw_matrix, draw_series, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 2
device = runner_device()
torch.manual_seed(0)

weight = torch.randn(3, 4, device=device)
x = torch.randn(4, device=device, requires_grad=True)
y = torch.sin(weight @ x)
reached_y = []
y.register_hook(lambda gradient: reached_y.append(list(gradient.shape)))

identity = torch.eye(3, device=device)
(jac,) = torch.autograd.grad(y, x, identity, is_grads_batched=True, retain_graph=True)
check(reached_y, [[3]], label="gradients that reached y, batched call")
check(jac, torch.cos(weight @ x).unsqueeze(1) * weight, label="jac vs cos(W x)·W")

rows = [torch.autograd.grad(y, x, u, retain_graph=True)[0] for u in identity]
check(reached_y, [[3], [3], [3], [3]], label="gradients that reached y, after the loop")
check(jac, torch.stack(rows), label="jac vs a loop of three calls")
check(x.grad, None, label="x.grad")

draw_matrix(
    jac,
    rows=["y[0]", "y[1]", "y[2]"],
    columns=["x[0]", "x[1]", "x[2]", "x[3]"],
    title="autograd.grad(y, x, eye(3), is_grads_batched=True)",
).set_size_inches(5.8, 2.6)
plt.show()

# %%
# The Jacobian of ``sin(W x)``: row ``y[i]`` is ``cos((W x)[i])`` times row
# ``i`` of ``W``, blue where positive, red where negative, and equal to what
# three separate calls give. The hook ran *once* for the batched call and
# saw a gradient of ``y``'s own shape, ``[3]``, not ``[3, 3]``: the batch
# dimension is hidden from the code that runs in the backward pass, which
# sees one vector as usual, while the computation itself covers all three.
# The loop ran the hook three more times. As with every
# ``torch.autograd.grad`` call, ``.grad`` is left alone.
#
# Any batch of vectors
# --------------------
# The vectors need not be one-hot: a batch of five arbitrary vectors gives
# five products ``v @ J`` at once. Each vector must have the shape of
# ``y``, after the batch dimension; a single vector is read as a batch of
# scalars and refused.
vectors = torch.randn(5, 3, device=device)
(products,) = torch.autograd.grad(y, x, vectors, is_grads_batched=True, retain_graph=True)
check(products, vectors @ jac, label="products vs vectors @ jac")
loop = torch.stack([torch.autograd.grad(y, x, v, retain_graph=True)[0] for v in vectors])
check(products, loop, label="products vs a loop of five calls")

with expect_error(
    RuntimeError,
    match=(
        r"^If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
        r"batch dimension\. The sizes of the remaining dimensions are expected to match the shape of "
        r"corresponding output, but a mismatch was detected: grad_output\[0\] has a shape of "
        r"torch\.Size\(\[\]\) and output\[0\] has a shape of torch\.Size\(\[3\]\)\. If you only want "
        r"some tensors in `grad_output` to be considered batched, consider using vmap\.$"
    ),
):
    torch.autograd.grad(y, x, torch.ones(3, device=device), is_grads_batched=True, retain_graph=True)

# %%
# ``torch.func`` computes the same
# --------------------------------
# ``torch.func.jacrev`` builds the Jacobian, and ``vmap`` over the function
# that ``torch.func.vjp`` returns gives the batch of products:


def f(x):
    return torch.sin(weight @ x)


check(jacrev(f)(x.detach()), jac, label="jacrev(f)(x) vs jac")
_, vjp_fn = vjp(f, x.detach())
(vmapped,) = vmap(vjp_fn)(vectors)
check(vmapped, products, label="vmap(vjp_fn)(vectors) vs products")

# %%
# The results are the same; what differs is what each needs. ``torch.func``
# needs a *function* that it runs itself. ``is_grads_batched`` needs only a
# graph that is already recorded, ``y`` above, whatever code built it: a
# model's output from an ordinary forward pass, with its hooks and
# in-place updates. It runs the backward pass once, under the ``vmap``
# prototype that predates ``torch.func`` (``torch._vmap_internals``, as a
# warning below says). That is where the two part.
#
# Where the batch becomes a loop
# ------------------------------
# ``vmap`` runs an operation on the whole batch at once when the operation
# has a *batching rule*. When it has none, ``vmap`` falls back to a loop:
# it runs the operation once per vector and stacks the results. The values
# are right either way; what differs is how many times the operation runs.
# To see which happened, the counter below counts the operations that
# reach PyTorch's kernels, and notes the shape each one first receives,
# with a ``TorchDispatchMode`` (an interception point below autograd and
# ``vmap``, from a private module of PyTorch's, fine for a look like this
# one).
from collections import Counter

from torch.utils._python_dispatch import TorchDispatchMode


class KernelCalls(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.calls = Counter()
        self.first_shapes = {}  # kernel name -> shape of its first argument, on its first call

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        self.calls[name] += 1
        if args and isinstance(args[0], torch.Tensor):
            self.first_shapes.setdefault(name, list(args[0].shape))
        return func(*args, **(kwargs or {}))


def batched_counter(fn, n):
    inputs = torch.randn(6, device=device, requires_grad=True)
    outputs = fn(inputs)
    with KernelCalls() as counter:
        torch.autograd.grad(outputs, inputs, torch.randn(n, 6, device=device), is_grads_batched=True)
    return counter


def batched_calls(fn, kernel, n):
    return batched_counter(fn, n).calls[kernel]


def func_calls(fn, kernel, n):
    _, vjp_fn = vjp(fn, torch.randn(6, device=device))
    with KernelCalls() as counter:
        vmap(vjp_fn)(torch.randn(n, 6, device=device))
    return counter.calls[kernel]


sizes = range(1, 9)
sin_counters = [batched_counter(torch.sin, n) for n in sizes]
series = {
    "is_grads_batched: tanh_backward": [batched_calls(torch.tanh, "tanh_backward", n) for n in sizes],
    "vmap(vjp_fn): tanh_backward": [func_calls(torch.tanh, "tanh_backward", n) for n in sizes],
    "is_grads_batched: mul (sin)": [c.calls["mul"] for c in sin_counters],
}
check(series["is_grads_batched: tanh_backward"], list(sizes), label="tanh_backward calls, is_grads_batched")
check(series["vmap(vjp_fn): tanh_backward"], [1] * 8, label="tanh_backward calls, vmap(vjp_fn)")
check(series["is_grads_batched: mul (sin)"], [1] * 8, label="mul calls for sin, is_grads_batched")
check(
    [c.first_shapes["mul"] for c in sin_counters],
    [[n, 6] for n in sizes],
    label="sin: shape of mul's first argument",
)
check([c.calls["cos"] for c in sin_counters], [1] * 8, label="sin: cos calls")
check([c.first_shapes["cos"] for c in sin_counters], [[6]] * 8, label="sin: shape of cos's argument")
draw_series(series, x=list(sizes), xlabel="vectors in the batch", title="kernel calls in one batched call")
plt.show()

# %%
# Three lines over the number of vectors in the batch, 1 to 8. For
# ``tanh``, ``is_grads_batched`` called the kernel of ``tanh``'s derivative,
# ``tanh_backward``, once per vector: the line climbs with the batch, as a
# Python loop would. ``vmap`` over ``torch.func.vjp`` called it once for
# the whole batch. For ``sin``, whose derivative is the incoming gradient
# times ``cos(x)``, ``is_grads_batched`` called ``mul`` once: ``mul``
# receives the batch, ``[n, 6]``, and the prototype has a batching rule
# for it. (``cos`` reads only the saved input, ``[6]``, which is not
# batched, so it runs once whatever the batch.) The lines of ``vmap`` and
# of ``mul`` lie on top of each other, flat at 1. The older prototype has
# no rule for ``tanh_backward``.
#
# The fallback is silent
# ----------------------
# ``is_grads_batched`` says nothing when it falls back. Its documentation
# names a debugging switch, ``torch._C._debug_only_display_vmap_fallback_warnings``,
# that makes the fallback warn; ``torch.func`` warns by default. ``layer_norm``
# is another operation whose derivative has no rule in the prototype:
import re
import warnings

row = torch.randn(6, device=device, requires_grad=True)
normalised = nn.functional.layer_norm(row, (6,))
one_hots = torch.eye(6, device=device)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    (layer_norm_jac,) = torch.autograd.grad(
        normalised, row, one_hots, is_grads_batched=True, retain_graph=True
    )
check(len(caught), 0, label="warnings without the switch")
by_jacrev = jacrev(lambda r: nn.functional.layer_norm(r, (6,)))(row.detach())
check(
    torch.allclose(layer_norm_jac, by_jacrev, atol=1e-6),
    True,
    label="layer_norm: is_grads_batched matches jacrev",
)

PROTOTYPE_FALLBACK = (
    r"^There is a performance drop because we have not yet implemented the batching rule for "
    r"aten::native_layer_norm_backward\. You are using the legacy vmap prototype "
    r"\(torch\._vmap_internals\.vmap\)\. If you are using torch\.autograd\.functional\.\{jacobian, "
    r"hessian\} or torch\._vmap_internals\.vmap: please switch to using torch\.func\.\{jacrev, jacfwd, "
    r"hessian\} and/or torch\.vmap instead for better operator coverage and performance improvements \."
)
torch._C._debug_only_display_vmap_fallback_warnings(True)
try:
    with expect_warning(UserWarning, match=PROTOTYPE_FALLBACK):
        torch.autograd.grad(normalised, row, one_hots, is_grads_batched=True, retain_graph=True)
finally:
    torch._C._debug_only_display_vmap_fallback_warnings(False)

# %%
# The warning names the operation, ``aten::native_layer_norm_backward``,
# and points to ``torch.func``, whose ``vmap`` has a rule for it: the
# ``jacrev`` call above ran without a warning. ``torch.func`` has no rule
# for everything either; where it falls back it says so by default. The
# derivative of ``torch.nn.functional.pdist`` (pairwise distances) has a
# rule in neither:
points = torch.randn(4, 2, device=device)
FUNC_FALLBACK = (
    r"^There is a performance drop because we have not yet implemented the batching rule for "
    r"aten::_pdist_backward\. Please file us an issue on GitHub so that we can prioritize its "
    r"implementation\."
)
with expect_warning(UserWarning, match=FUNC_FALLBACK):
    pdist_jac = jacrev(nn.functional.pdist)(points)

points_leaf = points.clone().requires_grad_()
distances = nn.functional.pdist(points_leaf)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    (pdist_batched,) = torch.autograd.grad(
        distances, points_leaf, torch.eye(6, device=device), is_grads_batched=True
    )
check(len(caught), 0, label="warnings from is_grads_batched")
check(
    torch.allclose(pdist_batched, pdist_jac, atol=1e-6), True, label="pdist: is_grads_batched matches jacrev"
)

# %%
# Six distances between four points: ``jacrev`` warned, ``is_grads_batched``
# did not, and both looped, to the same Jacobian. Which operations have
# rules differs between the two, as the table below shows for a few
# familiar ones, with both warnings switched on:


def fallen_back(caught):
    # the operations that the warnings name: "... the batching rule for aten::tanh_backward. ..."
    return {re.search(r"batching rule for (\S+?)\.(?: |$)", str(w.message)).group(1) for w in caught}


def prototype_fallbacks(fn):
    inputs = torch.randn(6, device=device, requires_grad=True)
    outputs = fn(inputs)
    torch._C._debug_only_display_vmap_fallback_warnings(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            one_hots = torch.eye(outputs.numel(), device=device).reshape(-1, *outputs.shape)
            torch.autograd.grad(outputs, inputs, one_hots, is_grads_batched=True)
    finally:
        torch._C._debug_only_display_vmap_fallback_warnings(False)
    return fallen_back(caught)


def func_fallbacks(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jacrev(fn)(torch.randn(6, device=device))
    return fallen_back(caught)


operations = {
    "sin": torch.sin,
    "relu": torch.relu,
    "W @ x": lambda v: torch.ones(3, 6, device=device) @ v,
    "tanh": torch.tanh,
    "softmax": lambda v: torch.softmax(v, 0),
    "layer_norm": lambda v: nn.functional.layer_norm(v, (6,)),
    "mse_loss": lambda v: nn.functional.mse_loss(v, torch.zeros(6, device=device)),
    "pdist": lambda v: nn.functional.pdist(v.reshape(3, 2)),
}
fallbacks = {name: (prototype_fallbacks(fn), func_fallbacks(fn)) for name, fn in operations.items()}
check(
    {name: sorted(prototype) for name, (prototype, _) in fallbacks.items()},
    {
        "sin": [],
        "relu": [],
        "W @ x": [],
        "tanh": ["aten::tanh_backward"],
        "softmax": ["aten::_softmax_backward_data"],
        "layer_norm": ["aten::native_layer_norm_backward"],
        "mse_loss": ["aten::mse_loss_backward"],
        "pdist": ["aten::_pdist_backward"],
    },
    label="fallbacks of is_grads_batched",
)
check(
    {name: sorted(func) for name, (_, func) in fallbacks.items() if func},
    {"pdist": ["aten::_pdist_backward"]},
    label="fallbacks of torch.func (only those with one)",
)
draw_matrix(
    [[len(prototype), len(func)] for prototype, func in fallbacks.values()],
    rows=list(operations),
    columns=["is_grads_batched", "torch.func"],
    title="operations that fall back to a loop",
).set_size_inches(4.2, 5.0)
plt.show()

# %%
# One row per operation, one column per way of batching; a blue 1 marks an
# operation whose derivative ran as a loop, an uncoloured 0 one that ran batched.
# ``sin``, ``relu`` and the matrix product are batched by both; ``tanh``,
# ``softmax``, ``layer_norm`` and ``mse_loss`` loop under
# ``is_grads_batched`` only; ``pdist`` loops under both. For a model made
# of such operations, ``is_grads_batched`` gives the right numbers and runs
# those derivatives one vector at a time, as a Python loop would;
# ``torch.func.vmap`` over ``vjp``, or ``jacrev``, batches more. The
# prototype's warning also names ``torch.autograd.functional.jacobian`` and
# ``hessian``: with ``vectorize=True`` they batch the same way.
#
# Where not even a loop works
# ---------------------------
# The fallback can slice tensors and stack results, nothing more: an
# operation that returns a Python number cannot be looped. A hook that logs
# the norm of a gradient with ``.item()`` is ordinary code in a training
# loop, and breaks a batched call:
h = torch.tanh(weight @ x)
norms = []
h.register_hook(lambda gradient: norms.append(gradient.norm().item()))
with expect_error(
    RuntimeError, match=r"^Batching rule not implemented for aten::item\. We could not generate a fallback\.$"
):
    torch.autograd.grad(2 * h, x, identity, is_grads_batched=True)
check(norms, [], label="norms logged")

# %%
# ``.item()`` would have to turn a batch of norms into one number. A hook
# that checks the gradient's values before going on, or turns it into a
# list, fails too, each with a message of its own:
hooks = {
    "gradient if gradient.isfinite().all() else zeros": (
        lambda gradient: gradient if gradient.isfinite().all() else torch.zeros_like(gradient),
        r"^Batching rule not implemented for aten::is_nonzero\. We could not generate a fallback\.$",
    ),
    "gradient.tolist()": (
        lambda gradient: gradient.tolist(),
        r"^Cannot access data pointer of Tensor that doesn't have storage$",
    ),
}
for name, (hook, message) in hooks.items():
    h = torch.tanh(weight @ x)
    h.register_hook(hook)
    print(f"a hook that runs {name}:")
    with expect_error(RuntimeError, match=message):
        torch.autograd.grad(2 * h, x, identity, is_grads_batched=True)

# %%
# Inside the batched call the gradient is a batch in disguise, so code in
# the backward pass that needs its values as Python numbers stops the
# call. Remove such code for the batched call, or loop yourself.
#
# Writing a batch into a tensor that is not one
# ---------------------------------------------
# ``vmap(grad(loss))`` gives per-sample gradients: one gradient per sample,
# in one call. A loss that fills a buffer made with ``torch.zeros`` breaks
# it, although it runs fine on one sample:
from torch.func import grad

samples = torch.randn(5, 4, device=device)


def sample_loss(weight, sample):
    hidden = torch.zeros(3, device=device)
    for i in range(3):
        hidden[i] = weight[i] @ sample
    return torch.sin(hidden).sum()


with expect_error(
    RuntimeError,
    match=(
        r"^vmap: inplace arithmetic\(self, \*extra_args\) is not possible because there exists a "
        r"Tensor `other` in extra_args that has more elements than `self`\. This happened due to "
        r"`other` being vmapped over but `self` not being vmapped over in a vmap\. "
    ),
):
    vmap(grad(sample_loss), in_dims=(None, 0))(weight, samples)

# %%
# Under ``vmap`` a tensor carries the batch or does not. ``weight[i] @
# sample`` carries it: five numbers. ``hidden``, made inside the function,
# is one tensor of three, and a write in place keeps its shape: five values
# cannot go into one slot, and a loop over the batch would write them all
# into the same tensor. The message calls any such write "inplace
# arithmetic". ``+=`` (``add_``) fails too, with a message that does not
# name ``vmap``:
with expect_error(
    RuntimeError, match=r"^output with shape \[4\] doesn't match the broadcast shape \[5, 4\]$"
):
    vmap(lambda sample: torch.zeros(4, device=device).add_(sample))(samples)

# %%
# Make the buffer part of the batch by creating it from the batched input
# (``sample.new_zeros(3)``, ``torch.zeros_like``), or write out of place
# (``hidden = hidden + ...``): that returns a new tensor, batched. Outside
# ``vmap`` nothing is batched, so the original loss runs in a plain loop:


def new_zeros_loss(weight, sample):
    hidden = sample.new_zeros(3)  # batched, like sample
    for i in range(3):
        hidden[i] = weight[i] @ sample
    return torch.sin(hidden).sum()


def out_of_place_loss(weight, sample):
    hidden = torch.zeros(3, device=device)
    for j in range(4):
        hidden = hidden + weight[:, j] * sample[j]
    return torch.sin(hidden).sum()


loop = torch.stack([grad(sample_loss)(weight, sample) for sample in samples])
for fixed in (new_zeros_loss, out_of_place_loss):
    per_sample = vmap(grad(fixed), in_dims=(None, 0))(weight, samples)
    check(per_sample, loop, label=f"vmap(grad({fixed.__name__})) vs the loop")

# %%
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the Jacobians, the kernel counts and the messages are checked on the
# runner that built this page. PyTorch's documentation of
# ``torch.autograd.grad`` describes ``is_grads_batched`` and its
# debugging switch; ``torch.func.jacrev`` and ``torch.func.vmap`` are
# documented with ``torch.func``.
