"""
.. _grad_mode_per_thread:

Grad mode is per thread
=======================

``torch.no_grad()``, ``torch.enable_grad()``, ``torch.set_grad_enabled()``
and ``torch.inference_mode()`` each set a flag of the current thread only.
This example shows that work handed to a ``threading.Thread`` or a
``ThreadPoolExecutor`` from inside a ``no_grad`` block still records a
graph, that a thread which turns gradients off leaves the other threads
alone, and the fix: enter the mode inside the worker.

.. questions::

   - Why does my tensor have a grad_fn when I used torch.no_grad()?
   - Does torch.no_grad() apply to a ThreadPoolExecutor or other threads?
   - Why does my inference server keep autograd graphs in memory?
"""

# %%
# A worker ignores the caller's ``no_grad``
# -----------------------------------------
# The main thread enters ``no_grad`` and starts a thread that multiplies a
# leaf which requires a gradient. The worker stores what it saw; the main
# thread waits for it, then checks.
import threading

import torch

from autograd_notes import check, runner_device

# sphinx_gallery_thumbnail_number = 1
device = runner_device()

x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
seen = {}


def multiply(where):
    seen[where] = (torch.is_grad_enabled(), x * 2)


with torch.no_grad():
    check(torch.is_grad_enabled(), False, label="main thread: torch.is_grad_enabled()")
    worker = threading.Thread(target=multiply, args=("Thread",))
    worker.start()
    worker.join()

enabled, y = seen["Thread"]
check(enabled, True, label="worker: torch.is_grad_enabled()")
check(y.requires_grad, True, label="y.requires_grad")
check(y.grad_fn, "MulBackward0", label="y.grad_fn")
y.sum().backward()
check(x.grad, [2.0, 2.0], label="x.grad")

# %%
# The worker started with gradients on, as every new thread does. Its
# ``y`` has a node and a gradient reaches ``x`` through it. In a model,
# such nodes also hold the tensors their gradients need
# (:ref:`gallery_saved_tensors`) for as long as the result lives.
#
# Every mode, every kind of thread
# --------------------------------
# The same holds for ``inference_mode`` and ``set_grad_enabled(False)``,
# and for a ``ThreadPoolExecutor``:
from concurrent.futures import ThreadPoolExecutor

modes = {
    "no_grad": torch.no_grad,
    "inference_mode": torch.inference_mode,
    "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False),
}
for name, mode in modes.items():
    with mode(), ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(multiply, name).result()
    enabled, y = seen[name]
    check([enabled, y.requires_grad, y.is_inference()], [True, True, False], label=f"{name}: worker")

# %%
# Each worker had gradients on; its result requires a gradient and, even
# under ``inference_mode``, is no inference tensor. PyTorch documents all
# four context managers as local to the thread that enters them.
#
# The fix: enter the mode in the worker
# -------------------------------------
# ``torch.no_grad()`` also works as a decorator: ``@torch.no_grad()`` on
# the worker function, or, as here, applied to an existing one. The
# function then runs without a graph in whatever thread calls it.
with ThreadPoolExecutor(max_workers=1) as pool:
    pool.submit(torch.no_grad()(multiply), "@no_grad").result()
enabled, y = seen["@no_grad"]
check([enabled, y.requires_grad, y.grad_fn], [False, False, None], label="@no_grad: worker")

import matplotlib.pyplot as plt

from autograd_notes import draw_matrix

rows = ["Thread", "no_grad", "inference_mode", "@no_grad"]
flags = [[float(seen[row][0]), float(seen[row][1].requires_grad)] for row in rows]
draw_matrix(flags, rows=rows, columns=["grad enabled", "requires_grad"], title="in the worker")
plt.show()

# %%
# One row per worker: the ``Thread`` and the pool tasks submitted under
# ``no_grad`` and ``inference_mode`` show ``1`` (yes) in both columns; the
# decorated function shows ``0``. A ``with torch.no_grad():`` block inside
# the worker function does the same.
#
# The other way round
# -------------------
# A worker's mode changes nothing for the main thread. The worker below
# enters a mode and waits in it while the main thread multiplies:


def multiply_while_worker_in(mode):
    inside, done = threading.Event(), threading.Event()

    def wait_in_mode():
        with mode():
            inside.set()
            done.wait()

    worker = threading.Thread(target=wait_in_mode)
    worker.start()
    inside.wait()
    y = x * 2
    done.set()
    worker.join()
    return y


check(multiply_while_worker_in(torch.no_grad).grad_fn, "MulBackward0", label="worker in no_grad: y.grad_fn")
with torch.no_grad():
    y = multiply_while_worker_in(torch.enable_grad)
check(y.grad_fn, None, label="main in no_grad, worker in enable_grad: y.grad_fn")

# %%
# A pool thread keeps what a task leaves
# --------------------------------------
# A pool reuses its threads. ``torch.set_grad_enabled(False)`` called as a
# function, not in a ``with`` block, is never undone, so it reaches the
# next task that runs on the same thread:
with ThreadPoolExecutor(max_workers=1) as pool:
    pool.submit(torch.set_grad_enabled, False).result()
    check(pool.submit(torch.is_grad_enabled).result(), False, label="next task: torch.is_grad_enabled()")
check(torch.is_grad_enabled(), True, label="main thread: torch.is_grad_enabled()")

# %%
# The pool's one thread ran the second task with gradients off; the main
# thread kept them on. A ``with`` block or the decorator restores the flag
# on the way out: set a worker's mode that way.
# :ref:`inference_mode_vs_no_grad` compares the modes themselves.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`);
# it checks each flag and node above on the runner that built this page.
