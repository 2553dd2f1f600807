"""
.. _module_backward_hooks:

Module backward hooks
=====================

A backward hook on an ``nn.Module`` is called with the gradients of the
module's inputs and outputs. This example shows what the tuples
``grad_input`` and ``grad_output`` of ``register_full_backward_hook`` hold,
how a hook or a ``register_full_backward_pre_hook`` replaces them, and in
which order the hooks of a network fire. It then shows why the deprecated
``register_backward_hook`` reports a wrong ``grad_input``, why a full hook
makes a following ``ReLU(inplace=True)`` fail with "Output 0 of
BackwardHookFunction is a view and is being modified inplace", and how
Grad-CAM-style code captures the gradient of a feature map with tensor and
node hooks instead. Last, it shows that ``torch.compile`` runs a module
with a full backward hook eagerly, and ignores a hook added after the
first compiled call.

.. questions::

   - What do ``grad_input`` and ``grad_output`` hold in a module backward hook?
   - Why does a hook with ``nn.ReLU(inplace=True)`` raise ``Output 0 of BackwardHookFunction``?
   - How do I capture feature map gradients for Grad-CAM?
   - Why does ``register_backward_hook`` give a wrong ``grad_input``?
"""

# %%
# What a full backward hook receives
# ----------------------------------
# The hook is called as ``hook(module, grad_input, grad_output)``:
# ``grad_output`` holds the gradients of the module's outputs, ``grad_input``
# those of its positional tensor inputs, each a tuple with one entry per
# tensor.
import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import (
    autograd_graph,
    check,
    draw_graph,
    draw_matrix,
    expect_error,
    expect_warning,
    runner_device,
)

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

torch.manual_seed(0)
linear = nn.Linear(3, 2).to(device)
seen = []
handle = linear.register_full_backward_hook(
    lambda module, grad_input, grad_output: seen.append((grad_input, grad_output))
)
x = torch.randn(4, 3, device=device, requires_grad=True)
out = linear(x)
out.sum().backward()

((grad_input, grad_output),) = seen
check([len(grad_input), len(grad_output)], [1, 1], label="[len(grad_input), len(grad_output)]")
check(grad_output[0], torch.ones(4, 2), label="grad_output[0]")
check(grad_input[0], x.grad, label="grad_input[0], equal to x.grad")

# %%
# ``grad_output[0]`` is the gradient of ``sum()`` with respect to ``out``,
# all ones, and ``grad_input[0]`` the gradient with respect to ``x``, the
# value ``x.grad`` then receives. The parameters are not in
# ``grad_input``: their gradients go to ``.grad`` as usual. To call the
# hook at the right moment, the module wraps its inputs and outputs in
# extra nodes (drawn for a new forward pass: the backward pass above freed
# what the first one saved):
out = linear(x)
graph = autograd_graph(
    out, names={"x": x, "out": out, "linear.weight": linear.weight, "linear.bias": linear.bias}
)
hook_nodes = [node.drawn_title for node in graph.nodes if node.name == "BackwardHookFunctionBackward"]
check(hook_nodes, ["BackwardHookFunctionBackward (out)", "BackwardHookFunctionBackward"], label="hook_nodes")
draw_graph(graph, title="out = linear(x)")
plt.show()

# %%
# ``out`` at the top has the node ``BackwardHookFunctionBackward``, which
# leads to the ``AddmmBackward0`` of the linear layer (it saved ``x`` as
# ``mat1 [4, 3]`` and the transposed weight as ``mat2 [3, 2]``). From
# there, three arrows: to a second ``BackwardHookFunctionBackward`` and on
# to the leaf ``x``, to ``TBackward0`` and the leaf ``linear.weight``, and
# straight to the leaf ``linear.bias``. Only the paths to the inputs and
# outputs pass through a hook node; the parameters' paths do not.
#
# The node on the output records ``grad_output``; the one on the input,
# when backward reaches it, has ``grad_input`` and calls the hook.
#
# An input without gradient
# -------------------------
# When no input requires grad (the first layer, fed with data), there is
# no input node to wait for: the hook fires as soon as ``grad_output`` is
# known, with ``None`` in ``grad_input``, and PyTorch warns.
seen.clear()
data = torch.randn(4, 3, device=device)
with expect_warning(
    UserWarning,
    match=(
        r"^Full backward hook is firing when gradients are computed with respect to module outputs "
        r"since no inputs require gradients\. "
    ),
):
    linear(data).sum().backward()
