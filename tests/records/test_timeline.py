"""Release records and the timeline computed from them, with synthetic records.

No PyTorch release is installed here: the records are written by hand, as
``capture --release`` would write them, so that every mark, summary and
changelog entry can be made to happen.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import tomllib

from autograd_notes import _release_notes, _typed_json
from autograd_notes._download_page import DownloadPage
from autograd_notes._reader_words import LANGUAGES, words
from autograd_notes._release_notes import _MARK_WORDS, recorded_note
from autograd_notes.records.format.record import write_record
from autograd_notes.records.format.record_format import FORMAT
from autograd_notes.records.format.status import Mark
from autograd_notes.records.format.word_diffs import render_word_diff
from autograd_notes.records.history.notes import build_notes, render_notes
from autograd_notes.records.history.releases import (
    default_releases,
    is_release,
    latest_patches,
    load_releases,
    release_of,
    release_records,
    unknown_releases,
    version_key,
)
from autograd_notes.records.history.timeline import check_text, example_timeline, load_timelines, worst
from autograd_notes.records.history.timeline_changes import changelog_entries, release_changes
from autograd_notes.records.history.timeline_summary import summarise, worded_name

SAME, BUILD, WORDS, OUTCOME = Mark.SAME, Mark.BUILD, Mark.WORDS, Mark.OUTCOME
MISSING, NO_RECORD = Mark.MISSING, Mark.NO_RECORD

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "05_x/plot_fixture.py"
TODAY_ERROR = "output 0 of Add, is at version 1"
OLD_ERROR = "output 0 of AddBackward0, is at version 1"


def error(message: str | None, *, raised: str | None = "RuntimeError", holds: bool = True) -> dict[str, Any]:
    return {
        "kind": "error",
        "line": 12,
        "documented": "RuntimeError matching 'is at version 1'",
        "raised": raised if message is not None else None,
        "message": message,
        "holds": holds,
    }


def value(shown: str, *, holds: bool = True, line: int = 20) -> dict[str, Any]:
    return {
        "kind": "value",
        "line": line,
        "label": "x.grad",
        "value": shown,
        "documented": "2.0",
        "holds": holds,
    }


def record(torch: str, cells: list[tuple[str, list[dict[str, Any]], list[str]]]) -> dict[str, Any]:
    """A record: cells as (status, events, output), on lines 1-9, 10-19, 20-29, ..."""
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
        "seconds": 0.1,
        "cells": [
            {"lines": [1 + 10 * n, 10 + 10 * n], "status": status, "output": output, "events": events}
            for n, (status, events, output) in enumerate(cells)
        ],
    }


TODAY = record("2.13.0+cpu", [("ran", [], []), ("ran", [error(TODAY_ERROR)], []), ("ran", [value("2.")], [])])


def releases_of(**records: dict[str, Any] | None) -> dict[str, dict[str, Any] | None]:
    return {name.replace("_", "."): rec for name, rec in records.items()}


# -- releases ----------------------------------------------------------------------------


def test_latest_patches_keeps_the_newest_patch_of_each_minor_in_range() -> None:
    versions = ["2.3.1", "2.4.0", "2.4.1", "2.5.0rc1", "2.5.1", "2.13.0+cpu", "2.13.0", "2.14.1", "2.15.0"]
    assert latest_patches(versions, "2.4.0", "2.14.1") == ["2.4.1", "2.5.1", "2.13.0", "2.14.1"]


def test_version_key_and_release_of() -> None:
    assert version_key("2.10.0") > version_key("2.9.1")
    assert release_of("2.4.1+cu121") == "2.4.1"
    with pytest.raises(ValueError, match=r"'2\.x' is not a PyTorch release"):
        version_key("2.x")


def test_the_default_releases_run_from_the_floor_to_the_newest_installable() -> None:
    releases = default_releases(ROOT / "pyproject.toml")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    floor = next(d for d in project["dependencies"] if d.startswith("torch"))
    major, minor, _ = version_key(releases[0])
    assert floor == f"torch>={major}.{minor}"
    assert releases == latest_patches(releases, releases[0], releases[-1])  # one per minor, in order
    minors = [version_key(r)[1] for r in releases]
    assert minors == list(range(minors[0], minors[-1] + 1))  # no minor release left out
    pinned = (ROOT / "constraints" / "torch.txt").read_text(encoding="utf-8")
    assert any(f"torch=={r}" in pinned for r in releases)


def test_the_timeline_workflow_runs_the_default_releases() -> None:
    workflow = (ROOT / ".github" / "workflows" / "timeline.yml").read_text(encoding="utf-8")
    matrix = re.search(r"release:\s*\[([^\]]*)\]", workflow)
    assert matrix is not None, "timeline.yml has no release matrix"
    listed = [r.strip().strip("\"'") for r in matrix.group(1).split(",")]
    assert listed == default_releases(ROOT / "pyproject.toml")


def test_every_default_release_has_its_records() -> None:
    # an example added since shows "no record" in a release until the timeline runs again
    recorded = sorted(p.name for p in (ROOT / "records" / "releases").iterdir() if p.is_dir())
    assert sorted(default_releases(ROOT / "pyproject.toml")) == recorded


def test_load_releases_reads_release_folders_in_version_order(tmp_path: Path) -> None:
    for release in ("2.10.0", "2.9.1", "notes"):
        write_record(release_records(tmp_path, release) / "cpu" / "05_x" / "plot_fixture.json", TODAY)
    found = load_releases(tmp_path)
    assert list(found) == ["2.9.1", "2.10.0"]
    assert list(found["2.9.1"]) == [EXAMPLE]


# -- marks ---------------------------------------------------------------------------------


def test_marks_of_each_kind() -> None:
    releases = releases_of(
        **{
            "2_9_1": record(
                "2.9.1",
                [("ran", [], []), ("ran", [error(OLD_ERROR, holds=False)], []), ("ran", [value("2.")], [])],
            ),
            "2_10_0": record(
                "2.10.0", [("ran", [], []), ("ran", [error(TODAY_ERROR)], []), ("ran", [value("2.0001")], [])]
            ),
            "2_11_0": record(
                "2.11.0",
                [("ran", [], []), ("ran", [error(None, holds=False)], []), ("ran", [value("2.")], [])],
            ),
            "2_8_0": record(
                "2.8.0",
                [
                    ("unavailable", [], ["AttributeError: module 'torch' has no attribute 'x'"]),
                    ("not run", [], []),
                    ("not run", [], []),
                ],
            ),
            "2_14_1": None,
        }
    )
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", releases)
    assert timeline.releases == ["2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.13.0", "2.14.1"]
    error_check, value_check = (row.checks[0] for row in timeline.rows)
    # 2.9.1: the same RuntimeError, its node named otherwise (the pattern may not match it): other words;
    # 2.11.0: no error at all, another outcome
    assert [error_check.releases[r].mark for r in timeline.releases] == [
        MISSING,
        WORDS,
        SAME,
        OUTCOME,
        SAME,
        NO_RECORD,
    ]
    assert [value_check.releases[r].mark for r in timeline.releases] == [
        MISSING,
        SAME,
        WORDS,
        SAME,
        SAME,
        NO_RECORD,
    ]
    assert error_check.releases["2.8.0"].reason == "AttributeError: module 'torch' has no attribute 'x'"
    assert (
        render_word_diff(error_check.releases["2.9.1"].diff)
        == "RuntimeError: output 0 of [-AddBackward0,-]{+Add,+} is at version 1"
    )
    assert [timeline.mark(r) for r in timeline.releases] == [MISSING, WORDS, WORDS, OUTCOME, SAME, NO_RECORD]
    assert timeline.holds_since() == "2.13.0"


def test_a_failed_cell_is_a_different_outcome_and_a_missing_api_error_not_available() -> None:
    failed = record("2.9.1", [("failed", [], ["ValueError: boom"]), ("not run", [], []), ("not run", [], [])])
    raised = record(
        "2.10.0",
        [
            ("ran", [], []),
            ("ran", [error("cannot import name 'y' from 'torch'", raised="ImportError", holds=False)], []),
            ("ran", [value("2.")], []),
        ],
    )
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.9.1": failed, "2.10.0": raised})
    error_check = timeline.rows[0].checks[0]
    assert error_check.releases["2.9.1"].mark == OUTCOME
    assert error_check.releases["2.9.1"].reason == "ValueError: boom"
    assert error_check.releases["2.10.0"].mark == MISSING
    # a documented AttributeError that happens as documented is no missing API
    documented = {
        **error("'NoneType' object has no attribute 'norm'", raised="AttributeError"),
        "holds": True,
    }
    today = record("2.13.0", [("ran", [], []), ("ran", [documented], []), ("ran", [value("2.")], [])])
    timeline = example_timeline(EXAMPLE, today, "2.13.0", {"2.12.1": today})
    assert timeline.rows[0].checks[0].releases["2.12.1"].mark == SAME


def test_checks_are_matched_by_what_they_document_not_by_line() -> None:
    moved = record(
        "2.12.1",
        [
            ("ran", [], []),
            ("ran", [], []),
            ("ran", [{**error(TODAY_ERROR), "line": 40}], []),
            ("ran", [value("2.", line=50)], []),
        ],
    )
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.12.1": moved})
    assert [row.mark("2.12.1") for row in timeline.rows] == [SAME, SAME]
    # a check the example gained later has no record in the older release
    gained = record("2.12.1", [("ran", [], []), ("ran", [error(TODAY_ERROR)], []), ("ran", [], [])])
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.12.1": gained})
    assert timeline.rows[1].checks[0].releases["2.12.1"].mark == NO_RECORD


def test_a_warning_repeated_in_a_loop_is_said_once_with_its_count() -> None:
    warned = {"kind": "warning", "warnings": [{"category": "UserWarning", "message": "m"}] * 3}
    assert check_text(warned) == "UserWarning: m (×3)"
    assert check_text({"kind": "warning", "warnings": []}) == "no warning"


def test_worst_mark() -> None:
    assert worst([SAME, WORDS, NO_RECORD]) == WORDS
    assert worst([OUTCOME, MISSING]) == MISSING
    assert worst([]) == NO_RECORD


# -- summaries and the changelog ------------------------------------------------------------


def test_summary_of_a_node_renamed_in_the_pinned_release() -> None:
    old = record("2.12.1", [("ran", [], []), ("ran", [error(OLD_ERROR)], []), ("ran", [value("2.")], [])])
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.11.0": old, "2.12.1": old, "2.14.1": TODAY})
    summary = summarise(timeline)
    assert (summary.first, summary.last, summary.holds_since, summary.failing) == (
        "2.11.0",
        "2.14.1",
        "2.11.0",
        [],
    )
    # the releases that word it otherwise, not the release where the words became today's
    assert summary.wording == (("2.11.0", "2.12.1"), ("RuntimeError",), 1, (("2.11.0", "2.12.1"),))
    changes = release_changes([timeline])
    assert [(c.previous, c.release, c.before.mark, c.after.mark) for c in changes] == [
        ("2.12.1", "2.13.0", WORDS, SAME)
    ]


def test_summary_of_an_example_that_breaks_before_a_release() -> None:
    broken = record(
        "2.9.1", [("ran", [], []), ("ran", [error(None, holds=False)], []), ("ran", [value("2.")], [])]
    )
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.9.1": broken, "2.10.0": TODAY})
    summary = summarise(timeline)
    assert (summary.holds_since, summary.before, summary.failing) == ("2.10.0", OUTCOME, ["2.9.1"])
    assert timeline.rows[0].checks[0].releases["2.9.1"].text == "no error"
    # a newer release that breaks: nothing holds "since"
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.14.1": broken})
    assert summarise(timeline).holds_since is None


def test_a_worded_message_is_named_by_its_label_its_outcome_or_its_class() -> None:
    assert worded_name("du with materialize_grads=True", "", "tensor(0.)") == "du with materialize_grads=True"
    assert worded_name("", "UserWarning", "UserWarning: The .grad attribute") == "UserWarning"
    assert worded_name("", "", "RuntimeError: one of the variables") == "RuntimeError"
    assert worded_name("", "", "tensor(0.)") == ""


def test_load_timelines_from_a_records_folder(tmp_path: Path) -> None:
    write_record(tmp_path / "cpu" / "05_x" / "plot_fixture.json", TODAY)
    old = record("2.12.1", [("ran", [], []), ("ran", [error(OLD_ERROR)], []), ("ran", [value("2.")], [])])
    write_record(release_records(tmp_path, "2.12.1") / "cpu" / "05_x" / "plot_fixture.json", old)
    timelines = load_timelines(tmp_path)
    assert list(timelines) == [EXAMPLE]
    assert timelines[EXAMPLE].releases == ["2.12.1", "2.13.0"]
    assert timelines[EXAMPLE].pinned == "2.13.0"


# -- the helper's release notes -----------------------------------------------------------


CHECKED = 'with expect_error(RuntimeError, match="is at version 1"):'
"""The code of the fixture example's line 12, where its error check is."""


