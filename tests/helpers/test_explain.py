"""``python -m autograd_notes explain`` and the error hooks, on the index the package ships.

The index is the site's "paste your error" data (the same messages, forms,
weights, pages and cells: compared with a built site in
``tests/site/test_error_search.py``), with each page's title and first
sentence in every language. Its commands run here in this interpreter and
in a subprocess; from the site's own wheel, in a fresh environment and a
real Jupyter kernel, in ``tests/site/test_reader.py``.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograd_notes._explain.cli import run_explain
from autograd_notes._explain.hooks import explanation_line
from autograd_notes._explain.index import LANGUAGES, explain, read_index, reader_language, shipped_index
from autograd_notes._explain.match import rank, token_weights
from autograd_notes._typed_json import SchemaError
from autograd_notes.site.build.error_index import (
    INDEX_FILE,
    build_index,
    cell_messages,
    cell_quotes,
    code_cell_lines,
    render_index,
)

ROOT = Path(__file__).resolve().parents[2]
HOLDOUT = json.loads((ROOT / "tests" / "site" / "error_holdout.json").read_text("utf-8"))
NO_GRAD = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
UNRELATED = "ValueError: Expected input batch_size (32) to match target batch_size (16)."


def test_the_shipped_index_is_up_to_date_with_the_records_and_catalogs() -> None:
    committed = (ROOT / INDEX_FILE).read_text(encoding="utf-8")
    assert committed == render_index(build_index(ROOT)), "run python -m autograd_notes.site.build.error_index"
    assert shipped_index() == read_index(committed)


def test_explain_ranks_as_the_matcher_ranks_the_records() -> None:
    """Every hold-out error: the pages explain() lists are the matcher's over the records, in order."""
    messages = cell_messages(ROOT)
    weights = token_weights(m.normalised for m in messages)
    quotes = cell_quotes(ROOT)
    index = shipped_index()
    assert index is not None
    by_url = {page["path"]: page["example"] for page in index["pages"]}
    for case in HOLDOUT:
        expected = [match.page for match in rank(case["text"], messages, weights, quotes)]
        found = [
            f"examples/{by_url[page.url.split('/en/', 1)[1].split('#')[0]].removesuffix('.py')}"
            for page in explain(case["text"])
        ]
        assert found == expected, case["text"][:80]


def test_a_cell_number_is_the_pages() -> None:
    script = (
        '"""\nTitle\n=====\n\nIntro.\n"""\n\n# %%\n# Text only.\n\n# %%\n# Some code.\nx = 1\n\n# %%\ny = 2\n'
    )
    # the docstring's cell and a cell of text alone have no code block: the code cells start at 11 and 15
    assert code_cell_lines(script) == [11, 15]
    assert code_cell_lines('"""\nT\n=\n"""\nimport torch\n# %%\nx = 1\n') == [1, 6]


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_has_its_titles_and_addresses(language: str) -> None:
    (first, *_rest) = explain(NO_GRAD, language)
    assert f"/autograd-notes/{language}/examples/" in first.url
    assert "#cell-" in first.url
    assert first.title
    assert first.why
    assert "``" not in first.why
    assert ":ref:" not in first.why
    if language != "en":
        assert first.title != explain(NO_GRAD, "en")[0].title


def test_unrelated_errors_get_no_page() -> None:
    assert explain(UNRELATED) == []
    assert explain("") == []


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LANG": "zh_CN.UTF-8"}, "zh_CN"),
        ({"LC_ALL": "pt_BR.UTF-8", "LANG": "ru_RU.UTF-8"}, "pt_BR"),
        ({"LANG": "pt_PT.UTF-8"}, "pt_BR"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C"}, "en"),
        ({}, "en"),
    ],
)
def test_the_language_follows_the_locale(environ: dict[str, str], language: str) -> None:
    assert reader_language(environ) == language


