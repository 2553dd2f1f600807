"""The timelines' tables: their cells, marks, release heads and scrolling box.

Shared by an example's "Across PyTorch releases" section
(:mod:`.timeline_section`) and the timeline page's matrix
(:mod:`.timeline_directives`).
"""

from __future__ import annotations

from collections.abc import Sequence

from docutils import nodes
from sphinx.locale import _

from ...records.format.status import Mark
from ...records.history.releases import version_key
from ..web.html_nodes import HtmlBlock, HtmlInline, HtmlTable
from .timeline_legends import _CLASSES, SYMBOLS

__all__ = [
    "changes_anchor",
    "release_groups",
]


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


def release_groups(releases: Sequence[str], rows: Sequence[dict[str, Mark]]) -> list[list[str]]:
    """The releases in runs of neighbours that every row marks alike: one column of the table each.

    A reader then sees every release that behaves otherwise side by side with
    today's, with no need to scroll: ``[["2.4.1", "2.5.1", "2.6.0"], ["2.7.1"], ...]``.
    """
    groups: list[tuple[list[str], tuple[Mark, ...]]] = []
    for release in releases:
        column = tuple(row[release] for row in rows)
        if groups and groups[-1][1] == column:
            groups[-1][0].append(release)
        else:
            groups.append(([release], column))
    return [group for group, _column in groups]


def _minor(release: str) -> str:
    return "{}.{}".format(*version_key(release)[:2])


def group_name(group: Sequence[str]) -> str:
    """A column's releases as its head writes them: ``2.13`` or ``2.4–2.6``."""
    return _minor(group[0]) if len(group) == 1 else f"{_minor(group[0])}–{_minor(group[-1])}"


def _header(groups: Sequence[Sequence[str]], pinned: str, *, linked: bool = False) -> list[nodes.entry]:
    """The heads of release columns, each one release or a run of them (``2.13``, ``2.4–2.6``).

    The column holding the release the page documents says so in words
    (``documented``, or ``documented: 2.13`` under a run). ``linked``: a one-release head links to its
    "What changed in" section of the same page (the timeline page).
    """
    heads = []
    for group in groups:
        short = group_name(group)
        name: nodes.Node = nodes.Text(short)
        if linked and len(group) == 1:
            name = nodes.reference(short, short, refid=changes_anchor(group[0]))
        lines = [nodes.paragraph("", "", name)]
        classes = ["tl-release"]
        if pinned in group:
            today = (
                _("documented")
                if len(group) == 1
                else _("documented: {release}").format(release=_minor(pinned))
            )
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
    """A table that scrolls in its own box on a narrow screen, a line above it saying so.

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
    # where the table is wider than the screen, it opens at its newest releases: say where the rest is
    # (autograd_notes.js hides the line where the table fits)
    hint = _("Older releases are to the left: swipe the table.")
    return HtmlBlock(
        "", nodes.paragraph("", hint, classes=["tl-scroll-hint"]), box, tag="div", classes=["tl-table-box"]
    )