def fixture_script(folder: Path, name: str = "plot_fixture.py", line: int = 12) -> Path:
    """A copy of the fixture example whose error check is at ``line`` (a download moves it down)."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"step_{number} = {number}" for number in range(1, 30)]
    lines[line - 1] = CHECKED
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def gallery(tmp_path: Path) -> Path:
    """A gallery holding the fixture example, whose code the notes quote."""
    fixture_script(tmp_path / "gallery" / "05_x")
    return tmp_path / "gallery"


@pytest.fixture
def notes(monkeypatch: pytest.MonkeyPatch, gallery: Path) -> dict[str, Any]:
    """The package's release notes, made from synthetic records."""
    broken = record(
        "2.9.1", [("ran", [], []), ("ran", [error(OLD_ERROR, holds=False)], []), ("ran", [value("2.")], [])]
    )
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.9.1": broken, "2.12.1": TODAY})
    made = json.loads(render_notes(build_notes({EXAMPLE: timeline}, "https://site.example/", gallery)))
    monkeypatch.setattr(_release_notes, "_notes", lambda: made)
    return made


def test_notes_keep_only_checks_that_differ(notes: dict[str, Any]) -> None:
    assert notes["releases"] == ["2.9.1", "2.12.1", "2.13.0"]
    assert notes["examples"] == [EXAMPLE]
    assert notes["pinned"] == "2.13.0"
    assert len(notes["checks"]) == 1
    assert notes["checks"][0]["code"] == CHECKED
    assert notes["checks"][0]["releases"] == [
        # the same RuntimeError, its node renamed: the same outcome in other words
        {"first": "2.9.1", "last": "2.9.1", "mark": WORDS, "text": f"RuntimeError: {OLD_ERROR}"},
        {"first": "2.12.1", "last": "2.13.0", "mark": SAME, "text": ""},
    ]


