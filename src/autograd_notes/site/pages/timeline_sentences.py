"""The timelines in sentences, in the build's language: summaries, held releases, changes.

An example's one-sentence summary, the note "Changed in 2.14" at the top of
its page, the plain "held in" line of the sources page, and each change of
the changelog as a sentence, its word diff in ``<del>`` and ``<ins>`` (the
older release's words struck, the newer's inserted); the changed words and
names as code.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.locale import _

from ...records.format.status import Mark
from ...records.format.word_diffs import Change, WordDiff, spaced_segments
from ...records.history.changelog import Sentence, shorten
from ...records.history.changelog import change_sentence as decided_sentence
from ...records.history.releases import version_key
from ...records.history.timeline import (
    NO_ERROR,
    NO_WARNING,
    CheckTimeline,
    ExampleTimeline,
    Observation,
    observation_runs,
)
from ...records.history.timeline_changes import ChangeEntry
from ...records.history.timeline_summary import summarise
from ..i18n.check_labels import label_node
from ..i18n.zh_punctuation import clause_break, gap_after, list_comma, sentence_gap
from ..web.html_nodes import HtmlCode, HtmlInline
from ..web.nodes import compose, gap, list_of

__all__ = [
    "SECTION_ID",
    "change_sentence",
    "changed_note",
    "follows_template",
    "held_sentence",
    "kind_nodes",
    "sentence_templates",
    "summary_sentence",
]


SECTION_ID = "across-pytorch-releases"
"""The id of an example page's "Across PyTorch releases" section."""


def _code(text: str) -> HtmlCode:
    return HtmlCode(text, text)


def _span(releases: list[str]) -> str:
    """``2.4.1`` or ``2.4.1–2.8.0``."""
    return releases[0] if len(releases) == 1 else f"{releases[0]}–{releases[-1]}"


_AS_TODAY = (Mark.SAME, Mark.BUILD, Mark.NO_RECORD)
"""The marks of a check that the page's list of differences leaves out."""


def summary_sentence(timeline: ExampleTimeline, language: str = "en") -> list[nodes.Node]:
    """The one-sentence summary, in the build's language (``language``): text, and names as code."""
    summary = summarise(timeline)
    recorded = timeline.recorded_releases()
    if len(recorded) < 2:
        return [nodes.Text(_("No other PyTorch release has been recorded for this page yet."))]
    if not timeline.rows:
        return [
            nodes.Text(_("No cell of this page checks anything on a CPU, so no release can differ here."))
        ]
    if not summary.failing:
        sentence = compose(
            _("Every check holds in every recorded release, {first} to {last}."),
            first=summary.first,
            last=summary.last,
        )
    elif summary.holds_since is not None:
        previous = recorded[recorded.index(summary.holds_since) - 1]
        checks = [check for row in timeline.rows for check in row.checks]
        # every check that differs there, worded otherwise too: the page lists each of them
        failing = [check for check in checks if check.releases[previous].mark not in _AS_TODAY]
        before = (
            _("before it, part of it is not available")
            if summary.before == Mark.MISSING
            else _("in {release}, the release before it, its one check differs")
            if len(failing) == len(checks) == 1
            else _("in {release}, the release before it, one of {total} checks differs")
            if len(failing) == 1
            else _("in {release}, the release before it, {count} of {total} checks differ")
        )
        clause = before.format(release=previous, count=len(failing), total=len(checks))
        sentence = compose(
            _("Every check holds since {since}; {before}."), since=summary.holds_since, before=clause
        )
    else:
        held = [r for r in recorded if r not in summary.failing]
        sentence = compose(
            _("Every check holds in {held}; some differ in {failing}."),
            held=_ranges(recorded, held, language) or "–",
            failing=_ranges(recorded, summary.failing, language),
        )
    if summary.wording is not None:
        wording = summary.wording
        named = [_code(name) if name else _("a message") for name in wording.names]
        if len(set(wording.name_releases)) > 1:  # not all in the same releases: each name says its own
            each = [
                compose(_("{name} in {release}"), name=name, release=_ranges(recorded, list(own), language))
                for name, own in zip(named, wording.name_releases, strict=True)
            ]
            words = _("{count} checks still hold, but print other words: {names}.")
            worded = compose(words, count=str(wording.checks), names=list_of(each, language))
        else:
            words = (
                _("{count} checks still hold, but print other words in {release}: {names}.")
                if wording.checks > 1
                else _("One check still holds, but prints other words in {release}: {names}.")
            )
            release = _ranges(recorded, list(wording.releases), language)
            worded = compose(
                words, release=release, count=str(wording.checks), names=list_of(named, language)
            )
        sentence += [nodes.Text(sentence_gap(language)), *worded]
    return sentence


