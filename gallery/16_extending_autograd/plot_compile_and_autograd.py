"""
.. _compile_and_autograd:

torch.compile and autograd
==========================

``torch.compile`` traces a function into a graph and, when a gradient is
needed, traces its backward too (AOTAutograd). This example compiles with
``backend="aot_eager"``, which runs the traced graphs with PyTorch's own
kernels and needs no C++ compiler, and shows that the gradients are the
eager ones, that the compiled region is a single ``CompiledFunctionBackward``
node of the autograd graph, that the version check still guards what it
saved ("one of the variables needed for gradient computation has been
modified by an inplace operation"), and what a graph break (a ``print``)
does: counted by ``torch._dynamo.explain``, an error under
``fullgraph=True``, two nodes instead of one, and an
``InternalTorchDynamoError`` when warnings are errors. Last, it shows that a
compiled region can be differentiated only once: a gradient penalty fails at
its second backward ("torch.compile with aot_autograd does not currently
support double backward"), and a Hessian-vector product is refused or,
through ``torch.autograd.functional.hvp``, silently zero, while compiling
the whole penalty, first gradient included (``torch.func.grad``), gives
the eager gradient, and that ``retain_graph=True`` fails ("non-empty donated
buffers") once a plain ``backward()`` has compiled the backward.

.. questions::

   - Does ``torch.compile`` give the same gradients as eager mode?
   - Why does a gradient penalty say ``does not currently support double backward``?
   - Why is my Hessian-vector product zero with ``torch.compile``?
   - Does a graph break change my gradients in ``torch.compile``?
   - Why does ``torch.compile`` say ``compiled with non-empty donated buffers``?
"""

# %%
# The same gradient, one node
# ---------------------------
# ``loss_fn`` is a small layer and a squared loss. It runs once as written
# and once compiled, on copies of the same weights.
import warnings

import matplotlib.pyplot as plt
import torch

from autograd_notes import autograd_graph, check, draw_graph, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

torch.manual_seed(0)
x = torch.randn(4, 3, device=device)
w_eager = torch.randn(3, 2, device=device, requires_grad=True)
w = w_eager.detach().clone().requires_grad_()


def loss_fn(x, w):
    return (torch.tanh(x @ w) ** 2).sum()


compiled_loss_fn = torch.compile(loss_fn, backend="aot_eager")
eager = loss_fn(x, w_eager)
compiled = compiled_loss_fn(x, w)
check(compiled, eager, label="compiled loss, as the eager one")

eager_graph = autograd_graph(eager, names={"w_eager": w_eager, "x": x, "eager": eager})
compiled_graph = autograd_graph(compiled, names={"w": w, "compiled": compiled})
check(
    [node.drawn_title for node in eager_graph.nodes],
    ["SumBackward0 (eager)", "PowBackward0", "TanhBackward0", "MmBackward0", "AccumulateGrad (w_eager)"],
    label="eager nodes",
)
check(
    [node.drawn_title for node in compiled_graph.nodes],
    ["CompiledFunctionBackward (compiled)", "AccumulateGrad (w)"],
    label="compiled nodes",
)
draw_graph(eager_graph, title="eager = loss_fn(x, w_eager)")
draw_graph(compiled_graph, title="compiled = compiled_loss_fn(x, w)")
plt.show()
saved = compiled.grad_fn.saved_tensors
check(torch.allclose(saved[0], torch.tanh(x @ w)), True, label="tensors[0] is tanh(x @ w)")
check(torch.equal(saved[1], x.T), True, label="tensors[1] is x.T")
check(saved[1].data_ptr() == x.data_ptr(), True, label="tensors[1] in x's memory")
eager.backward()
compiled.backward()
check(w.grad, w_eager.grad, label="w.grad, as w_eager.grad")

