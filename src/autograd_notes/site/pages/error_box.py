"""The "paste your error" box: a reader's error message finds the example pages that explain it.

* ``.. error-search::`` (the home page and the error index) writes the box: a
  labelled text area for a message or a whole traceback, a button, and a
  live region where ``static/error_search.js`` lists the pages that explain
  it, best first, each with links to the cells that raise it. Its words come
  from the site's catalog (``sphinx.po``); the box is hidden until the
  script shows it, so that a reader without JavaScript sees no dead box.
* Once an HTML build has read its pages, :data:`DATA_FILE` (``_static``) holds every
  message any record documents (every runner and every release, so that the
  wording of each release is known), normalised as
  :mod:`autograd_notes._explain.match` says, with each token's weight and, per message, the
  pages (titled in the build's language) and cells that raise it. Built from
  the records at build time, it is read offline: nothing loads from another
  host.
* The site search: on the search page, the same script ranks the examples
  that explain a pasted error text above every other result (Sphinx's
  ``Scorer.score``), so that the exact text of an error finds its example
  first, not the index or the timeline that quote it too.
"""

from __future__ import annotations

import html
from typing import Any, TypedDict

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import clean_astext

from ..._explain.match import Message, normalise, token_weights, unknown_weight
from ..errors.families import recorded_messages
from ..errors.subjects import is_about, page_quotes
from ..upstream.gallery_conf import gallery_folders
from ..upstream.gallery_rst import code_cells
from ..web.links import cell_number
from ..web.static_files import write_script_data
from .record_store import site_records

__all__ = [
    "DATA_FILE",
    "SCRIPT",
    "ErrorSearchBox",
    "ErrorSearchDirective",
    "search_data",
    "setup",
    "shown_message",
]

DATA_FILE = "error_search_data.js"
"""The messages, written into ``_static`` as ``window.AUTOGRAD_NOTES_ERRORS = {...};``."""
SCRIPT = "error_search.js"
"""The box's and the search page's script (``static/``)."""
SEARCH_PAGE = "search"


class ErrorSearchBox(nodes.comment):  # type: ignore[misc]  # docutils has no types here
    """Where the box goes: HTML writes it; every other builder skips it, as a comment."""


class ErrorSearchDirective(SphinxDirective):
    """``.. error-search::``: the "paste your error" box."""

    def run(self) -> list[nodes.Node]:
        """Return the box's place."""
        return [ErrorSearchBox()]


ERRORS_DOC = "errors"
"""The error-message index, where a message no page explains sends the reader."""


def _box_html(index_uri: str) -> str:
    """The box, in the build's language: its strings for the script as ``data-`` attributes.

    ``index_uri`` is the error-message index's address from the site's root.
    """
    label = _("Paste your error: a message or a whole traceback")
    hint = _(
        "Your shapes, numbers and names may differ from the examples': the words that do not vary "
        "are matched, in the wording of every recorded PyTorch release."
    )
    button = _("Find the pages that explain it")
    strings = {
        "data-found": _("Pages that explain it, best first:"),
        "data-none": _(
            "No page explains this error. If you pasted part of it, paste the line that names the "
            "error type too."
        ),
        "data-index": _("Every error the examples document: the error-message index"),
        "data-index-uri": index_uri,
        "data-cell": _("cell {number}"),
    }
    attributes = " ".join(f'{name}="{html.escape(value)}"' for name, value in strings.items())
    return (
        f'<form class="error-search" role="search" hidden {attributes}>\n'
        f'<label for="error-search-input">{html.escape(label)}</label>\n'
        '<textarea id="error-search-input" name="error" rows="4" spellcheck="false" autocomplete="off" '
        'autocapitalize="off" aria-describedby="error-search-hint"></textarea>\n'
        f'<p id="error-search-hint" class="error-search-hint">{html.escape(hint)}</p>\n'
        f'<button type="submit">{html.escape(button)}</button>\n'
        '<div class="error-search-results" aria-live="polite"></div>\n'
        "</form>\n"
    )


def _visit_box(translator: Any, node: ErrorSearchBox) -> None:
    translator.body.append(_box_html(translator.builder.get_target_uri(ERRORS_DOC)))
    raise nodes.SkipNode


