"""The gallery's thumbnail cards in the page's language.

sphinx-gallery writes each card of a gallery index as raw HTML: the
example's title and its opening paragraph (the hover text) in English,
which the translated builds would show as they are. This extension notes,
when an index page is read, which example each card stands for (its
``:doc:`` link), and when the page is written, puts that example's title
and opening paragraph, as translated, into the card.
"""

from __future__ import annotations

import html
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

from ..upstream.outputs import is_card_link, is_card_opening, is_card_title, set_card_title, set_card_tooltip

__all__ = ["setup", "translate_cards"]

_CARD = "autograd_notes_card"  # the docname a raw node of a card belongs to


def _mark_cards(app: Sphinx, doctree: nodes.document) -> None:
    """Give each raw node of a card the docname of the example its ``:doc:`` link names."""
    current: str | None = None  # the example of the card being read
    opening: nodes.raw | None = None  # the card's opening raw node, which comes before its link
    for node in doctree.findall(lambda n: isinstance(n, (nodes.raw, addnodes.pending_xref))):
        is_doc_link = is_card_link(node.get("refdomain"), node.get("reftype"))
        if isinstance(node, addnodes.pending_xref) and is_doc_link:
            current = str(node["reftarget"]).lstrip("/")
            if opening is not None:
                opening[_CARD] = current
                opening = None
        elif isinstance(node, nodes.raw) and is_card_opening(node.astext()):
            opening = node
        elif isinstance(node, nodes.raw) and is_card_title(node.astext()) and current:
            node[_CARD] = current


def _opening(app: Sphinx, docname: str) -> str | None:
    """The example's first paragraph after its title, as translated (read once per build)."""
    openings: dict[str, str | None] = app.__dict__.setdefault("_autograd_notes_openings", {})
    if docname not in openings:
        openings[docname] = _read_opening(app, docname)
    return openings[docname]


def _read_opening(app: Sphinx, docname: str) -> str | None:
    try:
        doctree = app.env.get_doctree(docname)
    except (FileNotFoundError, OSError):
        return None
    for section in doctree.findall(nodes.section):
        for child in section.children:
            if isinstance(child, nodes.paragraph):
                return " ".join(_plain_text(app, child).split())
        break
    return None


def _plain_text(app: Sphinx, paragraph: nodes.paragraph) -> str:
    """The paragraph's text as its page shows it: a ``:ref:`` to a label reads as the section's title.

    The stored doctree is not resolved yet: an implicit ``:ref:`label``` still
    holds the label itself, where the page shows the title it links to.
    """
    labels = app.env.domains.standard_domain.labels
    parts: list[str] = []

    def walk(node: nodes.Node) -> None:
        if isinstance(node, addnodes.pending_xref) and node.get("reftype") == "ref":
            target = labels.get(str(node.get("reftarget", "")))
            if not node.get("refexplicit") and target is not None:
                parts.append(target[2])
                return
        if isinstance(node, nodes.Text):
            parts.append(node.astext())
            return
        for child in node.children:
            walk(child)

    walk(paragraph)
    return "".join(parts)


def translate_cards(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Put each card's example title and opening paragraph, as translated, into its raw HTML."""
    for node in list(doctree.findall(nodes.raw)):
        target = node.get(_CARD)
        if not target or target not in app.env.titles:
            continue
        text = node.astext()
        title = html.escape(app.env.titles[target].astext())
        text = set_card_title(text, title)
        opening = _opening(app, target)
        if opening is not None:
            text = set_card_tooltip(text, html.escape(opening, quote=True))
        node.replace_self(nodes.raw(node.rawsource, text, format=node.get("format", "html")))


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the two handlers."""
    app.connect("doctree-read", _mark_cards)
    app.connect("doctree-resolved", translate_cards)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
