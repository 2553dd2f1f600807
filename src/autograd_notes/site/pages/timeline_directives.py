"""The four timeline directives, and the timelines of the build they read.

``release-changed`` and ``release-timeline`` (every example page),
``timeline-matrix`` and ``timeline-changelog`` (the timeline page), listed in
:data:`DIRECTIVES`; registered by :mod:`.release_timeline`'s ``setup``.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.environment import BuildEnvironment
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

from ...records.format.status import Mark
from ...records.format.word_diffs import render_word_diff
from ...records.history.changelog import Sentence, shorten
from ...records.history.changelog import change_sentence as decided_sentence
from ...records.history.releases import version_key
from ...records.history.timeline_changes import ChangeEntry, changelog_entries, release_changes
from ..examples.traceback_lines import download_lines
from ..i18n.page_catalog import translate_from
from ..i18n.zh_punctuation import gap_after
from ..upstream.gallery_conf import gallery_folders
from ..web.html_nodes import HtmlList
from ..web.links import (
    cell_anchor,
    cell_number,
    example_cell_headings,
    example_first_lines,
    gallery_docname,
    page_link,
)
from ..web.nodes import code_nodes, compose, list_of, untranslatable
from .record_store import note_records, site_records
from .runner_releases import gpu_runner_notes
from .timeline_legends import legend, mark_names
from .timeline_section import TIMELINE_DOC, timeline_nodes
from .timeline_sentences import SECTION_ID, _code, change_sentence, changed_note
from .timeline_tables import _cell, _header, _mark_cells, _table, changes_anchor

__all__ = [
    "DIRECTIVES",
    "ReleaseChangedDirective",
    "ReleaseTimelineDirective",
    "TimelineChangelogDirective",
    "TimelineMatrixDirective",
]


class ReleaseChangedDirective(SphinxDirective):
    """``.. release-changed:: <section>/plot_x.py``: the note that the newest release does otherwise."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """Return the note, or nothing where the newest release does as the page documents."""
        note_records(self.env, self.arguments[0])
        timeline = site_records(self.env).timelines.get(self.arguments[0])
        note = changed_note(timeline, self.env.config.language or "en") if timeline is not None else None
        return untranslatable([note]) if note is not None else []


class ReleaseTimelineDirective(SphinxDirective):
    """``.. release-timeline:: <section>/plot_x.py``: the "Across PyTorch releases" section."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """Return a section with the example's timeline (a note when it has no record yet)."""
        example = self.arguments[0]
        section = nodes.section(ids=[SECTION_ID], names=[SECTION_ID], classes=["release-timeline-section"])
        section += nodes.title(_("Across PyTorch releases"), _("Across PyTorch releases"))
        note_records(self.env, example)
        timeline = site_records(self.env).timelines.get(example)
        if timeline is None:
            section += nodes.paragraph("", _("This example has no record yet."))
            return untranslatable([section])
        # a site may leave the timeline page out (a fixture site): no link to it then
        timeline_page = TIMELINE_DOC in self.env.found_docs
        section += timeline_nodes(
            timeline,
            example_first_lines(self.env, example),
            timeline_page=timeline_page,
            headings=_headings(self.env, example),
            language=self.env.config.language or "en",
            line_numbers=_download_lines(self.env, example),
        )
        return untranslatable([section])


class TimelineMatrixDirective(SphinxDirective):
    """``.. timeline-matrix::``: every example × every release, one mark each, linked to its page."""

    def run(self) -> list[nodes.Node]:
        """Return the legend of the marks and the matrix, each release's head linked to its changes."""
        note_records(self.env)
        timelines = site_records(self.env).timelines
        if not timelines:
            return untranslatable([nodes.paragraph("", _("No records yet."))])
        releases = sorted({r for t in timelines.values() for r in t.releases}, key=version_key)
        pinned = next(iter(timelines.values())).pinned
        names = mark_names()
        rows = []
        shown: set[Mark] = set()
        for example, timeline in timelines.items():
            docname = gallery_docname(self.env, example)
            self.env.note_dependency(
                str(gallery_folders(self.env.config, self.env.srcdir)[0].source / example)
            )
            marks = {r: timeline.mark(r) if r in timeline.releases else Mark.NO_RECORD for r in releases}
            shown.update(marks.values())
            rows.append([_cell(page_link(docname, SECTION_ID)), *_mark_cells(marks, names)])
        header = [_cell(_("Example")), *_header([[release] for release in releases], pinned, linked=True)]
        table = _table(["tl-table", "tl-matrix"], header, rows, widths=[30, *(5 for _release in releases)])
        # the GPU runners and releases that have records, a line each under the CPU's matrix
        result = [legend(shown), table, *gpu_runner_notes(self.env)]
        for node in result:
            node["support_smartquotes"] = False
        return untranslatable(result)


