"""Example scripts with their narrative in another language and their code unchanged."""

from __future__ import annotations

from pathlib import Path

from autograd_notes.site.downloads import translate_rst_lines, translate_script

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = '''"""
.. _tiny:

A tiny example
==============

It shows one thing, with ``x``.
"""

# %%
# First part
# ----------
# Some text that goes on
# over two lines.
#
# - a first item
# - a second item
#   that continues
import torch

x = torch.ones(1)  # a comment in code stays
'''

RU = {
    "A tiny example": "Маленький пример",
    "It shows one thing, with ``x``.": "Он показывает одно, с ``x``.",
    "First part": "Первая часть",
    "Some text that goes on over two lines.": "Текст, который продолжается на двух строках.",
    "a second item that continues": "второй пункт, который продолжается",
}


def test_text_is_translated_and_code_kept() -> None:
    out = translate_script(SCRIPT, RU)
    assert "Маленький пример\n================\n" in out
    assert "# Первая часть\n# ------------\n" in out
    assert "# Текст, который продолжается на двух строках.\n" in out
    assert "# - a first item\n" in out  # no translation: the English stays, line for line
    assert "# - второй пункт, который продолжается\n" in out
    after_docstring = SCRIPT.split('"""\n', 2)[2]
    code = [line for line in after_docstring.splitlines() if line and not line.startswith("#")]
    assert code == ["import torch", "x = torch.ones(1)  # a comment in code stays"]
    assert all(line in out.splitlines() for line in code)
    assert ".. _tiny:" in out


def test_cjk_titles_get_an_underline_as_wide_as_they_look() -> None:
    lines = translate_rst_lines(["First part", "----------"], {"First part": "第一部分"})
    assert lines == ["第一部分", "----------"]  # 4 wide characters = 8 columns, the original 10 kept
    lines = translate_rst_lines(["Part", "----"], {"Part": "第一部分"})
    assert lines == ["第一部分", "--------"]


def test_no_translations_change_nothing_in_any_example() -> None:
    for script in sorted((ROOT / "gallery").glob("*/plot_*.py")):
        source = script.read_text(encoding="utf-8")
        assert translate_script(source, {}) == source, script.name


def test_long_translations_wrap_without_breaking_markup() -> None:
    text = "Ниже " + " ".join(["``очень длинный литерал с пробелами``"] * 4)
    lines = translate_rst_lines(["Below."], {"Below.": text})
    assert all(line.count("``") % 2 == 0 for line in lines)
    assert " ".join(lines) == text
