"""Reading catalogs strictly, coverage, markup comparison, and the locale check."""

from __future__ import annotations

from pathlib import Path

import pytest
from _site import copy_project, extract_messages

from autograd_notes.site.i18n.catalogs import (
    CatalogError,
    Coverage,
    behind_page,
    check_locale,
    coverage,
    markup_problems,
    placeholder_problems,
    read_catalog,
    translations,
    unsafe_markup,
)

ROOT = Path(__file__).resolve().parents[2]
HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


def po(tmp_path: Path, body: str, name: str = "page.po") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def test_a_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    path = po(tmp_path, 'msgid "Hello"\nmsgstr "Привет"\n\nmsgid "Broken\nmsgstr ""\n')
    with pytest.raises(CatalogError) as info:
        read_catalog(path)
    assert f"{path}:8: not a valid line of a PO file" in str(info.value)


def test_an_obsolete_entry_repeating_an_active_message_is_refused(tmp_path: Path) -> None:
    path = po(tmp_path, 'msgid "Hello"\nmsgstr "Привет"\n\n#~ msgid "Hello"\n#~ msgstr "Здравствуйте"\n')
    with pytest.raises(CatalogError) as info:
        read_catalog(path)
    assert f"{path}:8: an obsolete (#~) entry repeats the message of line 5" in str(info.value)


def test_babel_errors_are_reported_with_the_file(tmp_path: Path) -> None:
    path = po(tmp_path, 'msgid "a"\nmsgxx "b"\n')
    with pytest.raises(CatalogError) as info:
        read_catalog(path)
    assert str(path) in str(info.value)


def test_coverage_counts_translated_fuzzy_and_untranslated(tmp_path: Path) -> None:
    path = po(tmp_path, 'msgid "a"\nmsgstr "а"\n\n#, fuzzy\nmsgid "b"\nmsgstr "б"\n\nmsgid "c"\nmsgstr ""\n')
    assert coverage(read_catalog(path)) == Coverage(translated=1, fuzzy=1, untranslated=1)
    assert not Coverage(1, 1, 0).complete
    assert Coverage(3, 0, 0).complete


@pytest.mark.parametrize(
    ("english", "translated"),
    [
        (":download:`the script <plot_x.py>`", "скрипт"),
        ("see :ref:`retain_graph`", "см. retain_graph"),
        ("call ``backward()`` twice", "вызовите backward() дважды"),
        ("the `docs <https://pytorch.org>`_", "документация"),
        ("see {ref}`mental_model`", "см. модель"),
        ("a [link](https://x.org)", "ссылка"),
    ],
)
def test_dropped_markup_is_a_problem(tmp_path: Path, english: str, translated: str) -> None:
    path = po(tmp_path, f'msgid "{english}"\nmsgstr "{translated}"\n')
    (problem,) = markup_problems(read_catalog(path))
    assert problem.startswith("line ")
    assert "markup differs from English" in problem


def test_translated_link_text_with_the_same_targets_is_fine(tmp_path: Path) -> None:
    body = (
        'msgid "See :ref:`the model <mental_model>` and ``x.grad`` and `docs <https://pytorch.org>`_."\n'
        'msgstr "См. :ref:`модель <mental_model>`, ``x.grad`` и `документацию <https://pytorch.org>`_."\n'
    )
    assert markup_problems(read_catalog(po(tmp_path, body))) == []


def test_translations_are_keyed_by_normalised_english(tmp_path: Path) -> None:
    path = po(
        tmp_path, 'msgid ""\n"two  "\n"lines"\nmsgstr "две строки"\n\n#, fuzzy\nmsgid "x"\nmsgstr "икс"\n'
    )
    assert translations(path) == {"two lines": "две строки"}
    assert translations(tmp_path / "absent.po") == {}


def test_check_locale_reports_coverage_problems_and_missing_pages(tmp_path: Path) -> None:
    locale = tmp_path / "locale"
    po(locale / "ru" / "LC_MESSAGES", 'msgid "a"\nmsgstr "а"\n', "index.po")
    po(locale / "ru" / "LC_MESSAGES", 'msgid "``b``"\nmsgstr "б"\n', "other.po")
    pot = tmp_path / "gettext"
    for name in ("index.pot", "other.pot", "missing.pot"):
        (pot / name).parent.mkdir(parents=True, exist_ok=True)
        (pot / name).write_text(HEADER, encoding="utf-8")
    lines, ok = check_locale(locale, ["ru"], pot)
    assert not ok
    assert lines[1].split()[:5] == ["ru", "2", "2", "0", "0"]
    assert any("other.po: line" in line and "markup differs" in line for line in lines)
    assert any(line.endswith("missing.po: missing (a page without catalog)") for line in lines)


