"""
.. _optimizer_never_sees:

Parameters the optimizer never sees
===================================

An optimizer holds the parameter tensors it was given when it was built,
not the model. A layer replaced or added afterwards gets gradients and
never moves, and nothing says so. This example replaces a model's last
layer after building its optimizer, watches the new weights keep their
values through the training steps, and fixes it with ``add_param_group``
or with an optimizer built after the model is final. It shows two more
calls that replace parameters (``to_empty`` and ``assign=True``), breaks a
weight tie by re-creating the embedding, shows which learning-rate
schedulers fail after ``add_param_group``, and resumes a schedule.

.. questions::

   - Why does my replaced layer never train?
   - How do I add new parameters to an existing optimizer?
   - Should I create the optimizer before or after ``model.to()``?
   - Why did loading pretrained embeddings break my weight tying?
   - Why does my LR scheduler fail after ``add_param_group``?
   - Why do I get ``param 'initial_lr' is not specified`` when I resume training?
   - What happens if I assign a new ``nn.Parameter`` to a layer while training?
"""

# %%
# A layer replaced after the optimizer
# ------------------------------------
# A two-layer model and its optimizer. Then the last layer is replaced by
# one with three outputs, as for a new task with three classes, and the
# model trains for three steps:
import matplotlib.pyplot as plt
import torch
from torch import nn

from autograd_notes import check, draw_series, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device(torch.float64)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model[2] = nn.Linear(8, 3).to(device)  # after the optimizer was built

inputs = torch.randn(16, 4).to(device)  # drawn on the CPU: the same numbers on every runner
targets = torch.randint(0, 3, (16,)).to(device)
start = {
    name: model[i].weight.detach().clone() for name, i in (("model[0].weight", 0), ("model[2].weight", 2))
}
moved = {name: [0.0] for name in start}  # how far each weight is from its start, after each step


def train(steps):
    """Take ``steps`` steps of ``optimizer`` and note how far each weight has moved."""
    for _ in range(steps):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(inputs), targets).backward()
        optimizer.step()
        for name, i in (("model[0].weight", 0), ("model[2].weight", 2)):
            moved[name].append(round((model[i].weight - start[name]).norm().item(), 4))


train(3)
check(moved["model[0].weight"][-1] > 0, True, label="model[0].weight moved")
check(torch.equal(model[2].weight, start["model[2].weight"]), True, label="model[2].weight unchanged")
check(model[2].weight.grad is None, False, label="model[2].weight.grad is None")

# %%
# No error, no warning. The new layer is in the model, takes part in the
# forward pass and receives gradients, but the optimizer does not know it:
# it still holds the four tensors of the model it was given, the old last
# layer included.
held = [p for group in optimizer.param_groups for p in group["params"]]
check(
    [str(list(p.shape)) for p in held],
    ["[8, 4]", "[8]", "[2, 8]", "[2]"],
    label="shapes held by the optimizer",
)
missing = [name for name, p in model.named_parameters() if not any(p is q for q in held)]
check(missing, ["2.weight", "2.bias"], label="model parameters the optimizer does not hold")

# %%
# The old layer's tensors get no gradient any more, and an optimizer skips
# a parameter whose ``.grad`` is ``None`` (:ref:`zero_grad_none`): they
# stay in the optimizer, with whatever state it keeps for them, and are
# never updated. The list comparison above is a check worth running after
# building an optimizer.
#
# ``optimizer.zero_grad()`` clears only the gradients the optimizer holds.
# The new layer's ``.grad`` is never cleared, and every backward pass adds
# to it: it holds the sum of the three passes so far. One more
# ``zero_grad()`` and backward pass adds a fourth:
held_grad = model[2].weight.grad.clone()
optimizer.zero_grad()
loss = nn.functional.cross_entropy(model(inputs), targets)
(fresh,) = torch.autograd.grad(loss, model[2].weight, retain_graph=True)
loss.backward()
difference = model[2].weight.grad - (held_grad + fresh)
check(difference.abs().max().item(), 0.0, label="largest |grad - (held_grad + fresh)|", atol=1e-6, rtol=0)

# %%
# Fix: ``add_param_group``
# ------------------------
# Handing the whole model again fails, since the optimizer already holds
# the first layer:
with expect_error(ValueError, match=r"^some parameters appear in more than one parameter group$"):
    optimizer.add_param_group({"params": model.parameters()})

