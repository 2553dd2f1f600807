"""What changed in each release, as the changelog page says it, for the terminal.

:func:`~.timeline_changes.release_changes` and :func:`~.timeline_changes.changelog_entries`
give the changes between consecutive recorded releases as data; the timeline
page (``site/pages/timeline_sentences.py``) words each in the page's language. Which
sentence says a change is decided here (:func:`change_sentence`, a
:class:`Sentence` and what fills it), so that ``nox -s timeline`` prints, in
English, one line per change with the page's words, the word diffs written
``[-old-]{+new+}`` (the older release's words struck, the newer's added).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..format.status import Mark, Word
from ..format.word_diffs import WordDiff, render_word_diff
from .releases import version_key
from .timeline import NO_ERROR, NO_WARNING, load_timelines
from .timeline_changes import ChangeEntry, changelog_entries, release_changes

__all__ = [
    "SENTENCES",
    "ChangeSentence",
    "Sentence",
    "change_sentence",
    "change_text",
    "message_of",
    "release_change_lines",
    "shorten",
]


class Sentence(Word):
    """Which sentence of the changelog says a change."""

    STOPS = "stops"
    """The cell stops before the check now."""
    RUNS = "runs"
    """The cell runs to the check, where it stopped before."""
    CATEGORY = "category"
    """A warning is of another category, with the same message."""
    OUTCOME = "outcome"
    """Another outcome: another exception type, an error or warning that appears or goes."""
    WORDED = "worded"
    """The same exception type or warning categories, in other words."""
    PRINTED = "printed"
    """A value that holds (or not) as before, printed otherwise."""
    VALUE = "value"
    """A value changed."""


SENTENCES = {
    Sentence.STOPS: "The cell stops before this check: {reason}.",
    Sentence.RUNS: "The cell now gets past the error that stopped it before: {reason}.",
    Sentence.CATEGORY: "The warning {message} is a {new}, no longer a {old}.",
    Sentence.OUTCOME: "The outcome changed from {old} to {new}: {diff}.",
    Sentence.WORDED: "The {outcome} is worded otherwise: {diff}.",
    Sentence.PRINTED: "The value {label} is printed otherwise: {diff}.",
    Sentence.VALUE: "The value {label} changed: {diff}.",
}
"""Each sentence in English, as the timeline page's English catalog has it."""
FOLLOWS = "With it, the value {label} changed: {diff}."
KINDS = {"error": "expected error", "warning": "expected warning", "value": "checked value"}


@dataclass(frozen=True)
class ChangeSentence:
    """A change as a sentence before it is put in words: which sentence, and what fills it."""

    sentence: Sentence
    reason: str = ""
    """For ``STOPS`` and ``RUNS``: the exception that stops the cell."""
    old: str = ""
    """The older release's exception type or warning categories ("" for none)."""
    new: str = ""
    """The newer release's."""
    said: str = ""
    """What the check observed, for a warning's message or an outcome that appears or goes."""
    diff: WordDiff = ()
    label: str = ""
    """A value check's label ("" for none)."""


def shorten(text: str, limit: int = 100) -> str:
    """At most ``limit`` characters of ``text``, cut at a word, ``…`` where cut."""
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def message_of(text: str, categories: str) -> str:
    """A warning check's text without its category: ``torch.jit.script is deprecated … (×18)``."""
    for category in categories.split(", "):
        text = text.replace(f"{category}: ", "")
    return text


def change_sentence(entry: ChangeEntry) -> ChangeSentence:
    """Which sentence says ``entry``'s change, and what fills it (the values follow apart)."""
    change = entry.change
    before, after, kind = change.before, change.after, change.check.kind
    if after.mark == Mark.MISSING or (after.text is None and after.reason):
        return ChangeSentence(Sentence.STOPS, reason=after.reason or after.text or "")
    if before.mark == Mark.MISSING or (before.text is None and before.reason):
        return ChangeSentence(Sentence.RUNS, reason=before.reason or before.text or "")
    if change.category is not None:
        old, new = change.category
        return ChangeSentence(Sentence.CATEGORY, old=old, new=new, said=message_of(after.text or "", new))
    label = change.check.label
    if kind != "value" and not change.words_only and not (before.outcome and after.outcome):
        # an error or a warning that appears or goes: what there is, not a diff with nothing
        said = after.text if after.outcome else before.text
        return ChangeSentence(Sentence.OUTCOME, old=before.outcome, new=after.outcome, said=said or "")
    if change.words_only:
        if kind == "value":
            return ChangeSentence(Sentence.PRINTED, diff=change.diff, label=label)
        return ChangeSentence(Sentence.WORDED, new=after.outcome, diff=change.diff)
    if kind == "value":
        return ChangeSentence(Sentence.VALUE, diff=change.diff, label=label)
    return ChangeSentence(Sentence.OUTCOME, old=before.outcome, new=after.outcome, diff=change.diff)


def _outcome(outcome: str, kind: str) -> str:
    if outcome:
        return f"`{outcome}`"
    return NO_ERROR if kind == "error" else NO_WARNING


def _code(text: str) -> str:
    return f"`{text}`"


def change_text(entry: ChangeEntry) -> str:
    """``entry`` in the changelog's English words, on one line (code in backquotes)."""
    kind = entry.change.check.kind
    found = change_sentence(entry)
    label = _code(found.label) if found.label else KINDS.get(kind, kind)
    diff = _code(render_word_diff(found.diff) if found.diff else shorten(found.said))
    text = SENTENCES[found.sentence].format(
        reason=_code(shorten(found.reason)),
        message=_code(shorten(found.said)),
        old=_code(found.old) if found.sentence == Sentence.CATEGORY else _outcome(found.old, kind),
        new=_code(found.new) if found.sentence == Sentence.CATEGORY else _outcome(found.new, kind),
        outcome=_outcome(found.new, kind),
        label=label,
        diff=diff,
    )
    for follows in entry.follows:
        named = _code(follows.check.label) if follows.check.label else KINDS["value"]
        text += " " + FOLLOWS.format(label=named, diff=_code(render_word_diff(follows.diff)))
    return text


def release_change_lines(records: Path, releases: list[str], runner: str = "cpu") -> list[str]:
    """For each of ``releases``, what changed against the recorded release before it, a line per change.

    As the changelog page has it: the same change in many cells is one line,
    with every place (``section/plot_x.py`` line N). A release without a
    change, or without records, says so.
    """
    timelines = load_timelines(records, runner)
    recorded = sorted({r for t in timelines.values() for r in t.recorded}, key=version_key)
    by_release: dict[str, dict[str, list[str]]] = {}
    for entry in changelog_entries(release_changes(list(timelines.values()))):
        change = entry.change
        places = by_release.setdefault(change.release, {}).setdefault(change_text(entry), [])
        place = f"{change.example} line {change.check.line}"
        if place not in places:
            places.append(place)
    lines: list[str] = []
    for release in sorted(releases, key=version_key):
        if release not in recorded:
            lines.append(f"{release}: no records")
            continue
        index = recorded.index(release)
        if index == 0:
            lines.append(f"{release}: the oldest recorded release, where the comparisons start")
            continue
        changes = by_release.get(release, {})
        previous = recorded[index - 1]
        if not changes:
            lines.append(f"{release} (against {previous}): no documented check changed")
            continue
        lines.append(f"{release} (against {previous}): {len(changes)} change(s)")
        lines.extend(f"  {text} On {', '.join(places)}." for text, places in changes.items())
    return lines