class TimelineChangelogDirective(SphinxDirective):
    """``.. timeline-changelog::``: what changed for autograd users in each release, from the records."""

    def run(self) -> list[nodes.Node]:
        """Return one subsection per recorded release, newest first (one without a change says so)."""
        note_records(self.env)
        timelines = site_records(self.env).timelines
        entries = changelog_entries(release_changes(list(timelines.values())))
        # release -> what changed (the same change in many cells is one entry) -> the change, its cells
        by_release: dict[str, dict[tuple[object, ...], tuple[ChangeEntry, list[tuple[str, int, str]]]]] = {}
        # the operations an entry's alike changes renamed besides its own ("Add", "Pow", ...)
        renamed: dict[tuple[str, tuple[object, ...]], list[str]] = {}
        for entry in entries:
            change = entry.change
            docname = gallery_docname(self.env, change.example)
            first_lines = example_first_lines(self.env, change.example)
            headings = _headings(self.env, change.example)
            number = cell_number(first_lines, change.check.line) if first_lines else 0
            heading = headings[number - 1] if 0 < number <= len(headings) else ""
            what = _entry_key(entry)
            _first, places = by_release.setdefault(change.release, {}).setdefault(what, (entry, []))
            operation = _renamed_operation(entry)
            names = renamed.setdefault((change.release, what), [])
            if operation and operation not in names:
                names.append(operation)
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
                    _(
                        "The oldest recorded release: each newer one above is compared with the one "
                        "before it."
                    ),
                    classes=["tl-none"],
                )
            elif release not in by_release:
                section += nodes.paragraph(
                    "", _("No documented check changed in this release."), classes=["tl-none"]
                )
            else:
                section += self._entries(
                    by_release[release], {k[1]: v for k, v in renamed.items() if k[0] == release}
                )
            result.append(section)
        return untranslatable(result)

    def _entries(
        self,
        changes: dict[tuple[object, ...], tuple[ChangeEntry, list[tuple[str, int, str]]]],
        renamed: dict[tuple[object, ...], list[str]],
    ) -> nodes.Element:
        entries = HtmlList(classes=["tl-changelog"], support_smartquotes=False)
        language = self.env.config.language or "en"
        for what, (entry, places) in changes.items():
            links: list[nodes.Node] = []
            # one page named once, with each of its cells: "Sharded gradients, cell 1 (...), cell 4"
            by_page: dict[str, list[tuple[int, str]]] = {}
            for docname, number, heading in places:
                by_page.setdefault(docname, []).append((number, heading))
            # Chinese sets its own comma and brackets, with no space around them
            chinese = language.startswith("zh")
            comma, opening, closing = ("，", "（", "）") if chinese else (", ", " (", ")")
            for docname, cells in by_page.items():
                if links:
                    links.append(nodes.Text(" · "))
                links.append(page_link(docname, cell_anchor(cells[0][0])))
                # the cells of one section named once: "cells 6, 7 and 8 (Differentiating twice)"
                by_heading: dict[str, list[int]] = {}
                for number, heading in cells:
                    by_heading.setdefault(heading, []).append(number)
                for heading, numbers in by_heading.items():
                    cell = (
                        _("cell {number}").format(number=numbers[0])
                        if len(numbers) == 1
                        else _("cells {numbers}").format(
                            numbers="".join(
                                node.astext() for node in list_of([str(n) for n in numbers], language)
                            )
                        )
                    )
                    links.append(nodes.Text(f"{comma}{cell}"))
                    if heading:
                        links += [nodes.Text(opening), *code_nodes(heading), nodes.Text(closing)]
            where = compose(_("On {pages}."), pages=nodes.inline("", "", *links))
            sentence = change_sentence(entry)
            others = renamed.get(what, [])[1:]
            if others:  # the same rename of other operations, one entry: "Alike for Add, Pow."
                named = nodes.inline("", "", *list_of([_code(name) for name in others], language))
                alike = compose(_("Alike for {names}."), names=named)
                said = "".join(node.astext() for node in sentence)
                sentence += [nodes.Text(gap_after(said)), *alike]
            said = nodes.paragraph("", "", *sentence)
            entries += nodes.list_item("", said, nodes.paragraph("", "", *where, classes=["tl-places"]))
        return entries


