r"""Chinese punctuation in the zh_CN catalogs, as a native reader expects it.

Three rules, each a problem named by catalog line
(:func:`punctuation_problems`, run by ``nox -s translations`` and the tests
through :func:`~autograd_notes.site.i18n.catalogs.check_locale`):

* **no ASCII quotes around quoted text**: a quoted English message is set in
  “…” (code stays in literals, and an HTML attribute keeps its own);
* **no space beside emphasis** between Chinese characters (``的 *事实* 重建``):
  the page shows it; a gallery catalog writes ``\ `` and a Markdown one nothing;
* **no space before full-width punctuation** (``（``, ``“``, ``，``, ``。``
  …): Chinese text puts none, and after an inline literal of a gallery page
  the escaped space ``\ `` is what ends the literal without showing a space;
* **no emphasis or literal right after a Chinese character** in a gallery
  (reStructuredText) catalog, where docutils does not see inline markup
  that follows a letter: write ``\ `` between them (checked by parsing, in
  :mod:`autograd_notes.site.i18n.rst_markup`, with the other markup checks).
"""

from __future__ import annotations

import re

from babel.messages.catalog import Catalog

__all__ = [
    "clause_break",
    "gap_after",
    "join_sentences",
    "list_comma",
    "punctuation_problems",
    "sentence_gap",
]

# what may hold ASCII quotes of its own: literals, roles' targets, HTML tags
_CODE = re.compile(r"``.+?``|`[^`]*`|<[^>]+>")
_ASCII_QUOTES = re.compile(r'"[^"\n]{1,300}?"')
_SPACE_BEFORE_FULL_WIDTH = re.compile(r"(?<!\\) +(?=[（“，。：；！？、）」』”])")
# emphasis between Chinese characters set off by spaces, which the page shows ("的 *事实* 重建")
_SPACED_EMPHASIS = re.compile(
    r"[\u4e00-\u9fff] \*{1,2}[\u4e00-\u9fff][^*]*\*|\*[^*]*[\u4e00-\u9fff]\*{1,2} [\u4e00-\u9fff]"
)


def sentence_gap(language: str) -> str:
    """What separates two sentences in ``language``: nothing after Chinese full-width stops, else a space."""
    return "" if language.startswith("zh") else " "


def list_comma(language: str) -> str:
    """What separates the items of a list in ``language``: Chinese has its own comma, 、."""
    return "、" if language.startswith("zh") else ", "


def clause_break(language: str) -> str:
    """What separates two clauses of one sentence in ``language``: the full-width ； in Chinese."""
    return "；" if language.startswith("zh") else "; "


def gap_after(said: str) -> str:
    """What separates a next sentence from ``said``: nothing after a Chinese full stop, else a space."""
    return "" if said.rstrip()[-1:] in ("。", "！", "？") else " "


def join_sentences(sentences: list[str], language: str) -> str:
    """Sentences, each translated on its own, as one paragraph of ``language``."""
    return sentence_gap(language).join(sentences)


def punctuation_problems(catalog: Catalog) -> list[str]:
    """The zh_CN translations with ASCII quotes, or a space before full-width punctuation or by emphasis."""
    problems = []
    for message in catalog:
        if not message.id or not message.string or message.fuzzy:
            continue
        text = str(message.string)
        prose = _CODE.sub(lambda code: "x" * len(code.group(0)), text)
        found = []
        for quoted in _ASCII_QUOTES.finditer(prose):
            found.append(f"ASCII quotes around {text[quoted.start() : quoted.end()][:40]!r}: use “…”")
        for space in _SPACE_BEFORE_FULL_WIDTH.finditer(text):
            before = text[max(0, space.start() - 12) : space.end() + 1]
            found.append(
                f"a space before full-width punctuation in {before!r}: drop it (after a literal: '\\\\ ')"
            )
        for spaced in _SPACED_EMPHASIS.finditer(prose):
            found.append(
                f"a space beside emphasis in {text[spaced.start() : spaced.end()][:40]!r}: "
                "Chinese shows it; write '\\ ' (reStructuredText) or nothing (Markdown)"
            )
        problems += [f"line {message.lineno}: {problem}" for problem in found]
    return problems
