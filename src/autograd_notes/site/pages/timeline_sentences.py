"""The timelines in sentences, in the build's language: summaries, held releases, changes.

An example's one-sentence summary, the plain "held in" line of the sources
page, and each change of the changelog as a sentence, its word diff in
``<del>`` and ``<ins>`` (the older release's words struck, the newer's
inserted); the changed words and names as code.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.locale import _

from ...records.format.status import Mark
from ...records.format.word_diffs import Change, WordDiff, spaced_segments
from ...records.history.changelog import message_of, shorten
from ...records.history.timeline import ExampleTimeline
from ...records.history.timeline_changes import Change as ReleaseChange
from ...records.history.timeline_changes import ChangeEntry
from ...records.history.timeline_summary import summarise
from ..web.html_nodes import HtmlCode, HtmlInline
from ..web.nodes import compose

__all__ = [
    "change_sentence",
    "heading_nodes",
    "held_sentence",
    "summary_sentence",
]


def _code(text: str) -> HtmlCode:
    return HtmlCode(text, text)


def _span(releases: list[str]) -> str:
    """``2.4.1`` or ``2.4.1–2.8.0``."""
    return releases[0] if len(releases) == 1 else f"{releases[0]}–{releases[-1]}"


def summary_sentence(timeline: ExampleTimeline) -> list[nodes.Node]:
    """The one-sentence summary, in the build's language: text, and the changed words as code."""
    summary = summarise(timeline)
    recorded = timeline.recorded_releases()
    if len(recorded) < 2:
        return [nodes.Text(_("No other PyTorch release has been recorded for this page yet."))]
    if not summary.failing:
        sentence = compose(
            _("Holds as documented in every recorded release, {first} to {last}."),
            first=summary.first,
            last=summary.last,
        )
    elif summary.holds_since is not None:
        previous = recorded[recorded.index(summary.holds_since) - 1]
        checks = [check for row in timeline.rows for check in row.checks]
        failing = [check for check in checks if check.releases[previous].mark in (Mark.OUTCOME, Mark.MISSING)]
        before = (
            _("before it, part of it is not available")
            if summary.before == Mark.MISSING
            else _("in {release}, the release before it, {count} of {total} checks differ")
        )
        clause = before.format(release=previous, count=len(failing), total=len(checks))
        sentence = compose(
            _("Holds as documented since {since}; {before}."), since=summary.holds_since, before=clause
        )
    else:
        held = [r for r in recorded if r not in summary.failing]
        sentence = compose(
            _("Holds as documented in {held}; not in {failing}."),
            held=_ranges(recorded, held) or "–",
            failing=_ranges(recorded, summary.failing),
        )
    if summary.wording is not None:
        release, old, new, count = summary.wording
        words = (
            _("In {release}, the words of {count} checked message changed: {old} → {new}.")
            if count > 1
            else _("In {release}, the words of a checked message changed: {old} → {new}.")
        )
        sentence += [
            nodes.Text(" "),
            *compose(words, release=release, count=str(count), old=_code(old or "…"), new=_code(new or "…")),
        ]
    return sentence


def _ranges(releases: list[str], chosen: list[str]) -> str:
    """The chosen releases as ranges of consecutive ones: ``2.4.1–2.8.0, 2.13.0``."""
    spans: list[list[str]] = []
    for index, release in enumerate(releases):
        if release not in chosen:
            continue
        if spans and releases.index(spans[-1][-1]) == index - 1:
            spans[-1].append(release)
        else:
            spans.append([release])
    return ", ".join(_span(span) for span in spans)


def held_sentence(timeline: ExampleTimeline) -> str:
    """In which recorded releases every check of the example held, as plain text (the sources page)."""
    recorded = timeline.recorded_releases()
    held = [r for r in recorded if timeline.holds_in(r)]
    if len(held) == len(recorded):
        return _("held in every recorded release: {releases}").format(releases=_ranges(recorded, held))
    return _("held in {held}; not in {failing}").format(
        held=_ranges(recorded, held) or "–", failing=_ranges(recorded, [r for r in recorded if r not in held])
    )


def _kind_name(kind: str) -> str:
    kinds = {"error": _("expected error"), "warning": _("expected warning"), "value": _("checked value")}
    return kinds.get(kind, kind)