def _cells(numbers: list[int], language: str) -> str:
    """``cell 3``, or ``cells 6, 7 and 8`` as ``language`` joins a list."""
    if len(numbers) == 1:
        return _("cell {number}").format(number=numbers[0])
    listed = "".join(node.astext() for node in list_of([str(number) for number in numbers], language))
    return _("cells {numbers}").format(numbers=listed)


def _download_lines(env: BuildEnvironment, example: str) -> dict[int, int]:
    """Each line of ``example`` and its line in its page's download, in the build's language."""
    found = download_lines(env.srcdir, env.config, gallery_docname(env, example))
    return found[1] if found is not None else {}


def _headings(env: BuildEnvironment, example: str) -> list[str]:
    r"""The title of the section each code cell of an example is in, in the build's language.

    An escaped space (``\ ``, which a translation writes between a literal
    and a full-width mark) is reStructuredText for nothing: the title as the
    page shows it has none.
    """
    titles = translate_from(env, gallery_docname(env, example), example_cell_headings(env, example))
    return [title.replace("\\ ", "") for title in titles]


def _entry_key(entry: ChangeEntry) -> tuple[object, ...]:
    """What makes two changes one entry: the sentence a reader would read, word for word.

    A cell that stops early stops every check in it: "The cell stops before
    this check: <reason>" is one entry, with every place it holds for, however
    many checks (and texts) the cell has.
    """
    found = decided_sentence(entry)
    kind = entry.change.check.kind
    follows = tuple((f.check.label, render_word_diff(f.diff)) for f in entry.follows)
    if found.sentence in (Sentence.STOPS, Sentence.RUNS):
        return (found.sentence, shorten(found.reason), *follows)
    label = found.label if kind == "value" else ""
    diff = _operations_as_one(render_word_diff(found.diff))
    said = _operations_as_one(shorten(found.said))
    return (kind, found.sentence, found.old, found.new, said, diff, label, *follows)


# a node renamed by its operation ("[-AddBackward0,-]{+Add,+}"), and a number, in a rendered word diff
_RENAMED = re.compile(r"\[-(\w+?)Backward\d*(,?)-\]\{\+\1\2\+\}")
_NUMBER = re.compile(r"\b\d+\b")


def _operations_as_one(text: str) -> str:
    """A message with its renamed operation and its numbers as placeholders.

    PyTorch 2.13 renamed every autograd node in its messages at once
    (``AddBackward0`` became ``Add``): the changes of the messages of many
    operations, at many versions and outputs, are one change.
    """
    return _NUMBER.sub("<n>", _RENAMED.sub(r"[-<op>Backward0\2-]{+<op>\2+}", text))


def _renamed_operation(entry: ChangeEntry) -> str:
    """The operation an entry's change renamed (``Add``), ``""`` for any other change."""
    found = _RENAMED.search(render_word_diff(decided_sentence(entry).diff))
    return found.group(1) if found else ""


DIRECTIVES = {
    "release-changed": ReleaseChangedDirective,
    "release-timeline": ReleaseTimelineDirective,
    "timeline-matrix": TimelineMatrixDirective,
    "timeline-changelog": TimelineChangelogDirective,
}
