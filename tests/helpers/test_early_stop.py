"""What a download says first where the site records the reader's PyTorch stopping the example early."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograd_notes import _release_notes
from autograd_notes._download_page import DownloadPage
from autograd_notes._release_notes import NoteCheck, ReleaseNotes, ReleaseRun, early_stop_note, recorded_note

EXAMPLE = "05_x/plot_y.py"
SITE = "https://x.org/"
MISSING = "ImportError: cannot import name 'thing'"


@pytest.fixture
def endings(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """How each recorded release's run of the example ended, for each test to fill."""
    ends: dict[str, str] = {}
    releases = ["2.4.1", "2.5.1", "2.6.0", "2.7.1", "2.8.0"]
    made: ReleaseNotes = {
        "site": SITE,
        "pinned": "2.8.0",
        "releases": releases,
        "examples": [EXAMPLE],
        "checks": [],
        "stops": {EXAMPLE: ends},
    }
    monkeypatch.setattr(_release_notes, "_notes", lambda: made)
    return ends


def test_a_release_that_stops_the_example_says_why_and_the_next_that_runs_it(endings: dict[str, str]) -> None:
    endings.update({"2.4.1": MISSING, "2.5.1": MISSING, "2.6.0": "", "2.7.1": "", "2.8.0": ""})
    said = early_stop_note(EXAMPLE, "2.5.0+cu124")  # another patch of a recorded minor release
    assert said == (
        f"PyTorch 2.5.1 is recorded to stop this example before its end, on a CPU: {MISSING}\n"
        f"  Every release: {SITE}en/examples/05_x/plot_y.html#across-pytorch-releases\n"
        "  The next recorded release that runs it to its end: PyTorch 2.6.0."
    )
    assert early_stop_note(EXAMPLE, "2.6.0") == ""
    assert early_stop_note(EXAMPLE, "2.3.0") == ""  # not recorded: nothing is known
    assert early_stop_note("05_x/plot_other.py", "2.4.1") == ""  # no release stops it
    page = DownloadPage("https://x.org/ru/examples/05_x/plot_y.html", "ru")
    assert early_stop_note(EXAMPLE, "2.4.1", page).startswith(
        "Записано, что PyTorch 2.4.1 на CPU останавливает"
    )


def test_the_next_release_named_ran_to_the_end_and_has_a_record(endings: dict[str, str]) -> None:
    # a review: a release without a record, or one that stopped at another error, was named
    endings.update({"2.4.1": MISSING, "2.6.0": "RuntimeError: another stop", "2.7.1": "", "2.8.0": ""})
    assert early_stop_note(EXAMPLE, "2.4.1").endswith("runs it to its end: PyTorch 2.7.1.")
    assert early_stop_note(EXAMPLE, "2.5.1") == ""  # no record of 2.5.1: nothing is said
    assert "before its end, on a CPU: RuntimeError: another stop\n" in early_stop_note(EXAMPLE, "2.6.0")
    # the last release stops it: no release after it to name
    endings.update({"2.7.1": "", "2.8.0": MISSING})
    assert early_stop_note(EXAMPLE, "2.8.0").endswith("#across-pytorch-releases")


def test_a_drift_note_finds_its_check_by_its_code_not_its_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # a review: a download's lines are moved (header, guard): line 18 there is the script's line 10,
    # and the script's own line 18 holds another check, whose record was quoted
    code = 'with expect_error(ValueError, match="a"):'

    def noted(line: int, written: str, documented: str, text: str) -> NoteCheck:
        runs: list[ReleaseRun] = [
            {"first": "2.4.1", "last": "2.4.1", "mark": "message differs", "text": text}
        ]
        return {
            "example": EXAMPLE,
            "line": line,
            "code": written,
            "kind": "error",
            "label": "",
            "documented": documented,
            "releases": runs,
        }

    made: ReleaseNotes = {
        "site": SITE,
        "pinned": "2.8.0",
        "releases": ["2.4.1", "2.8.0"],
        "examples": [EXAMPLE, "06_z/plot_z.py"],
        "checks": [
            noted(10, code, "ValueError matching 'a'", "ValueError: a, old"),
            noted(18, "with expect_error(KeyError):", "KeyError", "KeyError: b"),
            {
                **noted(50, code, "ValueError matching 'a'", "ValueError: a, elsewhere"),
                "example": "06_z/plot_z.py",
            },
        ],
        "stops": {},
    }
    monkeypatch.setattr(_release_notes, "_notes", lambda: made)
    download = tmp_path / "plot_y.py"
    download.write_text("\n" * 17 + code + "\n", encoding="utf-8")  # the script's line 10, moved to 18
    note = recorded_note("plot_y.py", 18, "ValueError matching 'a'", "2.4.1", source=str(download))
    assert "ValueError: a, old" in note
    assert "KeyError" not in note
    # a Chinese download's text takes fewer lines: its checks move up, and are found as well
    chinese = tmp_path / "zh" / "plot_y.py"
    chinese.parent.mkdir()
    chinese.write_text("\n" * 3 + code + "\n", encoding="utf-8")
    assert "ValueError: a, old" in recorded_note(
        "plot_y.py", 4, "ValueError matching 'a'", "2.4.1", source=str(chinese)
    )
    # a notebook cell (no script of the site's name): the code is looked for in every script, and
    # found in two, so nothing is said of either
    cell = tmp_path / "123.py"
    cell.write_text(code + "\n", encoding="utf-8")
    assert "ValueError: a," not in recorded_note(
        "123.py", 1, "ValueError matching 'a'", "2.4.1", source=str(cell)
    )