def test_notes_say_how_each_recorded_run_ended_where_one_stopped_early(gallery: Path) -> None:
    """A download's first note reads these (:func:`autograd_notes._release_notes.early_stop_note`)."""
    lacks = "ImportError: cannot import name 'thing' from 'torch'"
    stopped = record(
        "2.9.1", [("ran", [], []), ("unavailable", [], ["Traceback...", lacks]), ("not run", [], [])]
    )
    # a missing API that expect_error met, the example going on to its end: no stop
    caught = record(
        "2.10.0",
        [
            ("ran", [], []),
            ("ran", [error("module 'torch' has no attribute 'y'", raised="AttributeError", holds=False)], []),
            ("ran", [value("2.")], []),
        ],
    )
    # a machine that could not start a process group: no behaviour of PyTorch's
    network = record(
        "2.11.0",
        [("unavailable", [], ["RuntimeError: Connection refused"]), ("not run", [], []), ("not run", [], [])],
    )
    releases = {"2.9.1": stopped, "2.10.0": caught, "2.11.0": network, "2.12.1": None}
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", releases)
    notes = json.loads(render_notes(build_notes({EXAMPLE: timeline}, "https://site.example/", gallery)))
    assert notes["stops"] == {EXAMPLE: {"2.9.1": lacks, "2.10.0": "", "2.13.0": ""}}
    # no example that every release runs to its end is listed
    alone = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.10.0": caught})
    assert (
        json.loads(render_notes(build_notes({EXAMPLE: alone}, "https://site.example/", gallery)))["stops"]
        == {}
    )


