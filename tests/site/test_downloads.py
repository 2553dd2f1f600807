"""Example scripts with their narrative in another language and their code unchanged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from autograd_notes.site.examples.downloads import (
    ReaderText,
    download_script,
    drop_escaped_spaces,
    guard_imports,
    install_cell,
    link_references,
    link_script_references,
    raw_docstring,
    script_header,
    third_party_imports,
)
from autograd_notes.site.examples.script_translation import translate_rst_lines, translate_script

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


def test_the_questions_of_a_page_are_translated_at_their_indent() -> None:
    lines = [".. questions::", "", "   - Why is ``.grad`` None?", "   - Untranslated?"]
    out = translate_rst_lines(lines, {"Why is ``.grad`` None?": "Почему ``.grad`` равен None?"})
    assert out == [".. questions::", "", "   - Почему ``.grad`` равен None?", "   - Untranslated?"]


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
    command="pip install --upgrade autograd-notes --find-links https://example.org/site/packages/",
    page="This script is a page of Autograd Notes: {address}",
    needs="It needs PyTorch and autograd-notes:",
    missing="Этот пример импортирует {modules}; здесь не установлены: {missing}. Установите их:",
    notebook="Installs autograd-notes if missing:",
    notebook_page="Этот блокнот — страница Autograd Notes: {address}",
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
    assert lines[at - 4] == "import importlib.util"
    assert lines[at - 3].startswith("if _missing := [name for name in ('torch',) if importlib.util.find_spec")
    assert lines[at - 2].startswith("    raise SystemExit(")
    # then where the site records the reader's PyTorch stopping the example early (no import statement)
    assert (
        lines[at - 1]
        == 'getattr(importlib.import_module("autograd_notes"), "note_early_stop", lambda: None)()'
    )
    assert third_party_imports(guarded)[0] == third_party_imports(SCRIPT)[0]
    assert lines[: at - 4] + lines[at:] == SCRIPT.splitlines()
    assert guard_imports("import sys\nprint(1)\n", READER) == "import sys\nprint(1)\n"  # nothing to guard


MATPLOTLIB_FIRST = """\"\"\"A title.\"\"\"

import warnings
import matplotlib.pyplot as plt
from torch import nn

import autograd_notes._figure_style
from autograd_notes import check


def later():
    import numpy as np
    from . import sibling
    import os.path
"""


def test_every_import_outside_the_standard_library_is_guarded_before_the_first() -> None:
    modules, at = third_party_imports(MATPLOTLIB_FIRST)
    assert modules == ["matplotlib", "torch", "autograd_notes", "numpy"]
    assert at == 4  # import matplotlib.pyplot, after the standard library's warnings
    lines = guard_imports(MATPLOTLIB_FIRST, READER).splitlines()
    assert lines[3] == "import importlib.util"
    assert "('matplotlib', 'torch', 'autograd_notes', 'numpy',)" in lines[4]
    assert lines[7] == "import matplotlib.pyplot as plt"


def test_every_gallery_script_guards_its_first_third_party_import() -> None:
    for script in sorted((ROOT / "gallery").glob("*/plot_*.py")):
        source = script.read_text(encoding="utf-8")
        modules, at = third_party_imports(source)
        assert at is not None, script.name
        assert {"torch", "autograd_notes"} <= set(modules), script.name
        code = [line for line in source.splitlines()[: at - 1] if line and not line.startswith(("#", " "))]
        # before the guard: the docstring and standard-library imports only
        assert not [line for line in code if line.startswith(("import", "from")) and "matplotlib" in line]


def _run_hidden(script: Path, *hidden: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` as the main script where the modules ``hidden`` cannot be found."""
    finder = (
        "import sys\n"
        "class Hide:\n"
        "    def __init__(self, finder):\n"
        "        self.finder = finder\n"
        "    def __getattr__(self, name):\n"
        "        return getattr(self.finder, name)\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.partition('.')[0] in {hidden!r}:\n"
        "            return None\n"
        "        return self.finder.find_spec(name, path, target)\n"
        "sys.meta_path[:] = [Hide(finder) for finder in sys.meta_path]\n"
    )
    site = script.parent / "sitecustomize.py"
    site.write_text(finder, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(script.parent)}
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False, env=env, cwd=script.parent
    )


