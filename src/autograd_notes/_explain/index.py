"""Which pages of the site explain an error, from the index the package ships (``error_index.json``).

The index holds every message the site's records document, normalised as
:mod:`.match` normalises a pasted one, each with the example pages
and cells that raise it, and each page's title and the sentence that says
why, in every language of the site. ``python -m autograd_notes.site.build.error_index``
writes it from the records, the gallery and its catalogs; the site's "paste
your error" box ranks the same messages with the same weights (a test
compares the two). :func:`explain` ranks a reader's message or traceback
against it: what ``python -m autograd_notes explain`` prints, and what the
hooks of :mod:`.hooks` add under an error. Standard library only.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

from .._typed_json import read_typed, shipped
from .match import Message, Normalised, rank

__all__ = [
    "INDEX",
    "LANGUAGES",
    "ErrorIndex",
    "Explanation",
    "IndexMessage",
    "IndexPage",
    "IndexPlace",
    "errors_page",
    "explain",
    "read_index",
    "reader_language",
    "shipped_index",
]

INDEX = "error_index.json"
"""The index's file in the package."""
LANGUAGES = ("en", "ru", "zh_CN", "pt_BR")
"""The site's languages, as its addresses name them."""
ERRORS_PAGE = "errors.html"
"""The error-message index of each language, where an error no page explains sends the reader."""


class IndexPage(TypedDict):
    """An example page: its script, its address under a language's folder, its title and why, by language."""

    example: str
    path: str
    titles: dict[str, str]
    why: dict[str, str]
    quotes: list[str]
    """The messages its questions quote (``autograd_notes.site.errors.subjects``)."""


class IndexPlace(TypedDict):
    """Where a message is explained: a page (its index in ``pages``) and the code cells that raise it."""

    page: int
    cells: list[int]
    about: bool
    """Whether the page is about this message (its questions quote it)."""


class IndexMessage(TypedDict):
    """A recorded message: its first line as recorded, its normalised form, where it is explained."""

    text: str
    type: str
    tokens: list[str]
    details: list[str]
    places: list[IndexPlace]


class ErrorIndex(TypedDict):
    """``error_index.json``."""

    site: str
    """The hosted site's address, ending in ``/``; each language is a folder of it."""
    unknown: float
    weights: dict[str, float]
    pages: list[IndexPage]
    messages: list[IndexMessage]


@dataclass(frozen=True)
class Explanation:
    """A page that explains an error, in the reader's language."""

    title: str
    url: str
    """The hosted page's address, at the first cell that raises the message."""
    why: str
    """The page's first sentence: what it shows."""
    message: str
    """The recorded message the error matched best, or the page's quote it holds."""
    score: float


def read_index(text: str) -> ErrorIndex:
    """Parse and check an index; :class:`SchemaError` or ``ValueError`` if it is not one."""
    return read_typed(text, ErrorIndex)


@functools.cache
def shipped_index() -> ErrorIndex | None:
    """The package's index; ``None`` where it is missing or damaged (nothing is then explained)."""
    return shipped(__package__ or "autograd_notes._explain", INDEX, ErrorIndex)


def reader_language(environ: Mapping[str, str] | None = None) -> str:
    """The site's language nearest the reader's locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else en."""
    environ = os.environ if environ is None else environ
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable, "")
        if not value:
            continue
        code = value.split(".")[0].split("@")[0].replace("-", "_")
        for language in LANGUAGES:
            if code == language or code.split("_")[0] == language.split("_")[0]:
                return language
        return "en"
    return "en"


def errors_page(index: ErrorIndex, language: str) -> str:
    """The address of the error-message index in ``language``."""
    return f"{index['site']}{language}/{ERRORS_PAGE}"


def _normalised(item: IndexMessage) -> Normalised:
    return Normalised(item["type"], tuple(item["tokens"]), tuple(item["details"]))


def _messages(index: ErrorIndex) -> list[Message]:
    """The index's messages as the matcher ranks them: their pages named by their example."""
    pages = index["pages"]
    return [
        Message(
            _normalised(item),
            {pages[place["page"]]["example"]: place["cells"] for place in item["places"]},
            frozenset(pages[place["page"]]["example"] for place in item["places"] if place["about"]),
        )
        for item in index["messages"]
    ]


def explain(text: str, language: str = "en", index: ErrorIndex | None = None) -> list[Explanation]:
    """The pages that explain ``text`` (a message or a whole traceback), best first, in ``language``.

    ``[]`` where no page does, or where the package has no index.
    """
    index = shipped_index() if index is None else index
    if index is None:
        return []
    language = language if language in LANGUAGES else "en"
    messages = _messages(index)
    pages = {page["example"]: page for page in index["pages"]}
    found = []
    quotes = {example: page["quotes"] for example, page in pages.items()}
    for match in rank(text, messages, index["weights"], quotes):
        page = pages[match.page]
        anchor = f"#cell-{match.cells[0]}" if match.cells else ""
        found.append(
            Explanation(
                title=page["titles"].get(language) or page["titles"]["en"],
                url=f"{index['site']}{language}/{page['path']}{anchor}",
                why=page["why"].get(language) or page["why"]["en"],
                message=index["messages"][match.message]["text"] if match.message >= 0 else match.quote,
                score=match.score,
            )
        )
    return found