# %%
# Given only the new layer's parameters, ``add_param_group`` adds them with
# the optimizer's defaults (``lr=0.1`` here). ``model.zero_grad()`` clears
# every gradient in the model, the new layer's included, so that its first
# update does not use gradients summed over earlier steps.
optimizer.add_param_group({"params": model[2].parameters()})
model.zero_grad()
train(3)
check(moved["model[2].weight"][:4], [0.0, 0.0, 0.0, 0.0], label="model[2].weight moved, steps 0-3")
check(all(m > 0 for m in moved["model[2].weight"][4:]), True, label="model[2].weight moves, steps 4-6")
draw_series(moved, x=range(7), xlabel="optimizer.step()", ylabel="|weight - start|")
plt.show()

# %%
# How far each weight is from where it started, after each step: the
# norm of the difference. ``model[0].weight``, held by the optimizer from
# the start, moves away at every step. ``model[2].weight`` stays at 0
# through steps 1 to 3, then moves at steps 4 to 6, after
# ``add_param_group``.
#
# The simpler fix is to create the optimizer after the model is final,
# after every replacement or addition of a module. Moving the model with
# ``model.to()`` after building the optimizer keeps the references valid:
# by default ``to()`` keeps each parameter object and changes its data.
first = model[0].weight
model.to(torch.float64)
check(model[0].weight is first, True, label="model[0].weight is the same object after to(float64)")
check(model[0].weight.dtype, torch.float64, label="model[0].weight.dtype")
model.to(torch.float32)

# %%
# That is safe only before the first ``step()``, though. The state
# that the optimizer has already created (Adam's moments, SGD's
# momentum buffers) stays on the old device and with the old dtype.
# After a move to another device the next step fails (this page runs
# no such move). After a change of dtype, Adam's next step fails, as
# here, while SGD's goes on with a momentum buffer of the old dtype.
# Move the model first, or create the optimizer after moving it.


def step_then_double(make_optimizer):
    """One step in float32, then ``to(torch.float64)`` and a backward pass."""
    layer = nn.Linear(4, 2).to(device)
    layer_optimizer = make_optimizer(layer.parameters())
    layer(inputs).sum().backward()
    layer_optimizer.step()
    layer.to(torch.float64)
    layer(inputs.double()).sum().backward()
    return layer, layer_optimizer


small, adam = step_then_double(torch.optim.Adam)
check(adam.state[small.weight]["exp_avg"].dtype, torch.float32, label="exp_avg dtype after to(float64)")
with expect_error(RuntimeError, match=r"^expected dtype float for `end` but got dtype double$"):
    adam.step()
small, sgd = step_then_double(lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9))
sgd.step()
check(
    sgd.state[small.weight]["momentum_buffer"].dtype,
    torch.float32,
    label="momentum_buffer dtype after a step",
)

# %%
# Other calls that replace parameters
# -----------------------------------
# ``to()`` keeps the parameter objects, but two other common calls make new
# ones. A model built on the ``meta`` device, to skip allocating memory, is
# given real storage by ``to_empty``:


def moves(module, module_optimizer):
    """One training step: did ``module.weight`` change?"""
    before = module.weight.detach().clone()
    module_optimizer.zero_grad()
    module(inputs).sum().backward()
    module_optimizer.step()
    return not torch.equal(module.weight, before)


with torch.device("meta"):
    big = nn.Linear(4, 2)
big_optimizer = torch.optim.SGD(big.parameters(), lr=0.1)
old = big.weight
big.to_empty(device=device)
torch.manual_seed(0)
big.reset_parameters()  # to_empty leaves the memory uninitialised
check(big.weight is old, False, label="big.weight is old after to_empty")
check(big_optimizer.param_groups[0]["params"][0] is old, True, label="optimizer holds old")
check(old.device.type, "meta", label="old.device.type")
check(moves(big, big_optimizer), False, label="big.weight moved by a step")

# %%
# ``to_empty`` makes new parameters on the target device. The optimizer
# still holds the ``meta`` tensors, which have no data and never get a
# gradient, so its step changes nothing the model uses.
#
# ``load_state_dict`` copies the loaded values into the existing tensors,
# but with ``assign=True`` it puts the loaded tensors in their place
# instead:
layer = nn.Linear(4, 2).to(device)
layer_optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
old = layer.weight
pretrained = {name: t.clone() for name, t in nn.Linear(4, 2).to(device).state_dict().items()}
layer.load_state_dict(pretrained)
check(layer.weight is old, True, label="layer.weight is old after load_state_dict")
layer.load_state_dict(pretrained, assign=True)
check(layer.weight is old, False, label="layer.weight is old after assign=True")
check(layer_optimizer.param_groups[0]["params"][0] is old, True, label="optimizer holds old")
check(moves(layer, layer_optimizer), False, label="layer.weight moved by a step")
layer_optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)  # built after
check(moves(layer, layer_optimizer), True, label="layer.weight moved, new optimizer")

