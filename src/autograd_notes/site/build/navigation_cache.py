"""The sidebar's navigation tree made once per folder, not once per page.

furo makes the navigation tree of each page from scratch (see
:mod:`autograd_notes.site.upstream.navigation`). Here Sphinx resolves and furo
shapes the tree once per build, for a page of the top folder that no table
of contents names; each folder gets it with its links made relative to the
folder, and each page that folder's tree with its own marks put in
(:meth:`~autograd_notes.site.upstream.navigation.NavigationTree.for_page`).

furo still runs its ``html-page-context`` handler (priority 500). Before it,
this extension answers furo's one ``toctree()`` call with an empty tree, which
furo returns unchanged at no cost; after it, the page's tree goes into the
context and the page's own ``toctree()`` comes back for the templates.

A page whose ``toctree()`` an extension replaced (the 404 page of
``notfound``, whose links are absolute) keeps furo's own tree.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from furo.navigation import get_navigation_tree
from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.environment.adapters.toctree import global_toctree_for_doc
from sphinx.util.osutil import relative_uri

from ..upstream.navigation import FURO_TOCTREE_ARGUMENTS, NavigationTree, is_sphinx_toctree
from ..upstream.outputs import FURO_NAVIGATION_TREE

__all__ = ["folder_tree", "setup"]

_UNLISTED = "\x00navigation"
"""The name of a page that is in no table of contents, whose tree carries no page's marks."""

_TREES: WeakKeyDictionary[StandaloneHTMLBuilder, dict[str, NavigationTree]] = WeakKeyDictionary()
"""Each builder's trees by folder (a builder writes one language, from one environment)."""
_PAGE = "autograd_notes_navigation_page"


def _unlisted(folder: str) -> str:
    return posixpath.join(folder, _UNLISTED) if folder else _UNLISTED


def folder_tree(builder: StandaloneHTMLBuilder, folder: str) -> NavigationTree:
    """The navigation tree of ``folder``'s pages, made on first use and kept while the builder lives.

    Sphinx and furo make the top folder's tree; another folder's is that
    tree with its links made relative to the folder, as Sphinx makes them.
    """
    trees = _TREES.setdefault(builder, {})
    if folder not in trees:
        if folder:
            base = builder.get_target_uri(_unlisted(folder))
            trees[folder] = folder_tree(builder, "").moved(lambda address: relative_uri(base, address))
        else:
            arguments: dict[str, Any] = FURO_TOCTREE_ARGUMENTS
            toctree = global_toctree_for_doc(builder.env, _UNLISTED, builder, tags=builder.tags, **arguments)
            html = builder.render_partial(toctree)["fragment"] if toctree is not None else ""
            trees[folder] = NavigationTree(get_navigation_tree(html))
    return trees[folder]


Context = dict[str, Any]


def _before_furo(app: Sphinx, pagename: str, templatename: str, context: Context, doctree: object) -> None:
    toctree = context.get("toctree")
    builder = app.builder
    if not isinstance(builder, StandaloneHTMLBuilder) or not is_sphinx_toctree(toctree):
        return
    folder = posixpath.dirname(pagename)
    tree = folder_tree(builder, folder).for_page(builder.get_relative_uri(_unlisted(folder), pagename))

    def answer(**arguments: Any) -> str:
        return "" if arguments == FURO_TOCTREE_ARGUMENTS else str(toctree(**arguments))

    context["toctree"] = answer
    context[_PAGE] = (tree, toctree)


def _after_furo(app: Sphinx, pagename: str, templatename: str, context: Context, doctree: object) -> None:
    made: tuple[str, Callable[..., str]] | None = context.pop(_PAGE, None)
    if made is not None:
        context[FURO_NAVIGATION_TREE], context["toctree"] = made


def setup(app: Sphinx) -> dict[str, Any]:
    """Around furo's handler (priority 500), after ``notfound``'s (400), before the labels' (900)."""
    app.connect("html-page-context", _before_furo, priority=450)
    app.connect("html-page-context", _after_furo, priority=550)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