def test_a_catalog_complete_in_itself_can_be_behind_its_page(tmp_path: Path) -> None:
    # the English wrapped over two lines, as a merge writes a long message
    wrapped = 'msgid ""\n"A page. "\n"Its intro."\nmsgstr "Страница."\n\n'
    catalog = po(tmp_path, wrapped + 'msgid "Gone"\nmsgstr "Нет"\n')
    template = po(
        tmp_path, 'msgid "A page. Its intro."\nmsgstr ""\n\nmsgid "New text."\nmsgstr ""\n', "page.pot"
    )
    problem = behind_page(catalog, read_catalog(catalog), template)
    assert problem is not None
    assert problem.startswith(f"{catalog}: 1 message(s) of its page not translated")
    assert problem.endswith("the first: 'New text.'")  # the wrapped English matched its unwrapped twin
    template.write_text(HEADER + 'msgid "A page. Its intro."\nmsgstr ""\n', encoding="utf-8")
    # an entry the page no longer has is no fault here
    assert behind_page(catalog, read_catalog(catalog), template) is None
    po(tmp_path, '#, fuzzy\nmsgid "A page. Its intro."\nmsgstr "Страница."\n', "fuzzy.po")
    fuzzy = tmp_path / "fuzzy.po"
    assert behind_page(fuzzy, read_catalog(fuzzy), template) is not None  # a fuzzy entry shows English


def test_every_message_of_todays_pages_is_translated_in_every_language(tmp_path: Path) -> None:
    """The committed catalogs hold every message the pages have now, the gallery's indexes included
    (they repeat every section's header): a page edited without merging its catalogs shows English."""
    project = copy_project(tmp_path / "project")
    pot = extract_messages(project)
    languages = sorted(p.name for p in (ROOT / "docs" / "locale").iterdir() if p.is_dir())
    lines, ok = check_locale(project / "docs" / "locale", languages, pot)
    assert ok, "\n".join(lines)


def test_check_locale_of_a_complete_language_is_ok(tmp_path: Path) -> None:
    locale = tmp_path / "locale"
    po(locale / "pt_BR" / "LC_MESSAGES", 'msgid "``x`` moves"\nmsgstr "``x`` se move"\n', "index.po")
    lines, ok = check_locale(locale, ["pt_BR"])
    assert ok, lines
    assert lines[1].endswith("100.0%")


@pytest.mark.parametrize(
    ("english", "translated", "broken"),
    [
        ("call ``f()`` (twice)", "调用 ``f()``（两次）", True),  # a full-width parenthesis ends nothing
        ("call ``f()`` (twice)", "调用 ``f()``\\ （两次）", False),  # the escaped space ends it
        ("call ``f()``, twice", "调用 ``f()``，两次", False),  # '，' is punctuation docutils accepts
        ("see :ref:`label` and ``x``", "见 :ref:`label` 和 ``x``", False),  # Sphinx roles parse
        ("a ``literal``", "a ``literal", True),  # unclosed
    ],
)
def test_inline_markup_is_compared_as_docutils_parses_it(
    tmp_path: Path, english: str, translated: str, broken: bool
) -> None:
    from autograd_notes.site.i18n.rst_markup import inline_markup_problems

    body = f'msgid "{english}"\nmsgstr "{translated}"\n'.replace("\\ ", "\\\\ ")
    problems = inline_markup_problems(read_catalog(po(tmp_path, body)))
    assert bool(problems) == broken, problems
    if broken:
        assert "line 5" in problems[0]
        assert "inline markup breaks" in problems[0]


def test_check_locale_parses_the_gallery_catalogs_only(tmp_path: Path) -> None:
    """A broken literal is a problem in a gallery (reStructuredText) catalog, not in a MyST page's.

    ``tests/site/test_i18n_build.py`` runs ``check_locale`` over the real catalogs.
    """
    locale = tmp_path / "locale"
    body = 'msgid "call ``f()`` (twice)"\nmsgstr "调用 ``f()``（两次）"\n'
    po(locale / "zh_CN" / "LC_MESSAGES", body, "examples/01_x/plot_x.po")
    po(locale / "zh_CN" / "LC_MESSAGES", body, "concepts/page.po")
    lines, ok = check_locale(locale, ["zh_CN"])
    assert not ok
    problems = [line for line in lines if "inline markup breaks" in line]
    assert len(problems) == 1
    assert "examples/01_x/plot_x.po: line 5" in problems[0]


