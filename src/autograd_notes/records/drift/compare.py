"""Compare a new capture with the recorded one: every difference, as data.

A difference has a kind (:class:`DifferenceKind`); a changed message is a
word diff (:data:`~.word_diffs.WordDiff`: segments kept, removed and added,
see :mod:`.word_diffs`); why two runners printed otherwise is a reason code
(:mod:`.reasons`). Putting them in words is for the reader's layer:
the drift report for the terminal, the site in the page's language.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TypedDict

from ..._events import Event, WarningEvent
from ..format.record_format import CellRecord, Record, UnexpectedWarning
from ..format.status import Word
from ..format.word_diffs import WordDiff, word_diff
from .printed import same_output, same_printed

__all__ = [
    "Difference",
    "DifferenceJSON",
    "DifferenceKind",
    "WordJSON",
    "compare_live",
    "compare_records",
    "record_cell",
    "same_behaviour",
    "unexpected_text",
]


class DifferenceKind(Word):
    """What differs in one cell between a record and a new capture."""

    NO_LONGER_RAISES = "no longer raises"
    NOW_RAISES = "now raises"
    MESSAGE_CHANGED = "message changed"
    NO_LONGER_WARNS = "no longer warns"
    NOW_WARNS = "now warns"
    WARNING_CHANGED = "warning changed"
    UNEXPECTED_WARNING = "unexpected warning"
    """A warning no ``expect_warning`` catches appeared, went, or changed (a site build fails on one)."""
    VALUE_CHANGED = "value changed"
    OUTPUT_CHANGED = "output changed"
    STATUS_CHANGED = "status changed"
    CELLS_CHANGED = "cells changed"


class WordJSON(TypedDict):
    """One segment of a word diff in the JSON report."""

    change: str
    """``kept``, ``removed`` or ``added``."""
    text: str


class DifferenceJSON(TypedDict):
    """One difference in the JSON drift report (:meth:`Difference.as_dict`)."""

    cell: int
    lines: list[int]
    kind: str
    line: int | None
    old: str | None
    new: str | None
    detail: str
    breaks: bool
    words: list[WordJSON]


@dataclass(frozen=True)
class Difference:
    """One difference in one cell of one example."""

    cell: int
    lines: tuple[int, int]
    kind: DifferenceKind
    line: int | None
    old: str | None
    new: str | None
    detail: str = ""
    """What else there is to say: the documented pattern, a value's label, the output's diff."""
    breaks: bool = False
    """Whether the page is wrong now: a documented check no longer holds, or the cell fails.
    Otherwise the difference is cosmetic: what the page documents still holds (a reworded
    message its pattern still matches, other printed digits)."""
    words: WordDiff = ()
    """For a changed message or warning: the words that changed (:func:`word_diff`)."""

    @classmethod
    def of_output(cls, cell: int, lines: tuple[int, int], old: list[str], new: list[str]) -> Difference:
        """The printed output of a cell changed: ``old`` to ``new``, its diff as the detail."""
        return cls(cell, lines, DifferenceKind.OUTPUT_CHANGED, None, None, None, _output_diff(old, new))

    def as_dict(self) -> DifferenceJSON:
        """Return the JSON report's form of this difference."""
        return DifferenceJSON(
            cell=self.cell,
            lines=list(self.lines),
            kind=self.kind.value,
            line=self.line,
            old=self.old,
            new=self.new,
            detail=self.detail,
            breaks=self.breaks,
            words=[WordJSON(change=segment.change.value, text=segment.text) for segment in self.words],
        )


def _output_diff(old: list[str], new: list[str]) -> str:
    return "\n".join(difflib.unified_diff(old, new, "recorded", "now", n=1, lineterm=""))


@dataclass(frozen=True)
class _CheckDifference:
    """A difference of one check, before it is placed in its cell."""

    kind: DifferenceKind
    old: str | None
    new: str | None
    detail: str = ""
    words: WordDiff = ()


