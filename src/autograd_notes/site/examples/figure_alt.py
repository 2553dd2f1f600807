"""A figure's alt text is its caption: the first paragraph after it, in the page's language.

The figures the examples draw carry no words (one execution serves every
language), so what a figure shows is said by the paragraph that follows
it. After the page is translated, that paragraph becomes the image's alt
text: a reader who cannot see the picture, or a search engine, gets the
same in their language. A figure with no paragraph after it is a warning
(under ``-W``, a failed build) naming the page and the figure.

Figures are sphinx-gallery's (``image-sg`` nodes) and myst-nb's cell
outputs (``image`` nodes inside a cell's output).
"""

from __future__ import annotations

import html
import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx_gallery.directives import imgsgnode

from ..upstream.names import GALLERY_OUTPUT, NOTEBOOK_OUTPUT
from ..web.nodes import ERROR_LINKS_CLASS

__all__ = ["LIMIT", "alt_text", "caption_figures", "setup"]

logger = logging.getLogger(__name__)

LIMIT = 320  # characters: a screen reader reads an alt text whole; longer captions end at a sentence
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")
_OUTPUT_CLASSES = (GALLERY_OUTPUT, NOTEBOOK_OUTPUT, "runner-tabs", "runner-tab-panel")


def _is_figure(node: nodes.Node) -> bool:
    if not isinstance(node, nodes.Element):
        return False
    if isinstance(node, imgsgnode):
        return True
    if isinstance(node, nodes.image):
        return any(NOTEBOOK_OUTPUT in ancestor.get("classes", []) for ancestor in _ancestors(node))
    return False


def _ancestors(node: nodes.Node) -> list[nodes.Element]:
    found = []
    parent = node.parent
    while parent is not None:
        found.append(parent)
        parent = parent.parent
    return found


def _in_output(node: nodes.Node) -> bool:
    return any(
        any(name in ancestor.get("classes", []) for name in _OUTPUT_CLASSES) for ancestor in _ancestors(node)
    )


def alt_text(caption: str, limit: int = LIMIT) -> str:
    """The caption on one line; a long one cut after its last whole sentence within ``limit``."""
    text = " ".join(caption.split())
    if len(text) <= limit:
        return text
    cut = [m.start() for m in _SENTENCE_END.finditer(text) if 0 < m.start() <= limit]
    if cut:
        return text[: cut[-1]].rstrip()
    return text[: limit - 1].rstrip() + "…"


def _caption(figure: nodes.Element) -> nodes.paragraph | None:
    """The first paragraph after ``figure`` in reading order, outside code outputs and error links."""
    for node in figure.findall(
        lambda n: isinstance(n, nodes.paragraph), include_self=False, descend=True, siblings=True, ascend=True
    ):
        if not _in_output(node) and ERROR_LINKS_CLASS not in node.get("classes", []):
            return node
    return None


def caption_figures(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Set each figure's alt text to its caption (see the module docstring); warn where there is none."""
    figures = [node for node in doctree.findall(_is_figure) if isinstance(node, nodes.Element)]
    for number, figure in enumerate(figures, start=1):
        caption = _caption(figure)
        if caption is None:
            logger.warning(
                "figure %d of %s has no paragraph after it to describe it (its alt text)",
                number,
                docname,
                location=figure,
                type="autograd_notes",
                subtype="figure",
            )
            continue
        text = alt_text(caption.astext())
        # sphinx-gallery writes image-sg's alt into the HTML as it is; docutils escapes an image's own
        figure["alt"] = html.escape(text, quote=True) if isinstance(figure, imgsgnode) else text


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the handler."""
    app.connect("doctree-resolved", caption_figures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
