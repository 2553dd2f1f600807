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
gradient, so clipping must combine the norms across processes. The
first section runs one process; the others run two real processes on
this machine and compare what each holds with one process computing the
whole gradient.

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

from autograd_notes import check, draw_matrix, expect_error, expect_warning, run_ranks, runner_device

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
print(f"grad.shape: {list(grad.shape)}, grad.to_local().shape: {list(grad.to_local().shape)}")
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
# tensor, so the two shapes agree, and ``full_tensor()`` (which gathers
# the shards from every process) equals the unsharded model's gradient.
#
# Operations on ``DTensor`` gradients work as on tensors. A plain tensor
# with more than one element mixed in (noise added by hand, a mask) is
# refused: nothing says which part of it belongs to this process. A 0-dim
# tensor, such as a clipping factor, is replicated implicitly; a one-element
# 1-D one too, with a warning that PyTorch 2.10 and later print twice: from
# the ``DTensor`` dispatcher's Python code, then from its C++ code, naming this line.
# ``distribute_tensor`` places the larger ones first:
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

dist.destroy_process_group()
folder.cleanup()

# %%
# Two processes
# -------------
# ``sharded_step`` is what each process of a two-process run does: the same
# model from the same seed, the same batch, ``fully_shard`` over a mesh of
# both processes, one backward pass, then a norm and a clip.
# ``run_ranks``, a helper of this site, starts two Python processes on this
# machine, joins them in one ``gloo`` process group, calls the function in
# each with its *rank* (0 or 1) and returns what each returned. Both
# ranks run the same batch, so the gradient they share out is
# ``reference``'s, and each rank's shard can be compared with its rows:
max_norm = 1.0


def sharded_step(rank, world_size):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2))
    inputs = torch.randn(5, 4)
    fully_shard(model, mesh=init_device_mesh("cpu", (world_size,)))
    model(inputs).sum().backward()
    shards = [p.grad.to_local() for p in model.parameters()]
    local_norm = nn.utils.get_total_norm(shards)  # this rank's shards only: the trap
    weight_norm = torch.linalg.vector_norm(model[0].weight.grad)
    result = {
        "whole_shape": list(model[0].weight.grad.shape),
        "shapes": {name: list(p.grad.to_local().shape) for name, p in model.named_parameters()},
        "weight_shard": model[0].weight.grad.to_local().clone(),
        "local_norm": local_norm,
        "weight_norm_is_partial": weight_norm.placements[0].is_partial(),
        "local": torch.cat([s.flatten() for s in shards]),
    }
    total = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    result["total_type"] = type(total).__name__
    result["total_is_replicated"] = total.placements[0].is_replicate()
    result["total"] = total.full_tensor()
    result["clipped_weight"] = model[0].weight.grad.full_tensor()
    return result


ranks = run_ranks(sharded_step, world_size=2)
check(
    [rank["shapes"] for rank in ranks],
    [
        {"0.weight": [2, 4], "0.bias": [2], "1.weight": [1, 3], "1.bias": [1]},
        {"0.weight": [1, 4], "0.bias": [1], "1.weight": [1, 3], "1.bias": [1]},
    ],
    label="shard shapes on rank 0 and rank 1",
)
check(
    [rank["whole_shape"] for rank in ranks],
    [[3, 4], [3, 4]],
    label="0.weight.grad.shape on rank 0 and rank 1",
)
weight_grad = reference[0].weight.grad
check(ranks[0]["weight_shard"], weight_grad[:2], label="rank 0's shard of 0.weight's gradient")
check(ranks[1]["weight_shard"], weight_grad[2:], label="rank 1's shard of 0.weight's gradient")

# %%
# Each parameter is cut on its first dimension as ``torch.chunk(t, 2,
# dim=0)`` cuts it: the first piece gets the larger share when the size
# does not divide evenly, so rank 0 holds the first two rows of
# ``0.weight``'s gradient and rank 1 the third. Each rank's ``.grad`` is
# a ``DTensor`` of the whole shape, ``[3, 4]``, whose ``to_local()`` has
# only its rows.
#
# The clipping trap
# -----------------
# ``clip_grad_norm_`` scales every gradient by ``min(1, max_norm / total)``, where
# ``total`` is the norm of all gradients put end to end
# (:ref:`gradient_clipping`). A rank that computes a norm from its local
# shards alone, here with ``get_total_norm`` over the ``to_local()``
# tensors, gets a smaller number, and a different one on each rank:
total = torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in reference.parameters()]))
local_norms = torch.stack([rank["local_norm"] for rank in ranks])
check(total, 10.991, label="total (the whole gradient, one process)", rtol=1e-4, atol=0.0)
check(local_norms, [7.4504, 8.0805], label="local_norms (rank 0, rank 1)", rtol=1e-4, atol=0.0)