# %%
# The eager graph has a node per operation: ``SumBackward0``,
# ``PowBackward0`` (saved ``self [4, 2]`` and ``exponent=2``),
# ``TanhBackward0`` (saved ``result [4, 2]``), ``MmBackward0`` (saved
# ``x``, ``[4, 3]``), down to the leaf ``w_eager`` ``[3, 2]``. The compiled
# graph has one node above the leaf ``w``: ``CompiledFunctionBackward``,
# which saved two tensors chosen by the compiler, ``tensors[0] [4, 2]``
# (the output of ``tanh``) and ``tensors[1] [3, 4]``: ``x`` already
# transposed, as the gradient of ``w`` needs it, in ``x``'s own memory.
# Backward through that node runs the traced backward graph; the gradient
# is the eager one.
#
# The version check still holds
# -----------------------------
# ``CompiledFunctionBackward`` saves its tensors as any node does, with
# their versions. Writing into ``x`` between forward and backward is
# refused in both graphs, but the tensor named differs:
for function, shape in [(loss_fn, r"4, 3"), (compiled_loss_fn, r"3, 4")]:
    x = torch.randn(4, 3, device=device)
    loss = function(x, w)
    with torch.no_grad():
        x.mul_(2)
    with expect_error(
        RuntimeError,
        match=(
            r"^one of the variables needed for gradient computation has been modified by an inplace "
            rf"operation: \[torch\.(cuda\.)?FloatTensor \[{shape}\]\] is at version 1; "
            r"expected version 0 instead\."
        ),
    ):
        loss.backward()

# %%
# Eager names ``x`` as ``[4, 3]``; the compiled node names the transposed
# ``x`` it saved, ``[3, 4]``, which shares ``x``'s memory and version
# counter, so the edit is still seen. The shape in the message is the one
# the compiler saved.
#
# Graph breaks
# ------------
# What Dynamo cannot trace, a ``print`` here, splits the function: the code
# before it becomes one graph, the ``print`` runs in Python, and the rest
# becomes a second graph. ``torch._dynamo.explain`` runs the function once
# and counts. ``fullgraph=True`` turns the break into an error. The
# messages of these errors name this file's path, so only their first line
# is shown.


def step(x, w):
    h = torch.tanh(x @ w)
    print("h computed")
    return (h**2).sum()


def first_line(call):
    """Run ``call``; return the type and first line of what it raised."""
    try:
        call()
    except Exception as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0]}"
    return "no error"


# Dynamo reads ``.grad`` of the non-leaf ``h`` it hands to the second graph and hides the warning
NON_LEAF_GRAD = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"
x = torch.randn(4, 3, device=device)
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=NON_LEAF_GRAD, category=UserWarning)
    explanation = torch._dynamo.explain(step)(x, w)
check(explanation.graph_count, 2, label="graph_count")
check(explanation.graph_break_count, 1, label="graph_break_count")
check(explanation.break_reasons[0].reason.splitlines()[0], "Failed to trace builtin operator", label="reason")
check(
    first_line(lambda: torch.compile(step, backend="aot_eager", fullgraph=True)(x, w)),
    "Unsupported: Failed to trace builtin operator",
    label="with fullgraph=True",
)

# %%
# When warnings are errors
# ------------------------
# The second graph receives ``h``, a tensor that is not a leaf. Dynamo
# reads its ``.grad`` attribute, which warns, and hides that warning by
# replacing the function that displays warnings. A filter that turns
# warnings into errors (``python -W error``, pytest's
# ``filterwarnings = error``) acts before any display, so the compilation
# fails:
compiled_step = torch.compile(step, backend="aot_eager")
with warnings.catch_warnings():
    warnings.simplefilter("error")
    outcome = first_line(lambda: compiled_step(x, w))
check(outcome.split(". ")[0], f"InternalTorchDynamoError: UserWarning: {NON_LEAF_GRAD}", label="outcome")

# %%
# The first graph and the ``print`` had already run. A filter that
# ignores this one message, as above for ``explain``, lets the same call
# compile:
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=NON_LEAF_GRAD, category=UserWarning)
    loss = compiled_step(x, w)
