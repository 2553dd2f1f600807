"""Example scripts with their narrative in another language and their code unchanged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autograd_notes.site.downloads import (
    ReaderText,
    guard_imports,
    install_cell,
    link_references,
    script_header,
    translate_rst_lines,
    translate_script,
)

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


# -- what downloads tell their reader ----------------------------------------------------

READER = ReaderText(
    command="pip install autograd-notes --find-links https://example.org/site/packages/",
    page="This script is a page of Autograd Notes: {address}",
    needs="It needs PyTorch and autograd-notes:",
    missing="Это нужно установить:",
    notebook="Installs autograd-notes if missing:",
    links={"tiny": ("A tiny example", "https://example.org/site/en/tiny.html#tiny")},
)


def test_references_become_links_named_by_their_titles() -> None:
    text = "See :ref:`tiny`, :ref:`this one <tiny>` and :ref:`unknown`."
    assert link_references(text, READER.links) == (
        "See `A tiny example <https://example.org/site/en/tiny.html#tiny>`_, "
        "`this one <https://example.org/site/en/tiny.html#tiny>`_ and :ref:`unknown`."
    )


def test_the_script_header_names_the_page_and_the_command() -> None:
    lines = script_header(READER, "https://example.org/site/en/tiny.html")
    assert lines == [
        "# This script is a page of Autograd Notes: https://example.org/site/en/tiny.html",
        "# It needs PyTorch and autograd-notes:",
        f"#     {READER.command}",
    ]


def test_the_first_import_is_guarded_and_the_code_kept() -> None:
    guarded = guard_imports(SCRIPT, READER)
    lines = guarded.splitlines()
    at = lines.index("import torch")
    assert lines[at - 4 : at] == [
        "try:",
        "    import autograd_notes  # noqa: F401",
        "except ModuleNotFoundError:",
        lines[at - 1],
    ]
    assert [line for line in lines if not line.startswith(("try:", "    ", "except"))] == SCRIPT.splitlines()
    assert guard_imports("print(1)\n", READER) == "print(1)\n"  # nothing to guard


def test_without_the_package_a_guarded_script_says_how_to_install_it(tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(guard_imports(SCRIPT, READER), encoding="utf-8")
    hide = "import runpy, sys; sys.modules['autograd_notes'] = None; runpy.run_path(sys.argv[1])"
    result = subprocess.run(
        [sys.executable, "-c", hide, str(script)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert result.stderr == f"Это нужно установить:\n    {READER.command}\n"


def test_the_install_cell_is_valid_ipython() -> None:
    from IPython.core.inputtransformer2 import TransformerManager

    cell = install_cell(READER)
    assert cell.splitlines()[0] == "# Installs autograd-notes if missing:"
    python = TransformerManager().transform_cell(cell)
    compile(python, "<cell>", "exec")  # the magic inside except: is IPython's, not a SyntaxError
    assert f"get_ipython().run_line_magic('pip', '{READER.command.removeprefix('pip ')}')" in python