def _ranges(releases: list[str], chosen: list[str], language: str = "en") -> str:
    """The chosen releases as ranges of consecutive ones: ``2.4.1–2.8.0, 2.13.0`` (Chinese: ``、``)."""
    spans: list[list[str]] = []
    for index, release in enumerate(releases):
        if release not in chosen:
            continue
        if spans and releases.index(spans[-1][-1]) == index - 1:
            spans[-1].append(release)
        else:
            spans.append([release])
    return list_comma(language).join(_span(span) for span in spans)


def held_sentence(timeline: ExampleTimeline, language: str = "en") -> str:
    """In which recorded releases every check held as documented, as plain text (the sources page).

    Three kinds of release, each named once: every check as documented (or
    printing otherwise only because of how that PyTorch was built); a message
    worded otherwise (the checks hold, the words changed); some checks differ.
    A check that differs need not touch the source's claim (a count of
    warnings): the example's own table says which.
    """
    recorded = timeline.recorded_releases()
    marks = {release: timeline.mark(release) for release in recorded}
    same = [r for r in recorded if marks[r] in (Mark.SAME, Mark.BUILD)]
    if len(same) == len(recorded):
        return _("every check as documented in every recorded release: {releases}").format(
            releases=_ranges(recorded, recorded, language)
        )
    worded = [r for r in recorded if marks[r] == Mark.WORDS]
    differ = [r for r in recorded if r not in same and r not in worded]
    clauses = [
        template.format(releases=_ranges(recorded, releases, language))
        for template, releases in (
            (_("every check as documented in {releases}"), same),
            (_("a message worded otherwise in {releases}"), worded),
            (_("some checks differ in {releases}"), differ),
        )
        if releases
    ]
    return clause_break(language).join(clauses)


def kind_nodes(check: CheckTimeline) -> list[nodes.Node]:
    """What a check is, with its label: "checked value «norm of the raw entries»"."""
    name = _kind_name(check.kind)
    if not check.label:
        return [nodes.Text(name)]
    label = label_node(check.label)
    return [nodes.Text(name + gap(name, label.astext())), label]


def _kind_name(kind: str) -> str:
    kinds = {"error": _("expected error"), "warning": _("expected warning"), "value": _("checked value")}
    return kinds.get(kind, kind)


def observed_words(text: str) -> str:
    """A check's observed text in the page's language: "no error" and "no warning" are words, not data."""
    if text == NO_ERROR:
        return str(_("no error"))
    if text == NO_WARNING:
        return str(_("no warning"))
    return text


def _diff_nodes(diff: WordDiff) -> list[nodes.Node]:
    """A word diff: removed words in ``<del>``, added ones in ``<ins>``, the rest as text."""
    parts: list[nodes.Node] = []
    for space, segment in spaced_segments(diff):
        if space:
            parts.append(nodes.Text(space))
        text = observed_words(segment.text)  # a whole side that raised nothing
        if segment.change is Change.REMOVED:
            parts.append(HtmlInline(text, text, tag="del"))
        elif segment.change is Change.ADDED:
            parts.append(HtmlInline(text, text, tag="ins"))
        else:
            parts.append(nodes.Text(text))
    return parts


def _outcome_name(outcome: str, kind: str) -> nodes.Node:
    """An exception type or warning categories as code; none as words ("no error", "no warning")."""
    if outcome:
        return _code(outcome)
    return nodes.Text(_("no error") if kind == "error" else _("no warning"))


def _diff_code(diff: WordDiff) -> nodes.Node:
    return HtmlCode("", "", *_diff_nodes(diff), classes=["tl-diff"])


def sentence_templates() -> dict[Sentence, str]:
    """Each sentence of the changelog, in the build's language (English: :data:`~.changelog.SENTENCES`)."""
    return {
        Sentence.STOPS: _("The cell stops before this check: {reason}."),
        Sentence.RUNS: _("The cell now gets past the error that stopped it before: {reason}."),
        Sentence.CATEGORY: _("The warning {message} is a {new}, no longer a {old}."),
        Sentence.OUTCOME: _("The outcome changed from {old} to {new}: {diff}."),
        Sentence.WORDED: _("The {outcome} is worded otherwise: {diff}."),
        Sentence.PRINTED: _("The value {label} is printed otherwise: {diff}."),
        Sentence.VALUE: _("The value {label} changed: {diff}."),
    }


def follows_template() -> str:
    """What a change takes with it, in the build's language (the English is :data:`~.changelog.FOLLOWS`)."""
    return _("With it, the value {label} changed: {diff}.")


_STOPS = ".。!?！？"


def _one_stop(sentence: list[nodes.Node]) -> list[nodes.Node]:
    """``sentence`` without its own full stop where the operand before it already ends with one.

    A recorded message often ends a sentence of its own ("… at version 1."),
    or is shortened with an ellipsis: the template's stop after it would read
    as "1.." or "….".
    """
    if len(sentence) < 2 or not isinstance(sentence[-1], nodes.Text):
        return sentence
    stop, before = sentence[-1].astext().strip(), sentence[-2].astext().rstrip()
    if stop and stop in _STOPS and before[-1:] in _STOPS + "…":
        return sentence[:-1]
    return sentence


