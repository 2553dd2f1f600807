"""
.. _sharded_gradients:

Sharded gradients
=================

Under fully sharded data parallelism (FSDP) each process keeps only a
shard of every parameter and of its gradient. This example checks what
``.grad`` holds with ``fully_shard`` (a ``DTensor`` with its placements)
and with ``FullyShardedDataParallel`` (a flat shard), what a plain tensor
with more than one element mixed with such a gradient raises, and the
clipping trap: the norm of the local shards is not the norm of the
gradient, so clipping must combine the norms across processes. One
process runs here; what two processes would hold is computed by
sharding the gradients by hand.

.. questions::

   - Why is ``.grad`` a DTensor after ``fully_shard``?
   - How do I clip gradients correctly with FSDP?
   - Why does adding a plain tensor to an FSDP gradient say ``got mixed torch.Tensor and DTensor``?
   - How do I get the full gradient of a sharded parameter?
"""

# %%
# ``fully_shard``: the gradient is a ``DTensor``
# ----------------------------------------------
# A process group of one process (``gloo``, started through a file in a
# temporary folder) and a one-dimensional device mesh over it are enough for
# ``torch.distributed.fsdp.fully_shard``. ``reference`` is an unsharded
# copy of the same model, made before sharding, and both run the same
# batch.
import copy
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FSDPModule, FullyShardedDataParallel, fully_shard
from torch.distributed.tensor import DTensor, Shard, distribute_tensor

from autograd_notes import check, draw_matrix, expect_error, expect_warning, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
if device.type != "cpu":  # sharding over GPUs needs nccl and a process per GPU: see the end of the page
    device = torch.device("cpu")

folder = tempfile.TemporaryDirectory()
dist.init_process_group("gloo", rank=0, world_size=1, init_method=Path(folder.name, "init").as_uri())
mesh = init_device_mesh(device.type, (1,))

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2))
reference = copy.deepcopy(model)
fully_shard(model, mesh=mesh)
inputs = torch.randn(5, 4)
model(inputs).sum().backward()
reference(inputs).sum().backward()

grad = model[0].weight.grad
check(type(model).__name__, "FSDPSequential", label="type(model).__name__")
check(isinstance(model, FSDPModule), True, label="isinstance(model, FSDPModule)")
check(isinstance(model[0].weight, DTensor), True, label="model[0].weight is a DTensor")
check(isinstance(grad, DTensor), True, label="model[0].weight.grad is a DTensor")
check(grad.placements, (Shard(dim=0),), label="grad.placements")
check(list(grad.shape), [3, 4], label="grad.shape (the whole gradient's)")
check(list(grad.to_local().shape), [3, 4], label="grad.to_local().shape (this process's shard)")
check(grad.full_tensor(), reference[0].weight.grad, label="grad.full_tensor() vs the unsharded model's")

# %%
# ``fully_shard`` changed the model's class to a subclass of both
# ``nn.Sequential`` and ``FSDPModule`` (which adds FSDP's methods, such as
# ``unshard()``), registered its hooks on the model, and replaced every
# parameter with a ``DTensor``: a tensor that knows its device mesh and its
# *placement* on it. ``Shard(dim=0)`` says that the rows are split across
# the processes of the mesh.
# ``grad.shape`` is the shape of the whole gradient; ``grad.to_local()`` is
# what this process stores. With one process the shard is the whole
# tensor, which is why the two shapes agree here, and ``full_tensor()``
# (which gathers the shards from every process) equals the unsharded
# model's gradient.
#
# Operations on ``DTensor`` gradients work as on tensors. A plain tensor
# with more than one element mixed in (noise added by hand, a mask) is
# refused, because nothing says which part of it belongs to this process; a
# 0-dim tensor, such as a clipping factor, is replicated implicitly (a
# one-element 1-D one too, with a warning). ``distribute_tensor`` places
# the larger ones first:
factor = torch.tensor(0.5)
scaled = grad * factor
check(isinstance(scaled, DTensor), True, label="grad * a 0-dim tensor is a DTensor")
check(scaled.full_tensor(), reference[0].weight.grad * 0.5, label="(grad * factor).full_tensor()")
with expect_warning(
    UserWarning,
    match=r"^Found a non-scalar tensor with numel=1 and ndim!=0, "
    r"we are implicitly creating a replicated DTensor for it\.",
):
    scaled = grad * torch.tensor([0.5])
check(isinstance(scaled, DTensor), True, label="grad * a one-element 1-D tensor is a DTensor")
noise = torch.full((3, 4), 0.5)
with expect_error(
    RuntimeError,
    match=r"^aten\.add\.Tensor got mixed torch\.Tensor and DTensor, "
    r"need to convert all torch\.Tensor to DTensor before calling distributed operators!$",
):
    grad + noise
placed = distribute_tensor(noise, mesh, grad.placements)
check((grad + placed).full_tensor(), reference[0].weight.grad + 0.5, label="(grad + placed).full_tensor()")

