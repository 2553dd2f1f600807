"""
.. _custom_function:

A custom autograd Function
==========================

A ``torch.autograd.Function`` pairs a forward computation with a gradient
written by hand. This example writes a clipped exponential in the PyTorch 2
style (``forward``, ``setup_context``, ``backward``), calls it through
``apply`` and through ``torch.func`` (the transforms that style is for),
says which gradient shapes ``backward`` may return (others raise "returned
an invalid gradient at index"), and shows what each ``ctx`` method is for:
``save_for_backward``, whose tensors get the version check (an in-place edit
after forward raises "one of the variables needed for gradient computation
has been modified by an inplace operation" through a custom Function too)
and, for an output, no reference cycle, ``needs_input_grad``,
``mark_dirty``, ``mark_non_differentiable``, and the
``@once_differentiable`` decorator ("trying to differentiate twice a
function that was marked with @once_differentiable").

.. questions::

   - How do I write a custom autograd Function with its own backward?
   - Why use ``ctx.save_for_backward`` instead of storing tensors on ``ctx``?
   - Why is my custom ``backward`` never called?
   - When do I need ``mark_dirty`` or ``mark_non_differentiable``?
   - Why does my ``backward`` say ``returned an invalid gradient at index``?
"""

# %%
# The Function and its node
# -------------------------
# ``ClippedExp`` computes :math:`y = e^{\min(x,\,l)}`. Its gradient is
# :math:`y` where :math:`x < l`, 0 where the limit clips, and with respect
# to the limit :math:`y` where :math:`x > l`. ``forward`` only computes;
# ``setup_context`` gets the inputs and the output and stores on ``ctx``
# what ``backward`` needs; ``backward`` returns one gradient per input of
# ``forward``, ``None`` for an input that needs none. The older style, a
# ``forward(ctx, ...)`` that does both, still works with ``apply``; the
# split is what ``torch.func`` transforms need (see below).
import matplotlib.pyplot as plt
import torch
from torch.autograd.function import once_differentiable

from autograd_notes import (
    autograd_graph,
    check,
    draw_graph,
    draw_tensors,
    expect_error,
    runner_device,
    show_state,
)

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

computed = []  # the gradients that backward computed


class ClippedExp(torch.autograd.Function):
    @staticmethod
    def forward(x, limit):
        return torch.exp(torch.minimum(x, limit))

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, limit = inputs
        ctx.save_for_backward(x, limit, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, limit, output = ctx.saved_tensors
        grad_x = grad_limit = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * output * (x < limit)
            computed.append("x")
        if ctx.needs_input_grad[1]:
            grad_limit = (grad_output * output * (x > limit)).sum()
            computed.append("limit")
        return grad_x, grad_limit


x = torch.tensor([0.0, 1.0, 3.0], device=device, requires_grad=True)
limit = torch.tensor(2.0, device=device)
y = ClippedExp.apply(x, limit)
check(y, [1.0, 2.718282, 7.389056], label="y")
check(y.grad_fn, "ClippedExpBackward", label="y.grad_fn")
y.sum().backward()
check(x.grad, [1.0, 2.718282, 0.0], label="x.grad")
check(computed, ["x"], label="gradients computed")

reference = x.detach().clone().requires_grad_()
torch.exp(torch.minimum(reference, limit)).sum().backward()
check(x.grad, reference.grad, label="x.grad, as built-in operations give it")

at_limit = torch.tensor([2.0], device=device, requires_grad=True)
ClippedExp.apply(at_limit, limit).sum().backward()
reference = at_limit.detach().clone().requires_grad_()
torch.exp(torch.minimum(reference, limit)).sum().backward()
check(
    [at_limit.grad.item(), reference.grad.item()], [0.0, 3.694528], label="at x = limit: ClippedExp, built-in"
)

# %%
# ``apply`` runs ``forward`` without recording its operations and puts one
# node in the graph, named after the class: ``ClippedExpBackward``. Its
# gradient is the one PyTorch's ``exp`` and ``minimum`` give, except at a
# tie: at :math:`x = l`, ``backward`` gives 0 (``x < limit`` is false),
# while ``minimum`` splits the gradient, :math:`e^2/2` to each of its inputs
# (:ref:`nan_through_masking` shows the same split for ``maximum``). A
# hand-written ``backward`` chooses its own value at such points. ``limit``
# does not require a gradient, so ``ctx.needs_input_grad`` is
# ``(True, False)`` and ``backward`` skipped the limit's sum. When the limit
# requires a gradient, both are computed:
limit = torch.tensor(2.0, device=device, requires_grad=True)
computed.clear()
y = ClippedExp.apply(x, limit)
loss = y.sum()
graph = autograd_graph(loss, names={"x": x, "limit": limit, "y": y, "loss": loss})
check(
    [node.drawn_title for node in graph.nodes],
    ["SumBackward0 (loss)", "ClippedExpBackward (y)", "AccumulateGrad (x)", "AccumulateGrad (limit)"],
    label="the nodes of the graph",
)
draw_graph(graph, title="loss = ClippedExp.apply(x, limit).sum()")
plt.show()
loss.backward()
check(computed, ["x", "limit"], label="gradients computed")
check(limit.grad, 7.389056, label="limit.grad")

# %%
# Four nodes: ``SumBackward0 (loss)`` at the top, the custom node
# ``ClippedExpBackward (y)`` below it, and the leaves ``x`` (shape ``[3]``)
# and ``limit`` (shape ``[]``) at the bottom. Under the custom node are the
# three tensors of ``ctx.save_for_backward``, ``tensors[0]`` to
# ``tensors[2]``: ``x``, ``limit`` and the output ``y``, all at ``v0``. The
# limit's gradient is :math:`e^2`, from the one element it clipped.

# %%
# One gradient per input, in its shape
# ------------------------------------
# Autograd checks each gradient that ``backward`` returns against the shape
# of its input. ``Scale`` multiplies a batch by a scale of shape ``[3]``,
# broadcast over the rows. Its ``backward`` sums the scale's gradient over
# the wrong dimension and returns shape ``[2]``:


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(batch, scale):
        return batch * scale

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        batch, scale = ctx.saved_tensors
        return grad_output * scale, (grad_output * batch).sum(dim=1)


batch = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device, requires_grad=True)
scale = torch.tensor([1.0, 10.0, 100.0], device=device, requires_grad=True)
shape_error = r"^Function ScaleBackward returned an invalid gradient at index 1 - got \[2\] but expected"
with expect_error(RuntimeError, match=shape_error + r" shape compatible with \[3\]$"):
    Scale.apply(batch, scale).sum().backward()

