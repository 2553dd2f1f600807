"""The site search's documents: each page's title, questions, headings and prose, in the page's language.

Sphinx's own search wants every word of a query in a page and ranks by little
more than titles, so a question ("why doesn't backward() work on nonscalar
outputs?") or a long error message finds nothing. The search page of this site
ranks pages with MiniSearch (``static/minisearch.js``, BM25 over fields, any
word of the query) in ``static/site_search.js``; this module writes what it
indexes. Once an HTML build has read its pages, :data:`DATA_FILE` (``_static``)
holds, per page:

* ``d``: its docname, ``t``: its title;
* ``q``: the questions of its ``.. questions::`` box (:mod:`.questions`), the
  field the search weighs most;
* ``h``: its section titles;
* ``b``: its prose: paragraphs and list items, without code, outputs, the
  releases section and the boxes every page repeats (at most :data:`BODY_LIMIT`
  characters).

Every text is the translated page's, so each language searches its own words;
``synonyms`` are the language's groups of words that mean the same
(:mod:`.synonyms`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import ExtensionError

from ..web.nodes import ERROR_LINKS_CLASS
from ..web.static_files import write_script_data
from .questions import QUESTIONS_CLASS, page_questions
from .synonyms import FILE_NAME, SynonymsError, load_synonyms

__all__ = ["BODY_LIMIT", "DATA_FILE", "SCRIPTS", "Document", "page_document", "setup"]

DATA_FILE = "site_search_data.js"
"""The documents, written into ``_static`` as ``window.AUTOGRAD_NOTES_PAGES = {...};``."""
SCRIPTS = ("minisearch.js", "site_search.js")
"""MiniSearch and the site's search page script (``web/static``), loaded on the search page only."""
BODY_LIMIT = 6000
"""The most characters of prose indexed per page: a page's opening says what it is about."""
SEARCH_PAGE = "search"
_LEFT_OUT = frozenset(
    {
        QUESTIONS_CLASS,  # indexed as questions, with their own weight
        "release-timeline-section",  # the same legend and marks on every example page
        "sphx-glr-footer",
        "sphx-glr-download-link-note",
        ERROR_LINKS_CLASS,
        "autograd-runner",
    }
)
_NO_PAGES = frozenset({"genindex", "search", "404"})


class Document(TypedDict):
    """One page as the search page indexes it."""

    d: str
    t: str
    q: list[str]
    h: list[str]
    b: str


def _left_out(node: nodes.Node) -> bool:
    """Whether ``node`` is inside a box the search leaves out."""
    parent: nodes.Node | None = node
    while parent is not None:
        if isinstance(parent, nodes.Element) and _LEFT_OUT.intersection(parent.get("classes", ())):
            return True
        parent = parent.parent
    return False


def _text(node: nodes.Node) -> str:
    return " ".join(node.astext().split())


def page_document(docname: str, title: str, doctree: nodes.document) -> Document:
    """What the search indexes of one page."""
    headings = [
        _text(section[0])
        for section in doctree.findall(nodes.section)
        if len(section) and isinstance(section[0], nodes.title) and not _left_out(section)
    ]
    prose: list[str] = []
    size = 0
    for paragraph in doctree.findall(nodes.paragraph):
        if size >= BODY_LIMIT or _left_out(paragraph):
            continue
        text = _text(paragraph)
        prose.append(text)
        size += len(text) + 1
    return Document(
        d=docname,
        t=title,
        q=page_questions(doctree),
        h=[heading for heading in headings if heading != title],
        b=" ".join(prose)[:BODY_LIMIT],
    )


def documents(env: BuildEnvironment) -> list[Document]:
    """Every page's document, in docname order."""
    found = []
    for docname in sorted(env.found_docs):
        if docname in _NO_PAGES or docname.rsplit("/", 1)[-1] in _NO_PAGES:
            continue
        title = env.titles[docname].astext() if docname in env.titles else docname
        found.append(page_document(docname, title, env.get_doctree(docname)))
    return found


def _write_data(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Write the documents once every page is read, before the search page is written."""
    if app.builder.format != "html":
        return []
    language = app.config.language or "en"
    try:
        synonyms = load_synonyms(Path(app.confdir, FILE_NAME), language)
    except SynonymsError as error:
        raise ExtensionError(str(error)) from None
    data = {"language": language, "pages": documents(env), "synonyms": synonyms}
    write_script_data(app, DATA_FILE, "AUTOGRAD_NOTES_PAGES", data)
    return []


def _add_scripts(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    """The documents, MiniSearch and the script, on the search page only."""
    if pagename == SEARCH_PAGE:
        app.add_js_file(DATA_FILE, priority=710)
        for offset, script in enumerate(SCRIPTS):
            app.add_js_file(script, priority=711 + offset)


def setup(app: Sphinx) -> dict[str, Any]:
    """Write the documents and load the search page's scripts (after the error box's, where it is loaded)."""
    app.setup_extension("autograd_notes.site.web.static_files")  # static/, where the scripts are
    app.connect("env-updated", _write_data)
    app.connect("html-page-context", _add_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
