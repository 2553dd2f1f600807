"""The facts of an example's one-sentence timeline summary, before they are put in words.

:func:`summarise` reads an example's timeline (:mod:`.timeline`): the
releases recorded, since when every check holds as documented, where some
does not, and the checks that hold in other words than today's somewhere
(the table's ≈): in which releases, and what they are (:func:`worded_name`),
each named once. The words themselves are the changelog's and the page's list
of differences to show, as a word diff; a summary quoting a fragment of them
read as garbled ("`…` → `(×2)`").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from ..format.status import Mark
from .timeline import ExampleTimeline

__all__ = ["Summary", "Wording", "summarise", "worded_name"]

_CLASS_NAME = re.compile(r"^([A-Z]\w*(?:Error|Warning|Exception|Exit|Interrupt))\b")


def worded_name(label: str, outcome: str, text: str) -> str:
    """What names a checked message: a value's label, else its exception type or warning categories.

    Those are the check's ``outcome``, else the class the text starts with;
    ``""`` where none is known (the sentence then says "a message").
    """
    if label or outcome:
        return label or outcome
    found = _CLASS_NAME.match(text)
    return found.group(1) if found else ""


class Wording(NamedTuple):
    """The checks that hold in other words than today's (the table's ≈) somewhere."""

    releases: tuple[str, ...]
    """Every release where one of them does, oldest first."""
    names: tuple[str, ...]
    """What they word otherwise, each name once (:func:`worded_name`), in the page's order."""
    checks: int
    """How many checks."""
    name_releases: tuple[tuple[str, ...], ...]
    """For each of ``names``, the releases where its checks do: a sentence says each name's own
    releases where they are not all the same (a review read "2 checks ... in 2.4.1–2.12.1" of a
    check reworded only up to 2.9.1)."""


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
    wording: Wording | None
    """Of the checks the table marks ≈ (they hold, in other words than today's) in some release: those
    releases, what the checks word otherwise and how many (``None``: no check does)."""


def summarise(timeline: ExampleTimeline) -> Summary:
    """The facts of an example's one-sentence summary."""
    recorded = timeline.recorded_releases()
    since = timeline.holds_since()
    before = None
    if since is not None and recorded.index(since) > 0:
        before = timeline.mark(recorded[recorded.index(since) - 1])
    failing = [r for r in recorded if not timeline.holds_in(r)]
    # every check whose ≈ the table shows: it holds in other words than today's, in a release where
    # nothing else in its cell differs more (a ✗ in the same cell is what the table shows there)
    shown: dict[int, tuple[str, ...]] = {}
    worded = []
    for row in timeline.rows:
        for check in row.checks:
            releases = tuple(
                release
                for release in recorded
                if check.releases[release].mark == Mark.WORDS and row.mark(release) == Mark.WORDS
            )
            if releases:
                worded.append(check)
                shown[id(check)] = releases
    wording = None
    if worded:
        today = [check.releases[timeline.pinned] for check in worded]
        names = [
            worded_name(check.label, seen.outcome, seen.text or check.today)
            for check, seen in zip(worded, today, strict=True)
        ]
        # each name once, in the page's order, with every release where one of its checks is ≈
        by_name: dict[str, set[str]] = {}
        for check, name in zip(worded, names, strict=True):
            by_name.setdefault(name, set()).update(shown[id(check)])
        wording = Wording(
            tuple(release for release in recorded if any(release in seen for seen in by_name.values())),
            tuple(by_name),
            len(worded),
            tuple(tuple(release for release in recorded if release in seen) for seen in by_name.values()),
        )
    return Summary(recorded[0], recorded[-1], since, before, failing, wording)
