"""How much an example may print: per cell and in all, in the build and in a capture.

An example that prints without end would be recorded whole and published
as a page of that size. The limits are generous (the examples print at most
a few KiB per cell): ``AUTOGRAD_NOTES_OUTPUT_LIMIT_KIB`` (default 1024) is
what one example may print in all, and a cell may print a quarter of it.
Over either, the build (:mod:`autograd_notes.site.pages.runner_directives`) and a
capture (:mod:`autograd_notes.records.capture.cells`) stop with
:class:`OutputLimitError`, naming the example and the cell.
"""

from __future__ import annotations

import os

__all__ = [
    "DEFAULT_OUTPUT_LIMIT_KIB",
    "OUTPUT_LIMIT_VARIABLE",
    "OutputLimitError",
    "check_output",
    "output_limits",
]

OUTPUT_LIMIT_VARIABLE = "AUTOGRAD_NOTES_OUTPUT_LIMIT_KIB"
DEFAULT_OUTPUT_LIMIT_KIB = 1024


class OutputLimitError(RuntimeError):
    """An example printed more than it may: the message names it, the cell and the limit."""


def output_limits() -> tuple[int, int]:
    """(characters one cell may print, characters one example may print)."""
    raw = os.environ.get(OUTPUT_LIMIT_VARIABLE, "").strip()
    try:
        kib = int(raw) if raw else DEFAULT_OUTPUT_LIMIT_KIB
    except ValueError:
        raise ValueError(f"{OUTPUT_LIMIT_VARIABLE}={raw!r} is not a whole number of KiB") from None
    if kib <= 0:
        raise ValueError(f"{OUTPUT_LIMIT_VARIABLE}={raw!r} must be positive")
    return kib * 1024 // 4, kib * 1024


def _size(characters: int) -> str:
    return f"{characters / 2**20:.1f} MiB" if characters >= 2**20 else f"{characters / 1024:.0f} KiB"


def check_output(example: str, cells: list[tuple[int, int]]) -> None:
    """Raise :class:`OutputLimitError` if a cell, or the example in all, printed over its limit.

    ``cells`` holds each code cell's first line and how many characters it printed.
    """
    per_cell, per_example = output_limits()
    for first, size in cells:
        if size > per_cell:
            raise OutputLimitError(
                f"{example}: the cell at line {first} printed {_size(size)}, over the limit of "
                f"{_size(per_cell)} per cell (a quarter of {OUTPUT_LIMIT_VARIABLE}, {_size(per_example)})"
            )
    total = sum(size for _first, size in cells)
    if total > per_example:
        raise OutputLimitError(
            f"{example}: it printed {_size(total)}, over the limit of {_size(per_example)} per example "
            f"({OUTPUT_LIMIT_VARIABLE})"
        )
