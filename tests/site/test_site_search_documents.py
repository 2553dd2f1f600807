"""The questions each page answers, and what the search page indexes of every page.

A one-page or two-page site is built in this process (``sphinx.testing``), with
the site's search extensions: the ``questions`` box, and the documents written
for MiniSearch (``_static/site_search_data.js``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from autograd_notes.site.examples.downloads import questions_as_markdown
from autograd_notes.site.search.documents import BODY_LIMIT, DATA_FILE
from autograd_notes.site.search.synonyms import FILE_NAME, SynonymsError, load_synonyms

CONF = (
    'extensions = ["autograd_notes.site.search.questions", "autograd_notes.site.search.documents"]\n'
    'html_theme = "basic"\n'
)
PAGE = """Backward twice
==============

A backward pass frees the tensors that the graph saved.

.. questions::

   - Why does a second ``backward()`` fail?
   - When do I need ``retain_graph=True``?

The second pass
---------------

It stops with an error.

.. code-block:: python

   secret_code_word = 1

.. container:: release-timeline-section

   Every release says this.
"""


def build(tmp_path: Path, pages: dict[str, str]) -> tuple[str, Path]:
    """Build the pages; return the warnings and the output folder."""
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    for name, text in pages.items():
        (tmp_path / f"{name}.rst").write_text(text, encoding="utf-8")
    app = SphinxTestApp("html", srcdir=tmp_path, builddir=tmp_path / "_b", freshenv=True)
    try:
        app.build()
    finally:
        app.cleanup()
    return app.warning.getvalue(), Path(app.outdir)


def documents(out: Path) -> dict[str, object]:
    text = (out / "_static" / DATA_FILE).read_text(encoding="utf-8")
    prefix, suffix = "window.AUTOGRAD_NOTES_PAGES = ", ";\n"
    assert text.startswith(prefix)
    assert text.endswith(suffix)
    data: dict[str, object] = json.loads(text[len(prefix) : -len(suffix)])
    return data


def test_the_questions_show_under_their_heading(tmp_path: Path) -> None:
    warnings, out = build(tmp_path, {"index": PAGE})
    assert not warnings, warnings
    page = (out / "index.html").read_text(encoding="utf-8")
    assert '<div class="page-questions docutils container">' in page
    assert "Questions this page answers" in page
    assert page.index("A backward pass frees") < page.index("page-questions") < page.index("The second pass")
    assert "When do I need <code" in page


def test_each_page_is_indexed_with_its_questions_title_headings_and_prose(tmp_path: Path) -> None:
    other = "Other page\n==========\n\nNothing asked here.\n"
    warnings, out = build(tmp_path, {"index": PAGE + "\n.. toctree::\n\n   other\n", "other": other})
    assert not warnings, warnings
    data = documents(out)
    assert data["language"] == "en"
    pages = {page["d"]: page for page in data["pages"]}  # type: ignore[attr-defined]
    assert sorted(pages) == ["index", "other"]
    first = pages["index"]
    assert first["t"] == "Backward twice"
    assert first["q"] == ["Why does a second backward() fail?", "When do I need retain_graph=True?"]
    assert first["h"] == ["The second pass"]
    assert "A backward pass frees" in first["b"]
    assert "It stops with an error." in first["b"]
    # the questions have a field of their own; code and the boxes every page repeats are left out
    assert "retain_graph" not in first["b"]
    assert "secret_code_word" not in first["b"]
    assert "Every release says this" not in first["b"]
    assert pages["other"]["q"] == []
    assert pages["other"]["b"] == "Nothing asked here."


def test_the_search_page_alone_loads_minisearch_and_the_documents(tmp_path: Path) -> None:
    warnings, out = build(tmp_path, {"index": PAGE})
    assert not warnings, warnings
    search = (out / "search.html").read_text(encoding="utf-8")
    index = (out / "index.html").read_text(encoding="utf-8")
    for script in (DATA_FILE, "minisearch.js", "site_search.js"):
        assert script in search
        assert script not in index
    assert search.index(DATA_FILE) < search.index("minisearch.js") < search.index("site_search.js")
    assert (out / "_static" / "minisearch.js").exists()


def test_a_long_page_is_indexed_by_its_opening(tmp_path: Path) -> None:
    long = "Long\n====\n\n" + "\n\n".join(f"Paragraph {n} " + "word " * 40 for n in range(100)) + "\n"
    warnings, out = build(tmp_path, {"index": long})
    assert not warnings, warnings
    body = documents(out)["pages"][0]["b"]  # type: ignore[index]
    assert len(body) <= BODY_LIMIT
    assert body.startswith("Paragraph 0 ")


def test_content_that_is_no_list_is_refused_with_its_file_and_line(tmp_path: Path) -> None:
    warnings, _ = build(tmp_path, {"index": "T\n=\n\n.. questions::\n\n   Why is this a paragraph?\n"})
    assert "index.rst:4" in warnings
    assert "one bullet list of questions" in warnings


def test_a_notebook_shows_the_questions_as_markdown() -> None:
    text = "Intro.\n\n.. questions::\n\n   - Why is ``.grad`` None?\n   - How do I keep it?\n\nMore.\n"
    assert questions_as_markdown(text, "Вопросы") == (
        "Intro.\n\n**Вопросы**\n\n- Why is ``.grad`` None?\n- How do I keep it?\n\nMore.\n"
    )
    assert questions_as_markdown("No box here.\n", "Q") == "No box here.\n"


def test_the_search_page_puts_first_what_the_paste_box_lists() -> None:
    """A pasted error never comes back without the pages the box would find: one threshold for both."""
    from autograd_notes._explain.match import MIN_SCORE
    from autograd_notes.site.web.static_files import STATIC

    script = (STATIC / "site_search.js").read_text(encoding="utf-8")
    assert f"var ERROR_FIRST = {MIN_SCORE};" in script


SITE_SYNONYMS = Path(__file__).resolve().parents[2] / "docs" / FILE_NAME


def test_the_language_s_synonyms_are_written_with_the_documents(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text('[en]\ngroups = [["gradient", "derivative"]]\n', encoding="utf-8")
    warnings, out = build(tmp_path, {"index": PAGE})
    assert not warnings, warnings
    assert documents(out)["synonyms"] == [["gradient", "derivative"]]


def test_the_site_has_synonyms_in_every_language() -> None:
    languages = sorted(p.name for p in (SITE_SYNONYMS.parent / "locale").iterdir() if p.is_dir())
    for language in ["en", *languages]:
        assert len(load_synonyms(SITE_SYNONYMS, language)) >= 5, language


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[en\n", "not TOML"),
        ('[en]\ngroups = "gradient"\n', "groups must be a list"),
        ('[en]\ngroups = [["gradient"]]\n', "group 1: a group is a list of two words or more"),
        ('[en]\ngroups = [["gradient", "second derivative"]]\n', "'second derivative' is not one word"),
        (
            '[en]\ngroups = [["grad", "gradient"], ["Grad", "derivative"]]\n',
            "group 2: 'Grad' is already in group 1",
        ),
    ],
)
def test_a_bad_synonyms_file_is_refused_naming_the_file(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / FILE_NAME
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SynonymsError) as refused:
        load_synonyms(path, "en")
    assert str(refused.value).startswith(str(path))
    assert said in str(refused.value)