check(seen[0][0], (None,), label="grad_input")

# %%
# Replacing ``grad_input`` or ``grad_output``
# -------------------------------------------
# A full hook that returns a tuple replaces ``grad_input``: what flows on to
# the inputs changes. A pre-hook, ``hook(module, grad_output)``, runs before
# the module's backward and may replace ``grad_output``: everything the
# module computes from it changes, parameters included.
handle.remove()


def gradients_with(register, hook):
    handle = register(hook)
    linear.zero_grad()
    x.grad = None
    linear(x).sum().backward()
    handle.remove()
    return x.grad, linear.weight.grad


plain_x, plain_weight = gradients_with(linear.register_full_backward_hook, lambda m, gi, go: None)
x_grad, weight_grad = gradients_with(linear.register_full_backward_hook, lambda m, gi, go: (gi[0] * 10,))
check(
    [torch.allclose(x_grad, 10 * plain_x), torch.equal(weight_grad, plain_weight)],
    [True, True],
    label="x.grad × 10, weight.grad unchanged",
)
x_grad, weight_grad = gradients_with(linear.register_full_backward_pre_hook, lambda m, go: (go[0] * 10,))
check(
    [torch.allclose(x_grad, 10 * plain_x), torch.allclose(weight_grad, 10 * plain_weight)],
    [True, True],
    label="x.grad × 10, weight.grad × 10",
)

# %%
# The firing order in a network
# -----------------------------
# Each layer of a small ``nn.Sequential`` gets a pre-hook and a full hook
# that write to one list:
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to(device)
events = []
for index, layer in enumerate(model):
    layer.register_full_backward_pre_hook(lambda m, go, i=index: events.append(f"pre {i}"))
    layer.register_full_backward_hook(lambda m, gi, go, i=index: events.append(f"full {i}"))
model(x).sum().backward()
check(events, ["pre 2", "full 2", "pre 1", "full 1", "pre 0", "full 0"], label="events")

# %%
# Backward reaches the layers in the reverse of the forward order, and each
# layer's pre-hook fires before its full hook: the gradient of a layer's
# output is known before that of its input.
#
# The deprecated ``register_backward_hook``
# -----------------------------------------
# The older hook is registered on the *last* node of the module's
# forward, so its ``grad_input`` is the gradient of that node's inputs, not
# of the module's. A module with two operations, ``tanh`` then ``* 2``:


class ScaledTanh(nn.Module):
    def forward(self, x):
        return torch.tanh(x) * 2


z = torch.tensor([0.0, 1.0, -2.0], device=device, requires_grad=True)
old, full = ScaledTanh(), ScaledTanh()
seen = {}
old.register_backward_hook(lambda m, gi, go: seen.update(old=gi))
full.register_full_backward_hook(lambda m, gi, go: seen.update(full=gi))
with expect_warning(
    FutureWarning,
    match=(
        r"^Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated "
        r"and will be removed in future versions\. This hook will be missing some grad_input\. "
        r"Please use register_full_backward_hook to get the documented behavior\.$"
    ),
):
    out_old = old(z)
out_old.sum().backward()
full(z).sum().backward()
check(seen["old"][0], [2.0, 2.0, 2.0], label="old: grad_input[0]")
check(seen["old"][1], None, label="old: grad_input[1]")
check(seen["full"][0], 2 * (1 - torch.tanh(z.detach()) ** 2), label="full: grad_input[0]")

