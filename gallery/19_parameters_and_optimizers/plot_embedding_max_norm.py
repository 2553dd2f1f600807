"""
.. _embedding_max_norm:

``max_norm`` rewrites the embedding
===================================

``nn.Embedding(max_norm=...)`` keeps its rows short by rescaling them in
place, during ``forward``, whenever they are looked up. This example shows
the weight changing without any optimizer step, under ``torch.no_grad()``
and in the pretrained tensor it was built from; then the version-counter
error that follows when the weight was used earlier in the same graph (an
output layer tied to the embedding, called step by step), the fix that
PyTorch's documentation gives, a cheaper one that rescales the batch's rows
once, and the gradient, which ignores the rescaling.

.. questions::

   - Why do my embedding weights change without an optimizer step?
   - Why does ``nn.Embedding(max_norm=...)`` raise an in-place modification error?
   - How do I tie output weights to an embedding with ``max_norm``?
   - Does the embedding gradient include the ``max_norm`` rescaling?
"""

# %%
# A lookup changes the weight
# ---------------------------
# Five pretrained vectors, of norms 5, 0.5, 2, 3 and 0.5, in an embedding
# with ``max_norm=1.0``. One lookup of rows 0 and 2:
import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import autograd_graph, check, draw_graph, draw_matrix, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 2
device = runner_device()

# the start of the version-counter message, up to the tensor's shape, and its end
MODIFIED = (
    r"^one of the variables needed for gradient computation has been modified by an inplace "
    r"operation: \[torch\.(cuda\.)?FloatTensor "
)
HINT = (
    r" instead\. Hint: enable anomaly detection to find the operation that failed to compute its "
    r"gradient, with torch\.autograd\.set_detect_anomaly\(True, check_nan=False\)\.$"
)
PRETRAINED = [[3.0, 0.0, 4.0], [0.3, 0.0, 0.4], [0.0, 2.0, 0.0], [1.0, 2.0, 2.0], [0.0, 0.0, 0.5]]

vectors = torch.tensor(PRETRAINED, device=device)
emb = nn.Embedding.from_pretrained(vectors, freeze=False, max_norm=1.0)
norms = [emb.weight.detach().norm(dim=1)]
check(emb.weight._version, 0, label="emb.weight._version")

out = emb(torch.tensor([0, 2], device=device))
norms.append(emb.weight.detach().norm(dim=1))
check(out, [[0.6, 0.0, 0.8], [0.0, 1.0, 0.0]], label="out")
check(norms[-1], [1.0, 0.5, 1.0, 3.0, 0.5], label="row norms")
check(emb.weight._version, 1, label="emb.weight._version")
check(vectors[0], [0.6, 0.0, 0.8], label="vectors[0]")

# %%
# The two rows longer than 1 were rescaled to norm 1 in ``emb.weight``
# itself, and the output is the rescaled rows. Row 3, of norm 3, was not
# looked up and keeps its length. ``from_pretrained`` does not copy: the
# weight is ``vectors``, so the caller's tensor changed too.
#
# The rescaling is an in-place operation on ``weight.detach()`` (PyTorch's
# stand-in for ``torch.no_grad()``), so it runs whatever the mode, and it
# moves the weight's version counter, which ``detach()`` shares
# (:ref:`detach_inplace_saved`). Evaluating the model changes it:
emb.eval()
with torch.no_grad():
    emb(torch.tensor([3], device=device))
norms.append(emb.weight.detach().norm(dim=1))
check(norms[-1], [1.0, 0.5, 1.0, 1.0, 0.5], label="row norms")
check(emb.weight._version, 2, label="emb.weight._version")
draw_matrix(
    torch.stack(norms),
    rows=["from_pretrained", "emb([0, 2])", "no_grad: emb([3])"],
    columns=["[0]", "[1]", "[2]", "[3]", "[4]"],
    title="emb.weight.norm(dim=1)",
)
plt.show()

# %%
# The norm of each of the five rows (columns ``[0]`` to ``[4]``) at three
# moments. At the start (row ``from_pretrained``): 5, 0.5, 2, 3, 0.5.
# After the lookup of rows 0 and 2 (row ``emb([0, 2])``): rows 0 and 2 are
# at 1, the rest unchanged. After a lookup of row 3 in evaluation mode,
# under ``torch.no_grad()`` (last row): row 3 is at 1 too. Rows 1 and 4,
# shorter than ``max_norm``, never change. Nothing here called an
# optimizer.
#
# An earlier use of the weight fails at backward
# ----------------------------------------------
# A fresh embedding from the same vectors. Hidden states that require a
# gradient are multiplied by the weight, as an output layer tied to the
# embedding would do, and then rows 1 and 4 are looked up. Those two rows
# are shorter than ``max_norm``: nothing is rescaled.
emb = nn.Embedding.from_pretrained(torch.tensor(PRETRAINED, device=device), freeze=False, max_norm=1.0)
hidden = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], device=device, requires_grad=True)
logits = hidden @ emb.weight.t()
out = emb(torch.tensor([1, 4], device=device))
loss = logits.sum() + out.sum()
check(emb.weight._version, 1, label="emb.weight._version")
names = {"loss": loss, "logits": logits, "out": out, "hidden": hidden, "emb.weight": emb.weight}
graph = autograd_graph(loss, names=names)
check(graph.modified, ["MmBackward0 (logits): saved mat2 [3, 5] v1 ≠ v0"], label="modified in place")
draw_graph(graph, title="logits = hidden @ emb.weight.t(); out = emb([1, 4])")
plt.show()

