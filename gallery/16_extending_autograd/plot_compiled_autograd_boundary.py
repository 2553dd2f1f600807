"""
.. _compiled_autograd_boundary:

Autograd at the compile boundary
================================

``torch.compile`` turns a function into one backward node,
``CompiledFunctionBackward`` (:ref:`compile_and_autograd`), and what used to
happen between the nodes inside it now happens in traced code or not at
all. This example shows which tensor hooks on intermediate tensors are
traced into the graph and which split it ("HOP: Unsafe side effect"), that
``retain_grad()`` ends the compiled graph ("Tensor.retain_grad() with
AOTDispatcher"), and that an intermediate tensor returned from a compiled
function gets no gradient from a loss computed inside it: its hook is
called with ``None`` and its ``.grad`` stays ``None``.

.. questions::

   - Why is ``.grad`` None for an intermediate returned by a compiled function?
   - Can I call ``retain_grad()`` inside a ``torch.compile`` function?
   - Do tensor hooks cause graph breaks in ``torch.compile``?
"""

# %%
# Hooks on intermediate tensors
# -----------------------------
# ``h`` is an intermediate tensor of the loss; a hook on it
# (:ref:`tensor_hooks`) may replace its gradient. A hook that only
# computes, ``grad * 10``, is compiled with the rest:
import logging
import warnings

import matplotlib.pyplot as plt
import torch

from autograd_notes import autograd_graph, check, draw_graph, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

torch.manual_seed(0)
x = torch.randn(4, 3, device=device)
w = torch.randn(3, 2, device=device, requires_grad=True)


def plain(x, w):
    h = torch.tanh(x @ w)
    return (h**2).sum()


def scaled(x, w):
    h = torch.tanh(x @ w)
    h.register_hook(lambda grad: grad * 10)
    return (h**2).sum()


def gradient(function):
    """The gradient of ``w`` through ``function``."""
    return torch.autograd.grad(function(x, w), w)[0]


def nodes(tensor, names):
    return [node.drawn_title for node in autograd_graph(tensor, names=names).nodes]


compiled_scaled = torch.compile(scaled, backend="aot_eager")
check(gradient(compiled_scaled), gradient(scaled), label="gradient, as eager")
check(torch.allclose(gradient(compiled_scaled), 10 * gradient(plain)), True, label="10 times that of plain")
loss = compiled_scaled(x, w)
check(
    nodes(loss, {"w": w, "loss": loss}),
    ["CompiledFunctionBackward (loss)", "AccumulateGrad (w)"],
    label="the nodes of the graph",
)

# %%
# One ``CompiledFunctionBackward`` node: the hook became part of the
# traced backward (since 2.11: the recorded 2.4.1 to 2.10.0 split here too).
# A hook that changes anything outside itself, here a list that keeps the
# gradient, cannot be traced so. Dynamo splits the function around it:
kept = []


def recorded(x, w):
    h = torch.tanh(x @ w)
    h.register_hook(lambda grad: kept.append(grad))
    return (h**2).sum()


# the second graph reads .grad of the non-leaf h (see compile_and_autograd, "When warnings are errors")
NON_LEAF_GRAD = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=NON_LEAF_GRAD, category=UserWarning)
    explanation = torch._dynamo.explain(recorded)(x, w)
    kept.clear()
    loss = torch.compile(recorded, backend="aot_eager")(x, w)
check([explanation.graph_count, explanation.graph_break_count], [2, 1], label="graphs, breaks")
check(
    explanation.break_reasons[0].reason.splitlines()[:2],
    [
        "HOP: Unsafe side effect",
        "  Explanation: Mutating a variable from outside the scope of this HOP is not supported.",
    ],
    label="reason",
)
check(
    nodes(loss, {"w": w, "loss": loss}),
    ["CompiledFunctionBackward (loss)", "CompiledFunctionBackward", "AccumulateGrad (w)"],
    label="the nodes of the graph",
)
loss.backward()
check(kept[0], 2 * torch.tanh(x @ w).detach(), label="kept[0], the gradient of h")