def _error_differences(old: Event, new: Event) -> list[_CheckDifference]:
    if old["kind"] != "error" or new["kind"] != "error":
        return []
    if old["raised"] and not new["raised"]:
        return [
            _CheckDifference(
                DifferenceKind.NO_LONGER_RAISES, old["raised"], None, f"documented: {old['documented']}"
            )
        ]
    if new["raised"] and not old["raised"]:
        return [_CheckDifference(DifferenceKind.NOW_RAISES, None, new["raised"], new["message"] or "")]
    if old["raised"] != new["raised"]:
        return [
            _CheckDifference(DifferenceKind.NOW_RAISES, old["raised"], new["raised"], new["message"] or "")
        ]
    if old["message"] != new["message"]:
        words = word_diff(old["message"] or "", new["message"] or "")
        return [_CheckDifference(DifferenceKind.MESSAGE_CHANGED, old["message"], new["message"], words=words)]
    return []


def _warning_text(event: WarningEvent) -> str:
    return "; ".join(f"{w['category']}: {w['message']}" for w in event["warnings"])


def _warning_differences(old: Event, new: Event) -> list[_CheckDifference]:
    if old["kind"] != "warning" or new["kind"] != "warning":
        return []
    before, after = _warning_text(old), _warning_text(new)
    if before == after:
        return []
    if not new["warnings"]:
        return [
            _CheckDifference(DifferenceKind.NO_LONGER_WARNS, before, None, f"documented: {old['documented']}")
        ]
    if not old["warnings"]:
        return [_CheckDifference(DifferenceKind.NOW_WARNS, None, after)]
    return [_CheckDifference(DifferenceKind.WARNING_CHANGED, before, after, words=word_diff(before, after))]


def _event_differences(old: Event, new: Event) -> list[_CheckDifference]:
    if old["kind"] != new["kind"]:
        return [
            _CheckDifference(
                DifferenceKind.CELLS_CHANGED, old["kind"], new["kind"], "the checks of this cell changed"
            )
        ]
    if old["kind"] == "error":
        return _error_differences(old, new)
    if old["kind"] == "warning":
        return _warning_differences(old, new)
    if new["kind"] == "value" and not same_printed(old["value"], new["value"]):
        label = f"{old['label']}: " if old["label"] else ""
        detail = f"{label}{old['value']} -> {new['value']}"
        return [_CheckDifference(DifferenceKind.VALUE_CHANGED, old["value"], new["value"], detail)]
    return []


def _moved_only(old: Event, new: Event) -> bool:
    """Whether two events differ in their line alone (and floats printed one unit apart)."""
    before: dict[str, object] = {**old, "line": None}
    after: dict[str, object] = {**new, "line": None}
    if before.keys() != after.keys():
        return False
    return all(_same_field(value, after[key]) for key, value in before.items())


def _same_field(old: object, new: object) -> bool:
    if isinstance(old, str) and isinstance(new, str):
        return same_printed(old, new)
    return old == new


def unexpected_text(warned: list[UnexpectedWarning]) -> str:
    """A cell's unexpected warnings as one line: ``line 83: FutureWarning: ...; ...``."""
    return "; ".join(f"line {w['line']}: {w['category']}: {w['message']}" for w in warned)


_MOVED = "the check moved to another line"


def _check_differences(
    before: CellRecord, after: CellRecord, *, cells_edited: bool
) -> tuple[list[_CheckDifference], list[Event]]:
    """The differences of a cell's checks, matched by their order, each with the new check it is of."""
    found: list[_CheckDifference] = []
    of: list[Event] = []
    for old_event, new_event in zip(before["events"], after["events"], strict=False):
        differences = _event_differences(old_event, new_event)
        if not differences and not _moved_only(old_event, new_event):
            # the same observation, but the check was edited
            differences = [
                _CheckDifference(
                    DifferenceKind.CELLS_CHANGED, old_event["documented"], new_event["documented"]
                )
            ]
        elif not differences and old_event["line"] != new_event["line"] and not cells_edited:
            # moved inside its cell, whose lines stayed: the record would name a wrong line
            differences = [
                _CheckDifference(
                    DifferenceKind.CELLS_CHANGED,
                    str(old_event["line"]),
                    str(new_event["line"]),
                    _MOVED,
                )
            ]
        found += differences
        of += [new_event] * len(differences)
    return found, of


