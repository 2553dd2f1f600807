"""Behaviour across PyTorch releases, on the pages: computed from the release records.

Three directives, registered by this module's :func:`setup` (an extension of its own):

* ``release-timeline:: <section>/plot_x.py`` (inserted into every example page
  by :func:`~autograd_notes.site.gallery_rst.timeline_directive`): a section
  "Across PyTorch releases" with a one-sentence summary, a table with one row
  per code cell that checks something and one column per release (a mark:
  same as today, message differs, different outcome, not available, no
  record), and, on demand, every difference: the word diff of a message, the
  old and the new value, the exception of an API that is missing.
* ``timeline-matrix`` (the timeline page): every example × every release.
* ``timeline-changelog`` (the timeline page): what changed for autograd users
  in each release, derived from the records, each entry a sentence linked to
  its cells.
* ``release-changed:: <section>/plot_x.py`` (inserted near the top of every
  example page by :func:`~autograd_notes.site.gallery_rst.changed_directive`):
  a note where the newest recorded release does otherwise than the page
  documents, linking the section.

Every word diff runs in the order of the releases: the older release's words
struck, the newer's inserted, whichever of the two is today.

The computation is :mod:`autograd_notes.records.timeline`; this module puts it
in words, in the build's language (the ``sphinx`` catalog), as document
nodes: paragraphs, lists, tables and the elements of
:mod:`autograd_notes.site.html_nodes`, with links that Sphinx resolves and
checks (:mod:`autograd_notes.site.links`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

from ..records.changelog import message_of, shorten
from ..records.compare import Change, WordDiff, render_word_diff, spaced_segments
from ..records.releases import version_key
from ..records.status import Mark
from ..records.timeline import Change as ReleaseChange
from ..records.timeline import (
    ChangeEntry,
    CheckTimeline,
    ExampleTimeline,
    changelog_entries,
    load_timelines,
    observation_runs,
    release_changes,
    summarise,
    worst,
)
from .gallery_conf import gallery_folders
from .html_nodes import HtmlBlock, HtmlCode, HtmlInline, HtmlLine, HtmlList, HtmlPre, HtmlTable
from .links import (
    cell_anchor,
    cell_label,
    cell_number,
    example_cell_headings,
    example_first_lines,
    gallery_docname,
    label_link,
    page_link,
)
from .nodes import compose, doc_reference, untranslatable
from .runner_releases import gpu_runner_notes

__all__ = [
    "DIRECTIVES",
    "SECTION_ID",
    "ReleaseChangedDirective",
    "ReleaseTimelineDirective",
    "TimelineChangelogDirective",
    "TimelineMatrixDirective",
    "change_sentence",
    "changed_note",
    "changes_anchor",
    "held_sentence",
    "legend",
    "mark_names",
    "setup",
    "site_timelines",
    "summary_sentence",
    "timeline_nodes",
]

SECTION_ID = "across-pytorch-releases"
TIMELINE_DOC = "timeline"

SYMBOLS = {
    Mark.SAME: "✓",
    Mark.BUILD: "◇",
    Mark.WORDS: "≈",
    Mark.OUTCOME: "✗",
    Mark.MISSING: "∅",
    Mark.NO_RECORD: "·",
}
_CLASSES = {
    Mark.SAME: "same",
    Mark.BUILD: "build",
    Mark.WORDS: "words",
    Mark.OUTCOME: "outcome",
    Mark.MISSING: "missing",
    Mark.NO_RECORD: "none",
}


def mark_names() -> dict[Mark, str]:
    """Each mark's name in this build's language."""
    return {
        Mark.SAME: _("same as today"),
        Mark.BUILD: _("differs by build only: today's release does the same in that build"),
        Mark.WORDS: _("message differs"),
        Mark.OUTCOME: _("different outcome"),
        Mark.MISSING: _("not available in this release"),
        Mark.NO_RECORD: _("no record"),
    }


# Module-level, yet safe for parallel reads: keyed on immutable strings (the records folder and
# the digest of its files), a pure function of them, and its result is only read by the callers.
@functools.lru_cache(maxsize=4)
def _timelines(records: str, digest: str) -> dict[str, ExampleTimeline]:
    del digest  # part of the cache key only: new records, new timelines
    return load_timelines(Path(records))


def site_timelines(env: Any) -> dict[str, ExampleTimeline]:
    """The timelines of this build (computed once per set of records)."""
    config = env.config
    return _timelines(config.autograd_notes_records, config.autograd_notes_records_digest)


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


def _cell(*content: nodes.Node | str, classes: Sequence[str] = ()) -> nodes.entry:
    """A table cell holding one line of ``content``."""
    parts = [part if isinstance(part, nodes.Node) else nodes.Text(str(part)) for part in content]
    return nodes.entry("", nodes.paragraph("", "", *parts), classes=list(classes))


def _mark_button(release: str, mark: Mark, names: dict[Mark, str]) -> nodes.Element:
    """A mark that says what it means when it is focused (by keyboard) or hovered: a button, no tooltip.

    Its text is the symbol and the explanation (``2.4.1: message differs``),
    the explanation shown beside it while focused; a screen reader reads it.
    """
    label = f"{release}: {names[mark]}"
    symbol = HtmlInline(SYMBOLS[mark], SYMBOLS[mark], tag="span", aria_hidden="true")
    tip = HtmlInline(label, label, tag="span", classes=["tl-tip"])
    return HtmlInline("", "", symbol, tip, tag="button", classes=["tl-mark-button"])


def _mark_cells(marks: dict[str, Mark], names: dict[Mark, str]) -> list[nodes.entry]:
    return [
        _cell(_mark_button(release, mark, names), classes=["tl-mark", f"tl-{_CLASSES[mark]}"])
        for release, mark in marks.items()
    ]


def changes_anchor(release: str) -> str:
    """The id of the timeline page's section "What changed in ``release``": ``changes-2-14-1``."""
    return f"changes-{release.replace('.', '-')}"


