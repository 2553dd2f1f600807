"""What a download says first where the site records the reader's PyTorch stopping the example early."""

from __future__ import annotations

import pytest

from autograd_notes import _release_notes
from autograd_notes._download_page import DownloadPage
from autograd_notes._release_notes import NoteCheck, ReleaseNotes, ReleaseRun, early_stop_note

RELEASES = ["2.4.1", "2.5.1", "2.6.0", "2.7.1", "2.8.0"]
EXAMPLE = "05_x/plot_y.py"
SITE = "https://x.org/"


def run(first: str, last: str, mark: str = "same", text: str = "") -> ReleaseRun:
    return {"first": first, "last": last, "mark": mark, "text": text}


def check(line: int, *runs: ReleaseRun) -> NoteCheck:
    return {
        "example": EXAMPLE,
        "line": line,
        "kind": "value",
        "label": "x",
        "documented": "1",
        "releases": list(runs),
    }


@pytest.fixture
def notes(monkeypatch: pytest.MonkeyPatch) -> list[NoteCheck]:
    """The checks of the site's notes, for each test to fill."""
    checks: list[NoteCheck] = []
    made: ReleaseNotes = {
        "site": SITE,
        "pinned": "2.8.0",
        "releases": RELEASES,
        "examples": [EXAMPLE],
        "checks": checks,
    }
    monkeypatch.setattr(_release_notes, "_notes", lambda: made)
    return checks


MISSING = "ImportError: cannot import name 'thing'"


def test_a_release_that_stops_the_example_says_why_and_the_next_that_runs_it(notes: list[NoteCheck]) -> None:
    notes += [
        check(10, run("2.4.1", "2.5.1", "not available", MISSING), run("2.6.0", "2.8.0")),
        check(20, run("2.4.1", "2.5.1", "not available", MISSING), run("2.6.0", "2.8.0")),
    ]
    said = early_stop_note(EXAMPLE, "2.5.0+cu124")  # another patch of a recorded minor release
    assert said == (
        f"PyTorch 2.5.1 is recorded to stop this example before its end: {MISSING}\n"
        f"  Every release: {SITE}en/examples/05_x/plot_y.html#across-pytorch-releases\n"
        "  The next recorded release that runs it to its end: PyTorch 2.6.0."
    )
    assert early_stop_note(EXAMPLE, "2.6.0") == ""
    assert early_stop_note(EXAMPLE, "2.3.0") == ""  # not recorded: nothing is known
    page = DownloadPage("https://x.org/ru/examples/05_x/plot_y.html", "ru")
    assert early_stop_note(EXAMPLE, "2.4.1", page).startswith("Записано, что PyTorch 2.4.1 останавливает")


def test_the_next_release_that_runs_it_is_named_across_gaps_and_not_after_the_last(
    notes: list[NoteCheck],
) -> None:
    # a review: "from PyTorch X" was false where a later release stops it again
    stops = run("2.4.1", "2.4.1", "not available", MISSING)
    again = run("2.7.1", "2.7.1", "not available", "AttributeError: gone")
    notes += [check(10, stops, run("2.5.1", "2.6.0"), again, run("2.8.0", "2.8.0"))]
    assert early_stop_note(EXAMPLE, "2.4.1").endswith(
        "The next recorded release that runs it to its end: PyTorch 2.5.1."
    )
    assert early_stop_note(EXAMPLE, "2.7.1").endswith(
        "The next recorded release that runs it to its end: PyTorch 2.8.0."
    )
    notes[0] = check(10, run("2.4.1", "2.7.1"), run("2.8.0", "2.8.0", "not available", MISSING))
    assert early_stop_note(EXAMPLE, "2.8.0").endswith(
        "#across-pytorch-releases"
    )  # no release after it runs it


def test_a_missing_api_inside_expect_error_that_the_example_goes_past_is_no_stop(
    notes: list[NoteCheck],
) -> None:
    # a review: the timeline marks such a check "not available" too, but the download goes on
    notes += [
        check(10, run("2.4.1", "2.4.1", "not available", "AttributeError: new_api"), run("2.5.1", "2.8.0")),
        check(20, run("2.4.1", "2.8.0")),
    ]
    assert early_stop_note(EXAMPLE, "2.4.1") == ""
    # where the last checks were not reached, the error that stopped the example says why
    notes[1] = check(
        20, run("2.4.1", "2.4.1", "not available", "RuntimeError: stopped here"), run("2.5.1", "2.8.0")
    )
    notes.append(
        check(30, run("2.4.1", "2.4.1", "not available", "RuntimeError: stopped here"), run("2.5.1", "2.8.0"))
    )
    assert "before its end: RuntimeError: stopped here\n" in early_stop_note(EXAMPLE, "2.4.1")
