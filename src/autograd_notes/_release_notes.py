"""What the recorded PyTorch releases do where a documented check differs, for drift messages.

The site records every example under a range of PyTorch releases (its
timeline). The package carries the part a reader's run needs,
``release_notes.json`` (written from the records by ``python -m
autograd_notes release-notes``): so that a downloaded example that meets a
:class:`~autograd_notes.BehaviourDrift` on an older release says what that
release is recorded to do at that check, and where the page shows every
release, instead of a bare "documented / observed".
"""

from __future__ import annotations

import functools
import linecache
from pathlib import Path
from typing import TypedDict

from packaging.version import InvalidVersion, Version

from ._download_page import DownloadPage
from ._reader_words import words
from ._typed_json import read_typed, shipped

__all__ = [
    "NoteCheck",
    "ReleaseNotes",
    "ReleaseRun",
    "early_stop_note",
    "pinned_release",
    "recorded_difference",
    "recorded_note",
    "site_root",
]


class ReleaseRun(TypedDict):
    """Consecutive recorded releases that observed the same at a check."""

    first: str
    last: str
    mark: str
    """What the releases did against the page: ``same``, or how they differ (``different outcome``...)."""
    text: str
    """What they observed ("" where it is what the page documents)."""


class NoteCheck(TypedDict):
    """A documented check that some recorded release does otherwise, and what each release did."""

    example: str
    line: int
    code: str
    """The check's line of code in the gallery script, stripped: a download or a translated copy
    moves its lines, never its code, so a check is found by it."""
    kind: str
    label: str
    documented: str
    releases: list[ReleaseRun]


class ReleaseNotes(TypedDict):
    """``release_notes.json``: what a download needs to say what a reader's release is recorded to do."""

    site: str
    pinned: str
    releases: list[str]
    examples: list[str]
    checks: list[NoteCheck]
    stops: dict[str, dict[str, str]]
    """For each example that some recorded release stopped early: each recorded release, and how its
    run ended ("" where it ran to its end, else the last line of the error that stopped it)."""


NOTES = "release_notes.json"
SECTION = "across-pytorch-releases"


def read_notes(text: str) -> ReleaseNotes:
    """Parse and check the notes (:class:`ReleaseNotes`); :class:`SchemaError` or ``ValueError`` if not."""
    return read_typed(text, ReleaseNotes)


@functools.cache
def _notes() -> ReleaseNotes | None:
    # missing or damaged: a drift message says what it always said
    return shipped("autograd_notes", NOTES, ReleaseNotes)


def pinned_release() -> str | None:
    """The PyTorch release the site this package came from pins (its runner records' release)."""
    notes = _notes()
    return notes["pinned"] if notes else None


def site_root() -> str | None:
    """The address of the site this package came from (ending in ``/``)."""
    notes = _notes()
    return notes["site"] if notes else None


def _key(release: str) -> tuple[int, ...]:
    """``2.13.0+cu130`` and ``2.13.0a0`` alike -> ``(2, 13, 0)``; () for no version."""
    try:
        parts = Version(release).release
    except InvalidVersion:
        return ()
    return parts[:3] if len(parts) >= 3 else ()


def _described(check: NoteCheck) -> str:
    """The check's documented side as BehaviourDrift words it (``label: value`` for a value)."""
    label = check["label"]
    return f"{label}: {check['documented']}" if check["kind"] == "value" and label else check["documented"]


def _find(notes: ReleaseNotes, path: str, line: int, documented: str, source: str = "") -> NoteCheck | None:
    """The check whose code is at ``path:line``; None where the notes have no such check.

    Found by its line of code (read from ``source``, the file as Python names it,
    else ``path``) and what it documents, in the
    script of the same name: a download's header and guard move its lines down,
    its translated text up or down (Chinese takes fewer lines), so where one
    script has the same code twice, the nearest is taken. A check the notes do
    not hold (one that no recorded release does otherwise, or one only a GPU runs)
    is found nowhere else. Only code outside any script of the site (a notebook
    cell, which has no such file name) is looked for in every script, and only
    where one script alone has it.
    """
    code = linecache.getline(source or path, line).strip()
    if not code:
        return None
    name = Path(path).name
    alike = [check for check in notes["checks"] if check["code"] == code and _described(check) == documented]
    if any(Path(example).name == name for example in notes["examples"]):
        alike = [check for check in alike if Path(check["example"]).name == name]
        return min(alike, key=lambda check: (abs(check["line"] - line), check["line"]), default=None)
    return alike[0] if len({check["example"] for check in alike}) == 1 else None


