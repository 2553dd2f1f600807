"""Small docutils builders shared by the site's directives: tables and document links."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from docutils import nodes
from sphinx.addnodes import pending_xref

__all__ = ["Cell", "doc_link", "make_table", "untranslatable"]

Cell: TypeAlias = "nodes.Node | str"


def _entry(content: Cell) -> nodes.entry:
    entry = nodes.entry()
    entry += content if isinstance(content, nodes.Node) else nodes.paragraph("", content)
    return entry


def _row(cells: Sequence[Cell]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        row += _entry(cell)
    return row


def make_table(
    rows: Sequence[Sequence[Cell]],
    *,
    widths: Sequence[int],
    header: Sequence[Cell] | None = None,
    classes: Sequence[str] = (),
) -> nodes.table:
    """A table of ``rows`` (nodes or plain text), with an optional header row."""
    table = nodes.table(classes=list(classes))
    group = nodes.tgroup(cols=len(widths))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    if header is not None:
        head = nodes.thead()
        head += _row(header)
        group += head
    body = nodes.tbody()
    for cells in rows:
        body += _row(cells)
    group += body
    return table


def doc_link(docname: str, text: str, *, literal: bool = False) -> nodes.paragraph:
    """A paragraph holding a link to document ``docname`` (absolute, without suffix)."""
    ref = pending_xref("", refdomain="std", reftype="doc", reftarget=f"/{docname}", refexplicit=True)
    ref += nodes.literal(text, text) if literal else nodes.Text(text)
    return nodes.paragraph("", "", ref)


def untranslatable(result: list[nodes.Node]) -> list[nodes.Node]:
    """Keep generated text out of the pages' gettext catalogs.

    A directive's own words are translated where they are written (with
    ``sphinx.locale._``, from the ``sphinx`` catalog of each language); the
    rest (versions, dates, outputs) must not become messages, or catalogs
    would change with every runner.
    """
    for node in result:
        for element in node.findall(nodes.TextElement):
            element["translatable"] = False
    return result
