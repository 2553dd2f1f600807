"""Drift reports: a readable one for people, a JSON one for tools."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from ..format.record_format import Runner
from ..format.status import DriftStatus
from ..format.word_diffs import render_word_diff
from .baseline import ACCEPT_PINNED
from .compare import Difference, DifferenceJSON, DifferenceKind

__all__ = [
    "UNRECORDED",
    "DriftReport",
    "ExampleResult",
    "RunnerSkip",
    "exit_status",
    "render_earlier",
    "render_json",
    "render_text",
]

SummaryJSON = TypedDict(
    "SummaryJSON",
    {"compared": int, "breaks the page": list[str], "cosmetic": list[str], "no record": list[str]},
)
"""How many examples were compared, and which broke their page, changed cosmetically or have no record."""


class SkipJSON(TypedDict):
    """A runner that was not compared, and why."""

    runner: str
    reason: str


class _Noted(TypedDict, total=False):
    note: str
    """Why no record was made (a timeout, a crash)."""


class ExampleJSON(_Noted):
    """One example compared on one runner."""

    example: str
    runner: str
    status: str
    recorded: str | None
    before: Runner | None
    now: Runner
    differences: list[DifferenceJSON]


class EarlierJSON(TypedDict):
    """A record of an earlier version of its page: its file under the records folder, and from where."""

    record: str
    from_line: int


class DriftReport(TypedDict):
    """The JSON drift report (``--json``), for tools: its types are its schema (``check_typed``)."""

    drift: bool
    summary: SummaryJSON
    skipped: list[SkipJSON]
    earlier: list[EarlierJSON]
    """Records that ran an earlier version of their page (:func:`render_earlier`)."""
    examples: list[ExampleJSON]


@dataclass
class ExampleResult:
    """One example compared on one runner."""

    example: str
    runner: str
    status: DriftStatus
    now: Runner
    before: Runner | None = None
    recorded: str | None = None
    differences: list[Difference] = field(default_factory=list)
    note: str = ""
    """Why no record was made (:attr:`DriftStatus.TIMED_OUT`, :attr:`DriftStatus.NO_RESULT`,
    :attr:`DriftStatus.FAILED`)."""


UNRECORDED = (DriftStatus.TIMED_OUT, DriftStatus.NO_RESULT, DriftStatus.FAILED)
"""The statuses of an example whose run made no record."""


@dataclass(frozen=True)
class RunnerSkip:
    """A runner that was not compared, and why."""

    runner: str
    reason: str


def _torch(runner: Runner | None) -> str:
    if runner is None:
        return "-"
    return f"torch {runner['torch']} on {runner['device']} ({runner['device_name']})"


BREAKS = "breaks the page"
COSMETIC = "cosmetic"


def _severity(difference: Difference) -> str:
    return BREAKS if difference.breaks else COSMETIC


def _difference_text(difference: Difference) -> str:
    where = f" at line {difference.line}" if difference.line else ""
    head = f"{difference.kind}{where} [{_severity(difference)}]"
    if difference.kind in (DifferenceKind.NO_LONGER_RAISES, DifferenceKind.NO_LONGER_WARNS):
        body = f"recorded: {difference.old}\n{difference.detail}"
    elif difference.kind in (DifferenceKind.NOW_RAISES, DifferenceKind.NOW_WARNS):
        was = f"recorded: {difference.old}\n" if difference.old else ""
        body = f"{was}now: {difference.new}" + (f"\n{difference.detail}" if difference.detail else "")
    elif difference.kind == DifferenceKind.STATUS_CHANGED:
        body = f"the cell {difference.old} before and {difference.new} now"
    else:
        shown = render_word_diff(difference.words) if difference.words else difference.detail
        body = shown or f"recorded: {difference.old}\nnow:      {difference.new}"
    return head + ":\n" + textwrap.indent(body.strip(), "    ")


def render_text(results: list[ExampleResult], skips: list[RunnerSkip], *, advice: str = ACCEPT_PINNED) -> str:
    """Render the report a maintainer reads: each difference, then a summary.

    ``advice`` ends it where something differs: how to record the new behaviour
    (:class:`~.baseline.Baseline`; by default, the pinned release's ``drift --accept``).
    """
    lines: list[str] = []
    drifted = [r for r in results if r.status == DriftStatus.DRIFT]
    for result in results:
        if result.status in (DriftStatus.SAME, DriftStatus.RECORDED):
            continue
        lines.append(f"{result.example} [{result.runner}]: {result.status}")
        if result.status == DriftStatus.NO_RECORD:
            lines.append("  no record yet: run `python -m autograd_notes capture` and commit it")
            continue
        if result.status in UNRECORDED:
            lines.append(textwrap.indent(result.note or "no record was made", "  "))
            continue
        lines.append(f"  recorded: {_torch(result.before)}, {result.recorded}")
        lines.append(f"  now:      {_torch(result.now)}")
        was, now = result.before.get("variant") if result.before else None, result.now.get("variant")
        if was and now and was != now:
            # e.g. the CPU build's records checked on a CUDA build: a build-specific message
            # (pin_memory's) differs for that reason alone, whatever the release
            lines.append(
                f"  build:    {was} -> {now}: a build-specific message may differ for that reason alone"
            )
        cells: dict[tuple[int, tuple[int, int]], list[Difference]] = {}
        for difference in result.differences:  # the example's own (lines 0-0) apart from cell 0's
            cells.setdefault((difference.cell, difference.lines), []).append(difference)
        for (cell, (first, last)), differences in cells.items():
            lines.append(f"  cell {cell} (lines {first}-{last})" if first else "  the example")
            lines.extend(textwrap.indent(_difference_text(d), "    ") for d in differences)
        lines.append("")
    for runner in sorted({r.runner for r in results}):
        mine = [r for r in results if r.runner == runner]
        counts = {status: sum(r.status == status for r in mine) for status in DriftStatus}
        now = _torch(mine[0].now) if mine else "-"
        summary = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
        lines.append(f"{runner}: compared {len(mine)} examples, {now}, with their records: {summary}")
    for skip in skips:
        lines.append(f"{skip.runner}: skipped: {skip.reason}")
    if drifted:
        lines.extend(_summary(drifted))
    unrecorded = [r.example for r in results if r.status in UNRECORDED]
    if unrecorded:
        lines.append(f"Not recorded ({len(unrecorded)}): {', '.join(unrecorded)}")
    if not drifted and not any(r.status == DriftStatus.NO_RECORD for r in results):
        lines.append(_no_drift(results))
    else:
        lines.append(
            f"Behaviour drift in {len(drifted)} example(s). Where a page breaks, change the page (widen "
            "its documented pattern, or raise the floor of the PyTorch it supports) or the code; where "
            f"the change is cosmetic, update the text if it quotes the old words. {advice}"
        )
    return "\n".join(lines)


def _no_drift(results: list[ExampleResult]) -> str:
    """The last line where nothing drifted: a record written or accepted is nothing compared."""
    same, written, accepted = (
        sum(r.status == status for r in results)
        for status in (DriftStatus.SAME, DriftStatus.RECORDED, DriftStatus.ACCEPTED)
    )
    if not written and not accepted:
        return "No behaviour drift."
    said = [f"{same} example(s) the same as their records"] if same else []
    if accepted:
        said.append(f"{accepted} that differed accepted (their records overwritten)")
    if written:
        said.append(f"{written} new record(s) written (no record to compare with)")
    return "; ".join(said) + "."


def _kinds(results: list[ExampleResult]) -> tuple[list[str], list[str]]:
    """The drifted examples whose page breaks, and those whose differences are all cosmetic."""
    drifted = [r for r in results if r.status == DriftStatus.DRIFT]
    breaking = sorted({r.example for r in drifted if any(d.breaks for d in r.differences)})
    cosmetic = sorted({r.example for r in drifted} - set(breaking))
    return breaking, cosmetic


def _summary(drifted: list[ExampleResult]) -> list[str]:
    """How many examples the differences break, and how many changed only cosmetically."""
    breaking, cosmetic = _kinds(drifted)
    lines = ["Summary:"]
    if breaking:
        lines.append(
            f"  {len(breaking)} example(s) where a documented check no longer holds ({BREAKS}): "
            f"{', '.join(breaking)}"
        )
    if cosmetic:
        lines.append(
            f"  {len(cosmetic)} example(s) where every documented check still holds, only words or "
            f"printed output changed ({COSMETIC}): {', '.join(cosmetic)}"
        )
    return lines


def _example_json(result: ExampleResult) -> ExampleJSON:
    found = ExampleJSON(
        example=result.example,
        runner=result.runner,
        status=result.status.value,
        recorded=result.recorded,
        before=result.before,
        now=result.now,
        differences=[d.as_dict() for d in result.differences],
    )
    if result.note:
        found["note"] = result.note
    return found


def render_json(
    results: list[ExampleResult], skips: list[RunnerSkip], earlier: list[tuple[Path, int]] | None = None
) -> DriftReport:
    """Render the same report for tools (``earlier``: as :func:`render_earlier` takes it)."""
    breaking, cosmetic = _kinds(results)
    summary: SummaryJSON = {
        "compared": len(results),
        "breaks the page": breaking,
        "cosmetic": cosmetic,
        "no record": sorted({r.example for r in results if r.status == DriftStatus.NO_RECORD}),
    }
    return DriftReport(
        drift=any(r.status in (DriftStatus.DRIFT, DriftStatus.NO_RECORD) for r in results),
        summary=summary,
        skipped=[SkipJSON(runner=s.runner, reason=s.reason) for s in skips],
        earlier=[EarlierJSON(record=path.as_posix(), from_line=line) for path, line in earlier or []],
        examples=[_example_json(r) for r in results],
    )


def exit_status(results: list[ExampleResult]) -> int:
    """1 when any example drifted, has no record, or made none (timed out, crashed), else 0."""
    return int(any(r.status in (DriftStatus.DRIFT, DriftStatus.NO_RECORD, *UNRECORDED) for r in results))


def render_earlier(earlier: list[tuple[Path, int]]) -> list[str]:
    """What the report says of records of an earlier version of their page, one line each.

    ``earlier``: each such record (its file under the records folder) and the
    line it is of the earlier version from. Empty where there is none.
    """
    if not earlier:
        return []
    heading = (
        f"{len(earlier)} record(s) ran an earlier version of their page's code; each page shows its record "
        "only before the line given (where the first cell whose code changed starts), until a machine of "
        "that runner records it again "
        "(CONTRIBUTING.md, 'Record on a GPU machine'):"
    )
    return [heading, *(f"  {path.as_posix()}: from line {line}" for path, line in earlier)]