def change_sentence(entry: ChangeEntry) -> list[nodes.Node]:
    """A change as a sentence, in the build's language: the sentence the records chose, filled with nodes.

    Which sentence says the change, and what fills it, is decided once
    (:func:`~autograd_notes.records.history.changelog.change_sentence`, what
    ``nox -s timeline`` prints too); here it is worded: the older release's
    words struck and the newer's inserted, exception types and warning
    categories as code, and the value checks that changed with it.
    """
    kind = entry.change.check.kind
    found = decided_sentence(entry)
    named = found.sentence == Sentence.CATEGORY
    sentence = compose(
        sentence_templates()[found.sentence],
        reason=_code(shorten(found.reason)),
        message=_code(shorten(found.said)),
        old=_code(found.old) if named else _outcome_name(found.old, kind),
        new=_code(found.new) if named else _outcome_name(found.new, kind),
        outcome=_outcome_name(found.new, kind),
        label=label_node(found.label) if found.label else nodes.Text(_kind_name(kind)),
        diff=_diff_code(found.diff) if found.diff else _code(shorten(found.said)),
    )
    sentence = _one_stop(sentence)
    for follows in entry.follows:
        label = label_node(follows.check.label) if follows.check.label else nodes.Text(_kind_name("value"))
        following = _one_stop(compose(follows_template(), label=label, diff=_diff_code(follows.diff)))
        said = "".join(node.astext() for node in sentence)
        sentence += [nodes.Text(gap_after(said)), *following]
    return sentence


def _began(check: CheckTimeline, newest: str, pinned: str) -> str:
    """The oldest release after ``pinned`` from which ``check`` observed what ``newest`` observes."""
    for releases, _seen in observation_runs(check):
        if newest in releases:
            after = [release for release in releases if version_key(release) > version_key(pinned)]
            return after[0] if after else newest
    return newest


def _change(check: CheckTimeline, seen: Observation) -> nodes.Node:
    """What a check does on a release, in words: the error no longer raised, the value that changed."""
    if seen.mark == Mark.WORDS:
        return nodes.Text(_("the {kind} is worded otherwise").format(kind=_kind_name(check.kind)))
    if check.kind == "error" and seen.mark == Mark.OUTCOME:
        if not seen.outcome:
            return nodes.Text(_("the error it expects is no longer raised"))
        return nodes.inline("", "", *compose(_("it raises {error} instead"), error=_code(seen.outcome)))
    if check.kind == "warning" and seen.mark == Mark.OUTCOME:
        if not seen.outcome:
            return nodes.Text(_("the warning it expects is no longer emitted"))
        return nodes.inline("", "", *compose(_("it warns {warning} instead"), warning=_code(seen.outcome)))
    if check.label:
        different = compose(_("the value {label} is different"), label=label_node(check.label))
        return nodes.inline("", "", *different)
    return nodes.Text(_kind_name(check.kind))


def changed_note(timeline: ExampleTimeline, language: str = "en") -> nodes.Element | None:
    """The note "Changed in 2.14", where the newest recorded release is newer than today's and differs.

    A note for the top of the example's page, linking its "Across PyTorch
    releases" section; ``None`` where there is nothing to say.
    """
    recorded = timeline.recorded_releases()
    newest = recorded[-1] if recorded else timeline.pinned
    if version_key(newest) <= version_key(timeline.pinned):
        return None
    differing = [
        check
        for row in timeline.rows
        for check in row.checks
        if check.releases[newest].mark not in (Mark.SAME, Mark.BUILD, Mark.NO_RECORD)
    ]
    if not differing:
        return None
    # named by the release where the newest release's behaviour began: clamp changed in 2.14,
    # and a 2.15 that kept the change does not move the note to 2.15
    began = min((_began(check, newest, timeline.pinned) for check in differing), key=version_key)
    minor = "{}.{}".format(*version_key(began)[:2])
    title = _("Changed in {version}").format(version=minor)
    what = (
        _(
            "In PyTorch {release}, one check of this page differs from {pinned}, "
            "the release the page documents: {check}."
        )
        if len(differing) == 1
        else _(
            "In PyTorch {release}, {count} checks of this page differ from {pinned}, "
            "the release the page documents."
        )
    )
    check = differing[0]
    named = _change(check, check.releases[newest])
    section = _("Across PyTorch releases")
    sentence = compose(
        what + sentence_gap(language) + _("What changed: {link}."),
        # the release the title names (where the change began), not a later one that kept it
        release=began,
        count=str(len(differing)),
        pinned=timeline.pinned,
        check=named,
        link=nodes.reference(section, section, refid=SECTION_ID),
    )
    note = nodes.container(classes=["admonition", "attention", "release-changed"])
    note += nodes.paragraph("", title, classes=["admonition-title"])
    note += nodes.paragraph("", "", *sentence)
    note["support_smartquotes"] = False
    return note
