"""Per-example reset, timeout and memory limit, called by sphinx-gallery around each example.

``docs/conf.py`` names :func:`reset_example` by its dotted path in
``reset_modules`` (with ``reset_modules_order = "both"``), so the
configuration stays picklable. This module imports no Sphinx.

The memory limit (``AUTOGRAD_NOTES_EXAMPLE_MEMORY``, MiB, default 4096) caps
how much address space an example may add to the build process
(``RLIMIT_AS``, Linux): an allocation beyond it fails in the example, which
fails the build naming the example, instead of the machine running out of
memory. It applies on a CPU runner only: CUDA maps large address ranges of
its own.
"""

from __future__ import annotations

import math
import os
import random
import signal
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from types import FrameType
from typing import Any, Literal

import torch

from ..._device import runner_device
from ..._expect import ExampleTimeout

__all__ = [
    "DEFAULT_MEMORY_MIB",
    "EXECUTION_LOG_VARIABLE",
    "MEMORY_VARIABLE",
    "PYTORCH_GPU_NOISE",
    "TIMEOUT_VARIABLE",
    "example_memory_mib",
    "example_timeout",
    "example_warning_filters",
    "memory_limit_applies",
    "reset_example",
    "reset_torch_state",
    "seconds",
    "watchdog_grace",
]

TIMEOUT_VARIABLE = "AUTOGRAD_NOTES_EXAMPLE_TIMEOUT"
MEMORY_VARIABLE = "AUTOGRAD_NOTES_EXAMPLE_MEMORY"
DEFAULT_MEMORY_MIB = 4096
EXECUTION_LOG_VARIABLE = "AUTOGRAD_NOTES_EXECUTION_LOG"
DEFAULT_TIMEOUT_S = 120.0
SEED = 0

# The float32 precision settings of PyTorch 2.9 and later (``fp32_precision``
# on torch.backends and its backends), by path, with their values when this
# module was first imported: the legacy calls below write some of them
# ("highest" sets ``cuda.matmul`` to "ieee"), and the reset puts them back
# to what a fresh process has. Absent on older releases.
_PRECISION_PATHS = (
    "",
    "cuda.matmul",
    "cudnn",
    "cudnn.conv",
    "cudnn.rnn",
    "mkldnn",
    "mkldnn.matmul",
    "mkldnn.conv",
    "mkldnn.rnn",
)


def _precision_owner(path: str) -> Any:
    owner: Any = torch.backends
    for part in filter(None, path.split(".")):
        owner = getattr(owner, part, None)
    return owner


_PRISTINE_PRECISION = {
    path: owner.fp32_precision
    for path in _PRECISION_PATHS
    if hasattr(owner := _precision_owner(path), "fp32_precision")
}

_saved_filters: warnings.catch_warnings[None] | None = None
_saved_handler: Any = None
_saved_memory_limit: tuple[int, int] | None = None


def example_timeout() -> float:
    """Seconds an example may run: ``AUTOGRAD_NOTES_EXAMPLE_TIMEOUT`` or 120."""
    raw = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        return seconds(raw)
    except ValueError as error:
        raise ValueError(f"{TIMEOUT_VARIABLE}={raw!r} {error}") from None


