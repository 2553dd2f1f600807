"""Sphinx extension of Autograd Notes: the site's extensions, each with one job, loaded in order.

Contract, for ``extensions = ["autograd_notes.site.sphinxext", ...]`` listed
*before* ``sphinx_gallery.gen_gallery`` (what runs before sphinx-gallery's
own handlers, e.g. :mod:`.stale_examples` and :mod:`.catalog_check` at
``builder-inited``, is registered first):

* :mod:`.runner_key`: the build's caches keyed by the runner, the records and
  the site's code (myst-nb executes the notebooks once per runner).
* :mod:`.stale_examples`: no stale example output: the pages of moved or
  deleted examples removed, every example run again when the runner changed.
* :mod:`.runner_directives`: the recorded runners on the pages (the
  ``runner-*``, ``install-line`` and, through :mod:`.release_timeline`, the
  timeline directives, inserted into every example page), made of document
  nodes: :mod:`.html_nodes` (the HTML elements docutils has no node for)
  and :mod:`.links` (the links between pages that Sphinx checks).
* :mod:`.page_meta`: pages for the web (canonical addresses, ``hreflang``
  alternates, Open Graph, the edit link, the runner in the footer);
  :mod:`.mathml`: math written as MathML at build time.
* :mod:`.language_links`, :mod:`.catalog_check`, :mod:`.search`,
  :mod:`.example_downloads`, :mod:`.theme_strings`, :mod:`.thumbnails`,
  :mod:`.figure_alt`: every language works (links to the other languages,
  strict catalogs, Chinese search, downloads and cards and alt text in the
  reader's language).
* :mod:`.build_sync`: the languages of one site build run side by side.
* :mod:`.error_search`: the "paste your error" box, and the site search
  ranking an error's examples first.
* :mod:`.fast_build`: fast example runs; :mod:`.static_files`: the site's
  stylesheet and script; :mod:`.staging_log`: a truthful log;
  :mod:`.leak_check`: no leaks of the build machine.

Each is a Sphinx extension of its own (a ``setup`` returning its metadata);
listing one alone in ``extensions`` loads what it needs.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from sphinx.application import Sphinx

__all__ = ["EXTENSIONS", "setup"]

EXTENSIONS = (
    "autograd_notes.site.mathml",
    "autograd_notes.site.figure_alt",
    "autograd_notes.site.build_sync",
    "autograd_notes.site.thumbnails",
    "autograd_notes.site.theme_strings",
    "autograd_notes.site.html_nodes",
    "autograd_notes.site.links",
    "autograd_notes.site.release_timeline",
    "autograd_notes.site.page_meta",
    "autograd_notes.site.runner_key",
    "autograd_notes.site.catalog_check",
    "autograd_notes.site.language_links",
    "autograd_notes.site.example_downloads",
    "autograd_notes.site.search",
    "autograd_notes.site.error_search",
    "autograd_notes.site.runner_directives",
    "autograd_notes.site.static_files",
    "autograd_notes.site.stale_examples",
    "autograd_notes.site.fast_build",
    "autograd_notes.site.leak_check",
    "autograd_notes.site.staging_log",
)
"""The site's extensions, in the order their hooks were registered when this was one module."""


def setup(app: Sphinx) -> dict[str, Any]:
    """Load every extension of :data:`EXTENSIONS`."""
    for name in EXTENSIONS:
        app.setup_extension(name)
    return {"version": version("autograd-notes"), "parallel_read_safe": True, "parallel_write_safe": True}
