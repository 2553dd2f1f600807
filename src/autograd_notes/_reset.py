"""Per-example reset and timeout, called by sphinx-gallery before and after each example.

``docs/conf.py`` names :func:`reset_example` by its dotted path in
``reset_modules`` (with ``reset_modules_order = "both"``), so the
configuration stays picklable. This module imports no Sphinx.
"""

from __future__ import annotations

import math
import os
import random
import signal
import sys
import threading
import warnings
from pathlib import Path
from types import FrameType
from typing import Any

import torch

__all__ = [
    "EXECUTION_LOG_VARIABLE",
    "TIMEOUT_VARIABLE",
    "ExampleTimeout",
    "example_timeout",
    "reset_example",
    "reset_torch_state",
]

TIMEOUT_VARIABLE = "AUTOGRAD_NOTES_EXAMPLE_TIMEOUT"
EXECUTION_LOG_VARIABLE = "AUTOGRAD_NOTES_EXECUTION_LOG"
DEFAULT_TIMEOUT_S = 120.0
SEED = 0

_saved_filters: warnings.catch_warnings[None] | None = None
_saved_handler: Any = None


class ExampleTimeout(Exception):
    """An example ran longer than its timeout."""


def example_timeout() -> float:
    """Seconds an example may run: ``AUTOGRAD_NOTES_EXAMPLE_TIMEOUT`` or 120."""
    raw = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{TIMEOUT_VARIABLE}={raw!r} is not a number of seconds") from None
    if not 0 < value < math.inf:  # also refuses nan and inf, which setitimer cannot take
        raise ValueError(f"{TIMEOUT_VARIABLE}={raw!r} must be positive and finite")
    return value


def reset_torch_state() -> None:
    """Put every global that an example may change back to PyTorch's defaults.

    Seeds (Python, PyTorch on every device), default dtype, grad mode,
    anomaly detection and deterministic algorithms.
    """
    random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.autograd.set_detect_anomaly(False)
    torch.use_deterministic_algorithms(False)


def _reset_matplotlib() -> None:
    """Close every figure and restore the default style, if an example used matplotlib."""
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib
        import matplotlib.pyplot as plt

        plt.close("all")
        matplotlib.rcdefaults()


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


def reset_example(gallery_conf: dict[str, Any], fname: str, when: str) -> None:
    """sphinx-gallery's reset hook: isolate one example from the next.

    Before an example: log its execution (when ``AUTOGRAD_NOTES_EXECUTION_LOG``
    names a file), reset PyTorch's global state, make any warning an error
    (a documented warning is caught by :func:`~autograd_notes.expect_warning`
    first; an undocumented one fails the build instead of printing a path),
    close matplotlib's figures, and arm the timeout. After it: disarm,
    restore the warning filters, close the figures and reset PyTorch's state
    again so nothing leaks into the next example.
    """
    global _saved_filters
    if when == "before":
        _log_execution(str(fname))
        reset_torch_state()
        _saved_filters = warnings.catch_warnings()
        _saved_filters.__enter__()
        warnings.simplefilter("error")
        # plt.show() in an example is for readers of the download; on the
        # build's non-interactive backend it only warns that it cannot show
        warnings.filterwarnings(
            "ignore", message=r".*(non-GUI backend|is non-interactive)", category=UserWarning
        )
        _reset_matplotlib()
        if _can_alarm():
            _arm(str(fname), example_timeout())
    else:
        if _can_alarm():
            _disarm()
        if _saved_filters is not None:
            _saved_filters.__exit__(None, None, None)
            _saved_filters = None
        _reset_matplotlib()
        reset_torch_state()