# %%
# Without ``assign`` the object stays and the optimizer keeps working.
# With it, as after ``to_empty``, build the optimizer after the call: the
# last check shows that an optimizer built then trains the new weight.
# FSDP2's ``fully_shard`` also swaps parameters for sharded ones, so the
# same rule applies; it needs a process group and is not checked here.
#
# Assigning a parameter by hand during training does the same: the module
# registers the new tensor, and the optimizer keeps stepping the old one.
layer = nn.Linear(4, 2).to(device)
layer_optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
layer.weight = nn.Parameter(torch.zeros(2, 4, device=device))
held = layer_optimizer.param_groups[0]["params"]
check(any(p is layer.weight for p in held), False, label="the optimizer holds the assigned weight")
check(moves(layer, layer_optimizer), False, label="the assigned weight moved by a step")

# %%
# ``nn.Parameter`` assignment keeps training the rest of the layer (its
# bias is still the optimizer's), so the loss may go down while the new
# weight never changes. Give the new tensor to the optimizer
# (``add_param_group``, above), or copy values into the existing
# parameter under ``torch.no_grad()`` (``layer.weight.copy_(...)``), which
# keeps the object the optimizer holds.

# %%
# A weight tie broken by re-creation
# ----------------------------------
# A small language model whose output layer shares its weight with the
# embedding: one tensor, used twice. ``parameters()`` lists it once.


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(5, 3)
        self.out = nn.Linear(3, 5, bias=False)
        self.out.weight = self.embed.weight  # tied

    def forward(self, tokens):
        return self.out(self.embed(tokens))


torch.manual_seed(0)
lm = TinyLM().to(device)
check(len(list(lm.parameters())), 1, label="len(list(lm.parameters()))")
lm_optimizer = torch.optim.SGD(lm.parameters(), lr=0.5)

# %%
# Pretrained vectors arrive, and a common way to load them into an
# embedding is ``nn.Embedding.from_pretrained``: a new module with a new
# weight. The output layer keeps the old one.
vectors = torch.randn(5, 3).to(device)
lm.embed = nn.Embedding.from_pretrained(vectors, freeze=False)
check(lm.out.weight is lm.embed.weight, False, label="lm.out.weight is lm.embed.weight")
check(len(list(lm.parameters())), 2, label="len(list(lm.parameters()))")
check(torch.equal(lm.out.weight, vectors), False, label="output layer holds the pretrained vectors")

tokens = torch.tensor([0, 1, 2, 3], device=device)
following = torch.tensor([1, 2, 3, 4], device=device)
before = [lm.embed.weight.detach().clone(), lm.out.weight.detach().clone()]
for _ in range(3):
    lm_optimizer.zero_grad()
    nn.functional.cross_entropy(lm(tokens), following).backward()
    lm_optimizer.step()
check(
    [not torch.equal(lm.embed.weight, before[0]), not torch.equal(lm.out.weight, before[1])],
    [False, True],
    label="moved: embed.weight, out.weight",
)

# %%
# Two tensors where there was one: the output layer predicts with random
# weights that the pretrained vectors never reached, and the optimizer,
# which holds only the old tensor, trains the output layer and never the
# new embedding. An optimizer built afresh would hold both, as two
# parameters trained apart: the tie is gone.
fresh_optimizer = torch.optim.SGD(lm.parameters(), lr=0.5)
check(len(fresh_optimizer.param_groups[0]["params"]), 2, label="tensors held by a new optimizer")

# %%
# Loading into the existing tensor keeps both the tie and the optimizer's
# reference: ``copy_`` under ``torch.no_grad()`` changes the values, not
# the object.
torch.manual_seed(0)
lm = TinyLM().to(device)
lm_optimizer = torch.optim.SGD(lm.parameters(), lr=0.5)
with torch.no_grad():
    lm.embed.weight.copy_(vectors)
