"""Chinese search that works on Sphinx 9.0.

Sphinx 9.0's ``SearchChinese`` ships the English stemmer's JavaScript but
then assigns ``window.Stemmer = ChineseStemmer``, which is not defined: the
search page throws and finds nothing (sphinx-doc/sphinx#14229). This
subclass inlines the same English stemmer and names it correctly. Words are
still split by jieba, as in Sphinx (without jieba installed, the Chinese
index is empty: jieba is a dependency of the docs build). :func:`setup`
registers it for ``zh``.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.search.zh import SearchChinese

from ..upstream.names import english_stemmer_scripts

__all__ = ["SearchChineseWithStemmer", "setup"]


def _english_stemmer() -> str:
    parts = [script.read_text(encoding="utf-8") for script in english_stemmer_scripts()]
    return "\n".join([*parts, "window.Stemmer = EnglishStemmer;"])


class SearchChineseWithStemmer(SearchChinese):
    """Sphinx's Chinese search, with the stemmer its JavaScript refers to."""

    js_stemmer_rawcode = ""  # no file to copy: the code is inlined below
    js_stemmer_code = _english_stemmer()


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the Chinese search in place of Sphinx's."""
    app.add_search_language(SearchChineseWithStemmer)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
