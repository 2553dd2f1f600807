"""What changed in each release, one line per change, in the changelog page's words (nox -s timeline)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from autograd_notes.records.cli import main
from autograd_notes.records.format.record import write_record
from autograd_notes.records.format.record_format import FORMAT
from autograd_notes.records.history.changelog import (
    Sentence,
    change_sentence,
    change_text,
    release_change_lines,
)
from autograd_notes.records.history.timeline import example_timeline
from autograd_notes.records.history.timeline_changes import changelog_entries, release_changes

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "05_x/plot_fixture.py"


def error(message: str | None, raised: str = "RuntimeError") -> dict[str, Any]:
    return {
        "kind": "error",
        "line": 12,
        "documented": "RuntimeError matching 'version'",
        "raised": raised if message is not None else None,
        "message": message,
        "holds": message is not None and raised == "RuntimeError",
    }


def value(shown: str, documented: str = "2.", *, holds: bool | None = None) -> dict[str, Any]:
    return {
        "kind": "value",
        "line": 22,
        "label": "x.grad",
        "value": shown,
        "documented": documented,
        "holds": shown == documented if holds is None else holds,
    }


def warning(category: str, count: int) -> dict[str, Any]:
    return {
        "kind": "warning",
        "line": 12,
        "documented": "DeprecationWarning matching 'deprecated'",
        "warnings": [{"category": category, "message": "x is deprecated"}] * count,
        "holds": category == "DeprecationWarning",
    }


def record(torch: str, *cells: tuple[str, list[dict[str, Any]], list[str]]) -> dict[str, Any]:
    """A record whose cells are on lines 1-10, 11-20, 21-30, ..."""
    return {
        "format": FORMAT,
        "example": EXAMPLE,
        "runner": {
            "device": "cpu",
            "device_name": "x86_64",
            "torch": torch,
            "variant": "CPU",
            "cuda": None,
            "python": "3.11.7",
        },
        "recorded": "2026-11-24",
        "cells": [
            {"lines": [1 + 10 * n, 10 + 10 * n], "status": status, "output": output, "events": events}
            for n, (status, events, output) in enumerate(cells)
        ],
    }


def ran(*events: dict[str, Any]) -> tuple[str, list[dict[str, Any]], list[str]]:
    return "ran", list(events), []


def texts(today: dict[str, Any], **releases: dict[str, Any]) -> list[tuple[Sentence, str]]:
    """Each changelog entry of ``releases`` against today (2.13.0): its sentence and its line."""
    timeline = example_timeline(
        EXAMPLE, today, "2.13.0", {k.replace("_", "."): v for k, v in releases.items()}
    )
    entries = changelog_entries(release_changes([timeline]))
    return [(change_sentence(entry).sentence, change_text(entry)) for entry in entries]


TODAY = record("2.13.0+cpu", ran(), ran(error("output 0 of Add, is at version 1")), ran(value("2.")))


def test_a_reworded_message_and_a_value_printed_otherwise() -> None:
    reworded = error("output 0 of AddBackward0, is at version 1")
    older = record("2.12.1", ran(), ran(reworded), ran(value("2.0", holds=True)))
    assert texts(TODAY, **{"2_12_1": older}) == [
        (
            Sentence.WORDED,
            "The `RuntimeError` is worded otherwise: "
            "`RuntimeError: output 0 of [-AddBackward0,-]{+Add,+} is at version 1`.",
        ),
        (Sentence.PRINTED, "The value `x.grad` is printed otherwise: `[-2.0-]{+2.+}`."),
    ]


def test_another_value_and_another_outcome() -> None:
    older = record("2.12.1", ran(), ran(error("bad", raised="ValueError")), ran(value("1.")))
    assert texts(TODAY, **{"2_12_1": older}) == [
        (
            Sentence.OUTCOME,
            "The outcome changed from `ValueError` to `RuntimeError`: "
            "`[-ValueError: bad-]{+RuntimeError: output 0 of Add, is at version 1+}`.",
        ),
        (Sentence.VALUE, "The value `x.grad` changed: `[-1.-]{+2.+}`."),
    ]


def test_an_error_that_appears_says_what_there_is() -> None:
    older = record("2.12.1", ran(), ran(error(None)), ran(value("2.")))
    assert texts(TODAY, **{"2_12_1": older}) == [
        (
            Sentence.OUTCOME,
            "The outcome changed from no error to `RuntimeError`: "
            "`RuntimeError: output 0 of Add, is at version 1`.",
        ),
    ]


def test_a_cell_that_stops_before_the_check_and_one_that_runs_to_it() -> None:
    stopped = record(
        "2.12.1", ("failed", [], ["Traceback (most recent call last):", "OSError: gone"]), ("not run", [], [])
    )
    stopped["cells"].append({"lines": [21, 30], "status": "not run", "output": [], "events": []})
    lines = [text for _, text in texts(TODAY, **{"2_12_1": stopped})]
    assert lines == ["The cell now gets past the error that stopped it before: `OSError: gone`."] * 2
    assert [sentence for sentence, _ in texts(TODAY, **{"2_14_1": stopped})] == [Sentence.STOPS] * 2


def test_a_warning_of_another_category_with_the_value_that_counts_it() -> None:
    def warned(torch: str, category: str, counted: str) -> dict[str, Any]:
        return record(torch, ran(), ran(warning(category, 18), value(counted, documented="18")))

    today = warned("2.13.0+cpu", "DeprecationWarning", "18")
    assert texts(today, **{"2_14_1": warned("2.14.1", "FutureWarning", "0")}) == [
        (
            Sentence.CATEGORY,
            "The warning `x is deprecated (×18)` is a `FutureWarning`, no longer a `DeprecationWarning`. "
            "With it, the value `x.grad` changed: `[-18-]{+0+}`.",
        ),
    ]


def _line_of(example: str, kind: str, documented: str) -> int:
    """The line of a check, as this PyTorch's record of the page has it (the page may move it)."""
    record = json.loads((ROOT / "records" / "cpu" / example).with_suffix(".json").read_text("utf-8"))
    (line,) = [
        event["line"]
        for cell in record["cells"]
        for event in cell["events"]
        if event["kind"] == kind and documented in event["documented"]
    ]
    return int(line)


