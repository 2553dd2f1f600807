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
  in each release, derived from the records, each entry linked to its cell.

The computation is :mod:`autograd_notes.records.timeline`; this module puts it
in words, in the build's language (the ``sphinx`` catalog), as document
nodes: paragraphs, lists, tables and the elements of
:mod:`autograd_notes.site.html_nodes`, with links that Sphinx resolves and
checks (:mod:`autograd_notes.site.links`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

from ..records.compare import Change, WordDiff, spaced_segments
from ..records.releases import version_key
from ..records.status import Mark
from ..records.timeline import (
    CheckTimeline,
    ExampleTimeline,
    Observation,
    first_change,
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
    example_first_lines,
    gallery_docname,
    label_link,
    page_link,
)
from .nodes import compose, doc_reference, untranslatable

__all__ = [
    "DIRECTIVES",
    "SECTION_ID",
    "ReleaseTimelineDirective",
    "TimelineChangelogDirective",
    "TimelineMatrixDirective",
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


def _cell(*content: nodes.Node | str, classes: Sequence[str] = (), title: str | None = None) -> nodes.entry:
    """A table cell holding one line of ``content``; ``title`` is shown on hovering it."""
    parts = [part if isinstance(part, nodes.Node) else nodes.Text(str(part)) for part in content]
    entry = nodes.entry("", nodes.paragraph("", "", *parts), classes=list(classes))
    if title is not None:
        entry["title"] = title
    return entry


def _mark_cells(marks: dict[str, Mark], names: dict[Mark, str]) -> list[nodes.entry]:
    cells = []
    for release, mark in marks.items():
        label = f"{release}: {names[mark]}"
        symbol = HtmlInline(SYMBOLS[mark], SYMBOLS[mark], tag="span", aria_label=label)
        cells.append(_cell(symbol, classes=["tl-mark", f"tl-{_CLASSES[mark]}"], title=label))
    return cells


def _header(releases: list[str], pinned: str) -> list[nodes.entry]:
    heads = []
    for release in releases:
        title = (
            _("{release} (today, the release the pages document)").format(release=release)
            if release == pinned
            else release
        )
        short = "{}.{}".format(*version_key(release)[:2])
        classes = ["tl-release", "tl-today"] if release == pinned else ["tl-release"]
        heads.append(_cell(short, classes=classes, title=title))
    return heads


def _table(
    classes: list[str], header: list[nodes.entry], rows: list[list[nodes.entry]], widths: list[int]
) -> nodes.Element:
    """A table that scrolls sideways on a narrow screen; its first column names the rows."""
    group = nodes.tgroup(cols=len(widths))
    group += [nodes.colspec(colwidth=width, stub=int(index == 0)) for index, width in enumerate(widths)]
    group += nodes.thead("", nodes.row("", *header))
    group += nodes.tbody("", *(nodes.row("", *cells) for cells in rows))
    return HtmlBlock("", HtmlTable("", group, classes=classes), tag="div", classes=["tl-scroll"])


def legend() -> nodes.Element:
    """The marks and what they mean, as a list."""
    names = mark_names()
    items = HtmlList(classes=["tl-legend"])
    for mark in Mark:
        symbol = nodes.inline(SYMBOLS[mark], SYMBOLS[mark], classes=["tl-mark", f"tl-{_CLASSES[mark]}"])
        items += nodes.list_item("", nodes.paragraph("", "", symbol, nodes.Text(f" {names[mark]}")))
    return items


def _kind_name(kind: str) -> str:
    kinds = {"error": _("expected error"), "warning": _("expected warning"), "value": _("checked value")}
    return kinds.get(kind, kind)


def _shorten(text: str, limit: int = 100) -> str:
    """At most ``limit`` characters of ``text``, cut at a word, ``…`` where cut."""
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


@dataclass(frozen=True)
class _Change:
    """How a check changed between two releases: the marks, and the first words that differ."""

    before: Mark
    after: Mark
    words: tuple[str, str] | None

    @classmethod
    def between(cls, before: Observation, after: Observation) -> _Change:
        words = None
        if before.text and after.text and before.text != after.text:
            old, new = first_change(before.text, after.text)
            words = (_shorten(old), _shorten(new))
        return cls(before.mark, after.mark, words)

    def in_words(self, names: dict[Mark, str]) -> list[nodes.Node]:
        """The change in a sentence: the marks (unless only the words changed) and the changed words."""
        words = []
        if self.words is not None:
            old, new = self.words
            words = compose(
                _("the words changed: {old} → {new}"), old=_code(old or "…"), new=_code(new or "…")
            )
        if self.before == self.after and words:
            return words
        marks = nodes.Text(f"{names[self.before]} → {names[self.after]}")
        return [marks, nodes.Text("; "), *words] if words else [marks]


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


def timeline_nodes(
    timeline: ExampleTimeline, first_lines: list[int], *, timeline_page: bool = True
) -> nodes.Element:
    """The body of an example's "Across PyTorch releases" section.

    Its cell links are references to the cells' labels on the example's page
    (each code cell of a page has one): ``first_lines`` are the first source
    line of each of its code cells. It ends with a link to the timeline page
    where the build has one (``timeline_page``).
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

    def link(number: int) -> nodes.Node:
        text = _("Cell {number}").format(number=number)
        return label_link(cell_label(timeline.example, number), nodes.Text(text))

    rows = []
    details: list[nodes.Node] = []
    for number, checks in cells.items():
        marks = {release: worst([c.releases[release].mark for c in checks]) for release in releases}
        rows.append(
            [_cell(link(number)), _cell(str(len(checks)), classes=["tl-count"]), *_mark_cells(marks, names)]
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
            summary = HtmlLine(
                "",
                "",
                link(number),
                nodes.Text(" · " + _("line {line}").format(line=check.line) + " · "),
                *_kind(check),
                nodes.Text(f" · {what}"),
                tag="summary",
            )
            details.append(
                HtmlBlock(
                    "", summary, _observations(check, timeline.pinned), tag="details", classes=["tl-check"]
                )
            )
    header = [_cell(_("Cell")), _cell(_("Checks")), *_header(releases, timeline.pinned)]
    table = _table(["tl-table"], header, rows, widths=[10, 6, *(5 for _release in releases)])
    differences: list[nodes.Node] = []
    if details:
        differences = [
            nodes.paragraph("", _("Every difference, check by check"), classes=["tl-heading"]),
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
        table,
        legend(),
        *differences,
        *end,
        tag="div",
        classes=["release-timeline"],
        # the text as written: no curly quotes in messages and version numbers
        support_smartquotes=False,
    )


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
            timeline, example_first_lines(self.env, example), timeline_page=timeline_page
        )
        return untranslatable([section])


class TimelineMatrixDirective(SphinxDirective):
    """``.. timeline-matrix::``: every example × every release, one mark each, linked to its page."""

    def run(self) -> list[nodes.Node]:
        """Return the matrix and the legend of its marks."""
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
        header = [_cell(_("Example")), *_header(releases, pinned)]
        table = _table(["tl-table", "tl-matrix"], header, rows, widths=[30, *(5 for _release in releases)])
        result = [table, legend()]
        for node in result:
            node["support_smartquotes"] = False
        return untranslatable(result)


class TimelineChangelogDirective(SphinxDirective):
    """``.. timeline-changelog::``: what changed for autograd users in each release, from the records."""

    def run(self) -> list[nodes.Node]:
        """Return one subsection per release with changes, newest first."""
        timelines = site_timelines(self.env)
        changes = release_changes(list(timelines.values()))
        names = mark_names()
        # release -> what changed (the same change in many cells is one entry) -> its cells (page, number)
        by_release: dict[str, dict[tuple[str, _Change], list[tuple[str, int]]]] = {}
        for change in changes:
            docname = gallery_docname(self.env, change.example)
            first_lines = example_first_lines(self.env, change.example)
            number = cell_number(first_lines, change.check.line) if first_lines else 0
            what = (change.check.kind, _Change.between(change.before, change.after))
            places = by_release.setdefault(change.release, {}).setdefault(what, [])
            if (docname, number) not in places:
                places.append((docname, number))
        if not by_release:
            return untranslatable([nodes.paragraph("", _("No change between the recorded releases."))])
        result: list[nodes.Node] = []
        # each release is against the recorded release just before it (the examples' own gaps aside)
        order = sorted({r for t in timelines.values() for r in t.recorded}, key=version_key)
        for release in sorted(by_release, key=version_key, reverse=True):
            previous = order[order.index(release) - 1]
            title = _("What changed in {release} (against {previous})").format(
                release=release, previous=previous
            )
            section = nodes.section(ids=[f"changes-{release.replace('.', '-')}"], names=[title.lower()])
            section += nodes.title(title, title)
            entries = HtmlList(classes=["tl-changelog"], support_smartquotes=False)
            for (kind, changed), places in by_release[release].items():
                links: list[nodes.Node] = []
                for docname, number in places:
                    if links:
                        links.append(nodes.Text(" · "))
                    cell = _("cell {number}").format(number=number)
                    links += [page_link(docname, cell_anchor(number)), nodes.Text(f", {cell}")]
                what = nodes.paragraph("", "", nodes.Text(f"{_kind_name(kind)}: "), *changed.in_words(names))
                entries += nodes.list_item("", what, nodes.paragraph("", "", *links))
            section += entries
            result.append(section)
        return untranslatable(result)


DIRECTIVES = {
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