def seconds(text: str) -> float:
    """``text`` as a positive, finite number of seconds; ``ValueError`` saying why it is not one."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError("is not a number of seconds") from None
    if not 0 < value < math.inf:  # also refuses nan and inf, which setitimer cannot take
        raise ValueError("must be positive and finite")
    return value


def example_memory_mib() -> int:
    """MiB of address space an example may add: ``AUTOGRAD_NOTES_EXAMPLE_MEMORY`` or 4096."""
    raw = os.environ.get(MEMORY_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_MEMORY_MIB
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{MEMORY_VARIABLE}={raw!r} is not a whole number of MiB") from None
    if value <= 0:
        raise ValueError(f"{MEMORY_VARIABLE}={raw!r} must be positive")
    return value


def reset_torch_state() -> None:
    """Put every global that an example may change back to PyTorch's defaults.

    Seeds (Python, NumPy, PyTorch on every device), default dtype and
    device, grad mode, anomaly detection, warn-always, deterministic algorithms (and
    cuDNN's flags), TF32 and float32 matmul precision, print options.
    """
    random.seed(SEED)
    torch.manual_seed(SEED)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(SEED)
    torch.set_default_dtype(torch.float32)
    torch.set_default_device(None)
    torch.set_grad_enabled(True)
    torch.autograd.set_detect_anomaly(False)
    torch.set_warn_always(False)
    if torch.are_deterministic_algorithms_enabled() or torch.is_deterministic_algorithms_warn_only_enabled():
        torch.use_deterministic_algorithms(False)  # slow to call (tens of ms): only when it was turned on
    torch.backends.cudnn.deterministic = False
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    # the new API last: reading a legacy flag after mixing the two APIs raises
    for path, value in _PRISTINE_PRECISION.items():
        _precision_owner(path).fp32_precision = value
    torch.set_printoptions(profile="default")  # type: ignore[no-untyped-call]


def _address_space() -> int | None:
    """Bytes of address space this process maps now (Linux), else ``None``."""
    try:
        pages = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


def memory_limit_applies() -> bool:
    """Whether :func:`reset_example` limits memory here: Linux, a CPU runner, no CUDA.

    CUDA maps far more address space than any limit allows, and an example
    on a CPU runner may still start it where it is available (to show what a
    GPU would do).
    """
    try:
        import resource  # noqa: F401 - not on Windows
    except ImportError:
        return False
    return _address_space() is not None and runner_device().type == "cpu" and not torch.cuda.is_available()


def _limit_memory(mib: int) -> None:
    """Let the example map at most ``mib`` MiB more than the process has now."""
    global _saved_memory_limit
    if not memory_limit_applies():
        return
    import resource

    torch.ones(2**16).sum()  # PyTorch's thread pool exists before the limit, not inside it
    used = _address_space()
    assert used is not None  # memory_limit_applies checked it
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = used + mib * 2**20
    for ceiling in (soft, hard):  # never above a limit the process already has
        if ceiling != resource.RLIM_INFINITY:
            limit = min(limit, ceiling)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    _saved_memory_limit = (soft, hard)


def _unlimit_memory() -> None:
    global _saved_memory_limit
    if _saved_memory_limit is not None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, _saved_memory_limit)
        _saved_memory_limit = None


def _reset_matplotlib() -> None:
    """Close every figure and restore the default style, if an example used matplotlib."""
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib
        import matplotlib.pyplot as plt

        plt.close("all")
        matplotlib.rcdefaults()


# The hard bound: a process of its own, started with each example, that kills the build when the
# example outlives its timeout by the grace period. The timeout's exception cannot stop an example
# that catches every Exception in a loop, nor one that loops inside C code, which never returns to
# Python to raise it; a separate process needs neither.
_WATCHDOG = """
import os, signal, sys, time
parent, seconds, name = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    time.sleep(max(0.0, min(0.5, deadline - time.monotonic())))
    if os.getppid() != parent:
        sys.exit(0)
sys.stderr.write(
    f"autograd_notes: {name} did not stop within {seconds:g} s, its timeout and a grace period, "
    "though asked to (it catches the timeout, or loops inside C code): the build is stopped\\n"
)
sys.stderr.flush()
os.kill(parent, getattr(signal, "SIGKILL", signal.SIGTERM))
"""
_watchdog: subprocess.Popen[bytes] | None = None


def watchdog_grace(timeout: float) -> float:
    """Seconds past its timeout an example gets to stop before the build is killed: 5, or a quarter more."""
    return max(5.0, timeout / 4)


def _start_watchdog(fname: str, timeout: float) -> None:
    global _watchdog
    seconds = timeout + watchdog_grace(timeout)
    _watchdog = subprocess.Popen(
        [sys.executable, "-c", _WATCHDOG, str(os.getpid()), f"{seconds:g}", Path(fname).name],
        stdin=subprocess.DEVNULL,
    )


def _stop_watchdog() -> None:
    global _watchdog
    if _watchdog is not None:
        _watchdog.kill()
        _watchdog.wait()
        _watchdog = None


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _arm(fname: str, seconds: float) -> None:
    global _saved_handler

    def on_timeout(signum: int, frame: FrameType | None) -> None:
        raise ExampleTimeout(
            f"{fname} did not finish within {seconds:g} s (set {TIMEOUT_VARIABLE} to change)"
        )

    _saved_handler = signal.signal(signal.SIGALRM, on_timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)


def _disarm() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)
    if _saved_handler is not None:
        signal.signal(signal.SIGALRM, _saved_handler)


def _log_execution(fname: str) -> None:
    log = os.environ.get(EXECUTION_LOG_VARIABLE)
    if log:
        with Path(log).open("a", encoding="utf-8") as stream:
            stream.write(f"{fname}\n")


# Warnings PyTorch raises on a GPU from its own threads and imports, whatever a page's code does
# (first seen in the CUDA records of PyTorch 2.11.0): the autograd engine's device thread meeting
# cuBLAS before any CUDA context is current on it, and torch.utils.mkldnn's use of a deprecated
# decorator, imported by TorchInductor and torch._dynamo.explain
PYTORCH_GPU_NOISE: tuple[tuple[type[Warning], str], ...] = (
    (UserWarning, r"Attempting to run cuBLAS, but there was no current CUDA context!"),
    (DeprecationWarning, r"`torch\.jit\.script_method` is deprecated"),
)


def example_warning_filters(action: Literal["error", "always"]) -> None:
    """Set the warning filters an example runs under: ``action`` for every warning but a few.

    A site build makes any warning an error (``"error"``): a documented one is
    caught by :func:`~autograd_notes.expect_warning` first, an undocumented one
    fails the build. A capture of the records (:mod:`autograd_notes.records.capture.cells`)
    lets every warning through (``"always"``) to record it and go on. Either way
    ``plt.show()`` on the build's non-interactive backend, which only warns that it
    cannot show (it is there for readers of the download), is ignored, and so is
    :data:`PYTORCH_GPU_NOISE`, which no page's code causes.
    """
    warnings.simplefilter(action)
    warnings.filterwarnings("ignore", message=r".*(non-GUI backend|is non-interactive)", category=UserWarning)
    for category, message in PYTORCH_GPU_NOISE:
        warnings.filterwarnings("ignore", message=message, category=category)


def reset_example(gallery_conf: dict[str, Any], fname: str, when: str) -> None:
    """sphinx-gallery's reset hook: isolate one example from the next.

    Before an example: log its execution (when ``AUTOGRAD_NOTES_EXECUTION_LOG``
    names a file), reset PyTorch's global state, make any warning an error
    (a documented warning is caught by :func:`~autograd_notes.expect_warning`
    first; an undocumented one fails the build instead of printing a path),
    close matplotlib's figures, arm the timeout and limit the memory. After
    it: disarm, lift the limit, restore the warning filters, close the
    figures and reset PyTorch's state again so nothing leaks into the next
    example.
    """
    global _saved_filters
    if when == "before":
        # read the settings first: a bad value fails before anything is changed
        timeout, memory = example_timeout(), example_memory_mib()
        _log_execution(str(fname))
        reset_torch_state()
        _saved_filters = warnings.catch_warnings()
        _saved_filters.__enter__()
        example_warning_filters("error")
        _reset_matplotlib()
        _start_watchdog(str(fname), timeout)
        if _can_alarm():
            _arm(str(fname), timeout)
        _limit_memory(memory)
    else:
        _unlimit_memory()
        _stop_watchdog()
        if _can_alarm():
            _disarm()
        if _saved_filters is not None:
            _saved_filters.__exit__(None, None, None)
            _saved_filters = None
        _reset_matplotlib()
        reset_torch_state()