# %%
# What two processes would hold
# -----------------------------
# ``fully_shard`` shards each parameter on its first dimension, and a
# ``Shard(0)`` placement splits a tensor as ``torch.chunk(t, n, dim=0)``
# does (both from PyTorch's documentation of ``fully_shard`` and of
# ``Shard``; a single process cannot show it). With two processes, the
# ranks would hold these pieces of each gradient:
world_size = 2
gradients = {name: p.grad for name, p in reference.named_parameters()}
shards = [
    {name: g.chunk(world_size, dim=0)[rank] for name, g in gradients.items()} for rank in range(world_size)
]
check(
    [{name: list(s.shape) for name, s in shards[rank].items()} for rank in range(world_size)],
    [
        {"0.weight": [2, 4], "0.bias": [2], "1.weight": [1, 3], "1.bias": [1]},
        {"0.weight": [1, 4], "0.bias": [1], "1.weight": [1, 3], "1.bias": [1]},
    ],
    label="shard shapes on rank 0 and rank 1",
)

# %%
# Rank 0 would hold the first two rows of ``0.weight`` and rank 1 the
# third: ``torch.chunk`` gives the first pieces the larger share when the
# size does not divide evenly. Each rank's ``.grad`` would then be a
# ``DTensor`` of shape ``[3, 4]`` whose ``to_local()`` has only its rows.
#
# The clipping trap
# -----------------
# ``clip_grad_norm_`` scales every gradient by ``max_norm / total``, where
# ``total`` is the norm of all gradients put end to end
# (:ref:`gradient_clipping`). A rank that computes a norm from its local
# shards alone gets a smaller number, and a different one on each rank:
max_norm = 1.0
total = torch.linalg.vector_norm(torch.cat([g.flatten() for g in gradients.values()]))
local_norms = torch.stack(
    [
        torch.linalg.vector_norm(torch.cat([s.flatten() for s in shards[rank].values()]))
        for rank in range(world_size)
    ]
)
check(total, 10.991, label="total (the whole gradient)", rtol=1e-4, atol=0.0)
check(local_norms, [7.4504, 8.0805], label="local_norms (rank 0, rank 1)", rtol=1e-4, atol=0.0)
check(torch.linalg.vector_norm(local_norms), total, label="norm of local_norms vs total")

factors = torch.stack([max_norm / local_norms, (max_norm / total).expand(world_size)], dim=1)
figure = draw_matrix(
    torch.cat([torch.stack([local_norms, total.expand(world_size)], dim=1), factors], dim=1),
    rows=["rank 0", "rank 1"],
    columns=["local_norms", "total", "max_norm / local_norms", "max_norm / total"],
    title="max_norm = 1.0, world_size = 2",
)
figure.set_size_inches(figure.get_figwidth() + 3.5, figure.get_figheight())  # room for the columns' labels
plt.show()

# %%
# One row per rank of a two-process run, four columns: the rank's local
# norm (7.45 on rank 0, 8.08 on rank 1), the global norm ``total`` (10.99
# on both, drawn rounded to 11), and the clipping factor each norm gives (0.134 and 0.124 from
# the local norms, 0.091 on both ranks from the global one). The global
# norm is the norm of the local norms, :math:`\sqrt{7.45^2 + 8.08^2}`:
# that is what a correct clip must compute, with one all-reduce of the
# squared local norms.
#
# Clipped with its local norm, each rank would bring its own part to norm
# 1, so the two parts together have norm :math:`\sqrt{2}`, 41 % more than
# ``max_norm``; and since the two factors differ, the direction of ``g``
# changes too:
clipped_locally = torch.cat(
    [torch.cat([s.flatten() for s in shards[rank].values()]) * factors[rank, 0] for rank in range(world_size)]
)
g = torch.cat([torch.cat([s.flatten() for s in shards[rank].values()]) for rank in range(world_size)])
check(
    torch.linalg.vector_norm(clipped_locally),
    2**0.5,
    label="norm after clipping by local norms",
    rtol=1e-4,
    atol=0.0,
)
check(factors[:, 0], [0.1342, 0.1238], label="max_norm / local_norms", rtol=1e-3, atol=0.0)
check(
    nn.functional.cosine_similarity(g, clipped_locally, dim=0),
    0.9992,
    label="cosine with g",
    rtol=1e-4,
    atol=0.0,
)

