"""The example downloads, rewritten for the reader of each language after an HTML build.

:mod:`autograd_notes.site.examples.downloads` does the rewriting: the narrative in the
build's language, the install command, links for cross-references. This
extension gives it what the build knows: the catalogs, the pages' addresses
and labels, the sentences of the ``sphinx`` catalog.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.locale import _
from sphinx.util import logging

from ..i18n.page_catalog import page_catalog
from ..upstream.gallery_conf import gallery_folders
from ..web.sitemap import page_address
from .downloads import ReaderText, translate_downloads
from .install import install_command

__all__ = ["setup"]

logger = logging.getLogger(__name__)


def _reader_text(app: Sphinx, language: str) -> ReaderText:
    """What the downloads say to their reader, in this build's language (the ``sphinx`` catalog)."""
    site_url = app.config.autograd_notes_site_url
    links = {
        label: (title, f"{page_address(site_url, language, docname + '.html')}#{anchor}")
        for label, (docname, anchor, title) in app.env.domains.standard_domain.labels.items()
        if title and docname in app.env.all_docs
    }
    return ReaderText(
        command=install_command(site_url),
        page=str(_("This script is a page of Autograd Notes: {address}")),
        needs=str(_("It needs PyTorch and autograd-notes, the helper package it imports:")),
        missing=str(_("This example imports {modules}; not installed here: {missing}. Install them with:")),
        notebook=str(_("Installs autograd-notes, this notebook's helper package, if the kernel lacks it:")),
        notebook_page=str(_("This notebook is a page of Autograd Notes: {address}")),
        questions=str(_("Questions this page answers")),
        links=links,
    )


def _write_downloads(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    language = app.config.language or "en"
    galleries = [(gallery.source, gallery.prefix) for gallery in gallery_folders(app.config, app.srcdir)]

    def catalog_for(docname: str) -> dict[str, str]:
        return page_catalog(app.srcdir, app.config, docname)[1]

    def address_of(docname: str) -> str:
        return page_address(app.config.autograd_notes_site_url, language, f"{docname}.html")

    done = translate_downloads(
        Path(app.outdir),
        galleries,
        catalog_for,
        app.config.sphinx_gallery_conf,
        _reader_text(app, language),
        address_of,
    )
    logger.info("autograd_notes: %d example downloads written in %s", len(done), language)


def setup(app: Sphinx) -> dict[str, Any]:
    """Write the downloads when an HTML build finished."""
    app.setup_extension("autograd_notes.site.web.page_meta")  # autograd_notes_site_url
    app.connect("build-finished", _write_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