# %%
# The graph of ``loss``, drawn before its backward pass: ``AddBackward0
# (loss)`` at the top, two ``SumBackward0`` under it, then on the left
# ``MmBackward0 (logits)``, framed in red, and on the right
# ``EmbeddingBackward0 (out)``. ``MmBackward0`` saved ``hidden`` as
# ``self (hidden) [2, 3] v0`` and the transposed weight as ``mat2 [3, 5]``,
# whose red line reads ``v1 ≠ v0``. At the bottom are two blue
# ``AccumulateGrad`` leaves: ``hidden``, and ``emb.weight``, reached from
# ``MmBackward0`` through ``TBackward0`` and from ``EmbeddingBackward0``,
# which saved only the indices (``indices [2] v0``).
#
# The product needs the weight to send the gradient to ``hidden``, so it
# saved the weight at version 0. The lookup then moved the version to 1,
# although no row was longer than 1: the rescaling runs on every lookup
# and counts as a change even when it changes nothing.
with expect_error(
    RuntimeError,
    match=MODIFIED
    + r"\[3, 5\]\], which is output 0 of AsStrided, is at version 1; expected version 0"
    + HINT,
):
    loss.backward()

# %%
# The ``[3, 5]`` tensor of the message is ``emb.weight.t()``, described as
# an ``as_strided`` view of the weight after the weight changed in place
# (:ref:`inplace_in_training` reads the same message). Had ``hidden`` not
# required a gradient, the product would not have saved the weight and
# nothing would fail: the error needs a use of the weight that autograd
# keeps for backward.
#
# A tied output layer, step by step
# ---------------------------------
# A language model with its output layer tied to its embedding works when
# every lookup comes before the output layer. Decoding one token at a time,
# it does not: the second step's lookup changes the weight that the first
# step's output layer saved.
emb = nn.Embedding.from_pretrained(torch.tensor(PRETRAINED, device=device), freeze=False, max_norm=1.0)
head = nn.Linear(3, 5, bias=False).to(device)
head.weight = emb.weight  # tied: one tensor
tokens = torch.tensor([0, 2], device=device)

logits = head(emb(tokens))  # every lookup, then the output layer
logits.sum().backward()
check(emb.weight.grad is None, False, label="emb.weight.grad is None")
BATCH_FIRST = [[2.5, 4.0, 4.5], [0.6, 1.0, 0.8], [2.5, 4.0, 4.5], [0.6, 1.0, 0.8], [0.6, 1.0, 0.8]]
check(emb.weight.grad, BATCH_FIRST, label="emb.weight.grad, every lookup first")

emb.weight.grad = None
steps = [head(emb(token)) for token in tokens]  # one lookup, then the output layer, per step
with expect_error(
    RuntimeError,
    match=MODIFIED
    + r"\[3, 5\]\], which is output 0 of AsStrided, is at version 3; expected version 2"
    + HINT,
):
    torch.stack(steps).sum().backward()

# %%
# The first step's output layer saved the weight at version 2 (one lookup
# in the first block, then the first step's own); the second step's lookup
# moved it to 3. Any use of the weight that autograd saves, followed by a
# lookup in the same graph, meets this error: a penalty on the weight
# computed before the lookups too.
emb = nn.Embedding.from_pretrained(torch.tensor(PRETRAINED, device=device), freeze=False, max_norm=1.0)
penalty = emb.weight.pow(2).sum()  # pow saves the weight, at version 0
with expect_error(
    RuntimeError,
    match=MODIFIED + r"\[5, 3\]\] is at version 1; expected version 0" + HINT,
):
    (penalty + emb(tokens).sum()).backward()

