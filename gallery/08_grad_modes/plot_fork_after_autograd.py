"""
.. _fork_after_autograd:

Autograd in a forked child
==========================

On a machine with a GPU, the first ``backward()`` of a process starts the
autograd engine's device threads. From then on, every child made by
``fork`` (a ``multiprocessing`` process or pool with the start method
``"fork"``, the default on Linux before Python 3.14, or a ``DataLoader``
worker) raises "Unable to handle autograd's threading in combination
with fork-based multiprocessing" at its first backward (the CUDA record,
PyTorch 2.11.0 on an H200, shows it in all three). This example shows when
the engine starts those threads (not on a machine without a GPU, where a
forked child computes its gradient), runs the GPU case and the fix, the
``"spawn"`` and ``"forkserver"`` start methods, in child processes, and
says what ``DataLoader``'s ``multiprocessing_context`` does.

.. questions::

   - Why do I get ``Unable to handle autograd's threading in combination with fork-based multiprocessing``?
   - Why does backward fail in a DataLoader worker or a multiprocessing Pool?
   - Why does my script work on a laptop but not on the GPU server?
   - How do I run autograd in child processes with spawn or forkserver?
"""

# %%
# The first backward of a process
# -------------------------------
# The engine runs the backward of CPU tensors on the thread that calls
# ``backward()``. For the other devices (CUDA, MPS, XPU) it starts, at the
# first backward of the process, one thread per device, named
# ``pt_autograd_<index>``. Linux lists a process's threads, with their
# names, under ``/proc/self/task``:
import ast
import multiprocessing
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import torch

from autograd_notes import check, expect_error, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()
print(f"runner device: {device.type}")


def devices_the_engine_counts():
    """How many devices of a type with a thread of its own the machine has (engine.cpp's num_devices)."""
    counts = [torch.cuda.device_count()]
    if torch.backends.mps.is_available():
        counts.append(1)
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        counts.append(torch.xpu.device_count())
    return max(counts)


def engine_threads():
    """The names of the autograd engine's device threads in this process (Linux only)."""
    names = []
    for task in Path("/proc/self/task").iterdir():
        try:
            names.append((task / "comm").read_text().strip())
        except OSError:  # a thread that ended meanwhile
            pass
    threads = [name for name in names if name.startswith("pt_autograd_")]
    return sorted(threads, key=lambda name: int(name.rsplit("_", 1)[1]))  # pt_autograd_2 before _10


w = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
(w * 3).sum().backward()  # the first backward of this example
check(w.grad, [3.0, 3.0], label="w.grad")
gpus = devices_the_engine_counts()
if sys.platform == "linux":
    check(engine_threads(), [f"pt_autograd_{i}" for i in range(gpus)], label="the engine's device threads")

# %%
# On this page's CPU runner the engine started no thread: the list is
# empty. The CUDA record (PyTorch 2.11.0, one H200) holds
# ``pt_autograd_0``, one thread per device. The engine counts the devices
# of the machine, not those of the graph (``start_device_threads`` in
# ``torch/csrc/autograd/engine.cpp``), so a backward of CPU tensors only
# is expected to start it too (that record's backward ran on the GPU).
# Just before it starts them, it registers a handler with
# ``pthread_atfork``, which marks every child forked afterwards; in a
# marked child, every backward raises the error.
#
# A forked child
# --------------
# The child below is made by ``fork``: a copy of this process, which
# needs nothing importable. It runs a backward of its own, on the CPU,
# and sends back its gradient, or its error's message, through a pipe;
# this process waits for it 60 s at most. Python 3.12 and later warn when
# a process with more than one thread forks (a ``DeprecationWarning`` of
# ``os.fork``); the warnings are caught and checked, without the process
# id they name. Windows has no ``fork``: there the page says so and skips
# the child.
FORK_WARNING = "This process is multi-threaded, use of fork() may lead to deadlocks in the child."


def os_threads():
    """How many OS threads this process has, as Python counts them before a fork; None without /proc."""
    tasks = Path("/proc/self/task")
    return len(list(tasks.iterdir())) if tasks.is_dir() else None