_MARK_WORDS = {
    "differs by build": "mark_build",
    "message differs": "mark_words",
    "different outcome": "mark_outcome",
    "not available": "mark_missing",
}
"""Each mark of the release notes (records.format.status.Mark, in English) and its words' key: a
download says it in its page's language, as the page's legend does."""


def _page(notes: ReleaseNotes, example: str) -> str:
    return f"{notes['site']}en/examples/{Path(example).with_suffix('').as_posix()}.html#{SECTION}"


def recorded_difference(path: str, line: int, documented: str, torch_version: str, source: str = "") -> bool:
    """Whether the site records ``torch_version`` doing otherwise than documented at this check.

    True only where the check is found and the release (or another patch of
    its minor release) has a record where it did not hold as documented
    (another outcome, an API the release lacks, the build's own words): what the
    reader sees is what the site saw that release do. A release recorded holding
    with other words ("message differs") explains no difference: the check held there.
    """
    notes = _notes()
    if not notes or not notes["releases"]:
        return False
    release = _recorded_release(notes, torch_version)
    check = _find(notes, path, line, documented, source)
    if check is None or release not in notes["releases"]:
        return False
    run = _run_at(check, release)
    return run is not None and run["mark"] not in ("same", "message differs")


def _run_at(check: NoteCheck, release: str) -> ReleaseRun | None:
    """The run of recorded releases of ``check`` that ``release`` is in, None if none is."""
    return next(
        (run for run in check["releases"] if _key(run["first"]) <= _key(release) <= _key(run["last"])), None
    )


def _recorded_release(notes: ReleaseNotes, torch_version: str) -> str:
    """``torch_version``'s release; another patch of a recorded minor release reads as it (2.5.0: 2.5.1)."""
    release = torch_version.partition("+")[0]
    same_minor = [r for r in notes["releases"] if _key(r)[:2] == _key(release)[:2]]
    return same_minor[-1] if release not in notes["releases"] and same_minor else release


def recorded_note(
    path: str,
    line: int,
    documented: str,
    torch_version: str,
    page: DownloadPage | None = None,
    source: str = "",
) -> str:
    """Lines for a drift message: what ``torch_version`` is recorded to do at this check.

    "" where the check is not one of the site's examples (a reader's own code, a
    notebook cell whose check is not found): nothing is known about it. In a
    download (``page``), the lines are in its language and link its page;
    else in English, linking the English page.
    """
    notes = _notes()
    if not notes or not notes["releases"]:
        return ""
    said = words(page.language if page else None)
    release = _recorded_release(notes, torch_version)
    releases = notes["releases"]
    covered = said["covered"].format(first=releases[0], last=releases[-1])
    check = _find(notes, path, line, documented, source)
    example = (
        check["example"]
        if check
        else next((e for e in notes["examples"] if Path(e).name == Path(path).name), None)
    )
    if example is None:
        return ""
    link = f"{page.address}#{SECTION}" if page else _page(notes, example)
    if release not in releases:
        return said["not_recorded"].format(release=release, covered=covered, page=link)
    if check is None:
        return said["check_elsewhere"].format(release=release, page=link)
    run = _run_at(check, release)
    if run is None:
        return said["no_record"].format(release=release, page=link)
    if run["mark"] == "same":
        return said["holds"].format(release=release, page=link)
    mark = said.get(_MARK_WORDS.get(run["mark"], ""), run["mark"])
    return said["recorded"].format(release=release, mark=mark, text=run["text"], covered=covered, page=link)


def early_stop_note(example: str, torch_version: str, page: DownloadPage | None = None) -> str:
    """What the site records ``torch_version`` doing with ``example`` where it stops early; "" elsewhere.

    ``example`` is ``section/plot_x.py``. Only a recorded run that stopped
    before the example's end (an error no ``expect_error`` caught, or what the
    release lacks) is said, with the last line of its error, and the next
    recorded release whose run went to the end, where one did. In the
    download's language, linking its page.
    """
    notes = _notes()
    if not notes:
        return ""
    endings = notes["stops"].get(example, {})
    release = _recorded_release(notes, torch_version)
    stop = endings.get(release, "")
    if not stop:
        return ""
    said = words(page.language if page else None)
    link = f"{page.address}#{SECTION}" if page else _page(notes, example)
    later = (r for r, ending in endings.items() if _key(r) > _key(release) and not ending)
    since = min(later, key=_key, default=None)
    note = said["stops_early"].format(release=release, text=stop, page=link)
    return note + (said["runs_from"].format(since=since) if since else "")
