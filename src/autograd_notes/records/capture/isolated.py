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
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..._device import DEVICE_VARIABLE
from .limits import output_limits
from .orphans import adopt_orphans, end_orphans
from .reset import TIMEOUT_VARIABLE, example_memory_mib, example_timeout, seconds

if TYPE_CHECKING:
    from ..format.record_format import Record

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "RUN_VARIABLE",
    "Isolated",
    "capture_isolated",
    "check_settings",
    "child_environment",
    "end_all",
    "end_with_the_run",
    "positive_jobs",
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


RUN_VARIABLE = "AUTOGRAD_NOTES_RUN"
"""A mark in the environment of an example's process, which every process it starts inherits."""
_RUNNING: dict[int, tuple[subprocess.Popen[bytes], str]] = {}
"""The examples' processes running now (by pid), each with its mark."""
_LOCK = threading.RLock()  # a signal handler (end_all) may come while its own thread holds it


def _end_strays(mark: str) -> None:
    """Kill every process whose environment holds ``mark``: what an example started, in any session.

    A process group is not enough: a child may start a session of its own
    (``start_new_session=True``, a daemon's double fork), and still inherits
    the environment. Reads ``/proc``; elsewhere only the group is ended.
    """
    needle = f"{RUN_VARIABLE}={mark}".encode() + b"\0"
    proc = Path("/proc")
    if not proc.is_dir():  # pragma: no cover - not Linux
        return
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environment = (entry / "environ").read_bytes()
        except OSError:  # gone, or another user's
            continue
        if needle in environment or environment.endswith(needle[:-1]):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry.name), signal.SIGKILL)


def _end_group(process: subprocess.Popen[bytes], mark: str) -> None:
    """Kill the child, its group and every process it started, then reap it."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    else:  # pragma: no cover - Windows
        process.kill()
    _end_strays(mark)
    process.wait()
    _end_orphans()


def _end_orphans() -> None:
    """End the processes that examples left to this one, their mark cleared (:mod:`.orphans`)."""
    with _LOCK:
        end_orphans({pid for pid, (process, _mark) in _RUNNING.items() if process.returncode is None})


def end_all() -> None:
    """End every example's process running now, and all they started (a signal's handler calls it)."""
    with _LOCK:
        running = list(_RUNNING.values())
    for process, mark in running:
        _end_group(process, mark)


def capture_isolated(root: Path, example: str, device: str, timeout: float) -> Isolated:
    """Capture ``gallery/<example>`` on ``device`` in a fresh process that may run ``timeout`` seconds.

    The child's output goes to a file, not a pipe: a process it left behind
    holding its output cannot keep the run waiting. When it ends, times out,
    or the run is interrupted, everything it started ends with it.
    """
    with tempfile.TemporaryDirectory(prefix="autograd-notes-") as scratch:
        out = Path(scratch) / "record.json"
        log = Path(scratch) / "output.txt"
        command = [sys.executable, "-m", __name__, str(root), example, str(out)]
        mark = uuid.uuid4().hex
        env = {**child_environment(device, timeout), RUN_VARIABLE: mark}
        start = time.perf_counter()
        # started and registered at once: an orphan hunt in another thread never takes it for one
        with _LOCK, log.open("wb") as output_file:
            process = subprocess.Popen(
                command,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            _RUNNING[process.pid] = (process, mark)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _end_group(process, mark)
            return Isolated(None, time.perf_counter() - start, timed_out=True)
        except BaseException:  # Ctrl-C: leave no example running behind
            _end_group(process, mark)
            raise
        finally:
            with _LOCK:
                _RUNNING.pop(process.pid, None)
        seconds = time.perf_counter() - start
        _end_strays(mark)  # it ended: what it started ends too
        _end_orphans()
        output = log.read_text(encoding="utf-8", errors="replace")
        if process.returncode != 0 or not out.exists():
            tail = "\n".join(output.splitlines()[-_TAIL:])
            return Isolated(None, seconds, output=f"exit status {process.returncode}\n{tail}".strip())
        return Isolated(cast("Record", json.loads(out.read_text(encoding="utf-8"))), seconds)


def positive_seconds(text: str) -> float:
    """A ``--timeout`` value: a positive, finite number of seconds (``argparse`` ``type=``)."""
    try:
        return seconds(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r} {error}") from None


def positive_jobs(text: str) -> int:
    """A ``--jobs`` value: a whole number of processes, at least 1 (``argparse`` ``type=``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: at least one example runs at a time")
    return value


def end_with_the_run() -> None:
    """On SIGTERM (``timeout``, a machine's limit), end every example running and all it started.

    The run also adopts the orphans its examples leave (:func:`.orphans.adopt_orphans`).

    Then the run exits as Ctrl-C makes it: its temporary folders removed,
    what it recorded kept.
    """

    def terminated(signum: int, _frame: object) -> None:
        end_all()
        raise SystemExit(128 + signum)

    adopt_orphans()  # what an example leaves behind with its mark cleared comes back to this process

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminated)


def check_settings() -> None:
    """Read every variable a capture obeys, before anything runs: :class:`ValueError` names a bad one."""
    example_timeout()
    example_memory_mib()
    output_limits()


def _child(argv: list[str]) -> int:
    """Capture one example and write its record to a file: the child's side."""
    root, example, out = Path(argv[0]), argv[1], Path(argv[2])
    from ..format.record import write_record
    from .cells import capture_example

    write_record(out, capture_example(root / "gallery", example, root))
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
