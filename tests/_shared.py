"""What a test run makes once, started early in the background and shared by every pytest-xdist worker.

The whole-site build (minutes) and the PyTorch-only environment (most of a
minute) are each made once per ``pytest`` run, however many workers run the
tests (``-n auto``, ``pyproject.toml``). A :class:`Job` runs a function of a
test helper module (``"_site:build_whole_site"``; a path it returns comes
back as a string) in a child process of its
own: the first worker that asks starts it, under a file lock, as soon as the
run starts (``conftest.py``: the moment collection shows a test will need
it), and every worker that needs its result waits for it. The tests that do
not need it run meanwhile.

The folder of a run (:func:`run_folder`) is made by the process that starts
``pytest`` and handed to its workers in :data:`RUN_VARIABLE`; that process
ends a job still running when the run ends (``-x``, Ctrl-C) and removes the
folder.

Alone: ``python _shared.py RESULT MODULE:FUNCTION FOLDER`` runs
``FUNCTION(Path(FOLDER))`` and writes ``{"value": ...}`` or ``{"error": traceback}``
to ``RESULT``, atomically, when it is done.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock

__all__ = ["RUN_VARIABLE", "Job", "JobFailed", "end_jobs", "run_folder"]

RUN_VARIABLE = "AUTOGRAD_NOTES_TEST_RUN"
"""Names the folder of the current test run, shared by its workers."""
HERE = Path(__file__).resolve().parent
_POLL = 0.5  # seconds


class JobFailed(Exception):
    """A background job raised, or ended without a result."""


def run_folder() -> Path:
    """The folder every worker of this test run shares (``conftest.py`` sets it up)."""
    folder = os.environ.get(RUN_VARIABLE)
    if not folder:
        raise RuntimeError(f"{RUN_VARIABLE} is not set: the tests' conftest.py sets it when pytest starts")
    return Path(folder)


# The jobs this process started: kept, so that Python neither warns that they still run when the
# objects would be collected nor leaves them unreaped.
_STARTED: dict[int, subprocess.Popen[bytes]] = {}


def _alive(pid: int) -> bool:
    if pid in _STARTED:
        return _STARTED[pid].poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, and is not ours to signal
    return True


@dataclass(frozen=True)
class Job:
    """``function(Path(argument))`` run once per test run, in the background; ``function`` is
    ``"module:name"`` of a module in ``tests/``, and returns what JSON can hold (or a path)."""

    name: str
    function: str
    argument: str

    @property
    def folder(self) -> Path:
        return run_folder() / "jobs" / self.name

    def start(self) -> None:
        """Start the job unless a worker of this run already has."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with FileLock(self.folder / "start.lock"):
            if (self.folder / "pid").exists():
                return
            # a process group of its own (end_jobs kills it whole), in the tests' session: a session
            # of its own is a scheduling group of its own under Linux's autogroup, which shares the
            # CPU half and half with the workers whatever their niceness (conftest.py lowers theirs)
            with (self.folder / "output.txt").open("wb") as output:
                process = subprocess.Popen(
                    [sys.executable, str(HERE / "_shared.py"), str(self.folder / "result.json"),
                     self.function, self.argument],
                    stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, cwd=HERE,
                    process_group=0,
                )  # fmt: skip
            _STARTED[process.pid] = process
            (self.folder / "pid").write_text(str(process.pid), encoding="utf-8")

    def result(self, timeout: float) -> Any:
        """Start the job if need be, wait for it, and return what its function returned.

        Raises :class:`JobFailed` with its traceback and output when it raised or died.
        """
        self.start()
        result, pid = self.folder / "result.json", int((self.folder / "pid").read_text(encoding="utf-8"))
        deadline = time.monotonic() + timeout
        while not result.exists():
            if not _alive(pid) and not result.exists():
                raise JobFailed(f"{self.name} ended without a result; its output:\n{self._output()}")
            if time.monotonic() > deadline:
                raise JobFailed(
                    f"{self.name} still running after {timeout:.0f} s; its output:\n{self._output()}"
                )
            time.sleep(_POLL)
        if pid in _STARTED:
            _STARTED.pop(pid).wait()  # it ends once its result is written: reaped, not left to warn
        outcome = json.loads(result.read_text(encoding="utf-8"))
        if "error" in outcome:
            raise JobFailed(f"{self.name} failed:\n{outcome['error']}\nits output:\n{self._output()}")
        return outcome["value"]

    def _output(self) -> str:
        return (self.folder / "output.txt").read_text(encoding="utf-8", errors="replace")[-4000:]


def end_jobs(folder: Path) -> None:
    """End every job of the run in ``folder`` still running, with what it started."""
    for pid_file in folder.glob("jobs/*/pid"):
        pid = int(pid_file.read_text(encoding="utf-8"))
        if not (pid_file.parent / "result.json").exists() and _alive(pid):
            os.killpg(pid, signal.SIGTERM)  # its own process group: the job and what it started


def _main(result: str, function: str, argument: str) -> int:
    module, name = function.split(":")
    sys.path.insert(0, str(HERE))
    try:
        value = getattr(importlib.import_module(module), name)(Path(argument))
        outcome: dict[str, Any] = {"value": str(value) if isinstance(value, Path) else value}
    except BaseException:
        outcome = {"error": traceback.format_exc()}
    partial = Path(result + ".partial")
    partial.write_text(json.dumps(outcome), encoding="utf-8")
    partial.replace(result)
    return 0 if "value" in outcome else 1


if __name__ == "__main__":
    sys.exit(_main(*sys.argv[1:]))
