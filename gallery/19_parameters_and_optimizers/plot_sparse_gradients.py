"""
.. _sparse_gradients:

Sparse gradients and optimizers
===============================

``nn.Embedding(sparse=True)`` gives its weight a gradient that holds only
the rows a batch looked up: a sparse COO tensor with one entry per lookup,
repeated rows included. This example reads that tensor, then hands it to
the optimizers: ``Adam`` and ``AdamW`` refuse it at their first step,
``SGD`` with weight decay fails inside its update, and ``SGD`` without
weight decay, ``SparseAdam`` or a dense gradient (``sparse=False``) work;
``Adagrad`` with weight decay refuses it. Then it shows that ``SparseAdam``
is not ``Adam`` restricted to fewer rows: a row missing from a batch stops
moving, where ``Adam`` and ``SGD`` with momentum keep moving it. Last,
``clip_grad_norm_`` fails on the sparse gradient, and the page clips it by
hand.

.. questions::

   - Why does Adam say ``does not support sparse gradients``?
   - Which optimizers work with ``nn.Embedding(sparse=True)``?
   - Why does SGD with weight decay fail on sparse gradients?
   - Difference between ``SparseAdam`` and ``Adam`` for embeddings?
   - Why does ``clip_grad_norm_`` fail on a sparse embedding gradient?
"""

# %%
# One entry per lookup
# --------------------
# An embedding of six rows, a batch that looks up rows 1, 4 and 1 again,
# and a loss that weights the three lookups by 1, 2 and 3, so that each
# lookup sends back a gradient of its own:
import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import check, draw_matrix, draw_series, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

torch.manual_seed(0)
emb = nn.Embedding(6, 3, sparse=True).to(device)
tokens = torch.tensor([1, 4, 1], device=device)
weights = torch.tensor([[1.0], [2.0], [3.0]], device=device)
(emb(tokens) * weights).sum().backward()

grad = emb.weight.grad
print(grad)
check(grad.layout, torch.sparse_coo, label="grad.layout")
check(grad.is_coalesced(), False, label="grad.is_coalesced()")
check(grad._indices().tolist(), [[1, 4, 1]], label="grad._indices()")
draw_matrix(grad._values(), rows=["[1]", "[4]", "[1]"], title="emb.weight.grad._values()")
plt.show()

# %%
# The three stored rows of ``emb.weight.grad``, in the order of the
# lookups, each labelled with the row of the weight it belongs to: ``[1]``
# holds 1 in its three cells, ``[4]`` holds 2, and the last row, ``[1]``
# again, holds 3. Row 1 has two entries that have not been added together,
# and rows 0, 2, 3 and 5 have none.
#
# The lookup's backward does not add the two entries of row 1: the tensor is
# *uncoalesced*, and its public accessors refuse it until
# ``coalesce()`` sums the duplicates. Printed, it shows its raw entries,
# which ``_indices()`` and ``_values()`` return without that check.
with expect_error(
    RuntimeError, match=r"^Cannot get indices on an uncoalesced tensor, please call \.coalesce\(\) first$"
):
    grad.indices()
merged = grad.coalesce()
check(merged.indices().tolist(), [[1, 4]], label="grad.coalesce().indices()")
check(merged.values(), [[4.0, 4.0, 4.0], [2.0, 2.0, 2.0]], label="grad.coalesce().values()")
check(
    grad.to_dense()[[0, 2, 3, 5]].count_nonzero().item(),
    0,
    label="non-zeros in rows 0, 2, 3, 5 of grad.to_dense()",
)

# %%
# Summed, row 1 gets :math:`1 + 3 = 4` and row 4 gets 2: the gradient a
# dense weight would have, without the four rows of zeros. That is the
# point of ``sparse=True``: the gradient's size follows the batch, not the
# vocabulary. With 50 000 rows of 64 values, the same three lookups store
# three rows:
big = nn.Embedding(50_000, 64, sparse=True).to(device)
big(tokens).sum().backward()
check(tuple(big.weight.grad._values().shape), (3, 64), label="big.weight.grad._values().shape")