# %%
# The hook runs, with the right gradient (:math:`2h`), but between two
# compiled graphs: one up to ``h``, one after it, two
# ``CompiledFunctionBackward`` nodes where there was one. The reason says
# why: the hook, traced as a higher-order operator (HOP), mutates a
# variable from outside it, the list ``kept``. As in
# :ref:`compile_and_autograd`, Dynamo reads ``.grad`` of ``h`` when it
# hands ``h`` to the second graph; the filter keeps that warning from
# failing the compilation where warnings are errors.
#
# ``retain_grad()`` ends the graph
# --------------------------------
# ``retain_grad()`` asks autograd to keep a non-leaf tensor's gradient.
# Dynamo refuses to compile it ("does not work with AOTDispatcher"); without
# ``fullgraph=True`` it compiles up to the call and runs the rest as written
# (2.4.1 to 2.6.0 compiled it all, and ``h.grad`` stayed None):


def retained(x, w):
    h = torch.tanh(x @ w)
    h.retain_grad()
    return (h**2).sum(), h


def first_line(call):
    """Run ``call``; return the type and first line of what it raised (the rest names paths)."""
    try:
        call()
    except Exception as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0]}"
    return "no error"


check(
    first_line(lambda: torch.compile(retained, backend="aot_eager", fullgraph=True)(x, w)),
    "Unsupported: Tensor.retain_grad() with AOTDispatcher",
    label="with fullgraph=True",
)


class KeptLog(logging.Handler):
    """Keeps the messages of a logger in a list, instead of printing them."""

    def __init__(self, name):
        super().__init__()
        self.logger, self.messages = logging.getLogger(name), []

    def emit(self, record):
        self.messages.append(record.getMessage())

    def __enter__(self):
        self.level, self.propagate = self.logger.level, self.logger.propagate
        self.logger.setLevel(logging.DEBUG)
        self.logger.propagate = False
        self.logger.addHandler(self)
        return self

    def __exit__(self, *exc):
        self.logger.removeHandler(self)
        self.logger.setLevel(self.level)
        self.logger.propagate = self.propagate


compiled_retained = torch.compile(retained, backend="aot_eager")
# the logger behind TORCH_LOGS=graph_breaks (a private name of PyTorch's)
with KeptLog("torch._dynamo.symbolic_convert.__graph_breaks") as break_log:
    loss, h = compiled_retained(x, w)
check(
    [line for message in break_log.messages for line in message.splitlines() if "Reason" in line],
    [
        "Graph Break Reason: Encountered graph break that we cannot resume from. Compiling up to the "
        "previous resumable state, then skipping the rest of the function. Graph break encountered:"
    ],
    label="the graph-break log, its reason",
)
names = {"w": w, "h": h, "loss": loss}
check(
    nodes(loss, names),
    ["SumBackward0 (loss)", "PowBackward0", "CompiledFunctionBackward (h)", "AccumulateGrad (w)"],
    label="the nodes of the graph",
)
draw_graph(loss, names=names, title="loss, h = compiled_retained(x, w)")
plt.show()
loss.backward()
check(h.grad, 2 * h.detach(), label="h.grad")
loss, h = compiled_retained(x, w)
check(
    nodes(loss, {"w": w, "h": h, "loss": loss}),
    ["SumBackward0 (loss)", "PowBackward0", "CompiledFunctionBackward (h)", "AccumulateGrad (w)"],
    label="the nodes of the graph, second call",
)
explanation = torch._dynamo.explain(retained)(x, w)
check([explanation.graph_count, explanation.graph_break_count], [1, 0], label="retained: graphs, breaks")
check(
    [n.target.__name__ for g in explanation.graphs for n in g.graph.nodes if n.op == "call_function"],
    ["matmul", "tanh"],
    label="the operations in the graphs",
)

