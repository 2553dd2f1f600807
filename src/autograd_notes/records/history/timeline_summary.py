"""The facts of an example's one-sentence timeline summary, before they are put in words.

:func:`summarise` reads an example's timeline (:mod:`.timeline`) and its
changes (:mod:`.timeline_changes`): the releases recorded, since when every
check holds as documented, where some does not, and the most recent change
of words (:func:`first_change`).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..format.status import Mark
from .timeline import ExampleTimeline
from .timeline_changes import release_changes

__all__ = ["Summary", "first_change", "summarise"]


def first_change(old: str, new: str) -> tuple[str, str]:
    """The first words that differ between two texts: ``("AddBackward0,", "Add,")``."""
    a, b = old.split(), new.split()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            return " ".join(a[i1:i2]), " ".join(b[j1:j2])
    return "", ""


@dataclass(frozen=True)
class Summary:
    """What the one-sentence summary of an example's timeline says, before it is put in words."""

    first: str
    """The oldest release with a record."""
    last: str
    """The newest release with a record."""
    holds_since: str | None
    """The oldest release from which all later ones hold as documented (``None``: the newest does not)."""
    before: Mark | None
    """The mark of the release before ``holds_since`` (``OUTCOME`` or ``MISSING``), ``None`` if none."""
    failing: list[str]
    """The recorded releases where some check does not hold."""
    wording: tuple[str, str, str, int] | None
    """The most recent change of words while the checks held: (release, old words, new words, how many
    checks changed words in that release)."""


def summarise(timeline: ExampleTimeline) -> Summary:
    """The facts of an example's one-sentence summary."""
    recorded = timeline.recorded_releases()
    since = timeline.holds_since()
    before = None
    if since is not None and recorded.index(since) > 0:
        before = timeline.mark(recorded[recorded.index(since) - 1])
    failing = [r for r in recorded if not timeline.holds_in(r)]
    worded = [
        change
        for change in release_changes([timeline])
        if change.before.holds and change.after.holds and change.before.text != change.after.text
    ]
    wording = None
    if worded:
        last = worded[-1]
        old, new = first_change(last.before.text or "", last.after.text or "")
        count = sum(change.release == last.release for change in worded)
        wording = (last.release, old, new, count)
    return Summary(recorded[0], recorded[-1], since, before, failing, wording)
