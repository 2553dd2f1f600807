"""BehaviourDrift and caller_location: where, what was documented, what happened."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import torch

from autograd_notes import BehaviourDrift, _release_notes
from autograd_notes._download_page import DownloadPage, page_in, running_page
from autograd_notes._drift import STRICT_VARIABLE, Location, caller_location, expected_on_this_release
from autograd_notes._reader_words import words
from autograd_notes._release_notes import (
    NOTES,
    ReleaseNotes,
    pinned_release,
    read_notes,
    recorded_difference,
    recorded_note,
)
from autograd_notes._typed_json import SchemaError, shipped


def where_called() -> Location:
    return caller_location()


def this_line() -> int:
    frame = inspect.currentframe()
    assert frame is not None
    assert frame.f_back is not None
    return frame.f_back.f_lineno


def test_location_prints_as_path_colon_line() -> None:
    assert str(Location("gallery/05_inplace/plot_x.py", 12)) == "gallery/05_inplace/plot_x.py:12"


def test_location_is_frozen_and_compares_by_value() -> None:
    assert Location("a.py", 1) == Location("a.py", 1)
    with pytest.raises(AttributeError):
        Location("a.py", 1).line = 2  # type: ignore[misc]


def test_caller_location_is_the_caller_of_the_caller() -> None:
    location, line = where_called(), this_line()
    assert location == Location("tests/helpers/test_drift.py", line)


def test_caller_location_depth_one_is_the_direct_caller() -> None:
    location, line = caller_location(depth=1), this_line()
    assert location == Location("tests/helpers/test_drift.py", line)


def test_message_names_place_documented_observed_and_torch() -> None:
    drift = BehaviourDrift(
        location=Location("gallery/plot_x.py", 7),
        documented="RuntimeError",
        observed="no exception was raised",
    )
    assert str(drift) == (
        "behaviour drift at gallery/plot_x.py:7\n"
        "  documented: RuntimeError\n"
        "  observed:   no exception was raised\n"
        f"  PyTorch {torch.__version__}: this example was written for a PyTorch that behaves as "
        "documented; yours behaves differently."
    )
    assert drift.location == Location("gallery/plot_x.py", 7)
    assert drift.documented == "RuntimeError"
    assert drift.observed == "no exception was raised"
    assert drift.torch_version == torch.__version__


def test_arguments_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        BehaviourDrift(Location("a.py", 1), "x", "y")  # type: ignore[misc]


def test_no_documented_expectation_can_swallow_it() -> None:
    assert not issubclass(BehaviourDrift, (AssertionError, RuntimeError, ValueError, TypeError))
    drift = BehaviourDrift(location=Location("a.py", 1), documented="x", observed="y")
    caught = None
    try:
        raise drift
    except (AssertionError, RuntimeError):  # pragma: no cover - the point is that this misses
        pytest.fail("BehaviourDrift was caught as an AssertionError or RuntimeError")
    except BehaviourDrift as error:
        caught = error
    assert caught is drift


# -- in a download: the page's language and page, the explanation first ----------------------

SITE = "https://autograd-notes.example/site/"
NON_LEAF = "02_backward/plot_non_leaf_grad.py"


def _differing_check() -> dict[str, Any]:
    """A check of the package's release notes that 2.4.1 is recorded to do otherwise."""
    notes = json.loads(resources.files("autograd_notes").joinpath(NOTES).read_text(encoding="utf-8"))
    return next(
        check
        for check in notes["checks"]
        if check["example"] == NON_LEAF
        and check["releases"][0]["first"] == "2.4.1"
        and check["releases"][0]["mark"] == "message differs"
    )


# the lead and the recorded note of each language, as a reader of that page reads them
LEADS = {
    "en": (
        "PyTorch 2.4.1+cpu does not do what this example's page documents for PyTorch",
        "What every release from",
    ),
    "ru": (
        "PyTorch 2.4.1+cpu ведёт себя не так, как страница этого примера описывает PyTorch",
        "Что делает каждый выпуск",
    ),
    "zh_CN": ("PyTorch 2.4.1+cpu 的行为与本示例页面为 PyTorch", "每个版本的行为"),
    "pt_BR": (
        "O PyTorch 2.4.1+cpu não faz o que a página deste exemplo documenta para o PyTorch",
        "O que cada versão de",
    ),
}


