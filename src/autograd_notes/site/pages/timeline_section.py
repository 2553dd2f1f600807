"""An example page's timeline: its "Across PyTorch releases" section and its "Changed in" note.

:func:`timeline_nodes` is the section's body (summary, legend, a table of
the cells × the releases, every difference check by check);
:func:`changed_note` the note at the top of the page where the newest
recorded release does otherwise than the page documents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from docutils import nodes
from sphinx.locale import _

from ...records.format.status import Mark
from ...records.history.releases import version_key
from ...records.history.timeline import CheckTimeline, ExampleTimeline, Observation, observation_runs, worst
from ..i18n.check_labels import label_node
from ..i18n.zh_punctuation import list_comma, sentence_gap
from ..web.html_nodes import HtmlBlock, HtmlInline, HtmlLine, HtmlList, HtmlPre
from ..web.links import cell_label, cell_number, label_link
from ..web.nodes import code_nodes, compose, doc_reference, gap
from .timeline_legends import _CLASSES, SYMBOLS, diff_legend, legend, mark_names
from .timeline_sentences import (
    _code,
    _diff_nodes,
    _ranges,
    _span,
    kind_nodes,
    observed_words,
    summary_sentence,
)
from .timeline_tables import _cell, _header, _mark_cells, _table, release_groups

__all__ = ["TIMELINE_DOC", "timeline_nodes"]

TIMELINE_DOC = "timeline"


Runs = list[tuple[list[str], Observation]]


def _observations(runs: Runs, pinned: str) -> nodes.Element:
    """Each distinct observation, with the releases that made it, as a list."""
    names = mark_names()
    items = HtmlList(classes=["tl-observations"])
    for releases, seen in runs:
        documented = _("(documented)")
        head = _span(releases) + (gap(_span(releases), documented) + documented if pinned in releases else "")
        if seen.mark == Mark.SAME:
            text = observed_words(seen.text or "")
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


def _missing(seen: Observation) -> bool:
    """Whether the example stopped before the check at what the release lacks."""
    return seen.mark == Mark.MISSING


def _not_reached(seen: Observation) -> bool:
    """Whether the example stopped before the check at an error, the check's outcome unseen."""
    return seen.mark == Mark.OUTCOME and seen.text is None


def _differing_runs(check: CheckTimeline) -> Runs:
    """A check's runs of releases, those where the example stopped before the check left out.

    ``[]`` where what is left is the same as today everywhere: nothing to show for the check.
    """
    runs = [
        (releases, seen)
        for releases, seen in observation_runs(check)
        if not _missing(seen) and not _not_reached(seen)
    ]
    return runs if any(seen.mark not in (Mark.SAME, Mark.NO_RECORD) for _r, seen in runs) else []


def _stopping_runs(checks: Sequence[CheckTimeline], stopped: Callable[[Observation], bool]) -> Runs:
    """Each distinct run of releases where the example stopped (as ``stopped`` says), over every check.

    Said once per page, not once per check it kept from running.
    """
    found: dict[tuple[tuple[str, ...], str], tuple[list[str], Observation]] = {}
    for check in checks:
        for releases, seen in observation_runs(check):
            if stopped(seen):
                found.setdefault((tuple(releases), seen.reason), (releases, seen))
    return sorted(found.values(), key=lambda run: version_key(run[0][0]))


def _alike(checks: Sequence[CheckTimeline]) -> list[tuple[list[CheckTimeline], Runs]]:
    """The checks of a cell that differ from today, those that differ in the same releases alike as one.

    In the order of their lines, as a reader reads the cell (a check can run before one above it).
    """
    groups: dict[tuple[object, ...], tuple[list[CheckTimeline], Runs]] = {}
    for check in sorted(checks, key=lambda check: check.line):
        runs = _differing_runs(check)
        if runs:
            key = tuple((tuple(releases), seen.mark, seen.text, seen.reason) for releases, seen in runs)
            groups.setdefault(key, ([], runs))[0].append(check)
    return list(groups.values())


def _difference(
    group: tuple[list[CheckTimeline], Runs],
    headings: Sequence[str],
    number: int,
    example: str,
    names: dict[Mark, str],
    pinned: str,
    recorded: list[str],
    language: str,
    line_numbers: Mapping[int, int],
) -> nodes.Element:
    """One box of "Every difference": the checks of a cell that differ alike, and how, release by release.

    Its lines are numbered as the page's download numbers them (``line_numbers``).

    Its summary names the releases that differ (``2.4.1–2.10.0``): two boxes of
    one line, its checks differing in other releases, are told apart closed.
    """
    checks, runs = group
    comma = list_comma(language)
    what = comma.join(
        names[m] for m in sorted({seen.mark for _r, seen in runs} - {Mark.SAME, Mark.NO_RECORD})
    )
    differing = [
        r for releases, seen in runs if seen.mark not in (Mark.SAME, Mark.NO_RECORD) for r in releases
    ]
    what += f" · {_ranges(recorded, differing, language)}" if differing else ""
    lines = [str(line_numbers.get(check.line, check.line)) for check in checks]
    where = (
        _("line {line}").format(line=lines[0])
        if len(lines) == 1
        else _("lines {lines}").format(lines=comma.join(lines))
    )
    kinds: list[nodes.Node] = []
    for check in checks:
        kinds += ([nodes.Text(comma)] if kinds else []) + kind_nodes(check)
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
        nodes.Text(f" · {where} · "),
        *kinds,
        nodes.Text(f" · {what}"),
        tag="summary",
    )
    # the row's name is the summary's: what it opens links to the cell by its number alone
    go = _("Go to cell {number}").format(number=number)
    to_cell = nodes.paragraph(
        "", "", label_link(cell_label(example, number), nodes.Text(go)), classes=["tl-check-cell"]
    )
    return HtmlBlock("", summary, to_cell, _observations(runs, pinned), tag="details", classes=["tl-check"])