def test_a_drift_on_a_recorded_release_says_what_it_is_recorded_to_do(
    notes: dict[str, Any], tmp_path: Path
) -> None:
    documented = "RuntimeError matching 'is at version 1'"
    page = "https://site.example/en/examples/05_x/plot_fixture.html#across-pytorch-releases"
    script = str(fixture_script(tmp_path / "copy"))
    note = recorded_note("plot_fixture.py", 12, documented, "2.9.1+cu121", source=script)
    assert note == (
        f"  PyTorch 2.9.1 is recorded to do this here (message differs): RuntimeError: {OLD_ERROR}\n"
        f"  What every release from 2.9.1 to 2.13.0 does: {page}"
    )
    # a download's header moves the check down a few lines: it is found by its code
    download = str(fixture_script(tmp_path / "download", line=19))
    assert recorded_note("plot_fixture.py", 19, documented, "2.9.1", source=download) == note
    # a notebook cell has no file of the site's: the check is found by its code in every script
    cell = str(fixture_script(tmp_path / "cell", "ipykernel_1.py", line=3))
    assert recorded_note("<cell>", 3, documented, "2.9.1", source=cell).startswith(
        "  PyTorch 2.9.1 is recorded to do this here"
    )
    assert "not among the releases the site records (2.9.1 to 2.13.0)" in recorded_note(
        "plot_fixture.py", 12, documented, "2.3.0", source=script
    )
    assert "records this check holding on PyTorch 2.12.1" in recorded_note(
        "plot_fixture.py", 12, documented, "2.12.1", source=script
    )
    # another check of a site example (other code, the same words or not): recorded as documented
    # there, so something else differs
    assert "the difference comes from elsewhere" in recorded_note(
        "plot_fixture.py", 5, "something else", "2.9.1", source=script
    )
    assert "the difference comes from elsewhere" in recorded_note(
        "plot_fixture.py", 5, documented, "2.9.1", source=script
    )
    # a reader's own script: nothing is known about it, nothing is said
    assert recorded_note("my_training.py", 5, "something else", "2.9.1") == ""
    # a translated download says it all in its language, the mark too, as its page's legend does
    russian = DownloadPage("https://site.example/ru/examples/05_x/plot_fixture.html", "ru")
    said = recorded_note("plot_fixture.py", 12, documented, "2.9.1", russian, source=script)
    assert "(сообщение другое)" in said
    assert "message differs" not in said