# %%
# A second ``backward()`` without ``zero_grad()`` does not add into those
# rows here either: it appends its own entries (the CPU merges repeated rows
# only in some cases), so a sparse gradient can grow with every backward pass.
emb(torch.tensor([4, 2], device=device)).sum().backward()
check(emb.weight.grad._indices().tolist(), [[1, 4, 1, 4, 2]], label="grad._indices() after a second backward")
check(emb.weight.grad.is_coalesced(), False, label="grad.is_coalesced()")

# %%
# Optimizers that refuse a sparse gradient
# ----------------------------------------
# ``backward()`` raised nothing: the trouble comes at the optimizer's first
# ``step()``. Each optimizer below gets a fresh embedding and one backward
# pass over the same batch, then takes a step:


def prepared(kind, **options):
    """A fresh embedding, an optimizer of class ``kind`` over it, and one backward pass."""
    torch.manual_seed(0)
    layer = nn.Embedding(6, 3, sparse=True).to(device)
    optimizer = kind(layer.parameters(), lr=0.1, **options)
    layer(tokens).sum().backward()
    return layer, optimizer, layer.weight.detach().clone()


layer, optimizer, start = prepared(torch.optim.Adam)
with expect_error(
    RuntimeError, match=r"^Adam does not support sparse gradients, please consider SparseAdam instead$"
):
    optimizer.step()
check(torch.equal(layer.weight, start), True, label="Adam: weight unchanged")
layer, optimizer, start = prepared(torch.optim.AdamW)
with expect_error(
    RuntimeError, match=r"^Adam does not support sparse gradients, please consider SparseAdam instead$"
):
    optimizer.step()
layer, optimizer, start = prepared(torch.optim.RMSprop)
with expect_error(RuntimeError, match=r"^RMSprop does not support sparse gradients$"):
    optimizer.step()

# %%
# ``Adam`` and ``RMSprop`` check the gradients of a parameter group before
# they update it, and refuse: the weight is unchanged. ``AdamW`` shares ``Adam``'s code and
# its message, which names ``Adam``. ``SGD`` accepts sparse gradients,
# but weight decay makes it fail inside the update: it adds the decay term to
# the gradient, ``grad.add(param, alpha=weight_decay)``, a sparse tensor
# plus a dense one, which PyTorch does not compute in that order.
layer, optimizer, start = prepared(torch.optim.SGD, weight_decay=1e-4)
with expect_error(
    RuntimeError, match=r"^add\(sparse, dense\) is not supported\. Use add\(dense, sparse\) instead\.$"
):
    optimizer.step()
check(torch.equal(layer.weight, start), True, label="SGD(weight_decay=1e-4): weight unchanged")

# %%
# The message names an operation that the training code never called, and
# its advice cannot be followed from outside ``SGD``. The weight is still
# unchanged: the failing addition comes before the update.
#
# What works
# ----------
# ``SGD`` without weight decay adds the sparse gradient into the weight. At
# the first step, with or without momentum, only the looked-up rows move
# (later steps differ with momentum, see below).
for momentum in (0.0, 0.9):
    layer, optimizer, start = prepared(torch.optim.SGD, momentum=momentum)
    optimizer.step()
    moved = [not torch.equal(layer.weight[row], start[row]) for row in range(6)]
    check(moved, [False, True, False, False, True, False], label=f"rows moved, momentum={momentum}")
layer, optimizer, start = prepared(torch.optim.SparseAdam)
optimizer.step()
moved = [not torch.equal(layer.weight[row], start[row]) for row in range(6)]
check(moved, [False, True, False, False, True, False], label="rows moved by SparseAdam")

