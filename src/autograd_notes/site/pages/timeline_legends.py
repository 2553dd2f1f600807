"""The marks of the timelines and their legends, in the build's language.

Each :class:`~autograd_notes.records.format.status.Mark` has a symbol, a class for
the stylesheet and a name; :func:`legend` lists them, :func:`diff_legend`
says how a word diff reads (the older release's words struck, the newer's
inserted).
"""

from __future__ import annotations

from collections.abc import Collection

from docutils import nodes
from sphinx.locale import _

from ...records.format.status import Mark
from ..web.html_nodes import HtmlInline, HtmlList
from ..web.nodes import compose

__all__ = [
    "SYMBOLS",
    "diff_legend",
    "legend",
    "mark_names",
]

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
        Mark.SAME: _("same as documented"),
        Mark.BUILD: _(
            "differs by build only: the documented release prints the same when built the same way"
        ),
        Mark.WORDS: _("message differs"),
        Mark.OUTCOME: _("different outcome"),
        Mark.MISSING: _("not available in this release"),
        Mark.NO_RECORD: _("no record"),
    }


def legend(shown: Collection[Mark] | None = None) -> nodes.Element:
    """The marks and what they mean, as a list: those a table ``shown`` (default: every mark)."""
    names = mark_names()
    items = HtmlList(classes=["tl-legend"])
    for mark in Mark:
        if shown is not None and mark not in shown:
            continue
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
