"""Compare a new capture with the recorded one: every difference, in words."""

from __future__ import annotations

import difflib
import re
from dataclasses import asdict, dataclass
from typing import Any

from .record import Record

__all__ = [
    "Difference",
    "comparable_output",
    "compare_live",
    "compare_records",
    "explain_output_difference",
    "record_cell",
    "word_diff",
]


@dataclass(frozen=True)
class Difference:
    """One difference in one cell of one example."""

    cell: int
    lines: tuple[int, int]
    kind: str
    """``no longer raises``, ``now raises``, ``message changed``, ``no longer warns``,
    ``now warns``, ``warning changed``, ``value changed``, ``output changed``,
    ``status changed``, ``cells changed``."""
    line: int | None
    old: str | None
    new: str | None
    detail: str = ""
    breaks: bool = False
    """Whether the page is wrong now: a documented check no longer holds, or the cell fails.
    Otherwise the difference is cosmetic: what the page documents still holds (a reworded
    message its pattern still matches, other printed digits)."""

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-ready form."""
        data = asdict(self)
        data["lines"] = list(self.lines)
        return data


def word_diff(old: str, new: str, *, context: int = 4) -> str:
    """Mark the changed words: ``… of [-AddBackward0,-]{+Add,+} is at …``."""
    a, b = old.split(), new.split()
    parts: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            same = a[i1:i2]
            if len(same) > 2 * context:
                head = same[:context] if parts else []
                tail = same[-context:] if i2 < len(a) or j2 < len(b) else []
                same = [*head, "…", *tail]
            parts.extend(same)
            continue
        removed = "[-" + " ".join(a[i1:i2]) + "-]" if i2 > i1 else ""
        added = "{+" + " ".join(b[j1:j2]) + "+}" if j2 > j1 else ""
        parts.append(removed + added)  # a replacement reads as one word: [-old-]{+new+}
    return " ".join(parts)


# Where PyTorch's own code sits moves with every release: the line of a warning's
# location ("torch/utils/checkpoint.py:238: UserWarning: ...") and how many of
# its frames a traceback folds ("[3 frames inside PyTorch: a > b > c]") say
# nothing about the behaviour a page documents, so they never count as drift.
_INTERNAL_LINE = re.compile(r"\b(torch/[\w./-]+\.py):\d+\b")
_FOLDED_FRAMES = re.compile(r"\[\d+ frames? inside PyTorch: [^\]]*\]")


def comparable_output(lines: list[str]) -> list[str]:
    """Printed output as drift compares it: PyTorch-internal line numbers and folded frames left out.

    >>> comparable_output(["torch/autograd/graph.py:979: UserWarning: x", "[2 frames inside PyTorch: f > g]"])
    ['torch/autograd/graph.py:…: UserWarning: x', '[…frames inside PyTorch…]']
    """
    return [
        _FOLDED_FRAMES.sub("[…frames inside PyTorch…]", _INTERNAL_LINE.sub(r"\1:…", line)) for line in lines
    ]


def _output_diff(old: list[str], new: list[str]) -> str:
    return "\n".join(difflib.unified_diff(old, new, "recorded", "now", n=1, lineterm=""))


def _error_differences(
    old: dict[str, Any], new: dict[str, Any]
) -> list[tuple[str, str | None, str | None, str]]:
    if old["raised"] and not new["raised"]:
        return [("no longer raises", old["raised"], None, f"documented: {old['documented']}")]
    if new["raised"] and not old["raised"]:
        return [("now raises", None, new["raised"], new["message"] or "")]
    if old["raised"] != new["raised"]:
        return [("now raises", old["raised"], new["raised"], new["message"] or "")]
    if old["message"] != new["message"]:
        return [
            ("message changed", old["message"], new["message"], word_diff(old["message"], new["message"]))
        ]
    return []


def _warning_text(event: dict[str, Any]) -> str:
    return "; ".join(f"{w['category']}: {w['message']}" for w in event["warnings"])


def _warning_differences(
    old: dict[str, Any], new: dict[str, Any]
) -> list[tuple[str, str | None, str | None, str]]:
    before, after = _warning_text(old), _warning_text(new)
    if before == after:
        return []
    if not new["warnings"]:
        return [("no longer warns", before, None, f"documented: {old['documented']}")]
    if not old["warnings"]:
        return [("now warns", None, after, "")]
    return [("warning changed", before, after, word_diff(before, after))]


def _event_differences(
    old: dict[str, Any], new: dict[str, Any]
) -> list[tuple[str, str | None, str | None, str]]:
    if old["kind"] != new["kind"]:
        return [("cells changed", old["kind"], new["kind"], "the checks of this cell changed")]
    if old["kind"] == "error":
        return _error_differences(old, new)
    if old["kind"] == "warning":
        return _warning_differences(old, new)
    if old["value"] != new["value"]:
        label = f"{old['label']}: " if old.get("label") else ""
        return [("value changed", old["value"], new["value"], f"{label}{old['value']} -> {new['value']}")]
    return []


def compare_records(old: Record, new: Record) -> list[Difference]:
    """Every difference between a recorded capture and a new one, cell by cell.

    Checks are matched by their order within a cell; the printed output is
    compared line by line. When the example itself was edited (its cells
    moved), that is reported once, as ``cells changed``, before the rest.
    """
    differences: list[Difference] = []
    old_cells, new_cells = old["cells"], new["cells"]
    if [c["lines"] for c in old_cells] != [c["lines"] for c in new_cells]:
        differences.append(
            Difference(
                0, (0, 0), "cells changed", None, None, None, "the example was edited since it was recorded"
            )
        )
    for index, (before, after) in enumerate(zip(old_cells, new_cells, strict=False)):
        lines = (after["lines"][0], after["lines"][1])

        def add(
            kind: str,
            line: int | None,
            was: str | None,
            now: str | None,
            detail: str = "",
            breaks: bool = False,
        ) -> None:
            differences.append(Difference(index, lines, kind, line, was, now, detail, breaks))  # noqa: B023

        if before["status"] != after["status"]:
            add("status changed", None, before["status"], after["status"], breaks=after["status"] != "ran")
        events_differ = False
        for old_event, new_event in zip(before["events"], after["events"], strict=False):
            found = _event_differences(old_event, new_event)
            moved_only = {**old_event, "line": None} == {**new_event, "line": None}
            if not found and not moved_only:  # same observation, but the check was edited
                found = [("cells changed", old_event.get("documented"), new_event.get("documented"), "")]
            events_differ = events_differ or bool(found)
            for kind, was, now, detail in found:
                add(kind, new_event.get("line"), was, now, detail, breaks=not new_event.get("holds", True))
        if len(before["events"]) != len(after["events"]):
            add(
                "cells changed",
                None,
                str(len(before["events"])),
                str(len(after["events"])),
                "checks added or removed",
            )
        # a changed message or value is printed too: the output diff would say it twice
        if not events_differ and comparable_output(before["output"]) != comparable_output(after["output"]):
            add("output changed", None, None, None, _output_diff(before["output"], after["output"]))
    return differences


def record_cell(record: Record, line: int) -> dict[str, Any] | None:
    """Return the cell of ``record`` that holds source line ``line``."""
    for cell in record["cells"]:
        first, last = cell["lines"]
        if first <= line <= last:
            return dict(cell)
    return None


def compare_live(live: list[tuple[int, list[str]]], record: Record) -> list[Difference]:
    """Compare a page's outputs (first line, output) with a record, cell by cell."""
    differences = []
    for index, (line, output) in enumerate(live):
        cell = record_cell(record, line)
        recorded = cell["output"] if cell is not None else []
        if comparable_output(recorded) != comparable_output(output):
            lines = (cell["lines"][0], cell["lines"][1]) if cell is not None else (line, line)
            differences.append(
                Difference(index, lines, "output changed", None, None, None, _output_diff(recorded, output))
            )
    return differences


_NUMBER = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?")


def explain_output_difference(first: list[str], second: list[str]) -> str:
    """Say, in one sentence, why two runners printed ``first`` and ``second``."""

    def strip_cuda(lines: list[str]) -> list[str]:
        return [line.replace("torch.cuda.", "torch.") for line in lines]

    if strip_cuda(first) == strip_cuda(second):
        return (
            "Only the tensor type named in the message differs: PyTorch calls a CUDA tensor "
            "torch.cuda.FloatTensor and a CPU tensor torch.FloatTensor."
        )
    if [_NUMBER.sub("#", line) for line in first] == [_NUMBER.sub("#", line) for line in second]:
        return (
            "Only numbers differ: CPU and GPU kernels order and round floating-point operations "
            "differently, so results agree to a tolerance, not to the last digit."
        )
    return "The runners behave differently in this cell; the text around it explains why."
