"""The translation catalogs of the build's language, read strictly before anything is built.

A syntax error stops the build naming file and line
(:func:`~autograd_notes.site.i18n.catalogs.read_catalog`), and so does a
translation that adds HTML, raw output or script links the English does not
have (:func:`~autograd_notes.site.i18n.catalogs.unsafe_markup`), or an interface
string whose placeholders are not the English's
(:func:`~autograd_notes.site.i18n.catalogs.placeholder_problems`); a message
whose markup differs from the English is a warning
(:func:`~autograd_notes.site.i18n.catalogs.markup_problems`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

from .catalogs import (
    INTERFACE_CATALOG,
    LABELS_CATALOG,
    CatalogError,
    label_problems,
    markup_problems,
    placeholder_problems,
    read_catalog,
    unsafe_markup,
)

__all__ = ["setup"]

logger = logging.getLogger(__name__)


def _check_catalogs(app: Sphinx) -> None:
    language = app.config.language or "en"
    if language == "en":
        return
    for locale_dir in app.config.locale_dirs:
        folder = Path(app.srcdir, locale_dir, language, "LC_MESSAGES")
        for path in sorted(folder.rglob("*.po")):
            try:
                catalog = read_catalog(path)
            except CatalogError as error:
                raise ExtensionError(f"broken translation catalog: {error}") from None
            shown = path.relative_to(app.srcdir).as_posix()
            refused = unsafe_markup(catalog)
            if path.name == INTERFACE_CATALOG:
                refused += placeholder_problems(catalog)
            if path.name == LABELS_CATALOG:
                refused += label_problems(catalog)
            if refused:
                raise ExtensionError(f"refused translation catalog {shown}: " + "; ".join(refused))
            for problem in [] if path.name == LABELS_CATALOG else markup_problems(catalog):
                logger.warning(
                    "%s %s",
                    path.relative_to(app.srcdir).as_posix(),
                    problem,
                    type="autograd_notes",
                    subtype="i18n",
                )


def _depend_on_interface_strings(app: Sphinx, doctree: Any) -> None:
    """Make the page being read depend on its language's interface catalog and check labels.

    The extension's directives translate interface strings (and the labels of
    checks) while pages are read, and the doctrees keep the result: without the
    dependency a changed (or reverted) ``sphinx.po`` reached no page until a
    build from scratch.
    """
    language = app.config.language or "en"
    if language == "en":
        return
    for locale_dir in app.config.locale_dirs:
        for name in (INTERFACE_CATALOG, LABELS_CATALOG):
            catalog = Path(app.srcdir, locale_dir, language, "LC_MESSAGES", name)
            if catalog.exists():
                app.env.note_dependency(str(catalog))


def setup(app: Sphinx) -> dict[str, Any]:
    """Check the catalogs before sphinx-gallery runs; every page depends on the interface catalog."""
    app.connect("builder-inited", _check_catalogs)
    app.connect("doctree-read", _depend_on_interface_strings)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