# %%
# Here the turn is small (cosine 0.9992), because the two local norms are
# close; the more unequal the shards' norms, the larger it gets. The norm
# goes wrong the same way on more processes: when every rank's local norm
# exceeds ``max_norm``, each rank brings its part to ``max_norm``, and with
# :math:`n` processes the clipped gradient has norm :math:`\sqrt{n}` times
# ``max_norm``, so the same training script clips differently on 8 and on
# 64 GPUs.
#
# ``torch.nn.utils.clip_grad_norm_`` on ``DTensor`` gradients
# -----------------------------------------------------------
# With ``fully_shard`` the gradients stay ``DTensor`` objects, and the norm
# of a sharded ``DTensor`` is itself a ``DTensor`` whose placement says
# that it is *partial*: each rank's value is its local norm, and the ranks'
# values must still be combined. The trap is in code that leaves
# ``DTensor`` first: a norm computed from ``p.grad.to_local()``, or a
# hand-written clip over local tensors, sees one rank's shards.
# ``torch.nn.utils.get_total_norm`` over the local tensors returns a plain
# tensor, the whole norm here only because the one shard is the whole
# gradient; with two processes it would return ``local_norms[rank]``:
partial = torch.linalg.vector_norm(grad)
check(partial.placements[0].is_partial(), True, label="vector_norm(grad).placements[0].is_partial()")
local_only = nn.utils.get_total_norm([p.grad.to_local() for p in model.parameters()])
check(isinstance(local_only, DTensor), False, label="get_total_norm(to_local() grads) is a DTensor")
check(local_only, total, label="get_total_norm of the local grads (one process)")

# %%
# ``torch.nn.utils.clip_grad_norm_`` given the parameters themselves keeps
# the ``DTensor`` gradients: it combines the partial norms (on several
# processes, that is the all-reduce) before it computes the factor, scales
# every shard by the same factor, and returns the global norm as a
# ``DTensor`` replicated on every rank:
returned = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
check(isinstance(returned, DTensor), True, label="clip_grad_norm_ returns a DTensor")
check(returned.placements[0].is_replicate(), True, label="returned.placements[0].is_replicate()")
check(returned.full_tensor(), total, label="returned.full_tensor() vs total")
check(
    model[0].weight.grad.full_tensor(),
    reference[0].weight.grad * max_norm / (total + 1e-6),
    label="model[0].weight.grad after clipping",
)

# %%
# ``FullyShardedDataParallel``: a flat shard and the root's ``clip_grad_norm_``
# -----------------------------------------------------------------------------
# The older wrapper, ``FullyShardedDataParallel`` (FSDP1), flattens the
# parameters of each wrapped module into one 1-D ``FlatParameter``, and
# each rank holds a contiguous piece of it (with the default
# ``use_orig_params=False``; with ``True`` the original names stay, each
# holding its 1-D piece of the shard). With one process it does not shard
# at all, and says so:
torch.manual_seed(0)
flat = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2))
with expect_warning(
    UserWarning,
    match=r"^FSDP is switching to use `NO_SHARD` instead of ShardingStrategy\.FULL_SHARD "
    r"since the world size is 1\.$",
):
    flat[0] = FullyShardedDataParallel(flat[0], device_id=device)
    flat = FullyShardedDataParallel(flat, device_id=device)
flat(inputs).sum().backward()
check(
    {name.replace("_fsdp_wrapped_module.", ""): list(p.grad.shape) for name, p in flat.named_parameters()},
    {"_flat_param": [8], "0._flat_param": [15]},
    label="the flat parameters' .grad shapes",
)

# %%
# The root's flat parameter holds what ``flat[0]`` does not own, the second
# layer (:math:`3 \cdot 2 + 2 = 8` numbers); the inner one holds the first
# layer (:math:`4 \cdot 3 + 3 = 15`). With a sharded strategy and two
# processes each rank would hold half of each flat gradient, the last
# rank's half padded with zeros to the same size (4 and 4 of the 8; 8, and
# 7 plus one zero, of the 15), and
# ``torch.nn.utils.clip_grad_norm_(flat.parameters(), ...)`` would see only
# those halves. The method ``clip_grad_norm_`` of the *root* module is the
# one that sums the local norms' powers across ranks; an inner FSDP module
# refuses:
with expect_error(
    RuntimeError, match=r"^`clip_grad_norm_\(\)` should only be called on the root FSDP instance$"
):
    flat.module[0].clip_grad_norm_(max_norm)
check(flat.clip_grad_norm_(max_norm), total, label="flat.clip_grad_norm_(max_norm) vs total")
dist.destroy_process_group()
folder.cleanup()

# %%
# The root's method returned the global norm, 10.99. With one process
# FSDP1 switched to ``NO_SHARD``, and in that case the method calls
# ``torch.nn.utils.clip_grad_norm_`` itself; with a sharded strategy it
# raises each local norm to the power ``norm_type``, all-reduces the sum,
# and takes the root of that order (PyTorch's source of ``FullyShardedDataParallel.clip_grad_norm_``).
# It must be called on every rank, since it communicates.
#
# On a GPU runner this page still runs on the CPU, with its mesh over
# ``gloo``, and is expected to print the same values (no GPU run is recorded
# yet): sharding over GPUs uses a ``"cuda"`` mesh and the ``nccl`` backend,
# with one process per GPU, which this one-process page does not start.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the placements, the shapes, the norms, the warning and the errors are
# checked on the runner that built this page, and how two processes would
# split the gradients follows PyTorch's documentation of ``fully_shard``,
# ``Shard`` and ``FullyShardedDataParallel.clip_grad_norm_``.
# :ref:`gradient_clipping` covers clipping on one process, and
# :ref:`micro_batches` the all-reduce of ``DistributedDataParallel``.