factors = torch.stack([max_norm / local_norms, (max_norm / total).expand(2)], dim=1)
print("max_norm / local_norms, max_norm / total:", [[round(x, 4) for x in row] for row in factors.tolist()])
figure = draw_matrix(
    torch.cat([torch.stack([local_norms, total.expand(2)], dim=1), factors], dim=1),
    rows=["rank 0", "rank 1"],
    columns=["local_norms", "total", "max_norm / local_norms", "max_norm / total"],
    title="max_norm = 1.0, world_size = 2",
)
figure.set_size_inches(figure.get_figwidth() + 3.5, figure.get_figheight())  # room for the columns' labels
plt.show()

# %%
# One row per rank of the two-process run, four columns: the rank's local
# norm (7.45 on rank 0, 8.08 on rank 1), the global norm ``total`` (10.99
# on both, drawn rounded to 11), and the clipping factor each norm gives
# (0.134 and 0.124 from the local norms, 0.091 on both ranks from the
# global one). The global norm is the norm of the local norms,
# :math:`\sqrt{7.45^2 + 8.08^2}`: that is what a correct clip must compute,
# with one all-reduce of the squared local norms.
#
# A clip by the local norm brings each rank's part to norm 1. Done below
# to the shards the ranks returned, the two parts together have norm
# :math:`\sqrt{2}`, 41 % more than ``max_norm``, and since the two factors
# differ, the direction of the gradient changes too:
local = torch.cat([rank["local"] for rank in ranks])  # the two ranks' shards, end to end
clipped_locally = torch.cat([rank["local"] * max_norm / rank["local_norm"] for rank in ranks])
check(torch.linalg.vector_norm(local), total, label="norm of both ranks' shards vs total")
# arithmetic on the values above, printed, not checked: each part now has norm 1
print("norm after clipping by local norms:", round(torch.linalg.vector_norm(clipped_locally).item(), 4))
print(
    "cosine with the gradient:",
    round(nn.functional.cosine_similarity(local, clipped_locally, dim=0).item(), 4),
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
# The trap is in code that leaves ``DTensor`` first: a norm computed from
# ``p.grad.to_local()``, as above, or a hand-written clip over local
# tensors, sees one rank's shards. On the ``DTensor`` gradients themselves
# the norm is a ``DTensor`` whose placement is *partial*: each rank's value
# is its local norm, still to be combined. ``clip_grad_norm_``, given the
# parameters, combines them (the all-reduce) before it computes the
# factor, scales every shard by the same factor, and returns the global
# norm as a ``DTensor`` replicated on every rank. What it returned on each
# rank, and the first layer's clipped gradient, gathered whole with
# ``full_tensor()``:
check([rank["weight_norm_is_partial"] for rank in ranks], [True, True], label="vector_norm(grad) is partial")
check(
    [rank["total_type"] for rank in ranks],
    ["DTensor", "DTensor"],
    label="type of what clip_grad_norm_ returns",
)
check(
    [rank["total_is_replicated"] for rank in ranks],
    [True, True],
    label="returned.placements[0].is_replicate()",
)
check(
    torch.stack([rank["total"] for rank in ranks]),
    total.expand(2),
    label="returned.full_tensor() on each rank",
)
for rank in ranks:
    check(
        rank["clipped_weight"],
        weight_grad * max_norm / (total + 1e-6),
        label="0.weight's gradient after clipping",
    )

# %%
# Both ranks returned 10.99, the norm of the whole gradient, and scaled
# their shards by the same factor, so the gradient gathered after clipping
# is ``reference``'s times ``max_norm / (total + 1e-6)``: the clip adds a
# small constant to the norm it divides by.
#
# Only the submodules sharded
# ---------------------------
# ``fully_shard`` is usually applied to each block, then to the root
# module, which takes the parameters that no block owns. Forgetting the root leaves those parameters plain
# tensors, never reduced across the ranks (each keeps its own gradient: with a per-tensor optimizer, the
# CPU's default, the ranks drift apart silently once their batches differ; a foreach ``step()``, the GPU's
# default, raises the mixed-type error, from the source), while the blocks' are ``DTensor`` objects, and
# ``clip_grad_norm_`` cannot compute one norm over both. ``Scaled`` has a parameter of its own,
# ``scale``:


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 3)
        self.scale = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return self.body(x) * self.scale


def clip_submodules_only(rank, world_size):
    torch.manual_seed(0)
    model = Scaled()
    fully_shard(model.body, mesh=init_device_mesh("cpu", (world_size,)))
    model(torch.randn(5, 4)).sum().backward()
    return nn.utils.clip_grad_norm_(model.parameters(), max_norm)


def clip_with_root(rank, world_size):
    torch.manual_seed(0)
    model = Scaled()
    mesh = init_device_mesh("cpu", (world_size,))
    fully_shard(model.body, mesh=mesh)
    fully_shard(model, mesh=mesh)
    model(torch.randn(5, 4)).sum().backward()
    return type(model.scale.grad).__name__, nn.utils.clip_grad_norm_(
        model.parameters(), max_norm
    ).full_tensor()


