"""The cells of a record that failed with an exception the page does not document.

A cell's status is ``failed`` when it raised what no ``expect_error``
expected (:mod:`autograd_notes.records.capture.cells`). With a committed
record to compare with, such a failure is a difference the drift report
shows; without one (the first capture of a runner or a release) it would be
written as what that runner does. :func:`new_failures` is what ``capture``
reports and ``ingest`` refuses unless told otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from .record_format import Record

__all__ = ["Failure", "failures", "new_failures"]


@dataclass(frozen=True)
class Failure:
    """A failed cell: its number in the record (from 1), its lines and the exception's last line."""

    cell: int
    lines: tuple[int, int]
    exception: str

    def __str__(self) -> str:
        first, last = self.lines
        return f"cell {self.cell} (lines {first}-{last}): {self.exception or 'an exception'}"


def failures(record: Record) -> list[Failure]:
    """Every cell of ``record`` that failed, in order (a run stops at the first)."""
    found = []
    for number, cell in enumerate(record["cells"], start=1):
        if cell["status"] == "failed":
            printed = [line.strip() for line in cell["output"] if line.strip()]
            found.append(
                Failure(number, (cell["lines"][0], cell["lines"][-1]), printed[-1] if printed else "")
            )
    return found


def new_failures(record: Record, before: Record | None) -> list[Failure]:
    """The failures of ``record`` that ``before`` (its committed record, if any) does not have."""
    known = {(f.lines, f.exception) for f in failures(before)} if before is not None else set()
    return [f for f in failures(record) if (f.lines, f.exception) not in known]