def compare_records(old: Record, new: Record) -> list[Difference]:
    """Every difference between a recorded capture and a new one, cell by cell.

    Checks are matched by their order within a cell; the printed output is
    compared line by line. When the example itself was edited (its cells
    moved), that is reported once, as ``cells changed``, before the rest.
    """
    differences: list[Difference] = []
    old_cells, new_cells = old["cells"], new["cells"]
    cells_edited = [c["lines"] for c in old_cells] != [c["lines"] for c in new_cells]
    if cells_edited:
        differences.append(
            Difference(
                0,
                (0, 0),
                DifferenceKind.CELLS_CHANGED,
                None,
                None,
                None,
                "the example was edited since it was recorded",
            )
        )
    for index, (before, after) in enumerate(zip(old_cells, new_cells, strict=False)):
        lines = (after["lines"][0], after["lines"][1])
        if before["status"] != after["status"]:
            differences.append(
                Difference(
                    index,
                    lines,
                    DifferenceKind.STATUS_CHANGED,
                    None,
                    before["status"],
                    after["status"],
                    breaks=after["status"] != "ran",
                )
            )
        found, of = _check_differences(before, after, cells_edited=cells_edited)
        for item, new_event in zip(found, of, strict=True):
            differences.append(
                Difference(
                    index,
                    lines,
                    item.kind,
                    new_event["line"],
                    item.old,
                    item.new,
                    item.detail,
                    breaks=not new_event["holds"],
                    words=item.words,
                )
            )
        if len(before["events"]) != len(after["events"]):
            differences.append(
                Difference(
                    index,
                    lines,
                    DifferenceKind.CELLS_CHANGED,
                    None,
                    str(len(before["events"])),
                    str(len(after["events"])),
                    "checks added or removed",
                )
            )
        warned_before, warned_after = before.get("unexpected", []), after.get("unexpected", [])
        if warned_before != warned_after:
            differences.append(
                Difference(
                    index,
                    lines,
                    DifferenceKind.UNEXPECTED_WARNING,
                    None,
                    unexpected_text(warned_before) or None,
                    unexpected_text(warned_after) or None,
                    breaks=bool(warned_after),
                    words=word_diff(unexpected_text(warned_before), unexpected_text(warned_after)),
                )
            )
        # a changed message or value is printed too: the output diff would say it twice
        said = any(item.detail != _MOVED for item in found)
        if not said and not same_output(before["output"], after["output"]):
            differences.append(Difference.of_output(index, lines, before["output"], after["output"]))
    return differences


def same_behaviour(old: Record, new: Record) -> bool:
    """Whether two records agree on what the example did: :func:`compare_records` finds no difference.

    Its date, running time and runner's versions do not count, nor does what
    :func:`comparable_output` leaves out (where PyTorch's own code moved): a
    new PyTorch or Python that behaves the same is no drift, and a record that
    is not the same always has a difference to show.
    """
    return not compare_records(old, new)


def record_cell(record: Record, line: int) -> CellRecord | None:
    """Return (a copy of) the cell of ``record`` that holds source line ``line``."""
    for cell in record["cells"]:
        first, last = cell["lines"]
        if first <= line <= last:
            return cell.copy()
    return None


def compare_live(live: list[tuple[int, list[str]]], record: Record) -> list[Difference]:
    """Compare a page's outputs (first line, output) with a record, cell by cell."""
    differences = []
    for index, (line, output) in enumerate(live):
        cell = record_cell(record, line)
        recorded = cell["output"] if cell is not None else []
        if not same_output(recorded, output):
            lines = (cell["lines"][0], cell["lines"][1]) if cell is not None else (line, line)
            differences.append(Difference.of_output(index, lines, recorded, output))
    return differences
