"""How a runner's record of an example compares with this build's outputs: its status and differences."""

from __future__ import annotations

from dataclasses import dataclass

from ...records.drift.compare import Difference, compare_live, record_cell
from ...records.format.record_format import Record
from ...records.format.status import RecordMatch

__all__ = ["RecordStatus", "record_status"]


@dataclass(frozen=True)
class RecordStatus:
    """How a runner's record of an example compares with what this build printed."""

    status: RecordMatch
    differences: tuple[Difference, ...] = ()
    outputs: tuple[tuple[list[str], list[str]], ...] = ()  # (this build's, the record's) where they differ

    @property
    def cells(self) -> list[int]:
        """The code cells (from 1) whose outputs differ."""
        return [difference.cell + 1 for difference in self.differences]


def record_status(
    live: list[tuple[int, list[str]]], record: Record | None, until: int | None = None
) -> RecordStatus:
    """Compare this build's outputs (first line, output of each code cell) with a record.

    ``until``: the line from which the record ran an earlier version of the page
    (:attr:`~autograd_notes.records.history.runners.RunnerRecord.earlier_from`): only the cells
    before it are compared.
    """
    if record is None:
        return RecordStatus(RecordMatch.NONE)
    if until is not None:
        live = [(line, output) for line, output in live if line < until]
    differences = compare_live(live, record)
    if not differences:
        return RecordStatus(RecordMatch.SAME)
    outputs = []
    for line, output in live:
        cell = record_cell(record, line)
        if cell is not None and cell["output"] != output:
            outputs.append((output, list(cell["output"])))
    return RecordStatus(RecordMatch.DIFFERS, tuple(differences), tuple(outputs))