def _row_name(headings: Sequence[str], number: int, checks: list[CheckTimeline]) -> list[nodes.Node]:
    """What a row checks: its cell's section title, else its first check's label, else "Cell n"."""
    heading = headings[number - 1] if 0 < number <= len(headings) else ""
    if heading:
        return code_nodes(heading)
    label = next((check.label for check in checks if check.label), "")
    if label:
        return [label_node(label)]
    return [nodes.Text(_("Cell {number}").format(number=number))]


def timeline_nodes(
    timeline: ExampleTimeline,
    first_lines: list[int],
    *,
    timeline_page: bool = True,
    headings: Sequence[str] = (),
    language: str = "en",
    line_numbers: Mapping[int, int] | None = None,
) -> nodes.Element:
    """The body of an example's "Across PyTorch releases" section.

    Its cell links are references to the cells' labels on the example's page
    (each code cell of a page has one): ``first_lines`` are the first source
    line of each of its code cells, ``headings`` the title of the section each
    is in (a row is named by it, and by its cell's number). It ends with a link
    to the timeline page where the build has one (``timeline_page``). Lists are
    joined as ``language`` joins them. A check's line is said as the page's
    download numbers it (``line_numbers``: the script's lines to the
    download's; the script's own where it is not given).
    """
    line_numbers = line_numbers or {}
    more = compose(
        _("All examples and a changelog by release: {link}."),
        link=doc_reference(TIMELINE_DOC, nodes.Text(_("Behaviour across PyTorch releases"))),
    )
    end = [nodes.paragraph("", "", *more)] if timeline_page else []
    summary = nodes.paragraph("", "", *summary_sentence(timeline, language), classes=["tl-summary"])
    if not timeline.rows:  # nothing checked: no table, no legend, no list (the summary says why)
        return HtmlBlock(
            "", summary, *end, tag="div", classes=["release-timeline"], support_smartquotes=False
        )
    names = mark_names()
    releases = timeline.releases
    intro = compose(
        _(
            "Each row is a code cell of this page that checks something (an expected error or "
            "warning, a value); each column a PyTorch release (the latest patch of its minor "
            "release, run on a CPU), or several releases in a row that behave alike. {pinned} is "
            "the release the page documents."
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
    row_marks = {
        number: {release: worst([c.releases[release].mark for c in checks]) for release in releases}
        for number, checks in cells.items()
    }
    groups = release_groups(releases, list(row_marks.values()))
    recorded = timeline.recorded_releases()
    shown = {row_marks[number][group[0]] for number in cells for group in groups}
    # why a release's build may word a message otherwise, where the table shows it (◇)
    builds: list[nodes.Node] = []
    if Mark.BUILD in shown:
        said = _(
            "The other releases ran as the package index serves them, most as a CUDA build on the "
            "CPU, where a few messages read otherwise (◇)."
        )
        builds = [nodes.Text(sentence_gap(language) + said)]
    for number, checks in cells.items():
        name = _row_name(headings, number, checks)
        marks = {_span(group): row_marks[number][group[0]] for group in groups}
        rows.append(
            [
                _cell(*link(number, name)),
                _cell(str(len(checks)), classes=["tl-count"]),
                *_mark_cells(marks, names),
            ]
        )
        for group in _alike(checks):
            details.append(
                _difference(
                    group,
                    headings,
                    number,
                    timeline.example,
                    names,
                    timeline.pinned,
                    recorded,
                    language,
                    line_numbers,
                )
            )
    header = [
        _cell(_("Cell")),
        _cell(_("Checks"), classes=["tl-count"]),
        *_header(groups, timeline.pinned),
    ]
    table = _table(["tl-table"], header, rows, widths=[10, 6, *(5 for _group in groups)])
    differences: list[nodes.Node] = []
    every = [check for checks in cells.values() for check in checks]
    missing, stopped = _stopping_runs(every, _missing), _stopping_runs(every, _not_reached)
    if details or missing or stopped:
        differences = [nodes.paragraph("", _("Every difference, check by check"), classes=["tl-heading"])]
    if missing:
        said = _(
            "In these releases the example stops early, at what the release does not have yet; "
            "this holds for every check of the page:"
        )
        differences += [nodes.paragraph("", said), _observations(missing, timeline.pinned)]
    if stopped:
        said = _(
            "In these releases the example stops at an error before it reaches some of its checks; "
            "the table marks those checks ✗, and they are not listed again below:"
        )
        differences += [nodes.paragraph("", said), _observations(stopped, timeline.pinned)]
    if details:
        differences += [diff_legend(), *details]
    if not details and not missing and not stopped and timeline.rows:
        differences = [
            nodes.paragraph("", _("No check differs in any recorded release."), classes=["tl-none"])
        ]
    return HtmlBlock(
        "",
        summary,
        nodes.paragraph("", "", *intro, *builds),
        legend(shown),
        table,
        *differences,
        *end,
        tag="div",
        classes=["release-timeline"],
        # the text as written: no curly quotes in messages and version numbers
        support_smartquotes=False,
    )
