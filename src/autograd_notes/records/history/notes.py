"""The release notes the helper ships: what each release is recorded to do where a check differs.

A reader who runs a downloaded example under an older PyTorch meets a
:class:`~autograd_notes.BehaviourDrift` where their release behaves otherwise
than the page documents. The helper cannot read the repository's records, so
``python -m autograd_notes release-notes`` writes the part it needs into the
package, ``src/autograd_notes/release_notes.json``: for every check that
differs on some recorded release, what each release observed, grouped into
runs of releases that observed the same; and for every example that some
release stopped early, how each recorded release's run of it ended. ``--check`` fails when the file is
out of date with the records (a test runs it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..._release_notes import NoteCheck, ReleaseNotes, ReleaseRun
from ..format.status import Mark
from .releases import release_of, version_key
from .timeline import CheckTimeline, ExampleTimeline, load_timelines, observation_runs

__all__ = ["NOTES_FILE", "build_notes", "release_notes_command", "render_notes", "site_address"]

NOTES_FILE = Path("src") / "autograd_notes" / "release_notes.json"


def site_address(root: Path) -> str:
    """The published site (``[project.urls] Documentation`` of pyproject.toml), ending in ``/``."""
    import tomllib  # here: Python 3.10 has none, and capturing needs no pyproject.toml read

    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    address = str(data.get("project", {}).get("urls", {}).get("Documentation", ""))
    return address if not address or address.endswith("/") else address + "/"


def _runs(check: CheckTimeline) -> list[ReleaseRun]:
    """Each run of releases that observed the same: its first and last release, its mark, what it saw."""
    # what a release that behaves as documented observed is on the page; the notes keep the rest
    return [
        ReleaseRun(
            first=releases[0],
            last=releases[-1],
            mark=seen.mark.value,
            text="" if seen.mark == Mark.SAME else (seen.text or seen.reason),
        )
        for releases, seen in observation_runs(check)
    ]


def build_notes(timelines: dict[str, ExampleTimeline], site: str, gallery: Path) -> ReleaseNotes:
    """The notes: every check that differs somewhere, its code and what each release observed.

    A check's code is its line in the example's script, read in ``gallery``.
    """
    checks: list[NoteCheck] = []
    releases: set[str] = set()
    pinned = ""
    for example, timeline in sorted(timelines.items()):
        pinned = timeline.pinned
        releases.update(timeline.recorded_releases())
        code = (gallery / example).read_text(encoding="utf-8").splitlines()
        for row in timeline.rows:
            for check in row.checks:
                if all(seen.mark in (Mark.SAME, Mark.NO_RECORD) for seen in check.releases.values()):
                    continue
                checks.append(
                    NoteCheck(
                        example=example,
                        line=check.line,
                        code=code[check.line - 1].strip() if 0 < check.line <= len(code) else "",
                        kind=check.kind,
                        label=check.label,
                        documented=check.documented,
                        releases=_runs(check),
                    )
                )
    stops = {
        example: {release: timeline.endings[release] for release in sorted(timeline.endings, key=version_key)}
        for example, timeline in sorted(timelines.items())
        if any(timeline.endings.values())
    }
    return ReleaseNotes(
        site=site,
        pinned=release_of(pinned),
        releases=sorted(releases, key=version_key),
        examples=sorted(timelines),
        checks=checks,
        stops=stops,
    )


def render_notes(notes: ReleaseNotes) -> str:
    """The notes as the committed file: a field per line, a check per line, stable."""

    def line(value: object) -> str:
        return json.dumps(value, ensure_ascii=False)

    head = [f" {line(key)}: {line(value)}," for key, value in notes.items() if key not in ("checks", "stops")]
    checks = ",\n".join(f"  {line(check)}" for check in notes["checks"])
    stops = ",\n".join(f"  {line(example)}: {line(ends)}" for example, ends in notes["stops"].items())
    return "\n".join(["{", *head, ' "checks": [', checks, " ],", ' "stops": {', stops, " }", "}"]) + "\n"


def release_notes_command(root: Path, records: Path, *, check: bool) -> int:
    """Write (or with ``check``, compare) the package's release notes; the exit status."""
    text = render_notes(build_notes(load_timelines(records), site_address(root), root / "gallery"))
    path = root / NOTES_FILE
    if check:
        if path.exists() and path.read_text(encoding="utf-8") == text:
            print(f"{NOTES_FILE.as_posix()} is up to date with {records.name}/")
            return 0
        print(
            f"{NOTES_FILE.as_posix()} is out of date with {records.name}/: "
            "run python -m autograd_notes release-notes",
            file=sys.stderr,
        )
        return 1
    path.write_text(text, encoding="utf-8")
    print(f"wrote {NOTES_FILE.as_posix()}")
    return 0
