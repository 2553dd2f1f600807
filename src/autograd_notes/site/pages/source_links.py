"""Links to a source document named by its number: "Document 003 says ...", not its whole title.

An example's *Sources* section cites the documents the site started from
with ``:ref:`source_003```. Sphinx would write each link as the document's
section title on the sources page ("003 · Portuguese Q&A: what the
``gradient`` argument of ``backward()`` means"), which, as the subject of a
sentence, reads as garbled ("... means creates leaves with ..."). This
post-transform gives every such link without a title of its own the words
"document 003" in the page's language ("Document 003" where it starts its
paragraph), before Sphinx resolves it; the link still leads to the entry
with the full title.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.locale import _
from sphinx.transforms.post_transforms import SphinxPostTransform

__all__ = ["SourceLinks", "link_words"]

_SOURCE = re.compile(r"^source_(\d+)$")


def link_words(number: str, *, starts: bool) -> str:
    """The words of a link to source document ``number``, capitalised where they start a paragraph."""
    if starts:
        return _("Document {number}").format(number=number)
    return _("document {number}").format(number=number)


def _starts_paragraph(node: nodes.Node) -> bool:
    parent = node.parent
    return isinstance(parent, nodes.paragraph) and parent.index(node) == 0


class SourceLinks(SphinxPostTransform):
    """Name each untitled ``:ref:`source_NNN``` link by its document's number."""

    default_priority = 5  # before Sphinx resolves references (10)

    def run(self, **kwargs: Any) -> None:
        """Give the links their words, as if the page had written them."""
        for node in list(self.document.findall(pending_xref)):
            found = _SOURCE.match(node.get("reftarget", ""))
            if node.get("reftype") != "ref" or node.get("refexplicit") or found is None:
                continue
            words = link_words(found.group(1), starts=_starts_paragraph(node))
            node["refexplicit"] = True
            node.children = []
            node += nodes.inline(words, words, classes=["xref", "std", "std-ref"])


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the post-transform."""
    app.add_post_transform(SourceLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