# %%
# Index 1 is ``scale``, the second tensor passed to ``apply`` (arguments
# that are not tensors are not counted). "Compatible" is wider than equal:
# a gradient of a shape the input could be broadcast to is summed down to
# the input's shape, silently. ``ScaleUnreduced`` returns shape ``[2, 3]``;
# ``ScaleFixed`` reduces it itself with ``sum_to_size``:


class ScaleUnreduced(Scale):
    @staticmethod
    def backward(ctx, grad_output):
        batch, scale = ctx.saved_tensors
        return grad_output * scale, grad_output * batch


class ScaleFixed(Scale):
    @staticmethod
    def backward(ctx, grad_output):
        batch, scale = ctx.saved_tensors
        return grad_output * scale, (grad_output * batch).sum_to_size(scale.shape)


for function in [ScaleUnreduced, ScaleFixed]:
    scale.grad = None
    function.apply(batch, scale).sum().backward()
    check(scale.grad, [5.0, 7.0, 9.0], label=f"scale.grad with {function.__name__}")

# %%
# Both give ``[5, 7, 9]``, the rows of ``batch`` summed. Here autograd's
# sum is the right gradient, but it would sum a mistake of that shape just
# as silently. The fix: one gradient per input of ``forward``, each in its
# input's shape, broadcast dimensions reduced by hand (``sum_to_size``), or
# ``None`` for an input without a gradient.
#
# Why ``save_for_backward``
# -------------------------
# Saved tensors are stored with their version, as built-in nodes store theirs. An update of
# ``x`` between forward and backward, like an optimizer step, makes backward refuse (the
# message names ``torch.cuda.FloatTensor`` in the CUDA record of PyTorch 2.11.0 on an H200):
y = ClippedExp.apply(x, limit)
with torch.no_grad():
    x.mul_(2)
with expect_error(
    RuntimeError,
    match=(
        r"^one of the variables needed for gradient computation has been modified by an inplace "
        r"operation: \[torch\.(cuda\.)?FloatTensor \[3\]\] is at version 1; expected version 0 instead\."
    ),
):
    y.sum().backward()

# %%
# Tensors kept as attributes of ``ctx`` get no such check: ``backward``
# reads whatever they hold when it runs.


class ClippedExpUnchecked(ClippedExp):
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.x, ctx.limit = inputs

    @staticmethod
    def backward(ctx, grad_output):
        output = torch.exp(torch.minimum(ctx.x, ctx.limit))
        return grad_output * output * (ctx.x < ctx.limit), None


