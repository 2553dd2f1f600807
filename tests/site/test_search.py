"""The search index's words: Chinese search's stemmer, and stemmers in C that stem as Snowball's.

Sphinx 9.0's Chinese search names a stemmer that does not exist; ours
defines what it names.

Sphinx stems with snowballstemmer, which uses PyStemmer's C stemmers when
they are installed (the docs group installs them: a tenth of the time). The
page's search stems a query with Snowball's JavaScript stemmers; the index
must hold the same stems, so the C stemmers must give what the pure-Python
ones give on every word of the site, in each language with a stemmer.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import snowballstemmer
import Stemmer
from snowballstemmer.english_stemmer import EnglishStemmer
from snowballstemmer.portuguese_stemmer import PortugueseStemmer
from snowballstemmer.russian_stemmer import RussianStemmer
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


def test_sphinx_stems_with_the_c_stemmers() -> None:
    assert snowballstemmer.stemmer is Stemmer.Stemmer


STEMMERS = [
    ("en", "english", EnglishStemmer),
    ("ru", "russian", RussianStemmer),
    ("pt_BR", "portuguese", PortugueseStemmer),
]


@pytest.mark.parametrize(("language", "algorithm", "snowball"), STEMMERS)
def test_c_stemmers_stem_as_snowball(language: str, algorithm: str, snowball: type) -> None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    sources = [*docs.glob("**/*.md"), *docs.glob("**/*.rst"), *docs.parent.glob("gallery/*/*.py")]
    if language != "en":
        sources = list((docs / "locale" / language).glob("**/*.po"))
    texts = [path.read_text(encoding="utf-8") for path in sources]
    words = {word.lower() for text in texts for word in re.findall(r"\w+", text)}
    assert len(words) > 2000
    c_stemmer, python_stemmer = Stemmer.Stemmer(algorithm), snowball()
    assert [w for w in sorted(words) if c_stemmer.stemWord(w) != python_stemmer.stemWord(w)] == []
