"""Sphinx extension of Autograd Notes: the site's extensions, each with one job, loaded in order.

Contract, for ``extensions = ["autograd_notes.site.sphinxext", ...]`` listed
*before* ``sphinx_gallery.gen_gallery`` (what runs before sphinx-gallery's
own handlers, e.g. :mod:`.build.stale_examples` and :mod:`.i18n.catalog_check` at
``builder-inited``, is registered first):

* :mod:`.build.runner_key`: the build's caches keyed by the runner, the records and
  the site's code (myst-nb executes the notebooks once per runner).
* :mod:`.build.stale_examples`: no stale example output: the pages of moved or
  deleted examples removed, every example run again when the runner changed.
* :mod:`.pages.runner_directives`: the recorded runners on the pages (the
  ``runner-*``, ``install-line`` and, through :mod:`.pages.release_timeline`, the
  timeline directives, inserted into every example page), made of document
  nodes: :mod:`.web.html_nodes` (the HTML elements docutils has no node for)
  and :mod:`.web.links` (the links between pages that Sphinx checks).
* :mod:`.web.page_meta`: pages for the web (canonical addresses, ``hreflang``
  alternates, Open Graph, the edit link, the runner in the footer);
  :mod:`.web.mathml`: math written as MathML at build time.
* :mod:`.i18n.language_links`, :mod:`.i18n.catalog_check`, :mod:`.pages.error_box`,
  :mod:`.examples.example_downloads`, :mod:`.i18n.theme_strings`, :mod:`.examples.thumbnails`,
  :mod:`.examples.figure_alt`, :mod:`.i18n.check_labels`: every language works (links to the other languages,
  strict catalogs, Chinese search, downloads and cards and alt text in the
  reader's language).
* :mod:`.build.build_sync`: the languages of one site build run side by side.
* :mod:`.pages.error_box`: the "paste your error" box, and the site search
  ranking an error's examples first; :mod:`.search.questions` and
  :mod:`.search.documents`: the questions each page answers, and the search
  page's ranking of pages (MiniSearch) by their questions, titles and prose.
* :mod:`.pages.source_links`: a source document cited by its number
  ("Document 003"), not its whole title.
* :mod:`.build.fast_build`: fast example runs; :mod:`.build.navigation_cache`: the
  sidebar's tree made once per folder; :mod:`.web.static_files`: the site's
  stylesheet and script; :mod:`.build.staging_log`: a truthful log;
  :mod:`.build.leak_check`: no leaks of the build machine.

Each is a Sphinx extension of its own (a ``setup`` returning its metadata);
listing one alone in ``extensions`` loads what it needs.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from sphinx.application import Sphinx

__all__ = ["EXTENSIONS", "setup"]

EXTENSIONS = (
    "autograd_notes.site.web.mathml",
    "autograd_notes.site.examples.figure_alt",
    "autograd_notes.site.build.build_sync",
    "autograd_notes.site.examples.thumbnails",
    "autograd_notes.site.i18n.theme_strings",
    "autograd_notes.site.web.html_nodes",
    "autograd_notes.site.web.links",
    "autograd_notes.site.pages.release_timeline",
    "autograd_notes.site.web.page_meta",
    "autograd_notes.site.build.runner_key",
    "autograd_notes.site.i18n.catalog_check",
    "autograd_notes.site.i18n.check_labels",
    "autograd_notes.site.i18n.language_links",
    "autograd_notes.site.examples.example_downloads",
    "autograd_notes.site.examples.traceback_lines",
    "autograd_notes.site.i18n.search",
    "autograd_notes.site.pages.error_box",
    "autograd_notes.site.search.questions",
    "autograd_notes.site.search.documents",
    "autograd_notes.site.pages.runner_directives",
    "autograd_notes.site.pages.errors",
    "autograd_notes.site.pages.source_links",
    "autograd_notes.site.web.static_files",
    "autograd_notes.site.build.stale_examples",
    "autograd_notes.site.build.fast_build",
    "autograd_notes.site.build.navigation_cache",
    "autograd_notes.site.build.leak_check",
    "autograd_notes.site.build.staging_log",
)
"""The site's extensions, in the order their hooks were registered when this was one module."""


def setup(app: Sphinx) -> dict[str, Any]:
    """Load every extension of :data:`EXTENSIONS`."""
    for name in EXTENSIONS:
        app.setup_extension(name)
    return {"version": version("autograd-notes"), "parallel_read_safe": True, "parallel_write_safe": True}