check(lm.out.weight is lm.embed.weight, True, label="lm.out.weight is lm.embed.weight")
check(torch.equal(lm.out.weight, vectors), True, label="output layer holds the pretrained vectors")
before = lm.embed.weight.detach().clone()
lm_optimizer.zero_grad()
nn.functional.cross_entropy(lm(tokens), following).backward()
lm_optimizer.step()
check(not torch.equal(lm.embed.weight, before), True, label="lm.embed.weight moved")

# %%
# One tensor again, updated by the optimizer once per step with the
# gradients of both uses added together. Where a module must be re-created,
# tie again after it (``lm.out.weight = lm.embed.weight``) and create the
# optimizer after that.

# %%
# A scheduler built before ``add_param_group``
# --------------------------------------------
# A learning-rate scheduler also reads the optimizer's groups once, when it
# is built. A group added later, after the first fix above, can break it:


def add_group_after(make_scheduler):
    """An optimizer and its scheduler; then a second group and one step."""
    first, second = nn.Linear(4, 2).to(device), nn.Linear(4, 2).to(device)
    group_optimizer = torch.optim.SGD(first.parameters(), lr=0.1)
    scheduler = make_scheduler(group_optimizer)
    group_optimizer.add_param_group({"params": second.parameters(), "lr": 0.2})
    group_optimizer.step()  # before scheduler.step(), as PyTorch asks
    return group_optimizer, scheduler


schedulers = torch.optim.lr_scheduler
group_optimizer, scheduler = add_group_after(lambda o: schedulers.LambdaLR(o, lambda epoch: 0.5**epoch))
with expect_error(ValueError, match=r"^zip\(\) argument 2 is shorter than argument 1$"):
    scheduler.step()
group_optimizer, scheduler = add_group_after(lambda o: schedulers.OneCycleLR(o, max_lr=0.1, total_steps=10))
with expect_error(KeyError, match=r"^'initial_lr'$"):
    scheduler.step()

# %%
# ``LambdaLR`` computes one rate per group it saw when built, one short of
# the groups now. ``OneCycleLR`` wrote its keys, such as ``initial_lr``,
# into the groups it saw, and the new group lacks them. Both fail only at
# the first ``scheduler.step()``, not at ``add_param_group``.
#
# Schedulers that scale each group's current rate keep working, some only
# for a while:
group_optimizer, scheduler = add_group_after(lambda o: schedulers.StepLR(o, step_size=1, gamma=0.5))
scheduler.step()
check([g["lr"] for g in group_optimizer.param_groups], [0.05, 0.1], label="StepLR: lr of both groups")
group_optimizer, scheduler = add_group_after(lambda o: schedulers.CosineAnnealingLR(o, T_max=4))
scheduler.step()
scheduler.step()
check([g["lr"] for g in group_optimizer.param_groups], [0.05, 0.1], label="cosine, step 2: lr")
for _ in range(2):
    group_optimizer.step()
    scheduler.step()
group_optimizer.step()
with expect_error(ValueError, match=r"^zip\(\) argument 2 is longer than argument 1$"):
    scheduler.step()  # step 5, past T_max

# %%
# ``StepLR`` halves both rates, the new group's 0.2 included. The cosine
# schedule halves both at step 2 of 4, but past ``T_max`` it uses the
# starting rates it saved, one per old group, and fails. The fix is to
# build the scheduler after the last ``add_param_group``:
first, second = nn.Linear(4, 2).to(device), nn.Linear(4, 2).to(device)
group_optimizer = torch.optim.SGD(first.parameters(), lr=0.1)
group_optimizer.add_param_group({"params": second.parameters(), "lr": 0.2})
scheduler = schedulers.LambdaLR(group_optimizer, lambda epoch: 0.5**epoch)  # built after
group_optimizer.step()
scheduler.step()
check([g["lr"] for g in group_optimizer.param_groups], [0.05, 0.1], label="LambdaLR built after: lr")

# %%
# Built after, ``LambdaLR`` knows both groups and halves both rates.
# Building it last spares asking which schedulers cope with a new group.
#
# Resuming a schedule
# -------------------
# A scheduler counts its steps in ``last_epoch``, and its constructor
# takes one, as if to resume there. But a scheduler built with
# ``last_epoch=4`` on a new optimizer looks for the ``initial_lr`` that a
# scheduler writes into each group when it is built at the start, and a
# new optimizer has none:
resumed_optimizer = torch.optim.SGD(first.parameters(), lr=0.1)
with expect_error(
    KeyError, match=r"^\"param 'initial_lr' is not specified in param_groups\[0\] when resuming"
):
    schedulers.StepLR(resumed_optimizer, step_size=3, gamma=0.5, last_epoch=4)


