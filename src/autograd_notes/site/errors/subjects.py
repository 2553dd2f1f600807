"""Which recorded messages a page is *about*: the ones the questions it answers quote.

A message is often raised on many pages: the in-place version error on
fifteen, most of them on the way to something else. A reader who pastes it
wants the page that explains it first. A page says which errors it is about
in the questions it answers (``.. questions::``, :mod:`autograd_notes.site.search.questions`),
quoting the message as readers search for it::

    .. questions::

       - What does ``returned nan values in its 0th output`` mean?

A literal of a question with at least :data:`QUOTE_WORDS` plain words (of
letters alone) is a quote; code is not (``.grad``, ``x = x + 1``,
``torch.randn(3, requires_grad=True)``). A message that contains a quote of its
page, spaces aside, is one the page is about. The matcher
(:func:`autograd_notes._explain.match.rank`) lists such a page first among
the pages that raise the pasted message, and lists it whatever its score
when the pasted message holds the quote (a message no record holds, such
as a GPU's). Pure functions of the standard library.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from ..._explain.match import quoted

__all__ = ["QUOTE_WORDS", "is_about", "page_quotes"]

QUOTE_WORDS = 3
"""The fewest plain words a question's literal has to be a quoted message."""

_BOX = re.compile(r"^\.\. questions::[ \t]*\n((?:[ \t]*\n|[ \t]+\S.*\n?)+)", re.M)
_LITERAL = re.compile(r"``(.+?)``")
_PLAIN_WORD = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*")


def page_quotes(source: str) -> tuple[str, ...]:
    """The messages a gallery script's questions quote (its docstring's ``.. questions::`` boxes)."""
    docstring = ast.get_docstring(ast.parse(source), clean=True) or ""
    quotes: list[str] = []
    for box in _BOX.finditer(docstring + "\n"):
        text = " ".join(box.group(1).split())
        quotes.extend(q for q in (" ".join(found.split()) for found in _LITERAL.findall(text)) if _long(q))
    return tuple(dict.fromkeys(quotes))


def _long(literal: str) -> bool:
    return sum(bool(_PLAIN_WORD.fullmatch(word)) for word in literal.split()) >= QUOTE_WORDS


def is_about(quotes: Iterable[str], message: str) -> bool:
    """Whether ``message`` (a recorded text) contains one of a page's ``quotes``, spaces aside."""
    return bool(quoted(quotes, message))