check(
    [node.drawn_title for node in autograd_graph(loss, names={"w": w, "loss": loss}).nodes],
    ["CompiledFunctionBackward (loss)", "CompiledFunctionBackward", "AccumulateGrad (w)"],
    label="the nodes of the graph",
)
draw_graph(loss, names={"w": w, "loss": loss}, title="loss = compiled_step(x, w)")
plt.show()
w.grad = None
loss.backward()
w_eager.grad = None
step(x, w_eager).backward()
check(w.grad, w_eager.grad, label="w.grad, as w_eager.grad")

# %%
# Two ``CompiledFunctionBackward`` nodes in a chain above the leaf ``w``:
# the upper one, for ``(h**2).sum()``, saved ``h`` (``tensors[0] [4, 2]``);
# the lower one, for ``tanh(x @ w)``, saved the output of ``tanh``
# ``[4, 2]`` and the transposed ``x`` ``[3, 4]``. Between them, ``h``
# carries the gradient from the second graph to the first: a graph break
# costs a second node, not a gradient. The graph, its nodes and their saved
# tensors are those of :ref:`mental_model`; a custom
# ``torch.autograd.Function`` (:ref:`custom_function`) makes one node the
# same way.
#
# The default backend, ``inductor``, generates C++ (or, on a GPU, Triton)
# code and needs a compiler on the machine; ``aot_eager`` keeps the
# autograd behaviour shown here without one.
#
# Differentiating twice
# ---------------------
# A gradient penalty adds a function of the gradient to the loss, and a
# Hessian-vector product differentiates the gradient once more. Both take
# the first gradient with ``create_graph=True`` and then run backward
# through it. The same penalty, once with ``loss_fn`` and once with the
# compiled ``loss_fn``:
x = torch.randn(4, 3, device=device)
w_eager.grad = None
(g_eager,) = torch.autograd.grad(loss_fn(x, w_eager), w_eager, create_graph=True)
(g,) = torch.autograd.grad(compiled_loss_fn(x, w), w, create_graph=True)
check(g, g_eager, label="g, as g_eager")
check([g.requires_grad, g.grad_fn.name()], [True, "CompiledFunctionBackwardBackward"], label="g")
(g_eager**2).sum().backward()
check(torch.isfinite(w_eager.grad).all().item(), True, label="w_eager.grad of the penalty, finite")
with expect_error(
    RuntimeError, match=r"^torch\.compile with aot_autograd does not currently support double backward$"
):
    (g**2).sum().backward()

# %%
# The first gradient is the eager one, and it even requires grad: its node,
# ``CompiledFunctionBackwardBackward``, is a placeholder that raises when
# backward reaches it. So the error comes late, at the second backward,
# after the forward and the first gradient have been paid for. The
# placeholder does not lead back to ``w``, though. What it received (the
# compiled node's saved tensors, detached, and the incoming gradient)
# requires no gradient, so PyTorch gives it an empty leaf tensor, created
# only so that ``g`` requires grad, and that leaf is its one edge. A
# Hessian-vector product asks for the gradient of ``w`` only:
check(
    [tuple(f.variable.shape) for f, _ in g.grad_fn.next_functions if f is not None],
    [(0,)],
    label="the placeholder's one edge",
)
v = torch.ones_like(w)
with expect_error(
    RuntimeError,
    match=r"^The differentiated Tensor at index 0 appears to not have been used in the graph\. "
    r"Set allow_unused=True if this is the desired behavior\.$",
):
    torch.autograd.grad(g, w, grad_outputs=v)
_, hvp_eager = torch.autograd.functional.hvp(lambda w: loss_fn(x, w), w_eager, v)
_, hvp = torch.autograd.functional.hvp(lambda w: compiled_loss_fn(x, w), w, v)
check(torch.count_nonzero(hvp_eager).item(), 6, label="nonzero entries of hvp_eager")
check(hvp, torch.zeros(3, 2), label="hvp, through the compiled loss_fn")
with expect_error(
    RuntimeError, match=r"^The hessian of the user-provided function is independent of entry 0"
):
    torch.autograd.functional.hvp(lambda w: compiled_loss_fn(x, w), w, v, strict=True)