# %%
# Registration is silent; the ``FutureWarning`` comes at the forward call.
# The old hook sees the two inputs of ``MulBackward0``: ``tanh(z)``, whose
# gradient is 2 everywhere, and the constant ``2`` (``None``). The real
# gradient of ``z``, :math:`2(1 - \tanh^2 z)`, is what the full hook reports.
#
# A full hook and an in-place ``ReLU``
# ------------------------------------
# Grad-CAM needs the gradient of a feature map: the output of a
# convolution. A full hook on the convolution would give it as
# ``grad_output``. But ``ReLU(inplace=True)`` follows, as in many vision
# models:
torch.manual_seed(0)
net = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1),
    nn.ReLU(inplace=True),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(4, 3),
).to(device)
image = torch.randn(1, 1, 6, 6, device=device)
VIEW_INPLACE = (
    r"^Output 0 of BackwardHookFunction is a view and is being modified inplace\. This view was created "
    r"inside a custom Function \(or because an input was returned as-is\) and the autograd logic to "
    r"handle view\+inplace would override the custom backward associated with the custom Function, "
    r"leading to incorrect gradients\. This behavior is forbidden\. You can fix this by cloning the "
    r"output of the custom Function\.$"
)
handle = net[0].register_full_backward_hook(lambda m, gi, go: None)
with expect_error(RuntimeError, match=VIEW_INPLACE):
    net(image)
net[1].inplace = False
check(net(image).shape, (1, 3), label="net(image).shape with ReLU(inplace=False)")
net[1].inplace = True
handle.remove()

# %%
# The convolution's output is now the output of the hook node
# ``BackwardHookFunction``, which returns its input as-is (a view), and
# autograd refuses an in-place write into such a view. The forward pass
# fails before any hook runs. A module with a full hook that writes into
# its own input fails the same way, since its input went through the same
# node:
relu = nn.ReLU(inplace=True)
relu.register_full_backward_hook(lambda m, gi, go: None)
with expect_error(RuntimeError, match=VIEW_INPLACE):
    relu(net[0](image))

# %%
# ``nn.ReLU(inplace=False)`` avoids the error (checked above, with the
# hook still on the convolution), and so does a ``clone()`` of the output.
# Grad-CAM code can also do without module backward hooks.
#
# Tensor and node hooks instead
# -----------------------------
# A forward hook runs after the convolution and gets its output (it must
# return ``None``: a value it returns replaces the output). A tensor hook on
# that output (:ref:`tensor_hooks`), and a pre-hook and a hook on its node
# ``output.grad_fn``, add no node to the graph:
captured = {}


def capture(module, args, output):
    captured["activation"] = output
    output.register_hook(lambda grad: captured.update(tensor_hook=grad))
    output.grad_fn.register_prehook(lambda grad_outputs: captured.update(node_prehook=grad_outputs[0]))
    output.grad_fn.register_hook(lambda grad_inputs, grad_outputs: captured.update(node_hook=grad_inputs))


handle = net[0].register_forward_hook(capture)
scores = net(image)
label = scores.argmax().item()
scores[0, label].backward()

activation = captured["activation"]
check(activation._version, 1, label="activation._version")
expected = net[4].weight[label].detach().reshape(1, 4, 1, 1) / 36 * (activation > 0)
check(torch.allclose(captured["tensor_hook"], expected), True, label="tensor hook: weight / 36 where > 0")
check(torch.equal(captured["node_prehook"], captured["tensor_hook"]), True, label="node pre-hook, the same")
check(
    [None if g is None else list(g.shape) for g in captured["node_hook"]],
    [None, [4, 1, 3, 3], [4]],
    label="node hook: shapes in grad_inputs",
)

# %%
# The score of the class ``label`` is a mean over the 36 positions of the
# feature map, times a weight per channel. The tensor hook was registered
# before the in-place ``ReLU``, so it gets the gradient of the convolution's
# output as it was: that weight divided by 36 where the ``ReLU`` let the
# value through, 0 where it cut it (a tensor hook registered in a forward
# hook on the ``ReLU`` would get the gradient of the values after it,
# without zeros). The pre-hook on the
# node ``ConvolutionBackward0`` gets the same tensor; the hook on it gets
# the gradients of the node's inputs: ``None`` for the image, then the
# convolution's weight and bias. ``activation`` is at version 1: the
# in-place ``ReLU`` wrote into it after the forward hook had kept it, so it
# holds the values after the ``ReLU``, which Grad-CAM weighs by the mean
# gradient of each channel:
weights = captured["tensor_hook"].mean(dim=(2, 3), keepdim=True)
cam = torch.relu((weights * activation).sum(dim=1))[0]
draw_matrix(cam.detach().cpu(), title="cam = relu((weights * activation).sum(dim=1))[0]")
plt.show()

