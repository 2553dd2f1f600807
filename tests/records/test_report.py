"""render_text, render_json and exit_status: the drift report for people and for tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograd_notes._typed_json import check_typed
from autograd_notes.records.drift.compare import Difference, DifferenceKind
from autograd_notes.records.drift.report import (
    DriftReport,
    ExampleResult,
    RunnerSkip,
    exit_status,
    render_earlier,
    render_json,
    render_text,
)
from autograd_notes.records.format.status import DriftStatus
from autograd_notes.records.format.word_diffs import word_diff

SAME, DRIFT, NO_RECORD = DriftStatus.SAME, DriftStatus.DRIFT, DriftStatus.NO_RECORD
RECORDED, ACCEPTED = DriftStatus.RECORDED, DriftStatus.ACCEPTED

OLD = {
    "device": "cpu",
    "device_name": "x86_64",
    "torch": "2.12.0+cpu",
    "variant": "CPU",
    "cuda": None,
    "python": "3.11.7",
}
NOW = {
    "device": "cpu",
    "device_name": "x86_64",
    "torch": "2.13.0+cpu",
    "variant": "CPU",
    "cuda": None,
    "python": "3.11.7",
}
EXAMPLE = "05_inplace/plot_x.py"
ADVICE = (
    "Behaviour drift in {count} example(s). Where a page breaks, change the page (widen its documented "
    "pattern, or raise the floor of the PyTorch it supports) or the code; where the change is cosmetic, "
    "update the text if it quotes the old words. Then, on the pinned PyTorch, accept the new records with "
    "`python -m autograd_notes drift --accept`."
)
SKIP = RunnerSkip("cuda", "no CUDA device is available to this PyTorch (2.13.0+cpu)")


def same(example: str = "01_a/plot_a.py") -> ExampleResult:
    return ExampleResult(example, "cpu", SAME, now=NOW, before=OLD, recorded="2026-01-02")


def drifted(*differences: Difference, status: DriftStatus = DRIFT) -> ExampleResult:
    return ExampleResult(
        EXAMPLE, "cpu", status, now=NOW, before=OLD, recorded="2026-01-02", differences=list(differences)
    )


def diff(
    kind: str, old: str | None, new: str | None, detail: str = "", *, line: int | None = 12
) -> Difference:
    return Difference(1, (8, 20), DifferenceKind(kind), line, old, new, detail)


def changed_words(kind: str, old: str, new: str) -> Difference:
    """A changed message or warning: its words differ."""
    return Difference(1, (8, 20), DifferenceKind(kind), 12, old, new, words=word_diff(old, new))


# -- render_text -------------------------------------------------------------------


def test_a_clean_run_says_what_it_compared() -> None:
    text = render_text([same(), same("02_b/plot_b.py")], [SKIP])
    assert text.splitlines() == [
        "cpu: compared 2 examples, torch 2.13.0+cpu on cpu (x86_64), with their records: 2 same",
        "cuda: skipped: no CUDA device is available to this PyTorch (2.13.0+cpu)",
        "No behaviour drift.",
    ]


def test_a_drifted_example_names_both_torches_its_cells_and_each_difference() -> None:
    result = drifted(
        diff("no longer raises", "RuntimeError", None, "documented: RuntimeError matching 'x'"),
        diff("value changed", "tensor(8.)", "tensor(9.)", "x.grad: tensor(8.) -> tensor(9.)", line=14),
        Difference(3, (30, 41), DifferenceKind.STATUS_CHANGED, None, "ran", "failed", breaks=True),
    )
    text = render_text([same(), result], [])
    assert text.splitlines() == [
        "05_inplace/plot_x.py [cpu]: drift",
        "  recorded: torch 2.12.0+cpu on cpu (x86_64), 2026-01-02",
        "  now:      torch 2.13.0+cpu on cpu (x86_64)",
        "  cell 1 (lines 8-20)",
        "    no longer raises at line 12 [cosmetic]:",
        "        recorded: RuntimeError",
        "        documented: RuntimeError matching 'x'",
        "    value changed at line 14 [cosmetic]:",
        "        x.grad: tensor(8.) -> tensor(9.)",
        "  cell 3 (lines 30-41)",
        "    status changed [breaks the page]:",
        "        the cell ran before and failed now",
        "",
        "cpu: compared 2 examples, torch 2.13.0+cpu on cpu (x86_64), with their records: 1 same, 1 drift",
        "Summary:",
        "  1 example(s) where a documented check no longer holds (breaks the page): 05_inplace/plot_x.py",
        ADVICE.format(count=1),
    ]


@pytest.mark.parametrize(
    ("difference", "body"),
    [
        (
            diff("now raises", None, "RuntimeError", "only for scalar outputs"),
            ["now: RuntimeError", "only for scalar outputs"],
        ),
        (
            diff("now raises", "RuntimeError", "ValueError", "bad value"),
            ["recorded: RuntimeError", "now: ValueError", "bad value"],
        ),
        (
            changed_words("message changed", "of Add, is", "of AddBackward0, is"),
            ["of [-Add,-]{+AddBackward0,+} is"],
        ),
        (
            diff("no longer warns", "UserWarning: careful", None, "documented: UserWarning"),
            ["recorded: UserWarning: careful", "documented: UserWarning"],
        ),
        (diff("now warns", None, "UserWarning: careful"), ["now: UserWarning: careful"]),
        (
            changed_words("warning changed", "UserWarning: a", "FutureWarning: a"),
            ["[-UserWarning:-]{+FutureWarning:+} a"],
        ),
        (diff("cells changed", "0.0", "1.0"), ["recorded: 0.0", "now:      1.0"]),
        (
            diff("output changed", None, None, "--- recorded\n+++ now\n@@ -1 +1 @@\n-a\n+b", line=None),
            ["--- recorded", "+++ now", "@@ -1 +1 @@", "-a", "+b"],
        ),
    ],
    ids=[
        "now-raises",
        "now-raises-another",
        "message-changed",
        "no-longer-warns",
        "now-warns",
        "warning-changed",
        "cells-changed",
        "output-changed",
    ],
)
def test_each_kind_reads_with_its_old_and_new(difference: Difference, body: list[str]) -> None:
    lines = render_text([drifted(difference)], []).splitlines()
    where = f" at line {difference.line}" if difference.line else ""
    start = lines.index(f"    {difference.kind}{where} [cosmetic]:")
    assert lines[start + 1 : start + 1 + len(body)] == [f"        {line}" for line in body]
    assert lines[start + 1 + len(body)] == ""


def test_an_edited_example_is_reported_apart_from_cell_0() -> None:
    result = drifted(
        Difference(
            0,
            (0, 0),
            DifferenceKind.CELLS_CHANGED,
            None,
            None,
            None,
            "the example was edited since it was recorded",
        ),
        Difference(0, (1, 7), DifferenceKind.OUTPUT_CHANGED, None, None, None, "--- recorded\n+++ now"),
    )
    lines = render_text([result], []).splitlines()
    assert lines[3:9] == [
        "  the example",
        "    cells changed [cosmetic]:",
        "        the example was edited since it was recorded",
        "  cell 0 (lines 1-7)",
        "    output changed [cosmetic]:",
        "        --- recorded",
    ]


def test_a_missing_record_asks_for_a_capture() -> None:
    missing = ExampleResult(EXAMPLE, "cpu", NO_RECORD, now=NOW)
    text = render_text([missing], [])
    assert text.splitlines() == [
        "05_inplace/plot_x.py [cpu]: no record",
        "  no record yet: run `python -m autograd_notes capture` and commit it",
        "cpu: compared 1 examples, torch 2.13.0+cpu on cpu (x86_64), with their records: 1 no record",
        ADVICE.format(count=0),
    ]


def test_recorded_and_accepted_examples() -> None:
    recorded = ExampleResult("01_a/plot_a.py", "cpu", RECORDED, now=NOW)
    accepted = drifted(diff("value changed", "1", "2", "1 -> 2"), status=ACCEPTED)
    text = render_text([recorded, accepted], [])
    assert "01_a/plot_a.py" not in text, "a new record is listed by the command, not the report"
    assert "05_inplace/plot_x.py [cpu]: accepted" in text
    assert "with their records: 1 recorded, 1 accepted" in text
    # nothing was compared the same: "No behaviour drift." would claim what no one checked
    assert text.splitlines()[-1] == (
        "1 that differed accepted (their records overwritten); "
        "1 new record(s) written (no record to compare with)."
    )
    assert render_text([same(), recorded], []).splitlines()[-1] == (
        "1 example(s) the same as their records; 1 new record(s) written (no record to compare with)."
    )


def test_each_runner_has_its_summary() -> None:
    cuda_now = {"device": "cuda", "device_name": "NVIDIA H100", "torch": "2.13.0+cu130"}
    results = [same(), ExampleResult("01_a/plot_a.py", "cuda", SAME, now=cuda_now, before=cuda_now)]
    lines = render_text(results, []).splitlines()
    assert lines[:2] == [
        "cpu: compared 1 examples, torch 2.13.0+cpu on cpu (x86_64), with their records: 1 same",
        "cuda: compared 1 examples, torch 2.13.0+cu130 on cuda (NVIDIA H100), with their records: 1 same",
    ]


def test_nothing_compared() -> None:
    assert render_text([], [SKIP]).splitlines() == [
        f"cuda: skipped: {SKIP.reason}",
        "No behaviour drift.",
    ]


# -- render_json ---------------------------------------------------------------------


def test_json_of_a_clean_run() -> None:
    report = render_json([same()], [SKIP])
    assert report == {
        "drift": False,
        "summary": {"compared": 1, "breaks the page": [], "cosmetic": [], "no record": []},
        "skipped": [{"runner": "cuda", "reason": SKIP.reason}],
        "earlier": [],
        "examples": [
            {
                "example": "01_a/plot_a.py",
                "runner": "cpu",
                "status": "same",
                "recorded": "2026-01-02",
                "before": OLD,
                "now": NOW,
                "differences": [],
            }
        ],
    }
    assert json.loads(json.dumps(report)) == report
    check_typed(json.loads(json.dumps(report)), DriftReport)


def test_records_of_an_earlier_version_of_their_page_are_listed_for_people_and_tools() -> None:
    earlier = [(Path("releases/2.11.0/cuda/01_a/plot_a.json"), 25)]
    assert render_earlier([]) == []
    lines = render_earlier(earlier)
    assert lines[0].startswith("1 record(s) ran an earlier version of their page's code;")
    assert lines[1:] == ["  releases/2.11.0/cuda/01_a/plot_a.json: from line 25"]
    report = render_json([same()], [], earlier)
    assert report["earlier"] == [{"record": "releases/2.11.0/cuda/01_a/plot_a.json", "from_line": 25}]
    assert report["drift"] is False, "a lagging record is no drift"
    check_typed(json.loads(json.dumps(report)), DriftReport)


def test_the_summary_separates_broken_pages_from_cosmetic_changes() -> None:
    cosmetic = drifted(diff("message changed", "of Add,", "of AddBackward0,", "w"))
    broken = ExampleResult(
        "06_b/plot_b.py",
        "cpu",
        DRIFT,
        now=NOW,
        before=OLD,
        recorded="2026-01-02",
        differences=[
            Difference(1, (8, 20), DifferenceKind.NO_LONGER_RAISES, 12, "RuntimeError", None, "", breaks=True)
        ],
    )
    missing = ExampleResult("07_c/plot_c.py", "cpu", NO_RECORD, now=NOW)
    lines = render_text([cosmetic, broken, missing], []).splitlines()
    start = lines.index("Summary:")
    assert lines[start + 1 : start + 3] == [
        "  1 example(s) where a documented check no longer holds (breaks the page): 06_b/plot_b.py",
        "  1 example(s) where every documented check still holds, only words or printed output changed "
        "(cosmetic): 05_inplace/plot_x.py",
    ]
    assert render_json([cosmetic, broken, missing], [])["summary"] == {
        "compared": 3,
        "breaks the page": ["06_b/plot_b.py"],
        "cosmetic": ["05_inplace/plot_x.py"],
        "no record": ["07_c/plot_c.py"],
    }


def test_json_of_a_drift_holds_every_difference() -> None:
    difference = diff("value changed", "tensor(8.)", "tensor(9.)", "x.grad: tensor(8.) -> tensor(9.)")
    report = render_json([same(), drifted(difference)], [])
    assert report["drift"] is True
    assert report["examples"][1]["status"] == "drift"
    assert report["examples"][1]["differences"] == [
        {
            "cell": 1,
            "lines": [8, 20],
            "kind": "value changed",
            "line": 12,
            "old": "tensor(8.)",
            "new": "tensor(9.)",
            "detail": "x.grad: tensor(8.) -> tensor(9.)",
            "breaks": False,
            "words": [],
        }
    ]
    assert json.loads(json.dumps(report)) == report


def test_json_of_changed_words_holds_each_segment_with_its_change() -> None:
    difference = changed_words("message changed", "of Add, is", "of AddBackward0, is")
    (written,) = render_json([drifted(difference)], [])["examples"][0]["differences"]
    assert written["words"] == [
        {"change": "kept", "text": "of"},
        {"change": "removed", "text": "Add,"},
        {"change": "added", "text": "AddBackward0,"},
        {"change": "kept", "text": "is"},
    ]
    assert written["detail"] == ""


def test_json_counts_a_missing_record_as_drift() -> None:
    assert render_json([ExampleResult(EXAMPLE, "cpu", NO_RECORD, now=NOW)], [])["drift"] is True


# -- exit_status ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code"), [(SAME, 0), (RECORDED, 0), (ACCEPTED, 0), (DRIFT, 1), (NO_RECORD, 1)]
)
def test_exit_status(status: DriftStatus, code: int) -> None:
    assert exit_status([same(), ExampleResult(EXAMPLE, "cpu", status, now=NOW)]) == code


def test_exit_status_of_nothing_is_0() -> None:
    assert exit_status([]) == 0


def test_the_advice_that_ends_a_report_is_the_baselines() -> None:
    """A release other than the pinned one is recorded for the timeline, not accepted with drift --accept."""
    advice = "PyTorch 2.15.0 has no release records: record it with `nox -s timeline -- 2.15.0`."
    lines = render_text([drifted(diff("value changed", "1", "2"))], [], advice=advice).splitlines()
    assert lines[-1].endswith(f"update the text if it quotes the old words. {advice}")
    assert "drift --accept" not in "\n".join(lines)
    assert render_text([same()], [], advice=advice).splitlines()[-1] == "No behaviour drift."