def _explain(*argv: str, stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    args = argparse.Namespace(message=list(argv), file=None, language="en")
    return run_explain(args, stdin=io.StringIO(stdin), out=out), out.getvalue()


def test_the_command_prints_pages_best_first_or_says_none() -> None:
    status, printed = _explain(NO_GRAD)
    assert status == 0
    lines = printed.splitlines()
    assert lines[0] == "Pages of Autograd Notes that explain it, best first:"
    assert lines[1].startswith("1. ")
    assert lines[2].strip().startswith("https://autograd-notes.github.io/autograd-notes/en/examples/")
    assert printed.count("(the message it matched: ") == 1  # every page raises that same message
    status, printed = _explain(UNRELATED)
    assert status == 1
    assert printed == (
        "No page of Autograd Notes explains this error. Every error the examples document: "
        "https://autograd-notes.github.io/autograd-notes/en/errors.html\n"
    )
    # a whole traceback, on standard input
    frame = '  File "x.py", line 3, in <module>\n    y.backward()\n'
    traceback = f"Traceback (most recent call last):\n{frame}{NO_GRAD}\n"
    assert _explain(stdin=traceback)[1] == _explain(NO_GRAD)[1]


def test_the_command_imports_no_pytorch_and_reads_a_file(tmp_path: Path) -> None:
    pasted = tmp_path / "error.txt"
    pasted.write_text(NO_GRAD, encoding="utf-8")
    probe = (
        "import runpy, sys\n"
        f"sys.argv = ['autograd_notes', 'explain', '--language', 'ru', '--file', {str(pasted)!r}]\n"
        "try:\n    runpy.run_module('autograd_notes', run_name='__main__')\n"
        "except SystemExit as stop:\n    print('exit', stop.code, 'torch' in sys.modules, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert result.stderr.strip().splitlines()[-1] == "exit 0 False"
    assert "/autograd-notes/ru/examples/" in result.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "autograd_notes", "explain", "--file", str(tmp_path / "none.txt")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 2
    assert missing.stderr == f"explain: cannot read {tmp_path / 'none.txt'}: No such file or directory\n"


def test_a_damaged_index_is_refused_by_name() -> None:
    with pytest.raises(SchemaError, match=r"pages\[0\]\.titles\.en: must be a string"):
        read_index(
            '{"site": "", "unknown": 1, "weights": {}, "messages": [],'
            ' "pages": [{"example": "", "path": "", "titles": {"en": 3}, "why": {}, "quotes": []}]}'
        )


def test_the_hooks_line_names_the_page_or_nothing() -> None:
    line = explanation_line(RuntimeError(NO_GRAD.removeprefix("RuntimeError: ")), "en")
    assert line is not None
    assert line.startswith("Autograd Notes explains this error: ")
    assert "/autograd-notes/en/examples/" in line
    assert (
        explanation_line(ValueError("Expected input batch_size (32) to match target batch_size (16)."), "en")
        is None
    )


def test_a_script_hook_adds_a_line_after_the_traceback_and_changes_nothing_else(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    body = "import torch\nx = torch.ones(2)\n(x * 2).sum().backward()\n"
    script.write_text(
        "import autograd_notes\nautograd_notes.explain_errors('en')\nautograd_notes.explain_errors('en')\n"
        + body
    )
    plain = tmp_path / "plain.py"
    plain.write_text(body)
    hooked = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=False)
    unhooked = subprocess.run([sys.executable, str(plain)], capture_output=True, text=True, check=False)
    assert hooked.returncode == unhooked.returncode == 1
    *traceback, line = hooked.stderr.rstrip("\n").split("\n")
    assert traceback[-1] == NO_GRAD  # the traceback as Python prints it, the line after it, once
    assert line.startswith("Autograd Notes explains this error: ")
    assert hooked.stderr.count("Autograd Notes") == 1
    assert unhooked.stderr.rstrip("\n").split("\n")[-1] == NO_GRAD
    unrelated = tmp_path / "unrelated.py"
    unrelated.write_text("import autograd_notes\nautograd_notes.explain_errors()\nraise KeyError('x')\n")
    result = subprocess.run([sys.executable, str(unrelated)], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "Autograd Notes" not in result.stderr
