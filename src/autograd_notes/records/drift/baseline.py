"""What a drift check compares with, and what it advises when something differs.

The pinned release compares with the runner records (``records/<runner>``):
what the pages document, and what ``drift --accept`` rewrites. Another
release compares with its own release records where the timeline has them
(what the timeline already shows for it is no drift). A release the timeline
has not recorded compares with the *nearest recorded release*: the newest
older one (a release older than every recorded one: the oldest), so that only
what changed since then is listed, not every change since the pinned release.
Its records are made with ``nox -s timeline -- <version>``; ``drift --accept``
writes only the pinned release's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..history.releases import RELEASES, is_release, pinned_torch, release_of, release_records, version_key

__all__ = ["ACCEPT_PINNED", "Baseline", "comparison_records", "nearest_release", "recorded_releases"]

ACCEPT_PINNED = (
    "Then, on the pinned PyTorch, accept the new records with `python -m autograd_notes drift --accept`."
)
"""How the drift report of the pinned release ends: the command that accepts its new behaviour."""


@dataclass(frozen=True)
class Baseline:
    """The records a drift check compares with, and what it says about them."""

    records: Path
    """A records folder: ``records`` or ``records/releases/<release>`` (holding ``<runner>/``)."""
    sentence: str = ""
    """Which records these are, said before the report ("" for the pinned release's)."""
    advice: str = ACCEPT_PINNED
    """The report's last sentence where something differs: how to record the new behaviour."""


def recorded_releases(records: Path) -> list[str]:
    """The releases with release records (``records/releases/<release>/`` not empty), oldest first."""
    folder = records / RELEASES
    if not folder.is_dir():
        return []
    found = [p.name for p in folder.iterdir() if p.is_dir() and is_release(p.name) and any(p.iterdir())]
    return sorted(found, key=version_key)


def nearest_release(release: str, recorded: list[str]) -> str | None:
    """The recorded release to compare an unrecorded ``release`` with: the newest older one, else the oldest.

    >>> nearest_release("2.15.0", ["2.4.1", "2.13.0", "2.14.1"])
    '2.14.1'
    >>> nearest_release("2.3.1", ["2.4.1", "2.13.0"])
    '2.4.1'
    """
    key = version_key(release)
    older = [r for r in recorded if version_key(r) < key]
    if older:
        return max(older, key=version_key)
    return min(recorded, key=version_key) if recorded else None


def _timeline(release: str) -> str:
    return f"`nox -s timeline -- {release}`"


def comparison_records(root: Path, records: Path, torch_version: str) -> Baseline:
    """What a drift check of ``torch_version`` compares with (see the module's docstring)."""
    release = release_of(torch_version)
    pinned = pinned_torch(root)
    if pinned is None or release == pinned:
        return Baseline(records)
    own = release_records(records, release)
    if own.is_dir():
        return Baseline(
            own,
            f"PyTorch {release} is not the pinned {pinned}: compared with its own release records "
            f"({own.relative_to(records.parent).as_posix()}), what the timeline shows for it",
            f"Then record what PyTorch {release} does now for the timeline with "
            f"`nox -s timeline -- {release} --accept`.",
        )
    record_it = (
        f"PyTorch {release} has no release records: record it for the timeline with {_timeline(release)} "
        "(`drift --accept` writes only the pinned release's records)."
    )
    nearest = nearest_release(release, recorded_releases(records))
    if nearest is None:
        return Baseline(
            records,
            f"PyTorch {release} is not the pinned {pinned} and has no release records, nor has any other "
            f"release: compared with {pinned}'s, so every difference between the two releases is reported",
            record_it,
        )
    nearest_records = release_records(records, nearest)
    return Baseline(
        nearest_records,
        f"PyTorch {release} is not the pinned {pinned} and has no release records: compared with "
        f"{nearest}'s ({nearest_records.relative_to(records.parent).as_posix()}), the nearest recorded "
        f"release, so only what differs from {nearest} is reported",
        record_it,
    )
