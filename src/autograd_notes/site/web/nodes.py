"""Small docutils builders shared by the site's directives: tables, links, sentences made of nodes."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeAlias

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.locale import _

from .html_nodes import HtmlCode

__all__ = [
    "CHARACTERS_PER_WIDTH",
    "ERROR_LINKS_CLASS",
    "RUNNER_NAMES",
    "Cell",
    "code_nodes",
    "compose",
    "doc_reference",
    "gap",
    "list_of",
    "make_table",
    "untranslatable",
]

Cell: TypeAlias = "nodes.Node | str"
ERROR_LINKS_CLASS = "error-links"
"""The class of the line after a cell that links its messages to the error index (no prose of the page)."""
CHARACTERS_PER_WIDTH = 10
"""How many characters a unit of :func:`make_table`'s relative widths is in the text builder's tables."""
Part: TypeAlias = "nodes.Node | str | Sequence[nodes.Node]"

RUNNER_NAMES = {
    "cpu": _("CPU runner"),
    "cuda": _("CUDA runner"),
    "mps": _("MPS runner"),
    "xpu": _("XPU runner"),
}
"""Each runner's name as a label (a table header, a tab).

Never inside a sentence, where a language may need another case of it:
sentences name the runner's kind instead (``on the {kind} runner``).
"""


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
    """A table of ``rows`` (nodes or plain text), with an optional header row.

    ``widths`` are the columns' relative widths. HTML ignores them; LaTeX
    reads their proportions, the text builder characters: each unit is
    :data:`CHARACTERS_PER_WIDTH` characters there.
    """
    table = nodes.table(classes=list(classes))
    group = nodes.tgroup(cols=len(widths))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width * CHARACTERS_PER_WIDTH)
    if header is not None:
        head = nodes.thead()
        head += _row(header)
        group += head
    body = nodes.tbody()
    for cells in rows:
        body += _row(cells)
    group += body
    return table


def doc_reference(docname: str, content: nodes.Node) -> pending_xref:
    """A link to document ``docname`` (absolute, without suffix) showing ``content``."""
    ref: pending_xref = pending_xref(
        "", refdomain="std", reftype="doc", reftarget=f"/{docname}", refexplicit=True
    )
    ref += content
    return ref


def untranslatable(result: list[nodes.Node]) -> list[nodes.Node]:
    """Keep generated text out of the pages' gettext catalogs.

    A directive's own words are translated where they are written (with
    ``sphinx.locale._``, from the ``sphinx`` catalog of each language); the
    rest (versions, dates, outputs) must not become messages, or catalogs
    would change with every runner.
    """
    for node in result:
        for element in node.findall(nodes.TextElement):
            # Sphinx unwraps every inline that has the attribute (gettext placeholders),
            # moving its text to the end of its parent: an inline's text is its parent's message
            if not isinstance(element, nodes.inline):
                element["translatable"] = False
    return result


_FIELD = re.compile(r"\{(\w+)\}")


def compose(template: str, **parts: Part) -> list[nodes.Node]:
    """The nodes of a translated ``template`` whose ``{name}`` fields are ``parts`` (nodes or text).

    A sentence with links in it is translated whole (``_("{example}, cell {cell}")``),
    never concatenated from pieces: each language places the links where its grammar wants them.
    """
    template = str(template)  # a message Sphinx translates when it is shown, outside a build
    result: list[nodes.Node] = []
    position = 0
    for match in _FIELD.finditer(template):
        before = template[position : match.start()]
        part = parts[match.group(1)]
        if before.endswith(" ") and not gap(before, _part_text(part)):
            before = before.rstrip(" ")  # "值 {label}" with “…” in the label: no space before “
        if before:
            result.append(nodes.Text(before))
        if isinstance(part, nodes.Node):
            result.append(part)
        elif isinstance(part, (list, tuple)):
            result.extend(part)
        else:  # text, or a message Sphinx translates when it is shown
            result.append(nodes.Text(str(part)))
        position = match.end()
        after = template[position:].lstrip(" ")
        if not gap(_part_text(part), after):
            position = len(template) - len(after)
    if template[position:]:
        result.append(nodes.Text(template[position:]))
    return result


# Chinese sets no space between its characters or beside its punctuation: a template's space
# between a Chinese character and a field that starts (or ends) with one goes ("值 {label} 变了",
# the label “原始条目的范数”; "结果从 {old} 变为", the outcome 没有警告); Latin text keeps its
# spaces ("值 g 变了"), and so do other languages ("O valor “norma” mudou")
_CHINESE_QUOTES = "“”‘’"
# Chinese punctuation no space goes before in any language (not “ ”, which Portuguese sets too)
_FULL_WIDTH = "（），。：；！？、」』》"


def _part_text(part: Part) -> str:
    if isinstance(part, nodes.Node):
        return str(part.astext())
    if isinstance(part, (list, tuple)):
        return "".join(_part_text(item) for item in part)
    return str(part)


def code_nodes(text: str) -> list[nodes.Node]:
    """Text as reST writes it, its ````code```` as code: ``The double ``where````, a translated label."""
    parts: list[nodes.Node] = []
    for index, piece in enumerate(text.split("``")):
        if piece:
            parts.append(HtmlCode(piece, piece) if index % 2 else nodes.Text(piece))
    return parts


def gap(left: str, right: str) -> str:
    """The space between two texts side by side: none between Chinese ones or before Chinese punctuation.

    ``"2.13.0"`` and ``"（文档版本）"`` join without one; ``"值"`` and ``"g"`` keep theirs.
    """
    first = right.lstrip()[:1]
    if first in _FULL_WIDTH or (_cjk(left.rstrip()[-1:]) and _cjk(first)):
        return ""
    return " "


def _cjk(char: str) -> bool:
    """A Chinese character or punctuation mark (its quotes count when the other side is Chinese)."""
    return bool(char) and (
        "\u3000" <= char <= "\u9fff" or "\uff00" <= char <= "\uffef" or char in _CHINESE_QUOTES
    )


def list_of(items: Sequence[Part], language: str) -> list[nodes.Node]:
    """``items`` as a list in ``language``'s words: "a, b, and c", "a, b и c", "a、b和c"."""
    from babel.lists import format_list

    names = [f"{{item{n}}}" for n in range(len(items))]
    template = format_list(names, locale=language.replace("-", "_")) if items else ""
    if language.startswith("zh") and any(_latin_edge(item) for item in items):
        # Chinese sets a space between its words and Latin text: "RuntimeError: … 和 UserWarning: …"
        template = template.replace("和", " 和 ")
    return compose(template, **{f"item{n}": item for n, item in enumerate(items)})


def _latin_edge(item: Part) -> bool:
    """Whether ``item`` (text or a node) starts or ends with a Latin letter or digit."""
    if isinstance(item, str):
        text = item
    elif isinstance(item, nodes.Node):
        text = item.astext()
    else:
        text = "".join(part if isinstance(part, str) else part.astext() for part in item)
    text = text.strip()
    return any(char.isascii() and char.isalnum() for char in (text[:1], text[-1:]) if char)
