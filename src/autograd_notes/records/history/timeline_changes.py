"""What changed between consecutive recorded releases, check by check, for the changelog.

:func:`release_changes` walks every example's timeline (:mod:`.timeline`)
release by release and keeps each check whose mark or words changed
(:class:`Change`); :func:`changelog_entries` groups them as the changelog
tells them, a warning whose categories changed with the value checks of its
cell that follow from it (:class:`ChangeEntry`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..format.status import Mark
from ..format.word_diffs import WordDiff, word_diff
from .releases import version_key
from .timeline import CheckTimeline, ExampleTimeline, Observation

__all__ = ["Change", "ChangeEntry", "changelog_entries", "release_changes"]


@dataclass(frozen=True)
class Change:
    """A check whose mark or words changed between a release and the one before it."""

    example: str
    release: str
    previous: str
    check: CheckTimeline
    before: Observation
    after: Observation
    cell: int = 0
    """The first source line of the check's code cell today."""

    @property
    def diff(self) -> WordDiff:
        """What each release observed (or why it stopped), word by word: the older struck, the newer added."""
        return word_diff(self.before.text or self.before.reason, self.after.text or self.after.reason)

    @property
    def category(self) -> tuple[str, str] | None:
        """A warning's (old, new) category, when a warning check saw the same warnings under another one."""
        before, after = self.before, self.after
        if self.check.kind != "warning" or not (before.outcome and after.outcome):
            return None
        if before.outcome == after.outcome or before.text is None or after.text is None:
            return None
        # the same messages, as many times: only the categories changed
        if _messages(before.text, before.outcome) != _messages(after.text, after.outcome):
            return None
        return before.outcome, after.outcome

    @property
    def words_only(self) -> bool:
        """Whether only the words changed.

        Both releases ended the same way: the same exception type, the same
        warning categories, a value that holds in both or in neither.
        """
        before, after = self.before, self.after
        if before.text is None or after.text is None or Mark.MISSING in (before.mark, after.mark):
            return False
        if self.check.kind == "value":
            return before.holds == after.holds
        return before.outcome == after.outcome


def _messages(text: str, categories: str) -> str:
    """A warning check's text without its categories: what the warnings said, and how often."""
    for category in categories.split(", "):
        text = text.replace(f"{category}: ", "")
    return text


def release_changes(timelines: list[ExampleTimeline]) -> list[Change]:
    """Every change between consecutive recorded releases, for the changelog (oldest first)."""
    changes = []
    for timeline in timelines:
        recorded = timeline.recorded_releases()
        for previous, release in itertools.pairwise(recorded):
            for row in timeline.rows:
                for check in row.checks:
                    before, after = check.releases[previous], check.releases[release]
                    if Mark.NO_RECORD in (before.mark, after.mark):
                        continue
                    if {before.mark, after.mark} <= {Mark.SAME, Mark.BUILD}:
                        # from the pinned CPU build to a CUDA build, or between two builds' own words
                        # for what today's release does too: the builds', not a release's
                        continue
                    if (before.mark, before.text) != (after.mark, after.text):
                        changes.append(
                            Change(timeline.example, release, previous, check, before, after, row.first_line)
                        )
    return sorted(changes, key=lambda c: (version_key(c.release), c.example, c.check.line))


@dataclass(frozen=True)
class ChangeEntry:
    """A change of the changelog, with the changes of the same cell that follow from it."""

    change: Change
    follows: tuple[Change, ...] = ()
    """Value checks of the same release and cell that changed with a warning's categories (a count of
    the warnings caught)."""


def changelog_entries(changes: list[Change]) -> list[ChangeEntry]:
    """The changes as the changelog tells them, each with what follows from it.

    A warning whose categories changed (another category, a warning that
    appears or goes) takes with it the value checks of its cell that changed
    in the same release: they count what it catches.
    """
    explained: dict[tuple[str, str, int], list[Change]] = {}
    for change in changes:
        if _warned_otherwise(change):
            explained.setdefault((change.release, change.example, change.cell), [])
    for change in changes:
        key = (change.release, change.example, change.cell)
        if change.check.kind == "value" and key in explained:
            explained[key].append(change)
    entries = []
    for change in changes:
        key = (change.release, change.example, change.cell)
        if change.check.kind == "value" and key in explained:
            continue
        follows = tuple(explained[key]) if _warned_otherwise(change) else ()
        entries.append(ChangeEntry(change, follows))
    return entries


def _warned_otherwise(change: Change) -> bool:
    """Whether a warning check's categories changed between two releases that both ran it."""
    before, after = change.before, change.after
    ran = before.text is not None and after.text is not None
    return change.check.kind == "warning" and ran and before.outcome != after.outcome