def _diff_nodes(diff: WordDiff) -> list[nodes.Node]:
    """A word diff: removed words in ``<del>``, added ones in ``<ins>``, the rest as text."""
    parts: list[nodes.Node] = []
    for space, segment in spaced_segments(diff):
        if space:
            parts.append(nodes.Text(space))
        if segment.change is Change.REMOVED:
            parts.append(HtmlInline(segment.text, segment.text, tag="del"))
        elif segment.change is Change.ADDED:
            parts.append(HtmlInline(segment.text, segment.text, tag="ins"))
        else:
            parts.append(nodes.Text(segment.text))
    return parts


def heading_nodes(heading: str) -> list[nodes.Node]:
    """A section title as written in reST, its ````code```` as code: ``The double ``where````."""
    parts: list[nodes.Node] = []
    for index, piece in enumerate(heading.split("``")):
        if piece:
            parts.append(_code(piece) if index % 2 else nodes.Text(piece))
    return parts


def _outcome_name(outcome: str, kind: str) -> nodes.Node:
    """An exception type or warning categories as code; none as words ("no error", "no warning")."""
    if outcome:
        return _code(outcome)
    return nodes.Text(_("no error") if kind == "error" else _("no warning"))


def _diff_code(diff: WordDiff) -> nodes.Node:
    return HtmlCode("", "", *_diff_nodes(diff), classes=["tl-diff"])


def change_sentence(entry: ChangeEntry) -> list[nodes.Node]:
    """A change as a sentence: what changed (which check, which exception or warning or value), old → new.

    The older release's words are struck and the newer's inserted; a
    warning whose category changed says so, and what follows from it.
    """
    change = entry.change
    before, after, kind = change.before, change.after, change.check.kind
    if after.mark == Mark.MISSING or (after.text is None and after.reason):
        return compose(
            _("The cell stops before this check: {reason}."),
            reason=_code(shorten(after.reason or after.text or "")),
        )
    if before.mark == Mark.MISSING or (before.text is None and before.reason):
        return compose(
            _("The cell runs to this check, where it stopped before: {reason}."),
            reason=_code(shorten(before.reason or before.text or "")),
        )
    category = change.category
    if category is not None:
        old, new = category
        sentence = compose(
            _("The warning {message} is a {new}, no longer a {old}."),
            message=_code(shorten(message_of(after.text or "", new))),
            old=_code(old),
            new=_code(new),
        )
    elif kind != "value" and not change.words_only and not (before.outcome and after.outcome):
        # an error or a warning that appears or goes: what there is, not a diff with nothing
        said = after.text if after.outcome else before.text
        sentence = compose(
            _("The outcome changed from {old} to {new}: {diff}."),
            old=_outcome_name(before.outcome, kind),
            new=_outcome_name(after.outcome, kind),
            diff=_code(shorten(said or "")),
        )
    else:
        return _changed(change)
    for follows in entry.follows:
        sentence += [
            nodes.Text(" "),
            *compose(
                _("With it, the value {label} changed: {diff}."),
                label=_code(follows.check.label) if follows.check.label else nodes.Text(_kind_name("value")),
                diff=_diff_code(follows.diff),
            ),
        ]
    return sentence


def _changed(change: ReleaseChange) -> list[nodes.Node]:
    """A change of words, of value, or of exception type, with its word diff."""
    before, after, kind = change.before, change.after, change.check.kind
    label = _code(change.check.label) if change.check.label else nodes.Text(_kind_name(kind))
    diff = _diff_code(change.diff)
    if change.words_only:
        if kind == "value":
            return compose(_("The value {label} is printed otherwise: {diff}."), label=label, diff=diff)
        return compose(
            _("The {outcome} is worded otherwise: {diff}."),
            outcome=_outcome_name(after.outcome, kind),
            diff=diff,
        )
    if kind == "value":
        return compose(_("The value {label} changed: {diff}."), label=label, diff=diff)
    return compose(
        _("The outcome changed from {old} to {new}: {diff}."),
        old=_outcome_name(before.outcome, kind),
        new=_outcome_name(after.outcome, kind),
        diff=diff,
    )