x = torch.tensor([0.0, 1.0, 3.0], device=device, requires_grad=True)
y = ClippedExpUnchecked.apply(x, limit)
with torch.no_grad():
    x.mul_(2)
y.sum().backward()
check(x.grad, [1.0, 0.0, 0.0], label="x.grad, from the edited x")

# %%
# The gradient at the values that made ``y`` is :math:`[1, e, 0]`;
# ``backward`` read ``x = [0, 2, 6]`` and returned ``[1, 0, 0]``, without
# an error.
#
# An output kept on ``ctx``
# -------------------------
# PyTorch's documentation asks that tensors not be stored directly on
# ``ctx``. For the *output*, losing the version check is not the only
# cost: the output holds its node (its ``grad_fn``), the node is the
# ``ctx`` object itself, and ``ctx`` would then hold the output, a
# reference cycle. Python frees a cycle only when its cycle collector runs,
# not when the last name goes away. ``save_for_backward`` keeps the output
# without that link back. A weak reference tells whether the output still
# exists after ``del``, and after ``gc.collect()``:
import gc
import weakref


class ClippedExpOutputOnCtx(ClippedExp):
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)
        ctx.output = output  # not in save_for_backward

    @staticmethod
    def backward(ctx, grad_output):
        x, limit = ctx.saved_tensors
        return grad_output * ctx.output * (x < limit), None


def still_alive(function):
    """Whether ``function``'s output exists after ``del``, then after ``gc.collect()``."""
    x = torch.tensor([0.0, 1.0, 3.0], device=device, requires_grad=True)
    y = function.apply(x, torch.tensor(2.0, device=device))
    output = weakref.ref(y)
    del y
    after_del = output() is not None
    gc.collect()
    return [after_del, output() is not None]


gc.disable()  # the collector runs only when gc.collect() asks it to
check(
    still_alive(ClippedExpOutputOnCtx), [True, False], label="output on ctx: alive after del, after collect"
)
check(still_alive(ClippedExp), [False, False], label="save_for_backward: alive after del, after collect")
gc.enable()

# %%
# With ``save_for_backward`` the output is freed at ``del``. On ``ctx`` it
# outlives ``del``, together with its graph and every tensor that graph
# saved, and goes only when the collector runs. Python starts the
# collector by counting allocated Python objects, not bytes, so on a GPU
# large outputs kept this way pile up in GPU memory between collections.
#
# Saved-tensor hooks (:ref:`saved_tensor_hooks`) do not see such a tensor
# either: they are called for what goes through ``save_for_backward``.
# A ``pack`` that records the shape of each tensor it is given:


