"""The site's own stylesheet and script (``static/``), added to every HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

__all__ = ["STATIC", "setup"]

STATIC = Path(__file__).parent / "static"


def _add_static(app: Sphinx) -> None:
    if app.builder.format == "html":
        app.config.html_static_path.append(str(STATIC))
        app.add_css_file("autograd_notes.css")
        app.add_js_file("autograd_notes.js", priority=600)  # after copybutton.js


def setup(app: Sphinx) -> dict[str, Any]:
    """Add the files once the builder is known (an HTML one only)."""
    app.connect("builder-inited", _add_static)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