@pytest.mark.parametrize(
    ("english", "translated", "added"),
    [
        ("Hello", "Привет <script>alert(7)</script>", "<script>"),
        ("Hello", "Привет <img src=x onerror=alert(8)>", "<img>"),
        ("Hello", "Привет <!-- hidden -->", "<!-->"),
        ("Hello", "Привет\n\n.. raw:: html\n\n   <b>x</b>", ".. raw::"),
        ("Hello", "Привет {raw}`<b>x</b>`", "{raw}"),
        ("See `the page <https://e.org>`_", "См. `страницу <javascript:alert(1)>`_", "javascript:"),
    ],
)
def test_a_translation_that_adds_html_or_raw_output_is_refused(
    tmp_path: Path, english: str, translated: str, added: str
) -> None:
    escaped = translated.replace("\n", "\\n")  # a newline inside a PO string is written \n
    path = po(tmp_path, f'msgid "{english}"\nmsgstr "{escaped}"\n')
    (problem,) = unsafe_markup(read_catalog(path))
    assert problem.startswith("line 5: the translation adds markup the English does not have (")
    assert added in problem


def test_markup_the_english_has_may_stay(tmp_path: Path) -> None:
    path = po(
        tmp_path,
        'msgid "``grad_fn=<AddBackward0>`` of <shape>"\nmsgstr "``grad_fn=<AddBackward0>`` формы <shape>"\n',
    )
    assert unsafe_markup(read_catalog(path)) == []


@pytest.mark.parametrize(
    ("translated", "said"),
    [
        ("{first.__class__} и {last}", "plain names only: {first.__class__}"),
        ("{first:<<12} и {last}", "plain names only: {first:<<12}"),
        ("{first!r} и {last}", "plain names only: {first!r}"),
        ("{first} и {other}", "placeholders must be the English's (first, last)"),
        ("{first} и {last", "not a valid template"),
    ],
)
def test_an_interface_string_keeps_the_english_placeholders(
    tmp_path: Path, translated: str, said: str
) -> None:
    path = po(tmp_path, f'msgid "{{first}} to {{last}}"\nmsgstr "{translated}"\n', name="sphinx.po")
    (problem,) = placeholder_problems(read_catalog(path))
    assert problem.startswith("line 5: ")
    assert said in problem
    good = po(tmp_path, 'msgid "{first} to {last}"\nmsgstr "с {first} по {last}"\n', name="good.po")
    assert placeholder_problems(read_catalog(good)) == []


def test_obsolete_entries_are_dropped_and_active_ones_kept(tmp_path: Path) -> None:
    from autograd_notes.site.i18n.catalogs import purge_obsolete

    body = 'msgid "Hello"\nmsgstr "Привет"\n\n#~ msgid "Goodbye"\n#~ msgstr "Пока"\n'
    path = po(tmp_path / "ru" / "LC_MESSAGES", body)
    clean = po(tmp_path / "ru" / "LC_MESSAGES", 'msgid "Hi"\nmsgstr "Привет"\n', name="clean.po")
    before = clean.read_bytes()
    assert purge_obsolete(tmp_path, ["ru"]) == [path]
    text = path.read_text(encoding="utf-8")
    assert "#~" not in text
    assert translations(path) == {"Hello": "Привет"}
    assert clean.read_bytes() == before  # a catalog without obsolete entries is left as it is


def test_every_catalog_passes_gnu_gettexts_own_check() -> None:
    """``msgfmt -c``, what translation platforms and distribution packagers run, accepts every catalog."""
    import shutil
    import subprocess

    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.fail(
            "no msgfmt: install GNU gettext (apt-get install gettext, as nox -s tests and .ci/run do)"
        )
    root = Path(__file__).resolve().parents[2] / "docs" / "locale"
    catalogs = sorted(root.rglob("*.po"))
    assert len(catalogs) > 100
    refused = {}
    for path in catalogs:
        result = subprocess.run([msgfmt, "-c", "-o", "/dev/null", str(path)], capture_output=True, text=True)
        if result.returncode:
            refused[str(path.relative_to(root))] = result.stderr.strip()[-300:]
    assert refused == {}
