"""Capture one example in a fresh Python process, with a timeout.

A device-side assert poisons a CUDA context for the rest of its process, and
an example that hangs or crashes must not take the others with it: ``capture``
on a GPU (or with ``--archive``) runs every example as ``python -m
autograd_notes.records.capture.isolated <root> <example> <out.json>``, which captures
it (:func:`~.record.capture_example`) on the device that
``AUTOGRAD_NOTES_DEVICE`` names and writes its record to ``out.json``. The
parent (:func:`capture_isolated`) waits at most the timeout, then ends the
child's whole process group. The child needs what the parent has: the same
Python, and this package on its path (a plain copy of the source tree with
``PYTHONPATH=src`` is enough).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..._device import DEVICE_VARIABLE
from .limits import output_limits
from .reset import TIMEOUT_VARIABLE, example_memory_mib, example_timeout

if TYPE_CHECKING:
    from ..format.record_format import Record

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "Isolated",
    "capture_isolated",
    "check_settings",
    "child_environment",
    "positive_seconds",
]

DEFAULT_TIMEOUT_S = 120.0
"""Seconds one example may run in its process, PyTorch's import included."""
_TAIL = 20
"""Lines of a failed child's output that the report shows."""


@dataclass(frozen=True)
class Isolated:
    """How one example's process ended: its record, or why there is none."""

    record: Record | None
    seconds: float
    """Wall time of the whole process, PyTorch's import included."""
    timed_out: bool = False
    output: str = ""
    """What the child printed outside the example's cells (empty when it recorded)."""


def _package_folder() -> Path:
    """The folder this package is imported from (``src`` in a source tree)."""
    return Path(__file__).resolve().parents[3]


def child_environment(device: str, timeout: float) -> dict[str, str]:
    """The child's environment: this one, the runner's device, this package importable.

    The example's own timeout (``AUTOGRAD_NOTES_EXAMPLE_TIMEOUT``, which
    fails a cell) is set beyond the process's, so that running out of time
    ends the process, never records a timeout as what the example does.
    """
    env = dict(os.environ)
    env[DEVICE_VARIABLE] = device
    env[TIMEOUT_VARIABLE] = f"{timeout + 60:g}"
    env.setdefault("MPLBACKEND", "Agg")
    folder = str(_package_folder())
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if folder not in paths:
        env["PYTHONPATH"] = os.pathsep.join([folder, *paths])
    return env


def _end_group(process: subprocess.Popen[str]) -> None:
    """Kill the child and whatever it started (a new session of its own), then reap it."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    else:  # pragma: no cover - Windows
        process.kill()
    process.communicate()


def capture_isolated(root: Path, example: str, device: str, timeout: float) -> Isolated:
    """Capture ``gallery/<example>`` on ``device`` in a fresh process that may run ``timeout`` seconds."""
    with tempfile.TemporaryDirectory(prefix="autograd-notes-") as scratch:
        out = Path(scratch) / "record.json"
        command = [sys.executable, "-m", __name__, str(root), example, str(out)]
        start = time.perf_counter()
        process = subprocess.Popen(
            command,
            env=child_environment(device, timeout),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _end_group(process)
            return Isolated(None, time.perf_counter() - start, timed_out=True)
        except BaseException:  # Ctrl-C: leave no example running behind
            _end_group(process)
            raise
        seconds = time.perf_counter() - start
        if process.returncode != 0 or not out.exists():
            tail = "\n".join(output.splitlines()[-_TAIL:])
            return Isolated(None, seconds, output=f"exit status {process.returncode}\n{tail}".strip())
        return Isolated(cast("Record", json.loads(out.read_text(encoding="utf-8"))), seconds)


def _child(argv: list[str]) -> int:
    """Capture one example and write its record to a file: the child's side."""
    root, example, out = Path(argv[0]), argv[1], Path(argv[2])
    from ..format.record import write_record
    from .cells import capture_example

    write_record(out, capture_example(root / "gallery", example, root))
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))


def positive_seconds(text: str) -> float:
    """A ``--timeout`` value: a positive, finite number of seconds (``argparse`` ``type=``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < math.inf:  # nan is refused too: no comparison holds for it
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def check_settings() -> None:
    """Read every variable a capture obeys, before anything runs: :class:`ValueError` names a bad one."""
    example_timeout()
    example_memory_mib()
    output_limits()