def test_every_mark_a_release_note_holds_has_words_in_every_language() -> None:
    held = {mark.value for mark in Mark} - {Mark.SAME.value, Mark.NO_RECORD.value}
    assert set(_MARK_WORDS) == held
    for language in LANGUAGES:
        assert all(words(language)[key] for key in _MARK_WORDS.values()), language


def test_behaviour_drift_carries_the_note(
    notes: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import torch

    from autograd_notes import BehaviourDrift
    from autograd_notes._drift import Location

    monkeypatch.setattr(torch, "__version__", "2.9.1+cu121")
    drift = BehaviourDrift(
        location=Location("plot_fixture.py", 12, str(fixture_script(tmp_path))),
        documented="RuntimeError matching 'is at version 1'",
        observed="x",
    )
    assert (
        str(drift).splitlines()[-2]
        == f"  PyTorch 2.9.1 is recorded to do this here (message differs): RuntimeError: {OLD_ERROR}"
    )


def test_the_package_ships_the_notes() -> None:
    shipped = json.loads((ROOT / "src" / "autograd_notes" / "release_notes.json").read_text(encoding="utf-8"))
    assert shipped["site"].startswith("https://")
    assert shipped["pinned"] in shipped["releases"]


def test_unknown_or_too_old_releases_are_refused_with_the_installable_ones() -> None:
    installable = ["2.15.0", "2.14.1", "2.13.0+cpu", "2.13.0", "2.4.1", "2.3.1"]
    assert unknown_releases(["2.4.1", "2.14.1"], installable, "2.4.1") is None
    assert unknown_releases(["9.9.9", "2.3.1", "2.4.1"], installable, "2.4.1") == (
        "torch 9.9.9, 2.3.1: not a release of this machine's registry at or above the floor the package "
        "declares; installable from 2.4.1 on: 2.4.1, 2.13.0, 2.14.1, 2.15.0"
    )
    # a registry that cannot be asked refuses nothing: the install then says what is wrong
    assert unknown_releases(["9.9.9"], [], "2.4.1") is None


def test_a_difference_of_the_build_is_told_from_one_of_the_release() -> None:
    def built(torch: str, variant: str, message: str, documented: str) -> dict[str, Any]:
        made = record(
            torch,
            [
                ("ran", [], []),
                ("ran", [{**error(message), "documented": documented}], []),
                ("ran", [value("2.")], []),
            ],
        )
        made["runner"]["variant"] = variant
        return made

    today = built("2.13.0+cpu", "CPU", "no allocator", "RuntimeError matching 'no allocator'")
    # the example documents another pattern on a CUDA build: the check is found by its place
    cuda = "RuntimeError matching 'no driver'"
    releases: dict[str, dict[str, Any] | None] = {
        "2.13.0": built("2.13.0+cu130", "CUDA 13.0", "no driver", cuda),  # the pinned release's CUDA build
        "2.14.1": built("2.14.1+cu130", "CUDA 13.0", "no driver", cuda),
        "2.6.0": built("2.6.0+cu124", "CUDA 12.4", "need an allocator", cuda),
    }
    timeline = example_timeline(EXAMPLE, today, "2.13.0", releases)
    marks = {r: o.mark for r, o in timeline.rows[0].checks[0].releases.items()}
    assert marks == {"2.6.0": WORDS, "2.13.0": SAME, "2.14.1": BUILD}
    assert timeline.holds_in("2.14.1")
    # going from today's CPU build to a CUDA build is no change of a release
    assert [(c.previous, c.release) for c in release_changes([timeline])] == [("2.6.0", "2.13.0")]
    assert summarise(timeline).wording == (("2.6.0",), ("RuntimeError",), 1, (("2.6.0",),))
    # without the pinned release's CUDA build nothing says the other pattern is the same check
    del releases["2.13.0"]
    timeline = example_timeline(EXAMPLE, today, "2.13.0", releases)
    assert timeline.rows[0].checks[0].releases["2.14.1"].mark == NO_RECORD
    assert timeline.mark("2.14.1") == SAME  # its other checks were recorded, and are the same


def test_a_check_moved_or_added_since_is_no_record_and_hides_nothing() -> None:
    old = record("2.12.1", [("ran", [], []), ("ran", [value("7.", line=12)], []), ("ran", [value("2.")], [])])
    old["cells"][1]["events"][0]["documented"] = "7.0"  # a check the example has since removed
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.12.1": old})
    error_check, value_check = (row.checks[0] for row in timeline.rows)
    assert error_check.releases["2.12.1"].mark == NO_RECORD  # not paired with the removed check
    assert value_check.releases["2.12.1"].mark == SAME
    assert timeline.mark("2.12.1") == SAME
    assert summarise(timeline).first == "2.12.1"


def test_an_example_without_checks() -> None:
    empty = record("2.13.0+cpu", [("ran", [], [])])
    timeline = example_timeline(EXAMPLE, empty, "2.13.0", {"2.4.1": None, "2.12.1": empty})
    assert [timeline.mark(r) for r in timeline.releases] == [NO_RECORD, SAME, SAME]


def test_another_patch_of_a_recorded_minor_reads_as_the_recorded_one(
    notes: dict[str, Any], tmp_path: Path
) -> None:
    documented = "RuntimeError matching 'is at version 1'"
    script = str(fixture_script(tmp_path))
    assert recorded_note("plot_fixture.py", 12, documented, "2.9.0+cu128", source=script).startswith(
        "  PyTorch 2.9.1 is recorded to do this here (message differs)"
    )


def test_damaged_notes_are_no_notes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    class Damaged:
        def joinpath(self, name: str) -> Path:
            (tmp_path / name).write_text("{not json", encoding="utf-8")
            return tmp_path / name

    monkeypatch.setattr(_typed_json.resources, "files", lambda package: Damaged())  # the shipped files reader
    _release_notes._notes.cache_clear()
    try:
        assert recorded_note("plot_fixture.py", 12, "x", "2.9.1") == ""
    finally:
        _release_notes._notes.cache_clear()


def test_development_builds_have_a_version_key() -> None:
    assert version_key("2.13.0a0+git1234") == (2, 13, 0)
    assert version_key("2.15.0.dev20260101+cpu") == (2, 15, 0)  # a nightly sorts as its release
    assert sorted(["2.15.0.dev20260101+cpu", "2.13.0+cu130", "2.9.1"], key=version_key) == [
        "2.9.1",
        "2.13.0+cu130",
        "2.15.0.dev20260101+cpu",
    ]
    assert latest_patches(["2.13.0a0", "2.13.0"], "2.13.0", "2.13.0") == ["2.13.0"]
    assert latest_patches(["2.15.0.dev20260101", "2.14.1"], "2.14.0", "2.15.0") == ["2.14.1"]


def test_a_release_is_written_major_minor_patch_and_nothing_else() -> None:
    assert is_release("2.4.1")
    assert is_release(release_of("2.4.1+cu121"))
    others = ["2.4.1+cu121", "2.5.0rc1", "2.13.0a0", "2.15.0.dev20260101", "2.4", "v2.4.1", "2.4.1.post1"]
    for other in [*others, "x"]:
        assert not is_release(other), other


# -- words changed is not outcome changed; diffs in the order of the releases ----------------------


def warning(category: str, message: str, count: int, *, holds: bool = True) -> dict[str, Any]:
    return {
        "kind": "warning",
        "line": 12,
        "documented": "DeprecationWarning matching 'deprecated'",
        "warnings": [{"category": category, "message": message}] * count,
        "holds": holds,
    }


def warned(torch: str, category: str, counted: str, *, message: str = "x is deprecated") -> dict[str, Any]:
    """A record whose second cell expects a warning and counts the DeprecationWarnings it caught."""
    events = [
        warning(category, message, 18, holds=category == "DeprecationWarning"),
        value(counted, holds=counted == "18", line=13),
    ]
    return record(torch, [("ran", [], []), ("ran", events, [])])


def test_the_same_exception_or_category_in_other_words_is_a_message_that_differs() -> None:
    other_type = record(
        "2.9.1", [("ran", [], []), ("ran", [error(OLD_ERROR, raised="ValueError", holds=False)], [])]
    )
    reworded = record("2.10.0", [("ran", [], []), ("ran", [error("no node at all", holds=False)], [])])
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.9.1": other_type, "2.10.0": reworded})
    check = timeline.rows[0].checks[0]
    # another exception type is another outcome; the same one, even unmatched by the pattern, other words
    assert [check.releases[r].mark for r in ("2.9.1", "2.10.0")] == [OUTCOME, WORDS]
    today = warned("2.13.0+cpu", "DeprecationWarning", "18")
    timeline = example_timeline(
        EXAMPLE,
        today,
        "2.13.0",
        {
            "2.12.1": warned("2.12.1", "DeprecationWarning", "18", message="x is now deprecated"),
            "2.14.1": warned("2.14.1", "FutureWarning", "0"),
        },
    )
    warning_check, count_check = timeline.rows[0].checks
    assert warning_check.releases["2.12.1"].mark == WORDS
    assert warning_check.releases["2.14.1"].mark == OUTCOME
    assert count_check.releases["2.14.1"].mark == OUTCOME


def test_a_newer_release_is_diffed_from_today_and_an_older_one_to_today() -> None:
    newer = record("2.14.1", [("ran", [], []), ("ran", [error("output 0 of Add2, is at version 1")], [])])
    older = record("2.12.1", [("ran", [], []), ("ran", [error(OLD_ERROR)], [])])
    timeline = example_timeline(EXAMPLE, TODAY, "2.13.0", {"2.12.1": older, "2.14.1": newer})
    check = timeline.rows[0].checks[0]
    assert render_word_diff(check.releases["2.12.1"].diff) == (
        "RuntimeError: output 0 of [-AddBackward0,-]{+Add,+} is at version 1"
    )
    assert render_word_diff(check.releases["2.14.1"].diff) == (
        "RuntimeError: output 0 of [-Add,-]{+Add2,+} is at version 1"
    )
    changes = release_changes([timeline])
    assert [render_word_diff(change.diff) for change in changes] == [
        "RuntimeError: output 0 of [-AddBackward0,-]{+Add,+} is at version 1",
        "RuntimeError: output 0 of [-Add,-]{+Add2,+} is at version 1",
    ]
    assert all(change.words_only for change in changes)


def test_a_warning_of_another_category_takes_its_count_with_it_in_the_changelog() -> None:
    today = warned("2.13.0+cpu", "DeprecationWarning", "18")
    timeline = example_timeline(EXAMPLE, today, "2.13.0", {"2.14.1": warned("2.14.1", "FutureWarning", "0")})
    changes = release_changes([timeline])
    assert [change.check.kind for change in changes] == ["warning", "value"]
    assert changes[0].category == ("DeprecationWarning", "FutureWarning")
    assert not changes[0].words_only
    (entry,) = changelog_entries(changes)
    assert entry.change is changes[0]
    assert [render_word_diff(follows.diff) for follows in entry.follows] == ["[-18-]{+0+}"]