# %%
# The 6 × 6 map ``cam``, one cell per position of the image, with its value
# written in it: zero (the page's background) where the weighted channels
# sum to a negative value, a stronger blue where they add up to more.
#
# Removing hooks
# --------------
# Every ``register_*`` call returns a handle. The tensor and node hooks
# belong to one forward pass's graph and go with it; the forward hook stays
# on the module until its handle is removed:
handle.remove()
captured.clear()
net(image)[0, label].backward()
check(captured, {}, label="captured after handle.remove()")

# %%
# A full hook under ``torch.compile``
# -----------------------------------
# ``torch._dynamo.explain`` runs a module as ``torch.compile`` would and
# counts the graphs it compiles: one for a plain ``nn.Linear``, none for the
# same layer with a full backward hook, and none for a network in which
# only the last layer has one.
layer = nn.Linear(3, 2).to(device)
plain = torch._dynamo.explain(layer)(x)
layer.register_full_backward_hook(lambda m, gi, go: None)
hooked = torch._dynamo.explain(layer)(x)
network = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to(device)
network[2].register_full_backward_hook(lambda m, gi, go: None)
counts = [plain.graph_count, hooked.graph_count, torch._dynamo.explain(network)(x).graph_count]
check(counts, [1, 0, 0], label="graph_count: layer, layer with hook, network")
out = torch.compile(layer, backend="aot_eager")(x)
nodes = [node.drawn_title for node in autograd_graph(out, names={"out": out}).nodes]
check(nodes[:2], ["BackwardHookFunctionBackward (out)", "AddmmBackward0"], label="the first nodes of out")


def reason_and_hint(call):
    """Run ``call``; return the first line and the hint of what it raised (the rest names paths)."""
    try:
        call()
    except Exception as error:
        lines = str(error).splitlines()
        return [f"{type(error).__name__}: {lines[0]}", *(line.strip() for line in lines if "Hint:" in line)]
    return ["no error"]


torch._dynamo.reset()  # forget the eager fallback cached for layer's code
check(
    reason_and_hint(lambda: torch.compile(layer, backend="aot_eager", fullgraph=True)(x)),
    [
        "Unsupported: Module-level backwards hooks require compiled autograd.",
        "Hint: Enable compiled autograd by setting torch._dynamo.config.compiled_autograd = True.",
    ],
    label="with fullgraph=True",
)

# %%
# The graph of the compiled layer's ``out`` is the eager one: the hook
# node, then ``AddmmBackward0``, with no
# ``CompiledFunctionBackward`` (:ref:`compile_and_autograd`). Dynamo cannot
# trace a module backward hook and runs the whole call as written, without
# a word; only ``fullgraph=True`` says why. In the network, the hook on
# one layer leaves all three uncompiled. Dynamo's hint, compiled autograd,
# traces the backward pass as well; it is not run here (compiling the
# backward takes seconds on a CPU).
#
# A hook added after compiling is not seen
# ----------------------------------------
# Dynamo does not check, before it reuses what it compiled, whether hooks
# were added to the module (``torch._dynamo.config.skip_nnmodule_hook_guards``
# is ``True``). A hook registered after the first compiled call never runs:
calls = []
fresh = nn.Linear(3, 2).to(device)
compiled = torch.compile(fresh, backend="aot_eager")
compiled(x)
fresh.register_full_backward_hook(lambda m, gi, go: calls.append("hook"))
compiled(x).sum().backward()
check([torch._dynamo.config.skip_nnmodule_hook_guards, calls], [True, []], label="[skip guards, calls]")
torch._dynamo.reset()
compiled(x).sum().backward()
check(calls, ["hook"], label="calls after torch._dynamo.reset()")

# %%
# The second call reused the graph compiled before the hook existed, and
# the hook did not fire. After ``torch._dynamo.reset()``, which forgets
# everything compiled in the process, the next call sees the hook and runs
# the layer eagerly, as above: register hooks before the first compiled
# call, or reset after registering them.

# %%
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the messages and gradients are checked on the runner that built this page.
# :ref:`tensor_hooks` covers hooks on tensors, and :ref:`mental_model` shows
# where the nodes of the graph come from.
