"""Words the furo theme writes without passing them through a catalog.

furo names each expandable entry of the sidebar's navigation tree, for
screen readers, with an English f-string ("Toggle navigation of {title}")
in Python, after the templates' catalog lookups. This extension rewrites
that label in the page's language, through the same ``sphinx.po`` as every
other interface string (``tests/site/test_interface_strings.py`` checks
that each language translates it).

It also gives the toctree captions Sphinx writes, in that tree (the
sidebar) and in a page's body, the ``aria-level`` their heading role needs
(:func:`~autograd_notes.site.upstream.outputs.level_toctree_captions`, where the
upstream report is noted).
"""

from __future__ import annotations

import html
from typing import Any

from sphinx.application import Sphinx
from sphinx.locale import _

from ..upstream.outputs import FURO_NAVIGATION_TREE, level_toctree_captions, relabel_navigation_toggles

__all__ = ["translate_navigation_labels"]


def translate_navigation_labels(tree: str) -> str:
    """Furo's navigation tree with each "Toggle navigation of <title>" label in the current language."""

    def label(title: str) -> str:
        # the title is already escaped in the attribute; the translated words around it are not
        words = html.escape(_("Toggle navigation of {title}"), quote=True)
        return words.replace("{title}", title)

    return relabel_navigation_toggles(tree, label)


def _translate_tree(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: object
) -> None:
    tree = context.get(FURO_NAVIGATION_TREE)
    if isinstance(tree, str):
        context[FURO_NAVIGATION_TREE] = level_toctree_captions(translate_navigation_labels(tree))
    body = context.get("body")
    if isinstance(body, str):  # a toctree the page shows (the home page's) has its captions too
        context["body"] = level_toctree_captions(body)


def setup(app: Sphinx) -> dict[str, Any]:
    """After furo's own html-page-context handler (priority 500), which builds the tree."""
    app.connect("html-page-context", _translate_tree, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