# %%
# ``SparseAdam`` works the other way round: it refuses dense gradients. A
# model whose other layers have dense gradients needs two optimizers, one
# per kind of gradient. Given the whole model, ``SparseAdam`` fails at the
# first dense gradient it meets:
torch.manual_seed(0)
model = nn.Sequential(nn.Embedding(6, 3, sparse=True), nn.Linear(3, 1)).to(device)
model(tokens).sum().backward()
with expect_error(
    RuntimeError, match=r"^SparseAdam does not support dense gradients, please consider Adam instead$"
):
    torch.optim.SparseAdam(model.parameters(), lr=0.1).step()
sparse_optimizer = torch.optim.SparseAdam(model[0].parameters(), lr=0.1)
dense_optimizer = torch.optim.Adam(model[1].parameters(), lr=0.1)
start = [p.detach().clone() for p in model.parameters()]
sparse_optimizer.step()
dense_optimizer.step()
moved = [not torch.equal(p, s) for p, s in zip(model.parameters(), start, strict=True)]
check(moved, [True, True, True], label="moved: embedding, linear weight, linear bias")
with expect_error(TypeError, match=r"unexpected keyword argument 'weight_decay'"):
    torch.optim.SparseAdam(model[0].parameters(), lr=0.1, weight_decay=1e-4)

# %%
# ``SparseAdam`` takes no ``weight_decay`` at all. With ``sparse=False``
# (the default), the gradient is a dense tensor with rows of zeros, every
# optimizer accepts it, and weight decay works, at the cost of a gradient
# as large as the weight. PyTorch's documentation of ``nn.Embedding`` lists
# ``SGD``, ``SparseAdam`` and, on the CPU, ``Adagrad`` as the optimizers
# that support sparse gradients. ``Adagrad`` does, but not with weight decay:
layer, optimizer, start = prepared(torch.optim.Adagrad, weight_decay=1e-4)
with expect_error(RuntimeError, match=r"^weight_decay option is not compatible with sparse gradients$"):
    optimizer.step()
check(torch.equal(layer.weight, start), True, label="Adagrad(weight_decay=1e-4): weight unchanged")

# %%
# ``Adagrad`` checks for the sparse gradient before it adds the decay term,
# and says so in its own words; ``SGD`` fails later, in the addition. In
# both cases the weight is unchanged. Weight decay on a sparse embedding
# needs ``sparse=False``.
#
# ``SparseAdam`` is not ``Adam`` on fewer rows
# --------------------------------------------
# Six steps: the first batch looks up rows 1 and 2, the next five only
# row 1. ``Adam`` on a dense gradient and ``SparseAdam`` on
# a sparse one, from the same start:
moves = {}
for sparse, make in ((False, torch.optim.Adam), (True, torch.optim.SparseAdam)):
    torch.manual_seed(0)
    layer = nn.Embedding(6, 3, sparse=sparse).to(device)
    optimizer = make(layer.parameters(), lr=0.1)
    start = layer.weight[2, 0].item()
    moves[make.__name__] = [0.0]  # how far weight[2, 0] has moved, after each step
    for step in range(6):
        optimizer.zero_grad()
        batch = torch.tensor([1, 2] if step == 0 else [1], device=device)
        layer(batch).sum().backward()
        optimizer.step()
        moves[make.__name__].append(round(layer.weight[2, 0].item() - start, 4))
check(
    [moves["Adam"][1], moves["SparseAdam"][1]], [-0.1, -0.1], label="row 2 after step 1, Adam and SparseAdam"
)
check(moves["SparseAdam"][2:], [-0.1] * 5, label="row 2, SparseAdam, steps 2-6")
check(
    moves["Adam"][2:],
    [-0.167, -0.2188, -0.2612, -0.2971, -0.328],
    label="row 2, Adam, steps 2-6",
    atol=2e-4,
    rtol=0,
)
draw_series(
    {"weight[2, 0], Adam": moves["Adam"], "weight[2, 0], SparseAdam": moves["SparseAdam"]},
    x=range(7),
    xlabel="optimizer.step()",
    ylabel="weight[2, 0] - start",
    steps=True,
)
plt.show()