def _header(releases: list[str], pinned: str, *, linked: bool = False) -> list[nodes.entry]:
    """The releases' column heads: ``2.13``, today's marked so in words.

    ``linked``: each a link to its "What changed in" section of the same page
    (the timeline page).
    """
    heads = []
    for release in releases:
        short = "{}.{}".format(*version_key(release)[:2])
        name: nodes.Node = nodes.Text(short)
        if linked:
            name = nodes.reference(short, short, refid=changes_anchor(release))
        lines = [nodes.paragraph("", "", name)]
        classes = ["tl-release"]
        if release == pinned:
            today = _("today")
            lines.append(
                nodes.paragraph("", "", HtmlInline(today, today, tag="span", classes=["tl-today-word"]))
            )
            classes.append("tl-today")
        heads.append(nodes.entry("", *lines, classes=classes))
    return heads


def _table(
    classes: list[str],
    header: list[nodes.entry],
    rows: list[list[nodes.entry]],
    widths: list[int],
    *,
    label: str = "",
) -> nodes.Element:
    """A table that scrolls in its own box on a narrow screen.

    The stylesheet keeps the newest releases (its right end) in view first,
    and its header row and first column (the rows' names) while it scrolls.
    """
    group = nodes.tgroup(cols=len(widths))
    group += [nodes.colspec(colwidth=width, stub=int(index == 0)) for index, width in enumerate(widths)]
    group += nodes.thead("", nodes.row("", *header))
    group += nodes.tbody("", *(nodes.row("", *cells) for cells in rows))
    box = HtmlBlock("", HtmlTable("", group, classes=classes), tag="div", classes=["tl-scroll"])
    if label:
        box["aria_label"] = label
    return box


def legend() -> nodes.Element:
    """The marks and what they mean, as a list."""
    names = mark_names()
    items = HtmlList(classes=["tl-legend"])
    for mark in Mark:
        symbol = nodes.inline(SYMBOLS[mark], SYMBOLS[mark], classes=["tl-mark", f"tl-{_CLASSES[mark]}"])
        items += nodes.list_item("", nodes.paragraph("", "", symbol, nodes.Text(f" {names[mark]}")))
    return items