def backward_in_child(sender):
    """In the child: a backward on the CPU; send back the gradient, or the error's type and message."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    try:
        (x**2).sum().backward()
        sender.send(("gradient", x.grad.tolist()))
    except RuntimeError as error:
        sender.send(("RuntimeError", str(error)))
    sender.close()


def fork_child():
    """Fork a child that runs ``backward_in_child``, check Python's fork warnings, return what it sent."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=backward_in_child, args=(sender,))
    threads = os_threads()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        child.start()
    sender.close()
    sent = ("no answer", "the forked child sent nothing within 60 s")
    if receiver.poll(60):
        try:
            sent = receiver.recv()
        except EOFError:  # the pipe closed with nothing in it: the child ended early
            child.join(10)
            sent = ("crashed", f"the forked child ended without an answer, exit code {child.exitcode}")
    child.join(10)
    if child.is_alive():
        child.kill()
    said = [re.sub(r" \(pid=\d+\)", "", str(record.message)) for record in caught]
    for record in caught:  # any other warning is not this page's: let it through
        if "multi-threaded" not in str(record.message):
            warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
    fork_warnings = [m for m in said if "multi-threaded" in m]
    if threads is None:  # no exact thread count: Python may warn or not
        print(f"fork warnings (either is accepted without /proc): {fork_warnings}")
    elif sys.version_info < (3, 12):  # Python warns from 3.12 on: nothing to check before
        print(f"fork warnings (none before Python 3.12): {fork_warnings}")
    else:
        check(fork_warnings, [FORK_WARNING] if threads > 1 else [], label="fork warnings")
    return sent


def raise_again(sent):
    """Raise here the error a child reported (or its crash); return its gradient otherwise."""
    kind, value = sent
    if kind == "RuntimeError":
        raise RuntimeError(value)
    if kind != "gradient":
        raise ChildProcessError(value)
    return value


FORK_ERROR = r"^Unable to handle autograd's threading in combination with fork-based multiprocessing\."
START_METHODS = multiprocessing.get_all_start_methods()
if "fork" not in START_METHODS:  # Windows
    print("no fork start method on this platform: the forked child is skipped")
    forked = ("skipped", [])
elif gpus:  # a GPU runner, or any machine with a GPU
    forked = fork_child()
    with expect_error(RuntimeError, match=FORK_ERROR):
        raise_again(forked)
else:
    forked = fork_child()
    check(raise_again(forked), [2.0, 4.0, 6.0], label="the forked child's x.grad")
(w * 3).sum().backward()  # and this process goes on as before
check(w.grad, [6.0, 6.0], label="w.grad, after a second backward here")

