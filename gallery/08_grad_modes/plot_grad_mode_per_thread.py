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

   - Why does my tensor have a ``grad_fn`` when I used ``torch.no_grad()``?
   - Does ``torch.no_grad()`` apply to a ``ThreadPoolExecutor`` or other threads?
   - How do I turn off gradients in a worker thread?
"""

# %%
# A worker ignores the caller's ``no_grad``
# -----------------------------------------
# The main thread enters ``no_grad`` and starts a thread that multiplies a
# leaf which requires a gradient. The main thread joins it, then checks.
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
check([enabled, y.requires_grad], [True, True], label="worker: [torch.is_grad_enabled(), y.requires_grad]")
check(y.grad_fn, "MulBackward0", label="y.grad_fn")
y.sum().backward()
check(x.grad, [2.0, 2.0], label="x.grad")

# %%
# The worker started with gradients on, as every new thread does. Its
# ``y`` has a node and a gradient reaches ``x`` through it. In a model,
# such nodes also hold the tensors their gradients need
# (:ref:`gallery_saved_tensors`) for as long as the result lives.
#
# Every mode, and a thread pool
# -----------------------------
# The same holds for ``inference_mode`` and ``set_grad_enabled(False)``,
# and for a ``ThreadPoolExecutor``:
from concurrent.futures import ThreadPoolExecutor

modes = {
    "no_grad": torch.no_grad,
    "inference_mode": torch.inference_mode,
    "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False),
}
flags = "[is_grad_enabled(), y.requires_grad, y.is_inference()]"  # in the worker
for name, mode in modes.items():
    with mode(), ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(multiply, name).result()
    enabled, y = seen[name]
    check([enabled, y.requires_grad, y.is_inference()], [True, True, False], label=f"{name}: {flags}")

# %%
# Each worker had gradients on; its result requires a gradient and, even
# under ``inference_mode``, is no inference tensor. PyTorch documents all
# four context managers as local to the thread that enters them.
#
# The fix: enter the mode in the worker
# -------------------------------------
# ``torch.no_grad()`` also works as a decorator: ``@torch.no_grad()`` on
# the worker function, or, as here, applied to an existing one. The
# function then runs without a graph in whatever thread calls it. A pool
# reuses its thread for the next task, so what a task leaves matters too:
with ThreadPoolExecutor(max_workers=1) as pool:
    pool.submit(torch.no_grad()(multiply), "@no_grad").result()
    check(pool.submit(torch.is_grad_enabled).result(), True, label="grad on after a @no_grad task")
    pool.submit(torch.set_grad_enabled, False).result()
    check(pool.submit(torch.is_grad_enabled).result(), False, label="grad on after set_grad_enabled(False)")
enabled, y = seen["@no_grad"]
check([enabled, y.requires_grad, y.is_inference()], [False, False, False], label=f"@no_grad: {flags}")

# %%
# The decorated worker recorded nothing, and the decorator restored the
# thread's flag when it returned. ``torch.set_grad_enabled(False)`` called
# as a plain function, outside a ``with`` block, is never undone: the next
# task on that pool thread ran without gradients.
import matplotlib.pyplot as plt

from autograd_notes import draw_matrix

keys = ["Thread", "no_grad", "inference_mode", "@no_grad"]
values = [[float(seen[key][0]), float(seen[key][1].requires_grad)] for key in keys]
rows = ["Thread, no_grad", "pool, no_grad", "pool, inference_mode", "pool, @no_grad"]
figure = draw_matrix(values, rows=rows, columns=["grad on", "requires_grad"], title="in the worker")
figure.set_size_inches(4.4, figure.get_figheight())  # room for the columns' labels
plt.show()

# %%
# One row per worker above (the kind of thread, then the caller's mode or
# the decorator): whether it had gradients on, and whether its ``y``
# requires a gradient. The first three rows show ``1`` (yes) in both
# columns; only the decorated task shows ``0``.
#
# The other way round
# -------------------
# A worker's mode changes nothing for the main thread. The worker below
# enters a mode in a ``with`` block and waits there while the main thread
# multiplies:


def multiply_while_worker_in(mode):
    inside, done, in_worker = threading.Event(), threading.Event(), []

    def wait_in_mode():
        with mode():
            in_worker.append(torch.is_grad_enabled())
            inside.set()
            done.wait()

    worker = threading.Thread(target=wait_in_mode)
    worker.start()
    inside.wait()
    y = x * 2
    done.set()
    worker.join()
    return [in_worker[0], y.requires_grad]


label = "[worker's is_grad_enabled(), main thread's y.requires_grad]"
check(multiply_while_worker_in(torch.no_grad), [False, True], label=f"worker in no_grad: {label}")
with torch.no_grad():
    check(multiply_while_worker_in(torch.enable_grad), [True, False], label=f"main in no_grad: {label}")

# %%
# ``no_grad`` inside the worker turns gradients off there only: the main
# thread's product still requires a gradient. ``enable_grad`` in a worker
# does not lift the main thread's ``no_grad`` either.
# :ref:`inference_mode_vs_no_grad` compares the modes themselves.
#
# Sources
# -------
# This example rebuilds no claim of a source document (see :ref:`sources`);
# it checks each flag and node above on the runner that built this page.