# %%
# How far row 2 has moved after each step. Both lines drop by 0.1 at step
# 1, the one batch that looked up row 2. The ``SparseAdam`` line then stays
# at -0.1; the ``Adam`` line keeps falling, by a little less at each step,
# to -0.328 after step 6. ``Adam`` received zeros for row 2, and its
# moment estimates, still non-zero from step 1, moved the row on.
# ``SparseAdam`` updates the moments and the weight only at the rows
# present in the gradient; row 2 was absent, so it stays put.
# PyTorch's documentation of ``SparseAdam`` calls it a masked
# approximation of Adam for this reason.
#
# ``SGD`` with momentum moves absent rows too
# -------------------------------------------
# The same six steps, with ``SGD`` without and with momentum. Row 2 is
# looked up at step 1 only:
for momentum, expected in (
    (0.0, [-0.1] * 6),
    (0.9, [-0.1, -0.19, -0.271, -0.3439, -0.4095, -0.4686]),
):
    torch.manual_seed(0)
    layer = nn.Embedding(6, 3, sparse=True).to(device)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1, momentum=momentum)
    start = layer.weight[2, 0].item()
    moved = []
    for step in range(6):
        optimizer.zero_grad()
        batch = torch.tensor([1, 2] if step == 0 else [1], device=device)
        layer(batch).sum().backward()
        optimizer.step()
        moved.append(round(layer.weight[2, 0].item() - start, 4))
    check(moved, expected, label=f"row 2, momentum={momentum}, steps 1-6", atol=2e-4, rtol=0)
buffer = optimizer.state[layer.weight]["momentum_buffer"]
check(buffer.layout, torch.sparse_coo, label="momentum_buffer.layout")
check(buffer.coalesce().indices().tolist(), [[1, 2]], label="momentum_buffer rows")
check(buffer.coalesce().values()[1, 0], 0.5905, label="momentum_buffer, row 2", atol=1e-4, rtol=0)

# %%
# Without momentum, row 2 moves once, at step 1, like ``SparseAdam``. With
# momentum, it keeps moving at every step: its entry in the momentum
# buffer, itself a sparse tensor, shrinks by 0.9 at each step (1 at step
# 1, :math:`0.9^5 \approx 0.5905` at step 6) but stays.
# The buffer holds every row ever looked up, not the rows of the batch.
# With 1000 rows and 50 batches of 8 random rows, that set grows:
torch.manual_seed(0)
batches = [torch.randint(0, 1000, (8,)).to(device) for _ in range(50)]
rows_moved = {}
for momentum in (0.0, 0.9):
    torch.manual_seed(0)
    layer = nn.Embedding(1000, 3, sparse=True).to(device)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1, momentum=momentum)
    rows_moved[momentum] = []  # how many rows each step changed
    for batch in batches:
        before = layer.weight.detach().clone()
        optimizer.zero_grad()
        layer(batch).sum().backward()
        optimizer.step()
        rows_moved[momentum].append((layer.weight != before).any(dim=1).sum().item())
seen = {row for batch in batches for row in batch.tolist()}
check(len(seen), 328, label="rows looked up by the 50 batches")
check(max(rows_moved[0.0]), 8, label="most rows moved by one step, momentum=0.0")
check(rows_moved[0.0][-1], 8, label="rows moved by step 50, momentum=0.0")
check(rows_moved[0.9][-1], 328, label="rows moved by step 50, momentum=0.9")
buffer = optimizer.state[layer.weight]["momentum_buffer"]
check(buffer.coalesce()._nnz(), 328, label="rows in momentum_buffer")
ENTRIES = {"cpu": 388, "cuda": 400}  # as recorded: this page's CPU runner, and CUDA on an H200
if device.type in ENTRIES:
    check(buffer._nnz(), ENTRIES[device.type], label="momentum_buffer._nnz()")
else:
    print(f"momentum_buffer._nnz() on {device.type}: {buffer._nnz()}")