# %%
# Here the forked child computed its gradient, ``2 * x``, and sent it back.
# Python 3.11, which builds this page, gives no warning, as the line above
# prints; from 3.12 on, the warning is expected whenever the process has more
# than one thread, which a math library's thread pool or a GPU's engine thread
# makes. From 3.12 on, a check expects it exactly then where Linux counts the
# threads under ``/proc``; elsewhere Python counts threads the page cannot see,
# so it accepts the warning or none and prints which. The CUDA record ran on
# Python 3.12: there the check holds, with the warning.
#
# In the CUDA record (PyTorch 2.11.0, an H200) the child sends back the error
# instead, raised again here by ``raise_again``: "Unable to handle autograd's
# threading in combination with fork-based multiprocessing. See
# https://github.com/pytorch/pytorch/wiki/Autograd-and-Fork". ``fork`` copies
# only the thread that called it, so the child has no engine thread, and the
# engine refuses to work rather than wait on threads that are not there
# (``initialize_device_threads_pool`` checks the mark at every backward). The
# parent is not marked: its second backward added 3 to ``w.grad``, on every runner.
#
# The fix: ``"spawn"`` or ``"forkserver"``
# ------------------------------------------
# With ``"spawn"``, a child is a new Python interpreter that imports the
# worker's module; with ``"forkserver"``, a server process started fresh
# forks the children. Neither copies this process's engine. Both send the
# worker by its name, so it must be importable: at the top level of a
# module, with the program's own work under
# ``if __name__ == "__main__":``, because the child imports the main module
# again. A function defined on this page is not importable that way, so
# the program below is written to a temporary folder and run as a script,
# as yours would be. It runs a backward on the runner's device, then the
# same worker in a pool of each start method, and a ``DataLoader`` whose
# items are gradients, with two values of ``multiprocessing_context``:
PROGRAM = '''
import multiprocessing
import sys

import torch
from torch.utils.data import DataLoader, Dataset


def gradient(values):
    """The worker: at the top level of this file, so a child can import it."""
    x = torch.tensor(values, requires_grad=True)
    (x**2).sum().backward()
    return x.grad.tolist()


class Gradients(Dataset):
    """Each item is the gradient of x**2 at x = index: a backward per item."""

    def __len__(self):
        return 2

    def __getitem__(self, index):
        return torch.tensor(gradient([float(index + 1)]))


def outcome(run):
    try:
        return run()
    except Exception as error:
        last = ([line for line in str(error).splitlines() if line.strip()] or [""])[-1]
        return type(error).__name__ + ": " + last.split("Error: ", 1)[-1]


if __name__ == "__main__":
    w = torch.ones(2, device=sys.argv[1], requires_grad=True)
    (w * 3).sum().backward()  # this process has run a backward
    methods = multiprocessing.get_all_start_methods()  # Windows has no fork, no forkserver
    for method in ("fork", "spawn", "forkserver"):
        if method not in methods:
            print(f"Pool, {method}: skipped, no such start method here")
            continue
        with multiprocessing.get_context(method).Pool(1) as pool:
            result = outcome(lambda: pool.apply_async(gradient, ([1.0, 2.0, 3.0],)).get(timeout=60))
        print(f"Pool, {method}:", result)
    for method in ("fork", "spawn"):
        if method not in methods:
            print(f"DataLoader, {method}: skipped, no such start method here")
            continue
        loader = DataLoader(Gradients(), batch_size=2, num_workers=1, multiprocessing_context=method)
        print(f"DataLoader, {method}:", outcome(lambda: [batch.flatten().tolist() for batch in loader][0]))
'''

with tempfile.TemporaryDirectory() as folder:
    script = Path(folder, "program.py")
    script.write_text(PROGRAM, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, script.name, device.type],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
outcomes = dict(
    line.split(": ", 1) for line in run.stdout.splitlines() if line.startswith(("Pool", "DataLoader"))
)
check(run.returncode, 0, label="the program's exit status")
expected = {
    "Pool, fork": "[2.0, 4.0, 6.0]",
    "Pool, spawn": "[2.0, 4.0, 6.0]",
    "Pool, forkserver": "[2.0, 4.0, 6.0]",
    "DataLoader, fork": "[2.0, 4.0]",
    "DataLoader, spawn": "[2.0, 4.0]",
}
missing = [method for method in ("fork", "forkserver") if method not in START_METHODS]  # Windows
if missing:
    print(f"no {' or '.join(missing)} start method on this platform: the program skips those cases")
for case in expected:
    if case.split(", ")[1] in missing:
        expected[case] = "skipped, no such start method here"
returned = dict(outcomes)
if gpus and "fork" in START_METHODS:  # the fork cases are expected to fail on a machine with a GPU
    for case in ("Pool, fork", "DataLoader, fork"):
        with expect_error(RuntimeError, match=FORK_ERROR):
            kind, _, message = returned.pop(case).partition(": ")
            raise_again((kind, message))
        del expected[case]
check(returned, expected, label="what each child returned")

