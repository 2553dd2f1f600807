"""The zh_CN punctuation rules, each on a catalog that breaks it and one that keeps it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _html import read_page
from _site import Site

from autograd_notes.site.i18n.catalogs import read_catalog
from autograd_notes.site.i18n.rst_markup import inline_markup_problems
from autograd_notes.site.i18n.zh_punctuation import punctuation_problems

HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


def catalog_of(tmp_path: Path, english: str, chinese: str) -> Path:
    path = tmp_path / "page.po"
    quote = str.maketrans({'"': '\\"'})
    path.write_text(
        f'{HEADER}msgid "{english.translate(quote)}"\nmsgstr "{chinese.translate(quote)}"\n', "utf-8"
    )
    return path


@pytest.mark.parametrize(
    ("chinese", "said"),
    [
        ('它报错 "grad can be implicitly created only for scalar outputs"。', "ASCII quotes around"),
        ("``DataParallel`` （DDP）在", "a space before full-width punctuation"),
        ("它说“x”，而 ``y`` 。", "a space before full-width punctuation"),
        ("我们把其中的 *事实* 重建", "a space beside emphasis"),
        ("每一节 *源文档*，", "a space beside emphasis"),
    ],
)
def test_a_rule_broken_is_named_with_its_line(tmp_path: Path, chinese: str, said: str) -> None:
    path = catalog_of(tmp_path, 'It says "x".', chinese)
    (problem,) = punctuation_problems(read_catalog(path))
    assert problem.startswith("line 5: ")
    assert said in problem


@pytest.mark.parametrize(
    "chinese",
    [
        "它报错“grad can be implicitly created only for scalar outputs”。",
        "``DataParallel``\\ （DDP）在",
        '``print("x")`` 打印 x，链接 `页面 <https://e.org/?q="x">`_ 也行。',
        '<a href="https://www.sphinx-doc.org/">Sphinx</a>',
        "我们把其中的\\ *事实*\\ 重建",
        "标签 *graph, pytorch* 的",
    ],
)
def test_chinese_punctuation_and_code_pass(tmp_path: Path, chinese: str) -> None:
    assert punctuation_problems(read_catalog(catalog_of(tmp_path, 'It says "x".', chinese))) == []


def test_emphasis_right_after_a_chinese_character_is_no_emphasis(tmp_path: Path) -> None:
    english = "but ``w`` is the *result* of a multiplication"
    broken = catalog_of(tmp_path, english, "但 ``w`` 是一次乘法的*结果*，而不是")
    (problem,) = inline_markup_problems(read_catalog(broken))
    assert "missing ['*emphasis*']" in problem
    kept = catalog_of(tmp_path, english, "但 ``w`` 是一次乘法的\\ *结果*，而不是")
    assert inline_markup_problems(read_catalog(kept)) == []


# a full-width stop, a space, then Chinese: two sentences translated apart and joined as English joins them
_SPACE_AFTER_STOP = re.compile(r"[。！？：；]\s+(?=[\u4e00-\u9fff])")


def test_no_page_sets_a_space_after_a_chinese_full_stop(whole_site: Site) -> None:
    """Sentences the site joins (runner summaries, the "Changed in" note, timeline summaries), paragraph by
    paragraph (two paragraphs' texts are joined by a space)."""
    faults = []
    for path in sorted((whole_site.html / "zh_CN").rglob("*.html")):
        for paragraph in read_page(path.parent, path.name).article.find_all("p"):
            text = paragraph.text()
            faults += [
                f"{path.relative_to(whole_site.html)}: …{text[max(0, m.start() - 20) : m.end() + 10]}…"
                for m in _SPACE_AFTER_STOP.finditer(text)
            ]
    assert not faults, "\n".join(faults[:20])