def packed_shapes(function):
    """The shapes of the tensors ``function.apply`` passes through ``pack``."""
    shapes = []

    def pack(tensor):
        shapes.append(str(list(tensor.shape)))
        return tensor.detach()

    x = torch.tensor([0.0, 1.0, 3.0], device=device, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        function.apply(x, torch.tensor(2.0, device=device))
    return shapes


check(packed_shapes(ClippedExp), ["[3]", "[]", "[3]"], label="packed by ClippedExp")
check(packed_shapes(ClippedExpOutputOnCtx), ["[3]", "[]"], label="packed by ClippedExpOutputOnCtx")

# %%
# ``ClippedExp`` passed ``x``, ``limit`` and the output through ``pack``;
# ``ClippedExpOutputOnCtx`` only ``x`` and ``limit``. Under ``save_on_cpu``
# its output would stay in GPU memory. And, as for ``x`` in
# ``ClippedExpUnchecked``, an in-place edit of that output before backward
# would go unchecked.
#
# ``apply``, never ``forward``
# ----------------------------
# ``forward`` is a plain static method. Called directly, it records its
# operations as any code does, and the custom ``backward`` is never used:
computed.clear()
z = ClippedExp.forward(x, limit)
check(z.grad_fn, "ExpBackward0", label="z.grad_fn")
z.sum().backward()
check(computed, [], label="gradients computed by ClippedExp.backward")

# %%
# What ``setup_context`` is for: ``torch.func``
# ---------------------------------------------
# The transforms of ``torch.func`` (``grad``, ``vmap``, ``jacrev``, ...)
# accept a Function only in this style: ``forward`` is the computation
# alone and takes no ``ctx``, and everything done to ``ctx`` is in
# ``setup_context``. ``grad`` takes ``ClippedExp`` as it is; a Function in
# the older style is refused:
from torch.func import grad, vmap

rows = torch.tensor([[0.0, 1.0, 3.0], [1.0, 2.0, 3.0]], device=device)
limit = torch.tensor(2.0, device=device)
check(grad(lambda row: ClippedExp.apply(row, limit).sum())(rows[0]), [1.0, 2.718282, 0.0], label="grad")


class ExpOldStyle(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


check(ExpOldStyle.apply(rows[0]), torch.exp(rows[0]), label="ExpOldStyle.apply")
with expect_error(
    RuntimeError,
    match=(
        r"^In order to use an autograd\.Function with functorch transforms \(vmap, grad, jvp, jacrev, "
        r"\.\.\.\), it must override the setup_context staticmethod\."
    ),
):
    grad(lambda row: ExpOldStyle.apply(row).sum())(rows[0])

# %%
# ``ExpOldStyle``, whose ``forward`` takes ``ctx`` and saves what it
# needs, works with ``apply`` but under no transform. The split is not
# enough for ``vmap``, which runs a function on every row of a batch at
# once: it also needs to know how the Function treats a batch dimension.
with expect_error(
    RuntimeError,
    match=(
        r"^You tried to vmap over ClippedExp, but it does not have vmap support\. Please override and "
        r"implement the vmap staticmethod or set generate_vmap_rule=True\."
    ),
):
    vmap(ClippedExp.apply, in_dims=(0, None))(rows, limit)


class ClippedExpBatched(ClippedExp):
    generate_vmap_rule = True


check(
    vmap(ClippedExpBatched.apply, in_dims=(0, None))(rows, limit),
    [[1.0, 2.718282, 7.389056], [2.718282, 7.389056, 7.389056]],
    label="vmap",
)
check(
    vmap(grad(lambda row: ClippedExpBatched.apply(row, limit).sum()))(rows),
    [[1.0, 2.718282, 0.0], [2.718282, 0.0, 0.0]],
    label="vmap(grad), one gradient per row",
)

# %%
# ``generate_vmap_rule = True`` lets ``vmap`` run ``forward``,
# ``setup_context`` and ``backward`` as they are on batched tensors, which
# works when they use only PyTorch operations, as ``ClippedExp`` does; a
# ``vmap`` static method written by hand is the other way. With it, the
# per-row gradients come out in one call: the second row has its tie at
# :math:`x = l = 2`, where ``backward`` gives 0.
#
# ``mark_dirty``: a Function that writes in place
# -----------------------------------------------
# ``InplaceDouble`` doubles its input in place; ``ctx.mark_dirty`` tells
# autograd that the input now holds the output.


class InplaceDouble(torch.autograd.Function):
    @staticmethod
    def forward(a):
        return a.mul_(2)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.mark_dirty(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        return 2 * grad_output


class InplaceDoubleUnmarked(InplaceDouble):
    @staticmethod
    def setup_context(ctx, inputs, output):
        pass


weights = torch.tensor([10.0, 100.0], device=device)
for function, expected in [(InplaceDouble, [20.0, 200.0]), (InplaceDoubleUnmarked, [10.0, 100.0])]:
    w = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    a = w.clone()
    out = function.apply(a)
    show_state(w=w, a=a, out=out)
    (a * weights).sum().backward()
    check(w.grad, expected, label=f"w.grad with {function.__name__}")
check(out._base is a, True, label="out._base is a, unmarked")
draw_tensors({"w": w, "a": a, "out": out}, title="out = InplaceDoubleUnmarked.apply(a)")
plt.show()

# %%
# The picture is the unmarked case: ``w`` holds ``1. 2.`` in its own
# memory; ``a`` and ``out`` share one block holding ``2. 4.``, both at
# ``v1``, ``a`` with ``CloneBackward0`` and ``out`` with
# ``InplaceDoubleUnmarkedBackward``.
#
# With the mark, ``a`` itself becomes the output: its ``grad_fn`` is
# ``InplaceDoubleBackward``, and ``(a * weights).sum()`` gets the factor 2,
# ``[20, 200]``. Without it, PyTorch 2.13.0 raises no error: ``out`` is
# returned as a view of ``a``, and ``a`` keeps the history of the clone
# while holding doubled values, so the same loss gets ``[10, 100]``,
# silently wrong. On a leaf, the mark brings the leaf check (see
# :ref:`view_of_leaf`), but only after ``forward`` has run:
w = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
with expect_error(
    RuntimeError, match=r"^a leaf Variable that requires grad has been used in an in-place operation\.$"
):
    InplaceDouble.apply(w)
check(w, [2.0, 4.0], label="w after the refused InplaceDouble.apply(w)")
InplaceDoubleUnmarked.apply(w)
check(w, [4.0, 8.0], label="w after InplaceDoubleUnmarked.apply(w)")
check(w.grad_fn, None, label="w.grad_fn")

# %%
# The refused call had already doubled ``w``. The unmarked call doubled it
# again without any error: the leaf changed with no node to record it.
#
# ``mark_non_differentiable``: outputs without a gradient
# -------------------------------------------------------
# ``SortWithPositions`` returns the sorted values and, as floats, where
# each came from. Positions are piecewise constant; ``ctx.mark_non_differentiable``
# says they have no gradient. ``backward`` still receives one gradient per
# output: zeros for the marked one.


class SortWithPositions(torch.autograd.Function):
    @staticmethod
    def forward(x):
        values, indices = torch.sort(x)
        return values, indices.to(x.dtype)

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, positions = output
        ctx.mark_non_differentiable(positions)
        ctx.save_for_backward(positions)

    @staticmethod
    def backward(ctx, grad_values, grad_positions):
        (positions,) = ctx.saved_tensors
        received.append(grad_positions)
        return grad_values[torch.argsort(positions)]


x = torch.tensor([3.0, 1.0, 2.0], device=device, requires_grad=True)
values, positions = SortWithPositions.apply(x)
check([values.requires_grad, positions.requires_grad], [True, False], label="requires_grad")
received = []
(values * torch.tensor([1.0, 10.0, 100.0], device=device)).sum().backward()
check(x.grad, [100.0, 1.0, 10.0], label="x.grad")
check(received[0], [0.0, 0.0, 0.0], label="grad_positions")
with expect_error(
    RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a grad_fn$"
):
    positions.sum().backward()

# %%
# Unmarked, ``positions`` would require a gradient, and a loss built on it
# would send one that ``backward`` drops. An integer output (``indices``
# kept as ``int64``) never requires a gradient, marked or not.
#
# ``@once_differentiable``
# ------------------------
# ``ClippedExp.backward`` uses PyTorch operations, so with
# ``create_graph=True`` its work is recorded and a second derivative
# exists: for ``(y**2).sum()``, :math:`4e^{2x}` where :math:`x < l`.
# ``@once_differentiable`` runs ``backward`` without recording (for code
# autograd cannot follow, NumPy say) and marks what it returns:


class ClippedExpOnce(ClippedExp):
    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        return ClippedExp.backward(ctx, grad_output)


x = torch.tensor([0.0, 1.0, 3.0], device=device, requires_grad=True)
limit = torch.tensor(2.0, device=device)
(grad,) = torch.autograd.grad((ClippedExp.apply(x, limit) ** 2).sum(), x, create_graph=True)
(second,) = torch.autograd.grad(grad.sum(), x)
check(second, [4.0, 29.556224, 0.0], label="second derivative")

(grad,) = torch.autograd.grad((ClippedExpOnce.apply(x, limit) ** 2).sum(), x, create_graph=True)
check(grad.grad_fn, "torch::autograd::Error", label="grad.grad_fn")
below = grad.grad_fn.next_functions[0][0].variable
check(
    [below is x, below.data_ptr() == grad.data_ptr()],
    [False, True],
    label="[below is x, below shares grad's memory]",
)
with expect_error(
    RuntimeError, match=r"^The differentiated Tensor at index 0 appears to not have been used in the graph\."
):
    torch.autograd.grad(grad.sum(), x)
check(torch.autograd.grad(grad.sum(), x, allow_unused=True), (None,), label="with allow_unused=True")
with expect_error(
    RuntimeError,
    match=r"^trying to differentiate twice a function that was marked with @once_differentiable$",
):
    grad.sum().backward()

# %%
# The first derivative is computed either way; with the decorator it
# carries a ``torch::autograd::Error`` node instead of a graph. That node
# leads to ``below``, a leaf made by detaching ``grad``, not to ``x``.
# ``torch.autograd.grad(..., x)`` finds no path to ``x``, never runs the
# node, and reports ``x`` as unused (``None`` with ``allow_unused=True``);
# ``backward()`` runs every node it can reach, so it runs this one, which
# raises the decorator's error. :ref:`gradcheck`
# tests a hand-written ``backward`` against finite differences;
# :ref:`create_graph` shows second derivatives of built-in operations, and
# :ref:`mental_model` the graph, nodes and saved tensors used here.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# every message and gradient above is checked on the runner that built this
# page.