# %%
# Above the leaf ``w``, one ``CompiledFunctionBackward`` node makes ``h``;
# it saved ``h`` itself, ``tensors[0] (h) [4, 2]``, and the transposed
# ``x``, ``[3, 4]``. Above it, the eager nodes ``PowBackward0`` (saved ``h`` and
# ``exponent=2``) and ``SumBackward0 (loss)``: the square and the sum ran
# uncompiled. Dynamo meets ``retain_grad`` while it reads the attribute, a
# point it cannot resume from, so it compiles up to there and skips the
# rest of the function, as its graph-break log says (what
# ``TORCH_LOGS=graph_breaks`` prints, kept here by a logging handler):
# "Encountered graph break that we cannot resume from. Compiling up to the
# previous resumable state, then skipping the rest of the function".
# ``torch._dynamo.explain`` even reports one graph and 0 graph breaks; the
# graph holds only the ``matmul`` and the ``tanh``. ``h.grad`` is right
# (:math:`2h`); the price is that the part of the function after
# ``retain_grad()`` is never compiled, on this call or any later one: the
# second call has the same eager nodes.
#
# Intermediates returned from a compiled function
# -----------------------------------------------
# The usual way out is to return ``h`` and to call ``retain_grad()`` or
# ``register_hook`` on it outside. But when the loss is computed inside
# the compiled function, ``loss`` and ``h`` are outputs of the same node:


def both(x, w):
    h = torch.tanh(x @ w)
    return (h**2).sum(), h


kept.clear()
compiled_both = torch.compile(both, backend="aot_eager")
loss, h = compiled_both(x, w)
check(loss.grad_fn is h.grad_fn, True, label="loss.grad_fn is h.grad_fn")
draw_graph(loss, names={"w": w, "h": h, "loss": loss}, title="loss, h = compiled_both(x, w)")
plt.show()

# %%
# One node, ``CompiledFunctionBackward (h, loss)``, makes both outputs; it
# saved ``h`` itself, ``tensors[0] (h) [4, 2]``, and the transposed ``x``
# ``[3, 4]``, and leads to the leaf ``w``. There is no node between ``h``
# and ``loss`` to carry a gradient from one to the other. A hook and
# ``retain_grad()`` on ``h``, then backward from ``loss``:
h.retain_grad()
h.register_hook(lambda grad: kept.append(grad))
loss.backward()
check([h.grad, kept], [None, [None]], label="[h.grad, what the hook received]")
loss, h = both(x, w)
h.retain_grad()
loss.backward()
check(h.grad, 2 * h.detach(), label="eager: h.grad")

# %%
# Eagerly, ``h.grad`` is :math:`2h`. Compiled, the gradient from ``loss``
# to ``h`` flows inside the traced backward, and the node's output ``h``
# receives only what is computed from ``h`` outside the function: nothing.
# The hook is called with ``None`` and ``.grad`` stays ``None``, without a
# warning. To observe the gradient of ``h``, compute the loss from ``h``
# outside the compiled function:


def features(x, w):
    return torch.tanh(x @ w)


h = torch.compile(features, backend="aot_eager")(x, w)
h.retain_grad()
(h**2).sum().backward()
check(h.grad, 2 * h.detach(), label="h.grad, loss outside")

# %%
# What else stops at the boundary
# -------------------------------
# A compiled region can be differentiated only once: the last section of
# :ref:`compile_and_autograd` shows a gradient penalty failing at its second
# backward, and a Hessian-vector product that is refused or silently zero.
# A module with a full backward hook is not compiled at all, and a hook
# added after the first compiled call is never called
# (:ref:`module_backward_hooks`). Dynamo's hint for module hooks is
# compiled autograd (``torch._dynamo.config.compiled_autograd = True``),
# which compiles the backward pass as well; it is not run here, as
# compiling a backward pass takes seconds on a CPU.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`).
# It rests on PyTorch's documentation of ``torch.compile`` and
# ``torch._dynamo.explain``; every node, gradient and message above is
# checked on the runner that built this page.
