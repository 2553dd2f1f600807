"""The gallery's thumbnail cards in the page's language.

sphinx-gallery writes each card of a gallery index as raw HTML: the
example's title and its opening paragraph (the hover text) in English,
which the translated builds would show as they are. This extension notes,
when an index page is read, which example each card stands for (its
``:doc:`` link), and when each page is read its opening paragraph; when
an index page is written, it puts the example's title and opening
paragraph, as translated, into each card.
"""

from __future__ import annotations

import html
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

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


# An opening paragraph as its parts: plain text, or an implicit ``:ref:`` (its label, and its own
# text should the label be unknown), which reads as the title of the section it names.
Opening = list[str | tuple[str, str]]
_OPENINGS = "autograd_notes_openings"  # on the environment: each page's Opening, from when it was read


def _openings(env: BuildEnvironment) -> dict[str, Opening]:
    if not hasattr(env, _OPENINGS):
        setattr(env, _OPENINGS, {})
    openings: dict[str, Opening] = getattr(env, _OPENINGS)
    return openings


def _keep_opening(app: Sphinx, doctree: nodes.document) -> None:
    """Keep the page's first paragraph after its title, as translated, while its doctree is at hand."""
    for section in doctree.findall(nodes.section):
        for child in section.children:
            if isinstance(child, nodes.paragraph):
                _openings(app.env)[app.env.docname] = _parts(child)
                return
        return


def _parts(paragraph: nodes.paragraph) -> Opening:
    parts: Opening = []

    def walk(node: nodes.Node) -> None:
        is_ref = isinstance(node, addnodes.pending_xref) and node.get("reftype") == "ref"
        if is_ref and not node.get("refexplicit"):
            parts.append((str(node.get("reftarget", "")), node.astext()))
        elif isinstance(node, nodes.Text):
            parts.append(node.astext())
        else:
            for child in node.children:
                walk(child)

    walk(paragraph)
    return parts


def _opening(app: Sphinx, docname: str) -> str | None:
    """The example's opening paragraph as its page shows it: a ``:ref:`label``` reads as the section's title.

    The page was read before its label's target may have been: the labels
    are looked up now, when every page has been read.
    """
    parts = _openings(app.env).get(docname)
    if parts is None:
        return None
    labels = app.env.domains.standard_domain.labels
    words = [part if isinstance(part, str) else labels.get(part[0], ("", "", part[1]))[2] for part in parts]
    return " ".join("".join(words).split())


def _forget_opening(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _openings(env).pop(docname, None)


def _merge_openings(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    _openings(env).update({name: parts for name, parts in _openings(other).items() if name in docnames})


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
    """Register the handlers."""
    app.connect("doctree-read", _mark_cards)
    app.connect("doctree-read", _keep_opening)
    app.connect("env-purge-doc", _forget_opening)
    app.connect("env-merge-info", _merge_openings)
    app.connect("doctree-resolved", translate_cards)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
