"""
.. _retain_graph_not_needed:

When ``retain_graph`` is not needed
===================================

A second ``backward()`` through the same graph fails only if a node on the
way saved a tensor for its gradient formula, because those saved tensors
are what the first pass frees. This example runs a second pass through
twenty common operations, lists what each node saved (its ``_saved_*``
attributes), and shows which ones can be run backward twice without
``retain_graph=True``, including the trap of a multiplication by a plain
Python number.

.. questions::

   - Why can some graphs run ``backward()`` twice without ``retain_graph``?
   - Which operations save tensors for the backward pass?
   - Why does ``3 * x`` break a second ``backward()`` call?
"""

# %%
# Twenty operations, each backpropagated twice
# --------------------------------------------
# For each operation below, a fresh graph ``op(a, b).sum()`` is run backward
# twice. The table lists the node the operation created, the names of its
# ``_saved_*`` attributes that hold tensors (the others hold numbers or
# sizes), and how the second pass ended.
import re

import torch

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

SECOND_PASS = r"^Trying to backward through the graph a second time"

OPERATIONS = {
    "a + b": lambda a, b: a + b,
    "a - b": lambda a, b: a - b,
    "torch.add(a, b, alpha=2)": lambda a, b: torch.add(a, b, alpha=2),
    "a + 3": lambda a, b: a + 3,
    "-a": lambda a, b: -a,
    "a.view(2, 1)": lambda a, b: a.view(2, 1),
    "a[0:1]": lambda a, b: a[0:1],
    "a.expand(3, 2)": lambda a, b: a.expand(3, 2),
    "torch.cat([a, b])": lambda a, b: torch.cat([a, b]),
    "a.mean()": lambda a, b: a.mean(),
    "3 * a": lambda a, b: 3 * a,
    "a / 3": lambda a, b: a / 3,
    "a * b": lambda a, b: a * b,
    "a @ b": lambda a, b: a @ b,
    "a**2": lambda a, b: a**2,
    "a.log()": lambda a, b: a.log(),
    "a.exp()": lambda a, b: a.exp(),
    "a.sigmoid()": lambda a, b: a.sigmoid(),
    "a.relu()": lambda a, b: a.relu(),
    "a[torch.tensor([1, 0])]": lambda a, b: a[torch.tensor([1, 0], device=device)],
}


def holds_tensors(value):
    if isinstance(value, (tuple, list)):
        return any(holds_tensors(item) for item in value)
    return isinstance(value, torch.Tensor)


def backward_twice(operation):
    """The node made by ``operation``, the tensors it saved, and how a second pass ends."""
    a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    b = torch.tensor([3.0, 4.0], device=device, requires_grad=True)
    out = operation(a, b)
    node = out.grad_fn
    saved = [name for name in dir(node) if name.startswith("_saved_") and holds_tensors(getattr(node, name))]
    loss = out.sum()
    loss.backward()
    try:
        loss.backward()
    except RuntimeError as error:
        if not re.search(SECOND_PASS, str(error)):
            raise
        return node.name(), saved, "fails"
    return node.name(), saved, "works"


rows = [(text, *backward_twice(operation)) for text, operation in OPERATIONS.items()]
widths = [max(len(str(row[i])) for row in rows) for i in range(2)]
print(f"{'operation':{widths[0]}}  {'node':{widths[1]}}  second pass  saved tensors")
for text, node, saved, second in rows:
    print(f"{text:{widths[0]}}  {node:{widths[1]}}  {second:11}  {', '.join(saved) or '-'}")

check(
    [text for text, _, saved, second in rows if second == "works" and not saved],
    [
        "a + b",
        "a - b",
        "torch.add(a, b, alpha=2)",
        "a + 3",
        "-a",
        "a.view(2, 1)",
        "a[0:1]",
        "a.expand(3, 2)",
        "torch.cat([a, b])",
        "a.mean()",
    ],
    label="a second pass works, nothing saved",
)
check(
    [text for text, _, saved, second in rows if second == "fails" and saved],
    [
        "3 * a",
        "a / 3",
        "a * b",
        "a @ b",
        "a**2",
        "a.log()",
        "a.exp()",
        "a.sigmoid()",
        "a.relu()",
        "a[torch.tensor([1, 0])]",
    ],
    label="a second pass fails, tensors saved",
)
check(
    sum((second == "works") == bool(saved) for _, _, saved, second in rows),
    0,
    label="rows where saving a tensor and failing do not go together",
)

