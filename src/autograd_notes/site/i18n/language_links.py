"""Links from each page to itself in the site's other languages.

``autograd_notes_languages`` (code -> name) gives each page's template
``autograd_languages``: (``hreflang`` code, name, ``../<code>/<page>.html``,
whether it is this build's language) for each language.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from ..web.sitemap import hreflang

__all__ = ["setup"]


def _language_links(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.Node | None
) -> None:
    languages: dict[str, str] = app.config.autograd_notes_languages
    current = app.config.language or "en"
    up = "../" * (pagename.count("/") + 1)
    context["autograd_languages"] = [
        (hreflang(code), name, f"{up}{code}/{pagename}.html", code == current)
        for code, name in languages.items()
    ]


def setup(app: Sphinx) -> dict[str, Any]:
    """Register ``autograd_notes_languages`` and add the links to every page's context."""
    app.add_config_value("autograd_notes_languages", {"en": "English"}, "html", types=frozenset({dict}))
    app.connect("html-page-context", _language_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