# %%
# This time the saved tensor is the weight itself, ``[5, 3]``, a leaf: the
# message names no operation that produced it.
#
# The fix in the documentation: clone the weight
# ----------------------------------------------
# PyTorch's documentation of ``nn.Embedding`` says that a differentiable
# use of the weight before the lookup needs ``emb.weight.clone()``. The
# clone is a new tensor that the product saves; the lookup changes the
# weight, not the clone, and the gradient still reaches the weight through
# the clone's backward:
emb = nn.Embedding.from_pretrained(torch.tensor(PRETRAINED, device=device), freeze=False, max_norm=1.0)
hidden = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], device=device, requires_grad=True)
logits = hidden @ emb.weight.clone().t()
out = emb(torch.tensor([1, 4], device=device))
(logits.sum() + out.sum()).backward()
check(
    emb.weight.grad,
    [[1.0, 1.0, 0.0], [2.0, 2.0, 1.0], [1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [2.0, 2.0, 1.0]],
    label="emb.weight.grad",
)

# %%
# Each row gets :math:`[1, 1, 0]`, the sum of the two hidden states, from
# the product, and rows 1 and 4 get :math:`[1, 1, 1]` more from the lookup.
# The clone holds the weight as it was before the lookup: where the lookup
# rescales a row, the product used the row before rescaling. In the
# step-by-step loop, ``nn.functional.linear(h, emb.weight.clone())``
# instead of ``head(h)`` does the same:
emb.weight.grad = None
steps = [nn.functional.linear(emb(token), emb.weight.clone()) for token in tokens]
torch.stack(steps).sum().backward()
check(emb.weight.grad is None, False, label="emb.weight.grad is None")
check(emb.weight.grad[0], [2.5, 5.0, 4.5], label="emb.weight.grad[0], clone fix")

# %%
# Row 0's gradient differs from the one of the model that looks every token
# up first (``[2.5, 4, 4.5]``): the first step's clone held row 2 before its
# rescaling, at norm 2. The clone also copies the whole table, at every
# step: with a vocabulary of 50 000 rows, 50 000 rows per decoded token.
#
# Cheaper: rescale the batch's rows once
# --------------------------------------
# An embedding without ``max_norm``, and the rows that the batch will look
# up rescaled once, under ``torch.no_grad()``, before the loop.
# ``torch.renorm`` with ``dim=0`` brings each row longer than ``maxnorm``
# back to that norm:
emb = nn.Embedding.from_pretrained(torch.tensor(PRETRAINED, device=device), freeze=False)
head = nn.Linear(3, 5, bias=False).to(device)
head.weight = emb.weight
rows = tokens.unique()
with torch.no_grad():
    emb.weight[rows] = torch.renorm(emb.weight[rows], p=2, dim=0, maxnorm=1.0)
check(emb.weight.detach().norm(dim=1), [1.0, 0.5, 1.0, 3.0, 0.5], label="row norms")
check(emb.weight.detach()[rows], [[0.6, 0.0, 0.8], [0.0, 1.0, 0.0]], label="emb.weight[rows]")
steps = [head(emb(token)) for token in tokens]  # the step-by-step loop, unchanged
torch.stack(steps).sum().backward()
check(emb.weight._version, 1, label="emb.weight._version after the loop")
check(emb.weight.grad, BATCH_FIRST, label="emb.weight.grad")

# %%
# Rows 0 and 2 are at norm 1, the same rows that a ``max_norm`` lookup
# gives (``out`` in the first section); row 3, not in the batch, keeps its
# norm of 3 until a batch holds it. The lookups no longer write into the
# weight: its version stays at 1, the rescaling's own write, and backward
# runs. Every step saw the same rescaled weight: the gradient is that of
# the model that looks every token up first, where the clone fix's was
# not. Only the batch's rows are read and written, not the whole table.
# After an optimizer step, rows can grow again: rescale at every batch.

# %%
# The gradient ignores the rescaling
# ----------------------------------
# Row 0 has norm 5. A lookup of it, and the gradient of the sum of the
# result:
emb = nn.Embedding.from_pretrained(torch.tensor(PRETRAINED, device=device), freeze=False, max_norm=1.0)
emb(torch.tensor([0], device=device)).sum().backward()
check(emb.weight.grad[0], [1.0, 1.0, 1.0], label="emb.weight.grad[0]")

row = torch.tensor(PRETRAINED[0], device=device, requires_grad=True)
(row / row.norm()).sum().backward()
check(row.grad, [0.032, 0.2, -0.024], label="gradient of (row / row.norm()).sum()")

# %%
# The gradient is that of a plain lookup, ones, as if the row had always
# had norm 1. The rescaling happened on a detached alias before the
# lookup, so autograd never saw it; differentiated, it would have given
# the second line, a gradient with no component along the row. ``max_norm``
# acts as a constraint applied to the weight, not as part of the function
# being differentiated.
#
# The CUDA record (PyTorch 2.11.0, an H200) has the same values and versions,
# with messages that read ``torch.cuda.FloatTensor`` and, as 2.11.0 writes on any
# device, ``AsStridedBackward0`` where this page's PyTorch writes ``AsStrided``.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the norms, the versions and the messages are checked on the runner that
# built this page, and PyTorch's documentation of ``nn.Embedding`` gives
# the fix.