def diff_legend() -> nodes.Element:
    """One line: how a word diff reads (always from the older release to the newer)."""
    old, new = _("older words"), _("newer words")
    return nodes.paragraph(
        "",
        "",
        *compose(
            _("In every difference, {old} are struck and {new} inserted: the older release first."),
            old=HtmlInline(old, old, tag="del"),
            new=HtmlInline(new, new, tag="ins"),
        ),
        classes=["tl-diff-legend"],
    )


def _kind_name(kind: str) -> str:
    kinds = {"error": _("expected error"), "warning": _("expected warning"), "value": _("checked value")}
    return kinds.get(kind, kind)


def _kind(check: CheckTimeline) -> list[nodes.Node]:
    name = nodes.Text(_kind_name(check.kind))
    return [name, nodes.Text(" "), _code(check.label)] if check.label else [name]


def _observations(check: CheckTimeline, pinned: str) -> nodes.Element:
    """Each distinct observation of a check, with the releases that made it, as a list."""
    names = mark_names()
    items = HtmlList(classes=["tl-observations"])
    for releases, seen in observation_runs(check):
        head = _span(releases) + (" " + _("(today)") if pinned in releases else "")
        if seen.mark == Mark.SAME:
            text = seen.text or ""
            body = HtmlPre(text, text, classes=["tl-text"])
        elif seen.mark == Mark.MISSING or (seen.mark == Mark.OUTCOME and seen.text is None):
            body = HtmlPre(seen.reason, seen.reason, classes=["tl-text"])
        else:
            body = HtmlPre("", "", *_diff_nodes(seen.diff), classes=["tl-text", "tl-diff"])
        kind = _CLASSES[seen.mark]
        line = nodes.paragraph(
            "",
            "",
            nodes.inline(SYMBOLS[seen.mark], SYMBOLS[seen.mark], classes=["tl-mark", f"tl-{kind}"]),
            nodes.Text(" "),
            nodes.strong(head, head),
            nodes.Text(f" · {names[seen.mark]}"),
        )
        items += nodes.list_item("", line, body, classes=[f"tl-{kind}"])
    return items


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


def _row_name(headings: Sequence[str], number: int, checks: list[CheckTimeline]) -> list[nodes.Node]:
    """What a row checks: its cell's section title, else its first check's label, else "Cell n"."""
    heading = headings[number - 1] if 0 < number <= len(headings) else ""
    if heading:
        return heading_nodes(heading)
    label = next((check.label for check in checks if check.label), "")
    if label:
        return [_code(label)]
    return [nodes.Text(_("Cell {number}").format(number=number))]