# %%
# Every operation whose node saved a tensor fails the second pass, every
# other one works: no row contradicts that (the last check). (The
# ``sum()`` added to each graph saves only a size.) Additions, subtractions,
# negation, views, slices, ``expand``, ``cat`` and means pass a gradient
# back by adding, copying, reshaping or scaling it by a constant that the
# node keeps as a plain number; everything else needs values from the
# forward pass. The saved values are of three kinds:
#
# - the *inputs*: ``a * b`` keeps both factors (``_saved_self``,
#   ``_saved_other``), ``a**2`` and ``log`` keep ``a``;
# - the *output*: ``exp``, ``sigmoid`` and ``relu`` keep their result
#   (``_saved_result``), since :math:`\exp' = \exp`,
#   :math:`\sigma' = \sigma(1 - \sigma)` and the output of ``relu`` says
#   where the input was positive;
# - *other tensors*: advanced indexing keeps its index tensor
#   (``_saved_indices``), although it needs no value of ``a``.
#
# Multiplying by a Python number saves a tensor
# ---------------------------------------------
# ``a + 3`` and ``3 * a`` are both simple, but only the first one can be run
# backward twice:
a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
plus_three = a + 3
times_three = 3 * a
check(plus_three.grad_fn._saved_alpha, 1, label="plus_three.grad_fn._saved_alpha")
check(times_three.grad_fn._saved_other, 3, label="times_three.grad_fn._saved_other")
check(times_three.grad_fn._saved_self, None, label="times_three.grad_fn._saved_self")

plus_three.sum().backward()
plus_three.sum().backward()
check(a.grad, [2.0, 2.0], label="a.grad after two passes through a + 3")

loss = times_three.sum()
loss.backward()
with expect_error(RuntimeError, match=SECOND_PASS):
    loss.backward()

# %%
# ``a + 3`` keeps only ``alpha``, a Python number, and the gradient of a
# sum is 1 whatever the numbers. ``3 * a`` is a ``MulBackward0``, the node
# of a multiplication of two tensors: the 3 is turned into a
# zero-dimensional tensor and saved as ``_saved_other`` (the gradient of
# ``a`` is 3 times the incoming one), while ``_saved_self`` is ``None``
# because the gradient of the 3 is not needed. A saved tensor, even this
# one, is freed by the first pass, so ``a / 3`` fails too, while ``-a``
# works. :ref:`retain_graph` shows the same trap in ``3 * p + 2 * q``.
#
# After the first pass
# --------------------
# Reading a saved tensor after the pass raises the error of the second
# pass; the numbers and sizes that a node keeps stay readable:
with expect_error(RuntimeError, match=SECOND_PASS):
    times_three.grad_fn._saved_other

check(plus_three.grad_fn._saved_alpha, 1, label="plus_three.grad_fn._saved_alpha")
mean = a.mean()
mean.backward()
check(mean.grad_fn._saved_self_sym_numel, 2, label="mean.grad_fn._saved_self_sym_numel")

# %%
# The two graphs of this section, drawn after those passes:
import matplotlib.pyplot as plt

from autograd_notes import autograd_graph, draw_graph

after_plus = autograd_graph(plus_three, names={"a": a, "plus_three": plus_three})
after_times = autograd_graph(times_three, names={"a": a, "times_three": times_three})
check(
    [saved.status for node in after_times.nodes for saved in node.saved],
    ["freed"],
    label="what MulBackward0 saved, after the first pass",
)
check(after_plus.nodes[0].values, ("alpha=1",), label="what AddBackward0 kept")
draw_graph(after_plus, title="plus_three = a + 3")
draw_graph(after_times, title="times_three = 3 * a")
plt.show()

# %%
# Each graph goes from its root down to the leaf ``a`` (shape ``[2]``).
# ``AddBackward0`` of ``a + 3`` kept only ``alpha=1``, a number, which
# backward leaves in place. ``MulBackward0`` of ``3 * a`` saved one
# tensor, ``other``, the 3; the first pass freed it, drawn in grey as
# ``other ∅``. Nothing is missing from the first graph, so it can be run
# backward again; the second lacks the 3.
#
# So "backward twice needs ``retain_graph=True``" is the safe rule, and its
# exceptions are exactly the graphs without saved tensors on the path that
# the second pass takes. Relying on an exception is fragile: one
# multiplication added to the model later and the second pass fails. Pass
# ``retain_graph=True`` whenever a second pass is intended, or look at the
# nodes' ``_saved_*`` attributes as above when you need to know why one
# failed.
#
# Sources
# -------
# - :ref:`source_003` and :ref:`source_002` say that a second backward pass
#   through the same graph needs ``retain_graph=True`` because the first
#   pass frees the graph. **Holds** for every graph above whose nodes saved
#   a tensor, and does not hold for the ten operations that save none, as
#   :ref:`retain_graph` first showed with ``torch.add(p, q, alpha=2)``; a
#   multiplication by a Python number does save a tensor.
