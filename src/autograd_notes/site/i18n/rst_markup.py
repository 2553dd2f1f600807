"""Inline markup of a translated reStructuredText message, as docutils parses it.

A translation can keep every backtick of the English and still break a
literal: docutils ends inline markup only before whitespace or certain
punctuation, so ````x``（` (a full-width parenthesis right after the
literal) is no end at all, and the literal swallows the text up to the next
backticks, or stays unclosed with a warning. The regular-expression
comparison of :mod:`.catalogs` counts backticks and cannot see that; this
module parses both the English and the translation with docutils and
compares the literals and the markup errors that result. Only the catalogs
of reStructuredText pages need it (the gallery's); MyST pages end inline
code at the backticks whatever follows.
"""

from __future__ import annotations

import functools
import io
import re
from collections import Counter
from typing import Any

from babel.messages.catalog import Catalog
from docutils import nodes
from docutils.core import publish_doctree

__all__ = ["inline_markup_problems", "parsed_markup"]

# Sphinx's roles (:ref:, :download:, ...) are unknown to plain docutils: they are
# parsed as docutils' own :title-reference:, which obeys the same inline-markup
# rules, so that nothing is registered in docutils for the whole process
_SPHINX_ROLE = re.compile(r":(?!math:)[\w:+-]+:`")
_SETTINGS = {"report_level": 5, "halt_level": 5, "file_insertion_enabled": False}
# what inline markup starts with: a text without any of them has no literal, emphasis or markup error
# (and most messages are plain sentences, which docutils need not parse)
_MARKUP_START = re.compile(r"[`*|_\[]")


@functools.cache
def _settings() -> Any:
    """The settings of docutils for these messages, made once: making them is most of a parse."""
    return publish_doctree("", settings_overrides=dict(_SETTINGS, warning_stream=io.StringIO())).settings


def parsed_markup(text: str) -> Counter[str]:
    """The literals of ``text`` (by content) and its markup errors, as docutils parses it."""
    if _MARKUP_START.search(text) is None:
        return Counter()
    return Counter(_parsed_markup(text))


@functools.lru_cache(maxsize=4096)
def _parsed_markup(text: str) -> Counter[str]:
    # cached: the English of a message is parsed once for every language's catalog
    text = _SPHINX_ROLE.sub(":title-reference:`", text)
    tree = publish_doctree(text, settings=_settings())
    found: Counter[str] = Counter(f"``{node.astext()}``" for node in tree.findall(nodes.literal))
    found.update("markup error" for _ in tree.findall(nodes.problematic))
    # emphasis by kind, not by its (translated) words: *x* right after a Chinese character is no
    # emphasis at all, but two asterisks on the page
    found.update("*emphasis*" for _ in tree.findall(nodes.emphasis))
    found.update("**strong**" for _ in tree.findall(nodes.strong))
    return found


def inline_markup_problems(catalog: Catalog) -> list[str]:
    """Translated messages whose parsed literals differ from the English's, or that do not parse."""
    problems = []
    for message in catalog:
        if not message.id or not message.string or message.fuzzy:
            continue
        english, translated = parsed_markup(str(message.id)), parsed_markup(str(message.string))
        if english != translated:
            missing, extra = english - translated, translated - english
            problems.append(
                f"line {message.lineno}: inline markup breaks when parsed (missing "
                f"{sorted(missing.elements())}, added {sorted(extra.elements())}); a literal or emphasis "
                f"must be preceded and followed by a space or punctuation "
                f"such as '，' (write '\\\\ ' between it and a Chinese character or '（'): "
                f"{str(message.id)[:60]}"
            )
    return problems