def _example_cells(app: Sphinx, example: str, lines: set[int]) -> list[int]:
    gallery = gallery_folders(app.config, app.srcdir)[0]
    page = (gallery.generated / example).with_suffix(".rst")
    if not page.exists():
        return []
    first_lines = [cell.first_line for cell in code_cells(page.read_text(encoding="utf-8"))]
    return sorted({cell_number(first_lines, line) for line in lines})


class SearchPage(TypedDict):
    """An example page the box can list: its document, its address and its title."""

    doc: str
    uri: str
    title: str
    quotes: list[str]
    """The messages its questions quote (:mod:`autograd_notes.site.errors.subjects`)."""


class SearchPlace(TypedDict):
    """Where a message is explained: a page (its index in ``pages``) and the cells that raise it."""

    page: int
    cells: list[int]
    about: bool
    """Whether the page is about this message (its questions quote it)."""


class SearchMessage(TypedDict):
    """A recorded message, normalised as the script normalises a pasted one, and where it is explained."""

    text: str
    """The message as recorded (its first lines, shortened), shown under a result it ranked."""
    type: str
    tokens: list[str]
    details: list[str]
    places: list[SearchPlace]


class SearchData(TypedDict):
    """``error_search_data.js``: what the box and the search page rank (``static/error_search.js``)."""

    unknown: float
    """The weight of a token no recorded message has."""
    weights: dict[str, float]
    pages: list[SearchPage]
    messages: list[SearchMessage]


_SHOWN = 240
"""The most characters of a recorded message shown under a result."""


def shown_message(text: str) -> str:
    """A recorded message as a result shows it: one line, at most :data:`_SHOWN` characters."""
    line = " ".join(text.split())
    return line if len(line) <= _SHOWN else line[: _SHOWN - 1].rstrip() + "…"


def search_data(app: Sphinx) -> SearchData:
    """What the box searches: pages, messages and token weights (:mod:`autograd_notes._explain.match`)."""
    env = app.env
    gallery = gallery_folders(app.config, app.srcdir)[0]
    pages: list[SearchPage] = []
    index: dict[str, int] = {}
    messages: list[SearchMessage] = []
    normalised = []
    quotes: dict[str, tuple[str, ...]] = {}
    for text, by_example in recorded_messages(site_records(env).runs).items():
        where: list[SearchPlace] = []
        for example, lines in by_example.items():
            docname = gallery.docname(example)
            if docname not in env.titles:
                continue  # a record of an example this site does not have
            if docname not in index:
                index[docname] = len(pages)
                title = clean_astext(env.titles[docname])
                quotes[example] = page_quotes((gallery.source / example).read_text(encoding="utf-8"))
                uri = app.builder.get_target_uri(docname)
                pages.append(SearchPage(doc=docname, uri=uri, title=title, quotes=list(quotes[example])))
            where.append(
                SearchPlace(
                    page=index[docname],
                    cells=_example_cells(app, example, lines),
                    about=is_about(quotes[example], text),
                )
            )
        if where:
            message = Message(normalise(text), {})
            normalised.append(message.normalised)
            messages.append(
                SearchMessage(
                    text=shown_message(text),
                    type=message.normalised.type,
                    tokens=list(message.normalised.tokens),
                    details=list(message.normalised.details),
                    places=where,
                )
            )
    return SearchData(
        unknown=unknown_weight(len(messages)),
        weights=token_weights(normalised),
        pages=pages,
        messages=messages,
    )


def _write_data(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Write the data once every page is read, before any is written: pages name it with its checksum."""
    if app.builder.format != "html":
        return []
    write_script_data(app, DATA_FILE, "AUTOGRAD_NOTES_ERRORS", search_data(app))
    return []


def _add_scripts(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    """Load the data and the script on the pages with the box, and on the search page."""
    if pagename == SEARCH_PAGE or (doctree is not None and next(doctree.findall(ErrorSearchBox), None)):
        app.add_js_file(DATA_FILE, priority=700)
        app.add_js_file(SCRIPT, priority=701)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the box, write the data once the pages are read, and load the script where needed."""
    app.setup_extension("autograd_notes.site.build.runner_key")  # the records folder
    app.setup_extension("autograd_notes.site.web.static_files")  # static/, where the script is
    app.add_node(ErrorSearchBox, html=(_visit_box, None))
    app.add_directive("error-search", ErrorSearchDirective)
    app.connect("html-page-context", _add_scripts)
    app.connect("env-updated", _write_data)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