# %%
# On this runner every child computed its gradient: ``[2.0, 4.0, 6.0]``
# from the pool's worker, ``[2.0, 4.0]`` from the data set's two items,
# whatever the start method. In the CUDA record (PyTorch 2.11.0, an H200)
# the two ``fork`` cases fail with the same error, and the ``"spawn"`` and
# ``"forkserver"`` cases return the same gradients as here. In a
# ``DataLoader``, the worker's error is raised again in the main process,
# after "Caught RuntimeError in DataLoader worker process 0" (from PyTorch's
# source: the program keeps only the last line of the message).
#
# ``DataLoader(..., multiprocessing_context=...)`` is the start method of
# that loader's workers, by name (``"fork"``, ``"spawn"``,
# ``"forkserver"``) or as a context from
# ``multiprocessing.get_context``; it needs ``num_workers > 0``. ``None``,
# the default, uses ``multiprocessing``'s own default: ``"fork"`` on Linux
# before Python 3.14, ``"forkserver"`` since, ``"spawn"`` on macOS and
# Windows. With ``"spawn"`` or ``"forkserver"``, the data set, the
# ``collate_fn`` and the ``worker_init_fn`` are sent by pickling, so they
# must be importable too, as ``Gradients`` is in the program above.
import matplotlib.pyplot as plt

from autograd_notes import draw_matrix

sent_back = {"fork": forked[1] if forked[0] == "gradient" else []} if forked[0] != "skipped" else {}
for case, got in outcomes.items():
    if got.startswith("skipped"):
        continue
    sent_back[case] = ast.literal_eval(got) if got.startswith("[") else []  # [] for an error
rows = [[*got, *[0.0] * (3 - len(got))] for got in sent_back.values()]  # 0: no entry (or an error)
figure = draw_matrix(rows, rows=list(sent_back), columns=["[0]", "[1]", "[2]"], title="x.grad, in each child")
figure.set_size_inches(4.6, figure.get_figheight())
plt.show()

# %%
# One row per child above, in the order they ran, and one cell per entry
# of the gradient it sent back. The first four rows hold 2, 4 and 6 (the
# gradient of ``(x**2).sum()`` at ``x = [1, 2, 3]``); the two
# ``DataLoader`` rows hold 2 and 4, one entry per item of the data set,
# and ``0`` in the last cell, where the data set has no third item. In the
# CUDA record the ``fork``, ``Pool, fork`` and ``DataLoader, fork``
# children sent an error, no gradient: on such a runner those rows hold
# only ``0``.
#
# What to do
# ----------
# - Start the children with ``"spawn"`` or ``"forkserver"``:
#   ``multiprocessing.get_context("spawn")`` for a pool,
#   ``DataLoader(..., multiprocessing_context="spawn")`` for a loader, or
#   ``torch.multiprocessing.set_start_method("spawn")`` once, under
#   ``if __name__ == "__main__":``. It works on every machine, with the
#   worker importable.
# - Or fork before the first backward of the process: the handler is
#   registered only when the engine starts its threads, so the workers a
#   pool forked earlier keep working (this is why the error often appears
#   only when a training step, or a test, runs before the pool is made).
#   That holds only for children forked before it: a ``DataLoader`` without
#   ``persistent_workers=True`` forks new workers at every
#   ``iter(loader)``, so at every epoch, and a pool that replaces a worker
#   (``maxtasksperchild``, a worker that died) forks a new one; those
#   children are marked. ``persistent_workers=True`` keeps a loader's
#   workers, forked once, at its first epoch; otherwise use ``"spawn"`` or
#   ``"forkserver"``.
# - A machine without a GPU starts no device thread and marks no child
#   (unless reentrant backward calls nest past the engine's depth limit
#   and start a thread of their own): that is why the same script may work on a
#   laptop and fail on a GPU server.
#
# Sources
# -------
# No source document: this example rebuilds no claim of the documents
# listed in :ref:`sources`. Its GPU statements come from the CUDA record
# (PyTorch 2.11.0, one H200) and from PyTorch's source,
# ``torch/csrc/autograd/engine.cpp`` (``start_device_threads`` counts the
# devices and calls ``track_bad_autograd_forks``, which registers
# ``forked_autograd_child`` with ``pthread_atfork``;
# ``initialize_device_threads_pool`` raises the error in a marked child;
# ``thread_init`` names the threads), from pull request 72689 ("Allow
# forking until a worker thread is created in autograd engine"), which
# made CPU-only machines fork freely, and from issue 32835, where a CPU
# backward on a machine with CUDA broke a later pool. Python's
# ``multiprocessing`` documentation gives the start methods and defaults,
# and PyTorch's ``DataLoader`` documentation ``multiprocessing_context``.
