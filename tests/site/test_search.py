"""Chinese search: Sphinx 9.0 names a stemmer that does not exist; ours defines what it names."""

from __future__ import annotations

import re

import pytest
from sphinx.search.zh import SearchChinese

from autograd_notes.site.i18n.search import SearchChineseWithStemmer


def test_the_stemmer_the_page_uses_is_defined() -> None:
    code = SearchChineseWithStemmer.js_stemmer_code
    assigned = re.search(r"window\.Stemmer = (\w+);", code)
    assert assigned is not None
    assert f"{assigned.group(1)}=function" in code.replace(" ", "") or f"var {assigned.group(1)}" in code
    assert SearchChineseWithStemmer.js_stemmer_rawcode == ""
    assert SearchChineseWithStemmer.lang == SearchChinese.lang == "zh"


@pytest.mark.filterwarnings(
    "ignore::pytest.PytestUnraisableExceptionWarning"
)  # jieba leaves its dictionary open
def test_chinese_text_is_split_into_words() -> None:
    words = SearchChineseWithStemmer({}).split("计算图中的叶子节点")
    assert "计算" in words or "计算图" in words
    assert all(len(word) < 9 for word in words)