def test_without_the_package_a_guarded_script_says_how_to_install_it(tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(guard_imports(MATPLOTLIB_FIRST, READER), encoding="utf-8")
    result = _run_hidden(script, "matplotlib", "autograd_notes")
    assert result.returncode == 1
    assert result.stderr == (
        "Этот пример импортирует matplotlib, torch, autograd_notes, numpy; "
        f"здесь не установлены: matplotlib, autograd_notes. Установите их:\n    {READER.command}\n"
    )


def test_an_english_download_names_what_is_missing_in_english(tmp_path: Path) -> None:
    english = ReaderText(
        command=READER.command,
        page=READER.page,
        needs=READER.needs,
        missing="This example imports {modules}; not installed here: {missing}. Install them with:",
        notebook=READER.notebook,
    )
    script = tmp_path / "example.py"
    script.write_text(download_script(MATPLOTLIB_FIRST, english, "https://x.org/en/examples/a/plot_a.html"))
    result = _run_hidden(script, "numpy")
    assert result.returncode == 1
    assert result.stderr.startswith(
        "This example imports matplotlib, torch, autograd_notes, numpy; not installed"
    )
    assert "Traceback" not in result.stderr


def _run_under_torch(folder: Path, version: str, address: str) -> subprocess.CompletedProcess[str]:
    """A download of ``address`` run where the installed PyTorch reads as ``version`` (its metadata)."""
    english = ReaderText(
        command="pip install x", page="Page: {address}", needs="", missing="{modules}: {missing}", notebook=""
    )
    folder.mkdir()
    script = folder / "plot_x.py"
    script.write_text(
        download_script('"""A title."""\n\nimport torch\n\nprint("it runs")\n', english, address)
    )
    info = folder / "metadata" / f"torch-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n", encoding="utf-8"
    )
    path = os.pathsep.join([str(info.parent), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": path},
        cwd=folder,
    )


def test_a_download_says_first_where_the_readers_pytorch_is_recorded_to_stop_early(tmp_path: Path) -> None:
    # a review ran the FSDP page on PyTorch 2.5 and met a bare ImportError; the timeline knew why
    page = "https://x.org/en/examples/18_distributed/plot_sharded_gradients.html"
    old = _run_under_torch(tmp_path / "old", "2.5.1", page)
    assert old.stdout == "it runs\n"
    assert old.stderr.startswith(
        "PyTorch 2.5.1 is recorded to stop this example before its end, on a CPU: "
        "ImportError: cannot import name 'FSDPModule' from 'torch.distributed.fsdp'"
    )
    assert old.stderr.endswith(
        f"\n  Every release: {page}#across-pytorch-releases\n"
        "  The next recorded release that runs it to its end: PyTorch 2.7.1.\n"
    )
    # in the page's language; and nothing where the release runs the example to its end
    russian = _run_under_torch(tmp_path / "ru", "2.6.0", page.replace("/en/", "/ru/"))
    assert russian.stderr.startswith(
        "Записано, что PyTorch 2.6.0 на CPU останавливает этот пример раньше конца"
    )
    assert "AttributeError: 'Stream' object has no attribute 'record_event'" in russian.stderr
    later = _run_under_torch(tmp_path / "new", "2.7.1", page)
    assert (later.stdout, later.stderr) == ("it runs\n", "")


def test_a_download_runs_with_a_helper_installed_before_its_early_stop_note(tmp_path: Path) -> None:
    # a review: pip keeps an installed helper of the same version, and the import of the new name failed
    older = tmp_path / "older" / "autograd_notes"
    older.mkdir(parents=True)
    (older / "__init__.py").write_text('"""A helper of before the note."""\n', encoding="utf-8")
    english = ReaderText(
        command="pip install x", page="Page: {address}", needs="", missing="{modules}: {missing}", notebook=""
    )
    script = tmp_path / "plot_x.py"
    text = '"""A title."""\n\nimport autograd_notes\n\nprint("it runs")\n'
    script.write_text(
        download_script(text, english, "https://x.org/en/examples/a/plot_x.html"), encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": str(older.parent)}
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False, env=env
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "it runs\n", "")


def test_the_install_cell_names_its_page_and_is_valid_ipython() -> None:
    from IPython.core.inputtransformer2 import TransformerManager

    cell = install_cell(READER, "https://example.org/site/ru/examples/a/plot_a.html")
    assert cell.splitlines()[:2] == [
        "# Этот блокнот — страница Autograd Notes: https://example.org/site/ru/examples/a/plot_a.html",
        "# Installs autograd-notes if missing:",
    ]
    python = TransformerManager().transform_cell(cell)
    compile(python, "<cell>", "exec")  # the magic inside except: is IPython's, not a SyntaxError
    assert f"get_ipython().run_line_magic('pip', '{READER.command.removeprefix('pip ')}')" in python


def test_a_scripts_references_become_links_each_on_its_line() -> None:
    script = '''"""
A title, see :ref:`tiny`.
"""

# %%
# As :ref:`this one <tiny>` shows, and
# :ref:`unknown` too.
x = ":ref:`tiny`"  # code is never changed
'''
    linked = link_script_references(script, READER.links).splitlines()
    assert len(linked) == len(script.splitlines())
    assert linked[1] == "A title, see `A tiny example <https://example.org/site/en/tiny.html#tiny>`_."
    assert linked[5] == "# As `this one <https://example.org/site/en/tiny.html#tiny>`_ shows, and"
    assert linked[6] == "# :ref:`unknown` too."
    assert linked[7] == script.splitlines()[7]


def test_escaped_spaces_go_and_literals_keep_theirs() -> None:
    text = "调用 ``backward()``\\ ，再看 ``a\\ b``\\ 。以及 `链接 <https://x.org>`_\\ ：完"
    assert (
        drop_escaped_spaces(text) == "调用 ``backward()``，再看 ``a\\ b``。以及 `链接 <https://x.org>`_：完"
    )
    assert drop_escaped_spaces("a \\\\ b") == "a \\\\ b"  # an escaped backslash, then a space


def test_zh_cn_comments_wrap_at_spaces_only() -> None:
    # the translations that were split mid-literal (``maximu`` / ``m(x, 0)``): a run of CJK
    # text and literals without a space is longer than a line, and stays whole
    texts = [
        "六行，每行三个格子，正值为蓝色，唯一的负值为红色。``relu(x)``：0、0、1。"
        "``x.clamp(min=0)``：0、1、1。``maximum(x, 0)``：0、0.5、1。``abs(x)``：-1、0、1。"
        "``hardtanh(x)``：0、1、0。``x.clamp(-1, 1)``：1、1、1。",
        "顶部的 ``out`` 的节点是 ``BackwardHookFunctionBackward``，它通向线性层的 ``AddmmBackward0`` "
        "（该节点把 ``x`` 保存为 ``mat1 [4, 3]``，把转置后的权重保存为 ``mat2 [3, 2]``）。"
        "从那里出发有三个箭头：一个指向第二个 ``BackwardHookFunctionBackward``，再到叶子 ``x``；"
        "一个指向 ``TBackward0`` 和叶子 ``linear.weight``；一个直接指向叶子 ``linear.bias``。",
    ]
    for text in texts:
        lines = translate_rst_lines(["Below."], {"Below.": text})
        assert " ".join(lines) == text
        assert all(line.count("``") % 2 == 0 for line in lines), lines
        for line in lines[1:]:  # a line starts where the text had a space, never inside a run
            assert f" {line}" in text, line
    assert len(translate_rst_lines(["Below."], {"Below.": texts[1]})) > 1  # it wraps, at its spaces


def test_a_docstring_with_a_backslash_becomes_a_raw_string_and_nothing_moves() -> None:
    """reST's ``\\ `` after an inline literal, as the Chinese translations write it."""
    text = '"""\nA ``backward``\\ （见下文）\n"""\nx = "a\\tb"\n'
    raw = raw_docstring(text)
    assert raw.splitlines()[0] == 'r"""'
    assert raw.splitlines()[1:] == text.splitlines()[1:]  # the code's own strings are left as they are
    compile(raw, "download.py", "exec")  # warnings are errors in the suite
    plain = '"""\nNo backslash here.\n"""\n'
    assert raw_docstring(plain) == plain