with expect_error(
    RuntimeError,
    match=r"^aten\._foreach_norm\.Scalar got mixed torch\.Tensor and DTensor, "
    r"need to convert all torch\.Tensor to DTensor before calling distributed operators!$",
):
    run_ranks(clip_submodules_only, world_size=2)
torch.manual_seed(0)
plain = Scaled()
plain(torch.randn(5, 4)).sum().backward()
plain_total = nn.utils.clip_grad_norm_(plain.parameters(), max_norm)
with_root = run_ranks(clip_with_root, world_size=2)
check(
    [kind for kind, _ in with_root],
    ["DTensor", "DTensor"],
    label="type(model.scale.grad) with the root sharded",
)
check(
    torch.stack([norm for _, norm in with_root]),
    plain_total.expand(2),
    label="clip_grad_norm_ with the root sharded",
)

# %%
# The error is raised on both ranks, inside ``clip_grad_norm_``: the
# traceback goes on into the lines rank 0 ran. ``_foreach_norm`` computes
# the norms of all gradients in one call, and one list cannot hold both
# kinds. With the root sharded too, ``scale``'s gradient is a ``DTensor``
# and the norm both ranks return is the one-process model's.
#
# ``FullyShardedDataParallel``: a flat shard and the root's ``clip_grad_norm_``
# -----------------------------------------------------------------------------
# The older wrapper, ``FullyShardedDataParallel`` (FSDP1), flattens the
# parameters of each wrapped module into one 1-D ``FlatParameter``, and
# each rank holds a contiguous piece of it (with the default
# ``use_orig_params=False``; with ``True`` the original names stay, each
# holding its 1-D piece of the shard). On the CPU it needs
# ``device_id=torch.device("cpu")``:


def flat_step(rank, world_size):
    cpu = torch.device("cpu")
    torch.manual_seed(0)
    flat = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2))
    inputs = torch.randn(5, 4)
    flat[0] = FullyShardedDataParallel(flat[0], device_id=cpu)
    flat = FullyShardedDataParallel(flat, device_id=cpu)
    flat(inputs).sum().backward()
    shapes = {
        name.replace("_fsdp_wrapped_module.", ""): list(p.grad.shape) for name, p in flat.named_parameters()
    }
    try:
        flat.module[0].clip_grad_norm_(max_norm)
        inner = "no error"
    except RuntimeError as error:
        inner = str(error)
    return shapes, inner, flat.clip_grad_norm_(max_norm)


flat_ranks = run_ranks(flat_step, world_size=2)
check(
    [shapes for shapes, _, _ in flat_ranks],
    [{"_flat_param": [4], "0._flat_param": [8]}] * 2,
    label="the flat parameters' .grad shapes on each rank",
)
check(
    [inner for _, inner, _ in flat_ranks],
    ["`clip_grad_norm_()` should only be called on the root FSDP instance"] * 2,
    label="an inner module's clip_grad_norm_ on each rank",
)
check(
    torch.stack([norm for _, _, norm in flat_ranks]), total.expand(2), label="flat.clip_grad_norm_ vs total"
)

# %%
# The root's flat parameter holds what ``flat[0]`` does not own, the second
# layer (:math:`3 \cdot 2 + 2 = 8` numbers), and each rank's gradient is
# its half, 4; the inner one holds the first layer (:math:`4 \cdot 3 + 3 =
# 15`), cut in two pieces of 8, the last rank's padded with a zero.
# ``torch.nn.utils.clip_grad_norm_(flat.parameters(), ...)`` would see only
# those halves. The method ``clip_grad_norm_`` of the *root* module is the
# one that raises each local norm to the power ``norm_type``, all-reduces
# the sum and takes the root of that order: it returned 10.99 on both
# ranks. An inner FSDP module refuses. The method must be called on every
# rank, since it communicates.
#
# On a GPU runner this page still runs on the CPU, with its processes in a ``gloo`` group: the
# CUDA record (PyTorch 2.11.0, an H200) prints the same values as the CPU record of that release.
# Sharding over GPUs uses a ``"cuda"`` mesh and the ``nccl`` backend, with one process per GPU;
# no such run is recorded.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`).
# The placements, shapes, norms, errors and clipped gradients are checked
# on the runner that built this page, in one process and then on two,
# against one process computing the whole gradient; what they mean
# follows PyTorch's documentation of ``fully_shard``, ``Shard``,
# ``clip_grad_norm_`` and ``FullyShardedDataParallel.clip_grad_norm_``.
# :ref:`gradient_clipping` covers clipping on one process, and
# :ref:`micro_batches` the all-reduce of ``DistributedDataParallel``.
