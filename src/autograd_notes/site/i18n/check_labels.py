"""The labels of checks in the page's language, where a sentence names one.

An example's checks carry English labels (``check(..., label="norm of the raw
entries")``): they are code, and the example's output prints them. The
sentences that name a check whose outcome changed across releases (the
timeline's changes, the "Changed in" note, a difference in the releases
table) are in the page's language, and so is the label they name: each
language's ``check_labels.po`` (next to ``sphinx.po``) translates the label of
every check that differs in some release. It is kept by hand;
``tests/site/test_check_labels.py`` says which labels it lacks or no longer
needs. A translation writes code as ````code```` and its prose in the
language's quotes: ``«норма исходных элементов»``, ````grad.shape```` (всего
градиента). The English label stays the element's ``title``: the words the
output prints.

The catalog is compiled into the build's doctree folder (never the source
tree: builds running side by side would write the same file) and loaded with
Sphinx's :meth:`~sphinx.application.Sphinx.add_message_catalog`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import get_translation

from ..web.html_nodes import HtmlCode, HtmlInline
from ..web.nodes import code_nodes
from .catalogs import LABELS_CATALOG, read_catalog

__all__ = ["CATALOG", "CATALOG_FILE", "label_node"]

CATALOG_FILE = LABELS_CATALOG
CATALOG = Path(CATALOG_FILE).stem

_translate = get_translation(CATALOG)


def label_node(label: str) -> nodes.Node:
    """A check's label as a sentence shows it: the page language's words, else the label as code."""
    shown = str(_translate(label))
    if shown == label:  # English, or a label the catalog lacks (the test names it)
        return HtmlCode(label, label)
    return HtmlInline("", "", *code_nodes(shown), tag="span", classes=["check-label"], title=label)


def _load_catalog(app: Sphinx) -> None:
    """Compile the language's ``check_labels.po`` (read strictly) into the doctree folder, and load it."""
    language = app.config.language or "en"
    if language == "en":
        return
    for locale_dir in app.config.locale_dirs:
        source = Path(app.srcdir, locale_dir, language, "LC_MESSAGES", CATALOG_FILE)
        if not source.exists():
            continue
        compiled_root = Path(app.doctreedir, "check_labels")
        target = compiled_root / language / "LC_MESSAGES" / (CATALOG + ".mo")
        if not target.exists() or target.stat().st_mtime_ns < source.stat().st_mtime_ns:
            target.parent.mkdir(parents=True, exist_ok=True)
            catalog = read_catalog(source)  # a broken catalog names its file and line
            handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".mo")
            with os.fdopen(handle, "wb") as stream:
                write_mo(stream, catalog, use_fuzzy=False)
            Path(temporary).replace(target)
        app.add_message_catalog(CATALOG, str(compiled_root))
        return


def setup(app: Sphinx) -> dict[str, Any]:
    """Load the language's check labels before any page is read."""
    app.connect("builder-inited", _load_catalog)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
