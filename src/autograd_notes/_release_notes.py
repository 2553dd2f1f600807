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
import json
from importlib import resources
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from ._download_page import DownloadPage
from ._reader_words import words

__all__ = ["pinned_release", "recorded_note", "site_root"]

NOTES = "release_notes.json"
SECTION = "across-pytorch-releases"


@functools.cache
def _notes() -> dict[str, Any] | None:
    try:
        text = resources.files("autograd_notes").joinpath(NOTES).read_text(encoding="utf-8")
        notes: dict[str, Any] = json.loads(text)
    except (OSError, ValueError):  # missing or damaged: a drift message then says what it always said
        return None
    return notes


def pinned_release() -> str | None:
    """The PyTorch release the site this package came from pins (its runner records' release)."""
    notes = _notes()
    pinned = notes.get("pinned") if notes else None
    return pinned if isinstance(pinned, str) else None


def site_root() -> str | None:
    """The address of the site this package came from (ending in ``/``)."""
    notes = _notes()
    site = notes.get("site") if notes else None
    return site if isinstance(site, str) else None


def _key(release: str) -> tuple[int, ...]:
    """``2.13.0+cu130`` and ``2.13.0a0`` alike -> ``(2, 13, 0)``; () for no version."""
    try:
        parts = Version(release).release
    except InvalidVersion:
        return ()
    return parts[:3] if len(parts) >= 3 else ()


def _described(check: dict[str, Any]) -> str:
    """The check's documented side as BehaviourDrift words it (``label: value`` for a value)."""
    label = check.get("label") or ""
    return f"{label}: {check['documented']}" if check["kind"] == "value" and label else check["documented"]


def _find(notes: dict[str, Any], path: str, line: int, documented: str) -> dict[str, Any] | None:
    """The check at ``path:line``, or the closest match.

    The same script and line; else the nearest check above it in the same script
    that documents the same (a download's header moves its lines down); else the
    one check of any script that documents the same (a notebook cell has no file).
    """
    name = Path(path).name
    ours = [check for check in notes["checks"] if Path(check["example"]).name == name]
    for check in ours:
        if check["line"] == line:
            return dict(check)
    # a download starts with a few lines more than the gallery script: its checks moved down
    moved = [check for check in ours if _described(check) == documented and check["line"] <= line]
    if moved:
        return dict(max(moved, key=lambda check: int(check["line"])))
    same = [check for check in notes["checks"] if _described(check) == documented]
    return dict(same[0]) if len({check["example"] for check in same}) == 1 else None


def _page(notes: dict[str, Any], example: str) -> str:
    return f"{notes['site']}en/examples/{Path(example).with_suffix('').as_posix()}.html#{SECTION}"


def recorded_note(
    path: str, line: int, documented: str, torch_version: str, page: DownloadPage | None = None
) -> str:
    """Lines for a drift message: what ``torch_version`` is recorded to do at this check.

    "" where the check is not one of the site's examples (a reader's own code, a
    notebook cell whose check is not found): nothing is known about it. In a
    download (``page``), the lines are in its language and link its page;
    else in English, linking the English page.
    """
    notes = _notes()
    if not notes or not notes.get("releases"):
        return ""
    said = words(page.language if page else None)
    release = torch_version.partition("+")[0]
    releases: list[str] = notes["releases"]
    # another patch of a recorded minor release (2.5.0 where 2.5.1 is recorded) reads as that one
    same_minor = [r for r in releases if _key(r)[:2] == _key(release)[:2]]
    if release not in releases and same_minor:
        release = same_minor[-1]
    covered = said["covered"].format(first=releases[0], last=releases[-1])
    check = _find(notes, path, line, documented)
    example = (
        check["example"]
        if check
        else next((e for e in notes.get("examples", []) if Path(e).name == Path(path).name), None)
    )
    if example is None:
        return ""
    link = f"{page.address}#{SECTION}" if page else _page(notes, example)
    if release not in releases:
        return said["not_recorded"].format(release=release, covered=covered, page=link)
    if check is None:
        return said["check_elsewhere"].format(release=release, page=link)
    for first, last, mark, text in check["releases"]:
        if _key(first) <= _key(release) <= _key(last):
            if mark == "same":
                return said["holds"].format(release=release, page=link)
            return said["recorded"].format(release=release, mark=mark, text=text, covered=covered, page=link)
    return said["no_record"].format(release=release, page=link)