# %%
# ``torch.autograd.grad(g, w)`` runs only the nodes that lead to ``w``,
# never reaches the placeholder and says that ``g`` does not depend on
# ``w``. ``torch.autograd.functional.hvp`` allows such unused inputs and
# fills their gradient with zeros: through the compiled function it returns
# zeros, without an error, where the eager product has no zero entry
# (``strict=True`` turns this into an error). Any compiled region that the
# second differentiation passes through behaves so, however small. So the
# way from the penalty back to ``w`` must not cross a compiled region that
# was differentiated with ``create_graph=True``. Two layouts work: keep
# ``loss_fn`` eager, as above, or compile the whole penalty, first gradient
# included, by calling ``torch.func.grad`` inside the compiled function.
# Dynamo traces the transform without a graph break, and that compiled
# region is differentiated only once:
def penalty(x, w):
    return (torch.func.grad(loss_fn, argnums=1)(x, w) ** 2).sum()


check(torch._dynamo.explain(penalty)(x, w).graph_break_count, 0, label="graph breaks in penalty")
compiled_penalty = torch.compile(penalty, backend="aot_eager")
w.grad = None
value = compiled_penalty(x, w)
check(value.grad_fn.name(), "CompiledFunctionBackward", label="the compiled penalty's node")
value.backward()
check(w.grad, w_eager.grad, label="w.grad of the compiled penalty, as w_eager.grad")


# %%
# The compiled penalty is one ``CompiledFunctionBackward`` node, and one
# backward through it gives the gradient of the eager penalty.
# :ref:`compiled_autograd_boundary` shows what else stops at the edge of a
# compiled region: tensor hooks, ``retain_grad()`` and module backward
# hooks.
#
# retain_graph=True and donated buffers
# -------------------------------------
# After a training step with one ``backward()``, a step takes two losses
# from one forward and keeps the graph for the second backward with
# ``retain_graph=True``, as eager mode allows:
def features(x, w):
    return torch.tanh(x @ w) ** 2


compiled_features = torch.compile(features, backend="aot_eager")
compiled_features(x, w).sum().backward()  # a training step
h = compiled_features(x, w)
check(torch.allclose(h.grad_fn.saved_tensors[0], torch.tanh(x @ w)), True, label="tensors[0], tanh")
with expect_error(
    RuntimeError,
    match=r"^This backward function was compiled with non-empty donated buffers which requires "
    r"create_graph=False and retain_graph=False\.",
):
    h.sum().backward(retain_graph=True)

# %%
# AOTAutograd compiles the backward at the first backward call and keeps it
# for later forwards. That call was a plain ``backward()``, so ``tensors[0]``,
# an activation only the backward holds, became a donated buffer: memory the
# backward may reuse. A backward that keeps the graph (``retain_graph=True``
# or ``create_graph=True``) could read it again, so it is refused.
#
# One backward per forward avoids it: run the forward again per loss.
w_eager.grad = None
h_eager = features(x, w_eager)
h_eager.sum().backward(retain_graph=True)
(h_eager**2).sum().backward()
w.grad = None
compiled_features(x, w).sum().backward()
(compiled_features(x, w) ** 2).sum().backward()
check(w.grad, w_eager.grad, label="w.grad, a forward per loss, as w_eager.grad")

# %%
# Or turn off the flag that the message names: then no buffer is donated
# and the check is skipped. Keep it off from the compile to the last
# backward; ``torch._dynamo.reset()`` makes ``features`` compile again:
torch._dynamo.reset()
with torch._functorch.config.patch(donated_buffer=False):
    compiled_features(x, w).sum().backward()  # the training step again
    w.grad = None
    h = compiled_features(x, w)
    h.sum().backward(retain_graph=True)
    (h**2).sum().backward()
check(w.grad, w_eager.grad, label="w.grad, donated_buffer=False, as w_eager.grad")

# %%
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# every node, count and message above is checked on the runner that built
# this page.
