"""Run a gallery script cell by cell, as sphinx-gallery does, capturing each cell.

A cell starts at a ``# %%`` line (the module docstring before the first one
is the page's introduction), where :mod:`~autograd_notes.records.script_cells`
splits the script. Cells run in order in one namespace, compiled
with the script's own file name and line numbers, in the script's folder,
with the same per-example reset as a site build
(:func:`~autograd_notes._reset.reset_example`). This module imports no
Sphinx: it runs where only PyTorch is installed.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._events import Event, recording
from .._normalise import normalise_message
from .._reset import reset_example
from .._traceback import format_clean_traceback
from .script_cells import Cell, split_cells

if TYPE_CHECKING:  # record.py runs the cells: at run time, only it imports the other
    from .record import CellRecord, CellStatus

__all__ = ["Cell", "CellResult", "is_missing_api", "run_cells", "split_cells"]

_MISSING = re.compile(r"unexpected keyword argument|has no attribute|[Uu]nknown attribute|cannot import name")
# what a value of Python's own types lacks is the example's code meeting another value
# (``None`` where a release left no gradient), not an API missing from PyTorch
_PLAIN_OBJECT = re.compile(r"^'(NoneType|int|float|complex|bool|str|bytes|list|tuple|dict|set)' object ")


def is_missing_api(exception: str, message: str) -> bool:
    """Whether an exception says a PyTorch API does not exist (yet) in this release.

    An import from ``torch`` that fails, an attribute of a PyTorch module or
    object that is not there, a keyword argument a function does not take: on
    an older release, what an example calls may simply not exist. Every
    example runs on the pinned PyTorch, so such an error on another release
    says "not available in this release", not that the example is wrong. An
    attribute missing from ``None`` or a number, or another package failing
    to import, is a difference of behaviour or of the environment instead.
    """
    if exception in ("ImportError", "ModuleNotFoundError"):
        return "torch" in message
    if exception == "AttributeError" and _PLAIN_OBJECT.match(message):
        return False
    return exception in ("AttributeError", "TypeError") and _MISSING.search(message) is not None


@dataclass
class CellResult:
    """What one cell printed and what its checks observed."""

    first: int
    last: int
    output: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    status: CellStatus = "ran"
    """``ran``; ``failed`` (an undocumented exception); ``unavailable`` (it failed because an
    API does not exist in this PyTorch, :func:`is_missing_api`); ``not run`` (after either)."""

    def as_record(self) -> CellRecord:
        """Return the cell as stored in a record file."""
        return {
            "lines": [self.first, self.last],
            "status": self.status,
            "output": self.output,
            "events": self.events,
        }


def _clean_output(text: str, root: Path) -> list[str]:
    text = text.replace(f"{root.as_posix()}/", "")
    return normalise_message(text).splitlines()


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
    later cells are ``not run``.
    """
    script = script.resolve()
    _warm_up()
    source = script.read_text(encoding="utf-8")
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": str(script)}
    results = [CellResult(cell.first, cell.last) for cell in split_cells(source)]
    previous = Path.cwd()
    try:
        os.chdir(script.parent)
        reset_example({}, script.name, "before")
        for cell, result in zip(split_cells(source), results, strict=True):
            code = compile("\n" * (cell.first - 1) + cell.code, str(script), "exec")
            stream = io.StringIO()
            with (
                recording() as events,
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
                    missing = is_missing_api(type(error).__name__, str(error))
                    result.status = "unavailable" if missing else "failed"
            result.output = _clean_output(stream.getvalue(), root)
            result.events = events
            if result.status != "ran":
                for later in results[results.index(result) + 1 :]:
                    later.status = "not run"
                break
    finally:
        reset_example({}, script.name, "after")
        os.chdir(previous)
    return results