GALLERY = Path(__file__).resolve().parents[2] / "gallery"


def _download(tmp_path: Path, language: str, example: str = NON_LEAF) -> tuple[Path, str]:
    """A download of ``example``: three lines of header, then the gallery script's code (line + 3)."""
    page = f"{SITE}{language}/examples/{example.removesuffix('.py')}.html"
    script = tmp_path / Path(example).name
    code = (GALLERY / example).read_text(encoding="utf-8")
    script.write_text(f"# {page}\n# pip install autograd-notes\nprint()\n{code}", encoding="utf-8")
    return script, page


def _outcome_check() -> dict[str, Any]:
    """A check of the package's release notes that 2.4.1 is recorded not to hold, as a drift words it."""
    notes = json.loads(resources.files("autograd_notes").joinpath(NOTES).read_text(encoding="utf-8"))
    check = next(
        check
        for check in notes["checks"]
        if check["releases"][0]["first"] == "2.4.1" and check["releases"][0]["mark"] == "different outcome"
    )
    return {**check, "documented": _release_notes._described(check)}


@pytest.mark.parametrize("language", sorted(LEADS))
def test_a_downloads_drift_speaks_its_pages_language_and_links_its_page(
    language: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script, page = _download(tmp_path, language)
    check = _differing_check()
    monkeypatch.setattr(torch, "__version__", "2.4.1+cpu")
    line = check["line"] + 3  # a download's header moves its lines down
    drift = BehaviourDrift(
        location=Location("plot_non_leaf_grad.py", line, str(script)),
        documented=check["documented"],
        observed="UserWarning: another text",
    )
    lines = str(drift).splitlines()
    lead, recorded = LEADS[language]
    # the explanation comes first, naming the release the page documents and the place
    assert lines[0].startswith(lead)
    assert f"PyTorch {pinned_release()}" in lines[0]
    assert lines[0].endswith((f"plot_non_leaf_grad.py:{line}:", f"plot_non_leaf_grad.py:{line}："))
    assert lines[1].endswith(check["documented"])
    assert lines[2].endswith("UserWarning: another text")
    # the mark in the page's words too (the Russian message kept "(different outcome)" in English)
    mark = words(language)["mark_words"]
    assert f"({mark})" in lines[3] or f"（{mark}）" in lines[3]
    assert recorded in lines[4]
    assert lines[4].endswith(f"{page}#across-pytorch-releases")
    assert "behaviour drift at" not in str(drift)


def test_outside_a_download_the_message_is_the_english_one(tmp_path: Path) -> None:
    script = tmp_path / "plot_non_leaf_grad.py"
    script.write_text("# my own copy\nprint()\n", encoding="utf-8")
    drift = BehaviourDrift(
        location=Location("plot_non_leaf_grad.py", 56, str(script)), documented="x", observed="y"
    )
    assert str(drift).startswith("behaviour drift at plot_non_leaf_grad.py:56\n  documented: x\n")


def test_the_page_is_read_from_the_checks_file_then_the_main_script(tmp_path: Path) -> None:
    script, page = _download(tmp_path, "pt_BR")
    assert running_page(str(script)) == DownloadPage(page, "pt_BR")
    assert running_page(str(tmp_path / "missing.py")) is None  # pytest's own main names no page
    assert page_in(f"x = '{page}'") is None  # only a comment names the page


def test_the_shipped_notes_are_read_as_their_types_and_a_damaged_file_is_refused() -> None:
    """release_notes.json is checked when read (``ReleaseNotes``): a file of another shape is no notes."""
    text = resources.files("autograd_notes").joinpath(NOTES).read_text(encoding="utf-8")
    notes = read_notes(text)
    assert notes["checks"]
    assert all(
        set(run) == {"first", "last", "mark", "text"} for c in notes["checks"] for run in c["releases"]
    )
    # the positional runs of the old format, a missing field, a wrong type: each refused, naming where
    old = text.replace('{"first": ', "[").replace(', "last": ', ", ")
    with pytest.raises((SchemaError, ValueError)):
        read_notes(old)
    run = {"first": "2.4.1", "last": "2.4.1", "mark": "same"}
    short = json.dumps({**notes, "checks": [{**notes["checks"][0], "releases": [run]}]})
    with pytest.raises(SchemaError, match=r"checks\[0\]\.releases\[0\]: missing key\(s\): 'text'"):
        read_notes(short)
    with pytest.raises(SchemaError, match="pinned: must be a string"):
        read_notes(json.dumps({**notes, "pinned": 2}))


@pytest.mark.parametrize(
    "damaged",
    [
        "[]",
        '{"site": "x"}',
        "{",
        '{"site": "x", "pinned": "2.13.0", "releases": [], "examples": [], "checks": 1}',
    ],
)
def test_damaged_shipped_notes_leave_the_plain_drift_message(
    damaged: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list, missing keys, broken JSON: no notes, and a drift message says what it always said."""
    package = tmp_path / "damaged_notes"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / NOTES).write_text(damaged, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    notes = shipped("damaged_notes", NOTES, ReleaseNotes)
    assert notes is None
    monkeypatch.setattr(_release_notes, "_notes", lambda: notes)
    where = "10_higher_order/plot_forward_mode.py"
    assert recorded_note(where, 112, "warnings on the first call: 18", "2.14.1+cu130") == ""
    assert not recorded_difference(where, 112, "warnings on the first call: 18", "2.14.1+cu130")
    assert pinned_release() is None


# -- a download on a release the site records: it says what is expected there, and goes on ---------


@pytest.mark.parametrize("language", sorted(LEADS))
def test_a_download_goes_on_past_what_its_release_is_recorded_to_do(
    language: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    check = _outcome_check()
    script, page = _download(tmp_path, language, check["example"])
    location = Location(script.name, check["line"] + 3, str(script))
    monkeypatch.delenv(STRICT_VARIABLE, raising=False)
    monkeypatch.setattr(torch, "__version__", "2.4.1+cpu")  # recorded: another outcome here
    assert expected_on_this_release(location, check["documented"], "UserWarning: another text")
    said = capsys.readouterr().out
    lead, recorded = LEADS[language]
    assert said.startswith(lead)
    mark = words(language)["mark_outcome"]
    assert f"({mark})" in said or f"（{mark}）" in said
    assert recorded in said
    assert f"{page}#across-pytorch-releases" in said
    assert said.rstrip().endswith(words(language)["goes_on"].format(variable=STRICT_VARIABLE).strip())


def test_what_no_record_explains_still_stops_a_download(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script, _page = _download(tmp_path, "en")
    check = _differing_check()
    location = Location("plot_non_leaf_grad.py", check["line"] + 3, str(script))
    monkeypatch.delenv(STRICT_VARIABLE, raising=False)
    # the release the page documents is recorded holding here: a difference there is unexplained
    monkeypatch.setattr(torch, "__version__", f"{pinned_release()}+cpu")
    assert not expected_on_this_release(location, check["documented"], "UserWarning: another text")
    # a release the site has never recorded
    monkeypatch.setattr(torch, "__version__", "2.3.0+cpu")
    assert not expected_on_this_release(location, check["documented"], "UserWarning: another text")
    # another check of the example, one no record marks
    monkeypatch.setattr(torch, "__version__", "2.4.1+cpu")
    assert not expected_on_this_release(location, "something else", "UserWarning: another text")
    # strict, as asked
    monkeypatch.setenv(STRICT_VARIABLE, "1")
    assert not expected_on_this_release(location, check["documented"], "UserWarning: another text")
    # not a download: the gallery script the site builds stops at every difference
    monkeypatch.delenv(STRICT_VARIABLE)
    gallery = Location("plot_non_leaf_grad.py", check["line"], str(tmp_path / "gallery_copy.py"))
    (tmp_path / "gallery_copy.py").write_text("print()\n", encoding="utf-8")
    assert not expected_on_this_release(gallery, check["documented"], "UserWarning: another text")
    assert capsys.readouterr().out == ""


def test_a_release_recorded_holding_in_other_words_explains_no_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2.4.1 is recorded holding this check with another message: a reader's failing check is news."""
    check = _differing_check()
    script, _page = _download(tmp_path, "en")
    location = Location(script.name, check["line"] + 3, str(script))
    monkeypatch.delenv(STRICT_VARIABLE, raising=False)
    monkeypatch.setattr(torch, "__version__", "2.4.1+cpu")
    assert not expected_on_this_release(location, check["documented"], "UserWarning: another text")
    assert words("en")["mark_words"] in recorded_note(
        location.path, location.line, check["documented"], "2.4.1+cpu", source=location.file
    )


def test_a_check_is_found_by_its_code_never_by_its_words_alone(tmp_path: Path) -> None:
    """Another line that documents the same (a check only a GPU runs, one no release differs at) is
    not the recorded one: the notes hold nothing about it."""
    check = _outcome_check()
    script, _page = _download(tmp_path, "en", check["example"])
    line = check["line"] + 3
    assert recorded_difference(script.name, line, check["documented"], "2.4.1+cpu", str(script))
    lines = script.read_text(encoding="utf-8").splitlines()
    lines[line - 1] = "check(something_else, documented)  # the same words, other code"
    other = tmp_path / "other" / script.name
    other.parent.mkdir()
    other.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert not recorded_difference(script.name, line, check["documented"], "2.4.1+cpu", str(other))
    # a line that moved (a translated download) is still found by its code
    moved = tmp_path / "moved" / script.name
    moved.parent.mkdir()
    moved.write_text(
        "# one more line of translated text\n" + script.read_text(encoding="utf-8"), encoding="utf-8"
    )
    assert recorded_difference(script.name, line + 1, check["documented"], "2.4.1+cpu", str(moved))
    # no file to read the code from: nothing is known
    assert not recorded_difference(
        script.name, line, check["documented"], "2.4.1+cpu", str(tmp_path / "gone.py")
    )


def test_a_check_that_goes_on_is_still_reported_and_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """check() in a download, on a release recorded doing otherwise: it prints and goes on, no exception."""
    from autograd_notes import check as check_value

    script = tmp_path / "plot_non_leaf_grad.py"
    page = f"{SITE}ru/examples/{NON_LEAF.removesuffix('.py')}.html"
    script.write_text(f"# {page}\n", encoding="utf-8")
    monkeypatch.delenv(STRICT_VARIABLE, raising=False)
    monkeypatch.setattr("autograd_notes._drift.recorded_difference", lambda *args: True)
    monkeypatch.setattr(
        "autograd_notes._values.caller_location", lambda: Location("plot_non_leaf_grad.py", 9, str(script))
    )
    check_value(2, 3, label="value")  # no BehaviourDrift
    said = capsys.readouterr().out
    assert said.startswith("value: 2\n")
    assert words("ru")["goes_on"].format(variable=STRICT_VARIABLE).strip() in said


@pytest.mark.parametrize("language", sorted(LEADS))
def test_what_a_download_saw_is_said_in_its_pages_language(language: str, tmp_path: Path) -> None:
    """'no warning was emitted' and 'no exception was raised' are the page's words, not English."""
    page = f"{SITE}{language}/examples/08_grad_modes/plot_mine.html"
    for body, key in (
        ("with expect_warning(UserWarning):\n    pass\n", "no_warning"),
        ("with expect_error(ValueError):\n    pass\n", "no_exception"),
    ):
        script = tmp_path / "plot_mine.py"
        header = f"# {page}\n# pip install autograd-notes\n"
        script.write_text(f"{header}from autograd_notes import expect_error, expect_warning\n{body}", "utf-8")
        done = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")},
            check=False,
        )
        assert done.returncode != 0
        assert words(language)["observed"].format(observed=words(language)[key]) in done.stderr, done.stderr
