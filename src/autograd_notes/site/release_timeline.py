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
in words, in the build's language (the ``sphinx`` catalog), as HTML.
"""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

from ..records.compare import Change, Segment, WordDiff, render_word_diff
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
from .links import cell_anchor, cell_number, example_first_lines, gallery_docname
from .nodes import untranslatable

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
    "timeline_html",
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


def _code(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"


def _span(releases: list[str]) -> str:
    """``2.4.1`` or ``2.4.1–2.8.0``."""
    return releases[0] if len(releases) == 1 else f"{releases[0]}–{releases[-1]}"


def summary_sentence(timeline: ExampleTimeline) -> str:
    """The one-sentence summary, as HTML in the build's language."""
    summary = summarise(timeline)
    recorded = timeline.recorded_releases()
    if len(recorded) < 2:
        return html.escape(_("No other PyTorch release has been recorded for this page yet."))
    if not summary.failing:
        text = html.escape(_("Holds as documented in every recorded release, {first} to {last}.")).format(
            first=summary.first, last=summary.last
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
        text = html.escape(_("Holds as documented since {since}; {before}.")).format(
            since=summary.holds_since, before=html.escape(clause)
        )
    else:
        held = [r for r in recorded if r not in summary.failing]
        text = html.escape(_("Holds as documented in {held}; not in {failing}.")).format(
            held=_ranges(recorded, held) or "–", failing=_ranges(recorded, summary.failing)
        )
    if summary.wording is not None:
        release, old, new, count = summary.wording
        words = html.escape(
            _("In {release}, the words of {count} checked message changed: {old} → {new}.")
            if count > 1
            else _("In {release}, the words of a checked message changed: {old} → {new}.")
        )
        text += " " + words.format(release=release, count=count, old=_code(old or "…"), new=_code(new or "…"))
    return text


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


def _marks_row(marks: dict[str, Mark], names: dict[Mark, str]) -> str:
    cells = []
    for release, mark in marks.items():
        label = f"{release}: {names[mark]}"
        cells.append(
            f'<td class="tl-mark tl-{_CLASSES[mark]}" title="{html.escape(label)}">'
            f'<span aria-label="{html.escape(label)}">{SYMBOLS[mark]}</span></td>'
        )
    return "".join(cells)


def _header(releases: list[str], pinned: str) -> str:
    heads = []
    for release in releases:
        title = (
            _("{release} (today, the release the pages document)").format(release=release)
            if release == pinned
            else release
        )
        short = "{}.{}".format(*version_key(release)[:2])
        classes = "tl-release tl-today" if release == pinned else "tl-release"
        heads.append(f'<th class="{classes}" scope="col" title="{html.escape(title)}">{short}</th>')
    return "".join(heads)


def legend() -> str:
    """The marks and what they mean, as HTML."""
    names = mark_names()
    items = "".join(
        f'<li><span class="tl-mark tl-{_CLASSES[mark]}">{SYMBOLS[mark]}</span> '
        f"{html.escape(names[mark])}</li>"
        for mark in Mark
    )
    return f'<ul class="tl-legend">{items}</ul>'


def _kind_name(check: CheckTimeline) -> str:
    kinds = {"error": _("expected error"), "warning": _("expected warning"), "value": _("checked value")}
    return html.escape(kinds.get(check.kind, check.kind))


def _shorten(text: str, limit: int = 100) -> str:
    """At most ``limit`` characters of ``text``, cut at a word, ``…`` where cut."""
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def _change_words(before: Observation, after: Observation, names: dict[Mark, str]) -> str:
    """How a check changed between two releases: the marks, and the first words that differ."""
    words = ""
    if before.text and after.text and before.text != after.text:
        old, new = (_shorten(part) for part in first_change(before.text, after.text))
        words = html.escape(_("the words changed: {old} → {new}")).format(
            old=_code(old or "…"), new=_code(new or "…")
        )
    if before.mark == after.mark and words:
        return words
    marks = f"{html.escape(names[before.mark])} → {html.escape(names[after.mark])}"
    return f"{marks}; {words}" if words else marks


def _kind(check: CheckTimeline) -> str:
    label = f" {_code(check.label)}" if check.label else ""
    return _kind_name(check) + label


def _observations(check: CheckTimeline, pinned: str) -> str:
    """Each distinct observation of a check, with the releases that made it, as a list."""
    names = mark_names()
    items = []
    for releases, seen in observation_runs(check):
        today = pinned in releases
        head = html.escape(_span(releases)) + (" " + html.escape(_("(today)")) if today else "")
        if seen.mark == Mark.SAME:
            body = f'<pre class="tl-text">{html.escape(seen.text or "")}</pre>'
        elif seen.mark == Mark.MISSING or (seen.mark == Mark.OUTCOME and seen.text is None):
            body = f'<pre class="tl-text">{html.escape(seen.reason)}</pre>'
        else:
            body = f'<pre class="tl-text tl-diff">{_diff_html(seen.diff)}</pre>'
        items.append(
            f'<li class="tl-{_CLASSES[seen.mark]}"><span class="tl-mark tl-{_CLASSES[seen.mark]}">'
            f"{SYMBOLS[seen.mark]}</span> <strong>{head}</strong> · "
            f"{html.escape(names[seen.mark])}{body}</li>"
        )
    return f'<ul class="tl-observations">{"".join(items)}</ul>'


def _segment_html(segment: Segment) -> str:
    text = html.escape(segment.text)
    if segment.change is Change.REMOVED:
        return f"<del>{text}</del>"
    if segment.change is Change.ADDED:
        return f"<ins>{text}</ins>"
    return text


def _diff_html(diff: WordDiff) -> str:
    """A word diff as HTML: removed words in ``<del>``, added ones in ``<ins>``, the rest escaped."""
    return render_word_diff(diff, _segment_html)


def timeline_html(timeline: ExampleTimeline, first_lines: list[int]) -> str:
    """The body of an example's "Across PyTorch releases" section."""
    names = mark_names()
    releases = timeline.releases
    intro = html.escape(
        _(
            "Each row is a code cell of this page that checks something (an expected error or "
            "warning, a value); each column a PyTorch release, the latest patch of its minor "
            "release, run on a CPU. {pinned} is the release the page documents; the others ran "
            "as the build the registry serves, which may word a build-specific message otherwise."
        )
    ).format(pinned=_code(timeline.pinned))
    cells: dict[int, list[CheckTimeline]] = {}
    for row in timeline.rows:
        for check in row.checks:
            number = cell_number(first_lines, check.line) if first_lines else 0
            cells.setdefault(number, []).append(check)
    rows = []
    details = []
    for number, checks in cells.items():
        link = f'<a href="#{cell_anchor(number)}">{html.escape(_("Cell {number}").format(number=number))}</a>'
        marks = {release: worst([c.releases[release].mark for c in checks]) for release in releases}
        rows.append(
            f'<tr><th scope="row">{link}</th><td class="tl-count">{len(checks)}</td>'
            f"{_marks_row(marks, names)}</tr>"
        )
        for check in checks:
            if all(seen.mark in (Mark.SAME, Mark.NO_RECORD) for seen in check.releases.values()):
                continue
            line = html.escape(_("line {line}").format(line=check.line))
            worst_marks = sorted(
                {
                    seen.mark
                    for seen in check.releases.values()
                    if seen.mark not in (Mark.SAME, Mark.NO_RECORD)
                }
            )
            what = ", ".join(html.escape(names[m]) for m in worst_marks)
            details.append(
                f'<details class="tl-check"><summary>{link} · {line} · {_kind(check)} · {what}</summary>'
                f"{_observations(check, timeline.pinned)}</details>"
            )
    table = (
        f'<div class="tl-scroll"><table class="tl-table"><thead><tr><th scope="col">'
        f'{html.escape(_("Cell"))}</th><th scope="col">{html.escape(_("Checks"))}</th>'
        f"{_header(releases, timeline.pinned)}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
    differences = ""
    if details:
        title = html.escape(_("Every difference, check by check"))
        differences = f'<p class="tl-heading">{title}</p>' + "".join(details)
    elif timeline.rows:
        differences = f'<p class="tl-none">{html.escape(_("No check differs in any recorded release."))}</p>'
    more = html.escape(_("All examples and a changelog by release: {link}.")).format(
        link=f'<a href="⟦doc:{TIMELINE_DOC}⟧">{html.escape(_("Behaviour across PyTorch releases"))}</a>'
    )
    return (
        f'<div class="release-timeline"><p class="tl-summary">{summary_sentence(timeline)}</p>'
        f"<p>{intro}</p>{table}{legend()}{differences}<p>{more}</p></div>"
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
        first_lines = example_first_lines(self.env, example)
        section += _LinkedRaw("", timeline_html(timeline, first_lines), format="html")
        return untranslatable([section])


def _title(env: Any, docname: str) -> str:
    title = env.titles.get(docname)
    return title.astext() if title is not None else docname


class TimelineMatrixDirective(SphinxDirective):
    """``.. timeline-matrix::``: every example × every release, one mark each, linked to its page."""

    def run(self) -> list[nodes.Node]:
        """Return the matrix as HTML."""
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
            link = f'<a href="⟦doc:{docname}⟧#{SECTION_ID}">⟦title:{docname}⟧</a>'
            rows.append(f'<tr><th scope="row">{link}</th>{_marks_row(marks, names)}</tr>')
        table = (
            f'<div class="tl-scroll"><table class="tl-table tl-matrix"><thead><tr><th scope="col">'
            f"{html.escape(_('Example'))}</th>{_header(releases, pinned)}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>"
        )
        node = _LinkedRaw("", table + legend(), format="html")
        return [node]


class TimelineChangelogDirective(SphinxDirective):
    """``.. timeline-changelog::``: what changed for autograd users in each release, from the records."""

    def run(self) -> list[nodes.Node]:
        """Return one subsection per release with changes, newest first."""
        timelines = site_timelines(self.env)
        changes = release_changes(list(timelines.values()))
        names = mark_names()
        # release -> what changed (the same change in many cells is one entry) -> its cells
        by_release: dict[str, dict[str, list[str]]] = {}
        for change in changes:
            docname = gallery_docname(self.env, change.example)
            first_lines = example_first_lines(self.env, change.example)
            number = cell_number(first_lines, change.check.line) if first_lines else 0
            cell = html.escape(_("cell {number}").format(number=number))
            link = f'<a href="⟦doc:{docname}⟧#{cell_anchor(number)}">⟦title:{docname}⟧</a>, {cell}'
            what = f"{_kind_name(change.check)}: {_change_words(change.before, change.after, names)}"
            links = by_release.setdefault(change.release, {}).setdefault(what, [])
            if link not in links:
                links.append(link)
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
            entries = "".join(
                f"<li>{what}<br>{' · '.join(links)}</li>" for what, links in by_release[release].items()
            )
            section += _LinkedRaw("", f'<ul class="tl-changelog">{entries}</ul>', format="html")
            result.append(section)
        return untranslatable(result)


class _LinkedRaw(nodes.raw):  # type: ignore[misc]  # docutils has no types here
    """Raw HTML with ``⟦doc:name⟧`` links and ``⟦title:name⟧`` titles, resolved when the page is written."""


_PLACEHOLDER = re.compile(r"⟦(doc|title):([\w/.-]+)⟧")


def _resolve_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Fill the links and titles of :class:`_LinkedRaw` nodes for the page being written."""
    builder = app.builder
    for node in doctree.findall(_LinkedRaw):

        def fill(match: re.Match[str], builder: Any = builder) -> str:
            target = match.group(2)
            if target not in app.env.all_docs:
                return match.group(0)
            if match.group(1) == "title":
                return html.escape(_title(app.env, target))
            return str(builder.get_relative_uri(docname, target))

        text = _PLACEHOLDER.sub(fill, node.astext())
        node.replace_self(nodes.raw("", text, format="html"))


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
    """Register the directives, the section's place and the link resolution."""
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.connect("doctree-read", _lift_sections, priority=400)
    app.connect("doctree-resolved", _resolve_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