def schedule(optimizer):
    """The schedule of this section: the rate halves every third step."""
    return schedulers.StepLR(optimizer, step_size=3, gamma=0.5)


def rates(optimizer, scheduler, steps):
    """The first group's rate after each of ``steps`` steps."""
    seen = []
    for _ in range(steps):
        optimizer.step()
        scheduler.step()
        seen.append(optimizer.param_groups[0]["lr"])
    return seen


straight_optimizer = torch.optim.SGD(first.parameters(), lr=0.1)
straight = rates(straight_optimizer, schedule(straight_optimizer), 6)
stopped_optimizer = torch.optim.SGD(first.parameters(), lr=0.1)
stopped_scheduler = schedule(stopped_optimizer)
stopped = rates(stopped_optimizer, stopped_scheduler, 4)
saved = {"optimizer": stopped_optimizer.state_dict(), "scheduler": stopped_scheduler.state_dict()}

both_optimizer = torch.optim.SGD(first.parameters(), lr=0.1)
both_scheduler = schedule(both_optimizer)
both_optimizer.load_state_dict(saved["optimizer"])
both_scheduler.load_state_dict(saved["scheduler"])
one_optimizer = torch.optim.SGD(first.parameters(), lr=0.1)
one_optimizer.load_state_dict(saved["optimizer"])
epoch_optimizer = torch.optim.SGD(first.parameters(), lr=0.1)
epoch_optimizer.load_state_dict(saved["optimizer"])  # initial_lr is back: no KeyError now
epoch_scheduler = schedulers.StepLR(epoch_optimizer, step_size=3, gamma=0.5, last_epoch=4)
check(epoch_scheduler.last_epoch, 5, label="last_epoch of StepLR(..., last_epoch=4)")
check(straight, [0.1, 0.1, 0.05, 0.05, 0.05, 0.025], label="six steps without a stop")
check(stopped + rates(both_optimizer, both_scheduler, 2), straight, label="resumed from both states")
check(
    stopped + rates(one_optimizer, schedule(one_optimizer), 3),
    [*straight[:5], 0.05, 0.025],
    label="resumed, new scheduler",
)
check(
    stopped + rates(epoch_optimizer, epoch_scheduler, 2),
    [*straight[:4], 0.025, 0.025],
    label="resumed, last_epoch=4",
)
lambda_optimizer = torch.optim.SGD(first.parameters(), lr=0.1)
lambda_optimizer.load_state_dict(saved["optimizer"])
resumed_rate = lambda_optimizer.param_groups[0]["lr"]
schedulers.LambdaLR(lambda_optimizer, lambda step: 0.5 ** (step // 3))
check(
    [resumed_rate, lambda_optimizer.param_groups[0]["lr"]],
    [0.05, 0.1],
    label="rate loaded, then after a new LambdaLR",
)

# %%
# Six steps in one run halve the rate after steps 3 and 6. Stopped after step
# 4 and resumed from the optimizer's *and* the scheduler's ``state_dict``,
# the run goes on as if it had never stopped. Resumed with the optimizer's
# state and a new ``StepLR``, the rate is right at first (``StepLR`` goes on
# from the optimizer's rate), but the new scheduler counts its steps from 0:
# the next halving comes at step 7, three steps after the restart, not at
# step 6, and no error says so. Loading the optimizer's state first, as the
# ``KeyError`` advises, brings ``initial_lr`` back, and ``last_epoch=4`` is
# then accepted; but the constructor takes a step of its own, so the schedule
# stands at step 5, one step ahead, and halves one step early. A schedule
# that computes the rate from the step number, as ``LambdaLR`` does, is
# worse: built anew, it sets the rate back to the start of its schedule, 0.1,
# where the run had reached 0.05 (the last check above). Save both states,
# load both, and leave ``last_epoch`` alone.
#
# In the CUDA record (PyTorch 2.11.0, an H200) the same checks held. Adam's
# failing step ran there in ``_multi_tensor_adam``, CUDA's default, instead
# of ``_single_tensor_adam``, with the same message.
#
# Sources
# -------
# This example rebuilds no claim of the source documents (:ref:`sources`);
# the shapes, the identities and the distances are checked on the runner
# that built this page, and PyTorch's documentation of ``torch.optim``
# (building an optimizer, ``add_param_group``) describes the behaviour.
