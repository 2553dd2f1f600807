"""The site's own stylesheet and script (``static/``), added to every HTML page.

And one stylesheet only where it is used: MyST-NB adds its own (42 KiB) to
every page, but only a page with notebook cells (a ``cell`` container:
``docs/concepts/``) uses it; the other pages go without it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

__all__ = ["NOTEBOOK_STYLESHEET", "STATIC", "has_notebook_cells", "setup", "write_script_data"]

STATIC = Path(__file__).parent / "static"


def write_script_data(app: Sphinx, file: str, variable: str, data: object) -> None:
    """Write ``data`` into the build's ``_static/<file>`` as a script: ``window.<variable> = {...};``.

    JSON, keys sorted and no spaces, so the file (and the checksum pages name it by) changes only
    with its data.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    (static / file).write_text(f"window.{variable} = {text};\n", encoding="utf-8")


def _add_static(app: Sphinx) -> None:
    if app.builder.format == "html":
        app.config.html_static_path.append(str(STATIC))
        app.add_css_file("autograd_notes.css")
        app.add_js_file("autograd_notes.js", priority=600)  # after copybutton.js


NOTEBOOK_STYLESHEET = "mystnb."
"""How MyST-NB's stylesheet is named (``mystnb.<hash>.css``)."""


def has_notebook_cells(doctree: nodes.document | None) -> bool:
    """Whether a page holds a notebook cell (MyST-NB's ``cell`` container)."""
    if doctree is None:
        return False
    return any("cell" in node["classes"] for node in doctree.findall(nodes.container))


def _notebook_stylesheet_where_used(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    """Leave MyST-NB's stylesheet out of a page without notebook cells (a new list: the builder's stays)."""
    if has_notebook_cells(doctree):
        return
    context["css_files"] = [
        css
        for css in context.get("css_files", [])
        if not Path(str(css.filename)).name.startswith(NOTEBOOK_STYLESHEET)
    ]


def setup(app: Sphinx) -> dict[str, Any]:
    """Add the files once the builder is known (an HTML one only); MyST-NB's stylesheet only where used."""
    app.connect("builder-inited", _add_static)
    app.connect("html-page-context", _notebook_stylesheet_where_used)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