def test_what_changed_in_2_12_1_and_2_15_0() -> None:
    """The project's records: 2.12.1 brought the collectives' warnings, 2.15.0 two wordings."""
    mismatch = _line_of("07_cpu_vs_gpu/plot_device_mismatch.py", "error", "mat2 must be a matrix")
    reentrant = _line_of(
        "17_precision_and_memory/plot_activation_checkpointing.py",
        "warning",
        "use_reentrant parameter should be passed",
    )
    lines = release_change_lines(ROOT / "records", ["2.15.0", "2.12.1", "2.4.1"])
    assert lines[:2] == [
        "2.4.1: the oldest recorded release, where the comparisons start",
        "2.12.1 (against 2.11.0): 4 change(s)",
    ]
    # torch.distributed.nn's deprecations and c10d's autograd-kernel warning, then a reworded DTensor error
    assert [line.split(":")[0].strip() for line in lines[2:6]] == [
        "The outcome changed from no warning to `FutureWarning`",
        "The outcome changed from no warning to `UserWarning`",
        "The outcome changed from `UserWarning` to `FutureWarning, UserWarning`",
        "The `RuntimeError` is worded otherwise",
    ]
    assert all("18_distributed/plot_collectives_no_gradient.py line" in line for line in lines[2:5])
    assert "18_distributed/plot_sharded_gradients.py line" in lines[5]
    assert lines[6:] == [
        "2.15.0 (against 2.14.1): 2 change(s)",
        "  The `RuntimeError` is worded otherwise: `RuntimeError: {+mm:+} mat2 must be a "
        "[-matrix-]{+matrix, got 0-D tensor+}`. "
        f"On 07_cpu_vs_gpu/plot_device_mismatch.py line {mismatch}.",
        "  The `UserWarning` is worded otherwise: `… should be passed explicitly. "
        "[-Starting in PyTorch 2.9,-]{+In a future release,+} calling checkpoint without use_reentrant …`. "
        f"On 17_precision_and_memory/plot_activation_checkpointing.py line {reentrant}.",
    ]


def test_the_changes_command_prints_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "records"
    write_record(records / "cpu" / EXAMPLE.replace(".py", ".json"), TODAY)  # type: ignore[arg-type]
    older = record("2.12.1", ran(), ran(error("output 0 of AddBackward0, is at version 1")), ran(value("2.")))
    write_record(records / "releases" / "2.12.1" / "cpu" / EXAMPLE.replace(".py", ".json"), older)  # type: ignore[arg-type]
    (tmp_path / "gallery").mkdir()
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    assert main(["changes", "--root", str(tmp_path), "2.12.1", "2.15.0"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "2.12.1: the oldest recorded release, where the comparisons start",
        "2.15.0: no records",
    ]
    assert main(["changes", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "2.12.1: the oldest recorded release, where the comparisons start"
    ]


def test_the_timeline_session_prints_what_changed_after_each_capture() -> None:
    source = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    (timeline,) = [
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef) and node.name == "timeline"
    ]
    calls = [ast.get_source_segment(source, n) or "" for n in ast.walk(timeline) if isinstance(n, ast.Call)]
    assert any('"autograd_notes", "changes", release' in call for call in calls)