def timeline_nodes(
    timeline: ExampleTimeline,
    first_lines: list[int],
    *,
    timeline_page: bool = True,
    headings: Sequence[str] = (),
) -> nodes.Element:
    """The body of an example's "Across PyTorch releases" section.

    Its cell links are references to the cells' labels on the example's page
    (each code cell of a page has one): ``first_lines`` are the first source
    line of each of its code cells, ``headings`` the title of the section each
    is in (a row is named by it, and by its cell's number). It ends with a link
    to the timeline page where the build has one (``timeline_page``).
    """
    names = mark_names()
    releases = timeline.releases
    intro = compose(
        _(
            "Each row is a code cell of this page that checks something (an expected error or "
            "warning, a value); each column a PyTorch release, the latest patch of its minor "
            "release, run on a CPU. {pinned} is the release the page documents; the others ran "
            "as the build the registry serves, which may word a build-specific message otherwise."
        ),
        pinned=_code(timeline.pinned),
    )
    cells: dict[int, list[CheckTimeline]] = {}
    for row in timeline.rows:
        for check in row.checks:
            number = cell_number(first_lines, check.line) if first_lines else 0
            cells.setdefault(number, []).append(check)

    def link(number: int, name: list[nodes.Node]) -> list[nodes.Node]:
        cell = _("cell {number}").format(number=number)
        shown = nodes.inline("", "", *name)
        return [
            label_link(cell_label(timeline.example, number), shown),
            nodes.Text(" "),
            HtmlInline(cell, cell, tag="span", classes=["tl-cell-number"]),
        ]

    rows = []
    details: list[nodes.Node] = []
    for number, checks in cells.items():
        name = _row_name(headings, number, checks)
        marks = {release: worst([c.releases[release].mark for c in checks]) for release in releases}
        rows.append(
            [
                _cell(*link(number, name)),
                _cell(str(len(checks)), classes=["tl-count"]),
                *_mark_cells(marks, names),
            ]
        )
        for check in checks:
            if all(seen.mark in (Mark.SAME, Mark.NO_RECORD) for seen in check.releases.values()):
                continue
            worst_marks = sorted(
                {
                    seen.mark
                    for seen in check.releases.values()
                    if seen.mark not in (Mark.SAME, Mark.NO_RECORD)
                }
            )
            what = ", ".join(names[m] for m in worst_marks)
            # A <summary> is the control that opens its <details>: a link inside it would be an
            # interactive element inside another (two tab stops for one row, and a screen reader
            # announces one of them wrongly; axe-core: nested-interactive). The summary names the
            # row in words; the link to the cell is the first line of what it opens.
            cell = _("cell {number}").format(number=number)
            summary = HtmlLine(
                "",
                "",
                nodes.inline("", "", *_row_name(headings, number, checks)),
                nodes.Text(" "),
                HtmlInline(cell, cell, tag="span", classes=["tl-cell-number"]),
                nodes.Text(" · " + _("line {line}").format(line=check.line) + " · "),
                *_kind(check),
                nodes.Text(f" · {what}"),
                tag="summary",
            )
            to_cell = nodes.paragraph(
                "", "", *link(number, _row_name(headings, number, checks)), classes=["tl-check-cell"]
            )
            details.append(
                HtmlBlock(
                    "",
                    summary,
                    to_cell,
                    _observations(check, timeline.pinned),
                    tag="details",
                    classes=["tl-check"],
                )
            )
    header = [_cell(_("Cell")), _cell(_("Checks")), *_header(releases, timeline.pinned)]
    table = _table(["tl-table"], header, rows, widths=[10, 6, *(5 for _release in releases)])
    differences: list[nodes.Node] = []
    if details:
        differences = [
            nodes.paragraph("", _("Every difference, check by check"), classes=["tl-heading"]),
            diff_legend(),
            *details,
        ]
    elif timeline.rows:
        differences = [
            nodes.paragraph("", _("No check differs in any recorded release."), classes=["tl-none"])
        ]
    more = compose(
        _("All examples and a changelog by release: {link}."),
        link=doc_reference(TIMELINE_DOC, nodes.Text(_("Behaviour across PyTorch releases"))),
    )
    end = [nodes.paragraph("", "", *more)] if timeline_page else []
    return HtmlBlock(
        "",
        nodes.paragraph("", "", *summary_sentence(timeline), classes=["tl-summary"]),
        nodes.paragraph("", "", *intro),
        legend(),
        table,
        *differences,
        *end,
        tag="div",
        classes=["release-timeline"],
        # the text as written: no curly quotes in messages and version numbers
        support_smartquotes=False,
    )


def _began(check: CheckTimeline, newest: str, pinned: str) -> str:
    """The oldest release after ``pinned`` from which ``check`` observed what ``newest`` observes."""
    for releases, _seen in observation_runs(check):
        if newest in releases:
            after = [release for release in releases if version_key(release) > version_key(pinned)]
            return after[0] if after else newest
    return newest