draw_series(
    {"SGD(momentum=0.0)": rows_moved[0.0], "SGD(momentum=0.9)": rows_moved[0.9]},
    x=range(1, 51),
    xlabel="optimizer.step()",
    ylabel="rows changed by the step",
)
plt.show()

# %%
# How many of the 1000 rows each step changed. Without momentum the line
# stays at 8 or just below: the distinct rows of the batch, never more.
# With momentum it climbs to 328 at step 50: every row that any batch
# looked up still moves. The buffer is not coalesced: it holds those 328
# rows in 388 entries on the CPU runner, whose sparse addition merges some
# repeated rows as it adds; in the CUDA record (PyTorch 2.11.0, an H200) it
# held 400, one per lookup (50 times 8): CUDA's appends. Its size, and the work of each
# step, follow the rows seen so far, not the batch: a long run can end with
# most of the vocabulary in it.
#
# Clipping a sparse gradient
# --------------------------
# ``torch.nn.utils.clip_grad_norm_`` measures each gradient with
# ``torch.linalg.vector_norm``, which has no sparse version. Its message
# goes on to list every backend and files of PyTorch's build, so only its
# first sentence is shown:


def first_sentence(call):
    """Run ``call``; return the type and first sentence of what it raised."""
    try:
        call()
    except Exception as error:
        return f"{type(error).__name__}: {str(error).split('. ')[0]}"
    return "no error"


layer, optimizer, start = prepared(torch.optim.SGD)
check(
    first_sentence(lambda: nn.utils.clip_grad_norm_(layer.parameters(), max_norm=1.0)),
    "NotImplementedError: Could not run 'aten::linalg_vector_norm' with arguments"
    f" from the 'Sparse{device.type.upper()}' backend",
    label="clip_grad_norm_",
)

# %%
# The norm can be taken by hand, on the stored values, once the tensor is
# coalesced: the raw entries count row 1 twice, as two rows of ones. Then
# the gradient is scaled as ``clip_grad_norm_`` would scale it, and
# compared with ``clip_grad_norm_`` on the same embedding with a dense
# gradient:
check(layer.weight.grad._values().norm(), 3.0, label="norm of the raw entries")
grad = layer.weight.grad.coalesce()
total = grad.values().norm()
check(total, 3.873, label="norm of the coalesced values", atol=1e-3, rtol=0)
layer.weight.grad = grad * (1.0 / (total + 1e-6)).clamp(max=1.0)

torch.manual_seed(0)
dense = nn.Embedding(6, 3).to(device)
dense(tokens).sum().backward()
check(
    nn.utils.clip_grad_norm_(dense.parameters(), max_norm=1.0),
    3.873,
    label="clip_grad_norm_, dense: total norm",
    atol=1e-3,
    rtol=0,
)
check(layer.weight.grad.to_dense(), dense.weight.grad.tolist(), label="clipped by hand, made dense")
optimizer.step()
moved = [not torch.equal(layer.weight[row], start[row]) for row in range(6)]
check(moved, [False, True, False, False, True, False], label="rows moved by SGD after clipping")

# %%
# The dense gradient has a norm of :math:`\sqrt{15} \approx 3.873` (row 1
# holds 2, row 4 holds 1, in three columns), and the coalesced values give
# the same. Scaled by hand, the sparse gradient matches the clipped dense
# one, and ``SGD`` steps with it. The recorded 2.14.1 and 2.15.0 clip a
# sparse gradient themselves (see the table at the end of the page).
#
# In the CUDA record (PyTorch 2.11.0, an H200) every check above held,
# with ``device='cuda:0'`` and ``SparseCUDA`` in the clipping message, and
# ``momentum_buffer._nnz()`` was 400 there (see above).
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the layouts, the entries and the messages are checked on the runner that
# built this page, and PyTorch's documentation of ``nn.Embedding`` and
# ``torch.optim.SparseAdam`` describes the behaviour.
