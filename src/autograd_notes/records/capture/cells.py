"""Run a gallery script cell by cell, as sphinx-gallery does, capturing each cell.

A cell starts at a ``# %%`` line (the module docstring before the first one
is the page's introduction), where :mod:`~autograd_notes.records.format.script_cells`
splits the script. Cells run in order in one namespace, compiled
with the script's own file name and line numbers, in the script's folder,
with the same per-example reset as a site build
(:func:`~autograd_notes.records.capture.reset.reset_example`). This module imports no
Sphinx: it runs where only PyTorch is installed.

Unlike a site build, where a warning that no ``expect_warning`` catches is an
error that fails the page, a capture records it as the cell's *unexpected
warning* (:class:`~.record.UnexpectedWarning`) and the cell goes on: one
release's new deprecation warning then shows as itself, and every later check
still says what that release does.
"""

from __future__ import annotations

import contextlib
import datetime
import inspect
import io
import os
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..._events import Event, recording
from ..._normalise import normalise_message
from ..._traceback import format_clean_traceback
from ..format.missing_api import is_missing_api, is_missing_network
from ..format.record_format import FORMAT, CellRecord, CellStatus, Record, UnexpectedWarning
from ..format.script_cells import Cell, code_digest, split_cells
from .device_details import runner_metadata
from .limits import check_output
from .reset import example_warning_filters, reset_example

__all__ = [
    "Cell",
    "CellResult",
    "capture_example",
    "run_cells",
    "split_cells",
    "unexpected_warnings",
]


@dataclass
class CellResult:
    """What one cell printed and what its checks observed."""

    first: int
    last: int
    output: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    unexpected: list[UnexpectedWarning] = field(default_factory=list)
    """The warnings no ``expect_warning`` caught, each once, in order."""
    status: CellStatus = "ran"
    """``ran``; ``failed`` (an undocumented exception); ``unavailable`` (it failed because an
    API does not exist in this PyTorch, :func:`is_missing_api`, or the machine cannot start a process
    group, :func:`is_missing_network`); ``not run`` (after either)."""

    code: str = ""
    """The digest of the cell's code (:func:`~.script_cells.code_digest`); ``""``: not known (a cell
    made by hand), and then left out of :meth:`as_record`."""

    def as_record(self) -> CellRecord:
        """Return the cell as stored in a record file (``unexpected`` only where it warned so)."""
        record: CellRecord = {
            "lines": [self.first, self.last],
            "status": self.status,
            "output": self.output,
            "events": self.events,
        }
        if self.code:
            record = {"lines": record["lines"], "code": self.code, **record}
        if self.unexpected:
            record["unexpected"] = self.unexpected
        return record


def _clean_text(text: str, root: Path) -> str:
    return normalise_message(text.replace(f"{root.as_posix()}/", ""))


def _clean_output(text: str, root: Path) -> list[str]:
    return _clean_text(text, root).splitlines()


def _script_line(script: Path, default: int) -> int:
    """The line of ``script`` running now: its innermost frame on the stack (``default`` if none)."""
    name = str(script)
    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_code.co_filename == name:
            return frame.f_lineno
        frame = frame.f_back
    return default


@contextlib.contextmanager
def unexpected_warnings(script: Path, root: Path, first: int) -> Iterator[list[UnexpectedWarning]]:
    """Collect, into the yielded list, every warning that reaches the warning filters in the block.

    ``expect_warning`` catches the documented ones first (and emits the others
    again, which land here). Each is collected once, with the script's line
    running when it warned (``first``, the cell's first line, when no frame of
    the script is on the stack), instead of being raised: the cell goes on.
    """
    caught: list[UnexpectedWarning] = []

    def collect(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: object = None,
        line: str | None = None,
    ) -> None:
        found: UnexpectedWarning = {
            "line": _script_line(script, first),
            "category": category.__name__,
            "message": _clean_text(str(message), root),
        }
        if found not in caught:
            caught.append(found)

    with warnings.catch_warnings():
        example_warning_filters("always")
        warnings.showwarning = collect
        yield caught


def _warm_up() -> None:
    """Import matplotlib before any output is captured.

    On a fresh machine its first import builds a font cache and says so on
    stderr: that line must not land in the first cell that draws a graph.
    """
    with contextlib.suppress(ImportError):
        import matplotlib.pyplot  # noqa: F401


def run_cells(script: Path, root: Path) -> list[CellResult]:
    """Run ``script`` cell by cell and return what each cell did.

    An exception that no ``expect_error`` documents ends the run: its cell
    is ``failed``, or ``unavailable`` when the exception says an API is
    missing (its clean traceback is part of its output either way), and the
    later cells are ``not run``. A warning that no ``expect_warning`` catches
    does not: it is recorded as the cell's unexpected warning
    (:func:`unexpected_warnings`).
    """
    script = script.resolve()
    _warm_up()
    source = script.read_text(encoding="utf-8")
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": str(script)}
    results = [CellResult(cell.first, cell.last, code=code_digest(cell)) for cell in split_cells(source)]
    previous = Path.cwd()
    printed: list[tuple[int, int]] = []
    try:
        os.chdir(script.parent)
        reset_example({}, script.name, "before")
        for cell, result in zip(split_cells(source), results, strict=True):
            code = compile("\n" * (cell.first - 1) + cell.code, str(script), "exec")
            stream = io.StringIO()
            with (
                recording() as events,
                unexpected_warnings(script, root, cell.first) as unexpected,
                contextlib.redirect_stdout(stream),
                contextlib.redirect_stderr(stream),
            ):
                try:
                    exec(code, namespace)
                except Exception as error:
                    # start at the script's frame: this function's own is not the example's
                    print(
                        format_clean_traceback(
                            error, error.__traceback__.tb_next if error.__traceback__ else None
                        )
                    )
                    name, message = type(error).__name__, str(error)
                    # what this release or this machine lacks is no failure of the example
                    missing = is_missing_api(name, message) or is_missing_network(name, message)
                    result.status = "unavailable" if missing else "failed"
            printed.append((cell.first, len(stream.getvalue())))
            check_output(script.name, printed)  # before the output is kept
            result.output = _clean_output(stream.getvalue(), root)
            result.events = events
            result.unexpected = unexpected
            if result.status != "ran":
                for later in results[results.index(result) + 1 :]:
                    later.status = "not run"
                break
    finally:
        reset_example({}, script.name, "after")
        os.chdir(previous)
    return results


def capture_example(gallery: Path, example: str, root: Path) -> Record:
    """Run ``gallery/<example>`` on this runner and return its record."""
    start = time.perf_counter()
    cells = run_cells(gallery / example, root)
    seconds = time.perf_counter() - start
    return {
        "format": FORMAT,
        "example": example,
        "runner": runner_metadata(),
        "recorded": datetime.date.today().isoformat(),
        "seconds": round(seconds, 1),
        "cells": [cell.as_record() for cell in cells],
    }