def changed_note(timeline: ExampleTimeline) -> nodes.Element | None:
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
            "In PyTorch {release}, one check of this page does otherwise than in {pinned}, "
            "the release the page documents: {check}."
        )
        if len(differing) == 1
        else _(
            "In PyTorch {release}, {count} checks of this page do otherwise than in {pinned}, "
            "the release the page documents."
        )
    )
    check = differing[0]
    named = _code(check.label) if check.label else nodes.Text(_kind_name(check.kind))
    section = _("Across PyTorch releases")
    sentence = compose(
        what + " " + _("What changed: {link}."),
        release=newest,
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


class ReleaseChangedDirective(SphinxDirective):
    """``.. release-changed:: <section>/plot_x.py``: the note that the newest release does otherwise."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """Return the note, or nothing where the newest release does as the page documents."""
        timeline = site_timelines(self.env).get(self.arguments[0])
        note = changed_note(timeline) if timeline is not None else None
        return untranslatable([note]) if note is not None else []


class ReleaseTimelineDirective(SphinxDirective):
    """``.. release-timeline:: <section>/plot_x.py``: the "Across PyTorch releases" section."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """Return a section with the example's timeline (a note when it has no record yet)."""
        example = self.arguments[0]
        section = nodes.section(ids=[SECTION_ID], names=[SECTION_ID], classes=["release-timeline-section"])
        section += nodes.title(_("Across PyTorch releases"), _("Across PyTorch releases"))
        timeline = site_timelines(self.env).get(example)
        if timeline is None:
            section += nodes.paragraph("", _("This example has no record yet."))
            return untranslatable([section])
        # a site may leave the timeline page out (a fixture site): no link to it then
        timeline_page = TIMELINE_DOC in self.env.found_docs
        section += timeline_nodes(
            timeline,
            example_first_lines(self.env, example),
            timeline_page=timeline_page,
            headings=example_cell_headings(self.env, example),
        )
        return untranslatable([section])


class TimelineMatrixDirective(SphinxDirective):
    """``.. timeline-matrix::``: every example × every release, one mark each, linked to its page."""

    def run(self) -> list[nodes.Node]:
        """Return the legend of the marks and the matrix, each release's head linked to its changes."""
        timelines = site_timelines(self.env)
        if not timelines:
            return untranslatable([nodes.paragraph("", _("No records yet."))])
        releases = sorted({r for t in timelines.values() for r in t.releases}, key=version_key)
        pinned = next(iter(timelines.values())).pinned
        names = mark_names()
        rows = []
        for example, timeline in timelines.items():
            docname = gallery_docname(self.env, example)
            self.env.note_dependency(
                str(gallery_folders(self.env.config, self.env.srcdir)[0].source / example)
            )
            marks = {r: timeline.mark(r) if r in timeline.releases else Mark.NO_RECORD for r in releases}
            rows.append([_cell(page_link(docname, SECTION_ID)), *_mark_cells(marks, names)])
        header = [_cell(_("Example")), *_header(releases, pinned, linked=True)]
        table = _table(["tl-table", "tl-matrix"], header, rows, widths=[30, *(5 for _release in releases)])
        # the GPU runners and releases that have records, a line each under the CPU's matrix
        result = [legend(), table, *gpu_runner_notes(self.env)]
        for node in result:
            node["support_smartquotes"] = False
        return untranslatable(result)


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


class TimelineChangelogDirective(SphinxDirective):
    """``.. timeline-changelog::``: what changed for autograd users in each release, from the records."""

    def run(self) -> list[nodes.Node]:
        """Return one subsection per recorded release, newest first (one without a change says so)."""
        timelines = site_timelines(self.env)
        entries = changelog_entries(release_changes(list(timelines.values())))
        # release -> what changed (the same change in many cells is one entry) -> the change, its cells
        by_release: dict[str, dict[tuple[str, ...], tuple[ChangeEntry, list[tuple[str, int, str]]]]] = {}
        for entry in entries:
            change = entry.change
            docname = gallery_docname(self.env, change.example)
            first_lines = example_first_lines(self.env, change.example)
            headings = example_cell_headings(self.env, change.example)
            number = cell_number(first_lines, change.check.line) if first_lines else 0
            heading = headings[number - 1] if 0 < number <= len(headings) else ""
            what = _entry_key(entry)
            _first, places = by_release.setdefault(change.release, {}).setdefault(what, (entry, []))
            if (docname, number, heading) not in places:
                places.append((docname, number, heading))
        order = sorted({r for t in timelines.values() for r in t.recorded}, key=version_key)
        if len(order) < 2:
            return untranslatable([nodes.paragraph("", _("No change between the recorded releases."))])
        result: list[nodes.Node] = []
        # each release is against the recorded release just before it (the examples' own gaps aside)
        for index in range(len(order) - 1, -1, -1):
            release = order[index]
            if index == 0:
                title = _("What changed in {release}").format(release=release)
            else:
                title = _("What changed in {release} (against {previous})").format(
                    release=release, previous=order[index - 1]
                )
            section = nodes.section(ids=[changes_anchor(release)], names=[title.lower()])
            section += nodes.title(title, title)
            if index == 0:
                section += nodes.paragraph(
                    "",
                    _("The oldest recorded release: the others are compared with it."),
                    classes=["tl-none"],
                )
            elif release not in by_release:
                section += nodes.paragraph(
                    "", _("No documented check changed in this release."), classes=["tl-none"]
                )
            else:
                section += self._entries(by_release[release])
            result.append(section)
        return untranslatable(result)

    def _entries(
        self, changes: dict[tuple[str, ...], tuple[ChangeEntry, list[tuple[str, int, str]]]]
    ) -> nodes.Element:
        entries = HtmlList(classes=["tl-changelog"], support_smartquotes=False)
        for entry, places in changes.values():
            links: list[nodes.Node] = []
            for docname, number, heading in places:
                if links:
                    links.append(nodes.Text(" · "))
                cell = _("cell {number}").format(number=number)
                links += [page_link(docname, cell_anchor(number)), nodes.Text(f", {cell}")]
                if heading:
                    links += [nodes.Text(" ("), *heading_nodes(heading), nodes.Text(")")]
            where = compose(_("On {pages}."), pages=nodes.inline("", "", *links))
            what = nodes.paragraph("", "", *change_sentence(entry))
            entries += nodes.list_item("", what, nodes.paragraph("", "", *where, classes=["tl-places"]))
        return entries


def _entry_key(entry: ChangeEntry) -> tuple[str, ...]:
    """What makes two changes the same entry: the kind of check and what changed, word for word."""
    change: ReleaseChange = entry.change
    follows = tuple(render_word_diff(f.diff) for f in entry.follows)
    return (
        change.check.kind,
        change.before.mark,
        change.after.mark,
        change.before.outcome,
        change.after.outcome,
        change.check.label if change.check.kind == "value" else "",
        render_word_diff(change.diff),
        *follows,
    )


DIRECTIVES = {
    "release-changed": ReleaseChangedDirective,
    "release-timeline": ReleaseTimelineDirective,
    "timeline-matrix": TimelineMatrixDirective,
    "timeline-changelog": TimelineChangelogDirective,
}


def _lift_sections(app: Sphinx, doctree: nodes.document) -> None:
    """Make each "Across PyTorch releases" section a section of the page, not of the one above it.

    The directive closes the page, so the reST parser places it inside the
    page's last section ("Sources"); moved up beside it, with what followed it
    (the install line, the downloads), it gets its own entry in the page's
    contents. Before Sphinx collects the contents (priority 500).
    """
    for section in list(doctree.findall(nodes.section)):
        if "release-timeline-section" not in section["classes"]:
            continue
        parent = section.parent
        while (
            parent is not None and parent.parent is not None and not isinstance(parent.parent, nodes.document)
        ):
            parent = parent.parent
        if parent is None or parent is section.parent:
            continue
        # what followed the directive (the install line, the downloads) still follows the section
        above = section.parent
        trailing = above.children[above.index(section) + 1 :]
        for node in [section, *trailing]:
            above.remove(node)
        parent.extend([section, *trailing])


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives and the section's place (and the nodes and links they use)."""
    app.setup_extension("autograd_notes.site.html_nodes")
    app.setup_extension("autograd_notes.site.links")
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.connect("doctree-read", _lift_sections, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
