"""The site in every language, built as ``nox -s docs`` builds it, and what a reader of each gets."""

from __future__ import annotations

import html
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from _site import (
    LANGUAGES,
    ROOT,
    TRANSLATIONS,
    Site,
    assert_same_script,
    build_site,
    executions,
    small_site,
    unguarded,
)
from _venvs import python_of
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from autograd_notes.site.i18n.catalogs import check_locale, translations

# the page whose catalogs the tests below break, on a small site of it alone (_site.small_site)
PAGE = Path("examples/05_inplace/plot_detach_inplace_saved")
EXAMPLES = sorted(p.relative_to(ROOT / "gallery") for p in (ROOT / "gallery").glob("*/plot_*.py"))


@pytest.fixture(scope="module")
def project(whole_site: Site) -> Path:
    return whole_site.project


@pytest.fixture(scope="module")
def html_root(whole_site: Site) -> Path:
    return whole_site.html


def pages(root: Path, language: str) -> set[str]:
    base = root / language
    return {p.relative_to(base).as_posix() for p in base.rglob("*.html") if not p.name.startswith("_")}


def test_catalogs_are_complete_and_keep_their_markup() -> None:
    lines, ok = check_locale(ROOT / "docs" / "locale", [code for code in LANGUAGES if code != "en"])
    assert ok, "\n".join(lines)


def test_every_example_ran_once_for_all_languages(html_root: Path, project: Path) -> None:
    assert sorted(executions(project / "executions.log")) == sorted(e.name for e in EXAMPLES)


def test_root_index_sends_visitors_to_english(html_root: Path) -> None:
    page = (html_root / "index.html").read_text(encoding="utf-8")
    assert "url=en/index.html" in page
    for code in LANGUAGES:
        assert f'href="{code}/index.html"' in page


def test_every_page_exists_in_every_language_with_its_lang(html_root: Path) -> None:
    english = pages(html_root, "en")
    assert len(english) > 40
    for code in LANGUAGES:
        assert pages(html_root, code) == english, code
        index = (html_root / code / "index.html").read_text(encoding="utf-8")
        declared = re.search(r'<html[^>]*\blang="([^"]+)"', index)
        assert declared is not None
        assert declared.group(1) in (code, code.replace("_", "-")), (code, declared.group(1))


def test_language_switcher_links_resolve_to_the_same_page(html_root: Path) -> None:
    checked = 0
    for code in LANGUAGES:
        for name in ("index.html", "examples/05_inplace/plot_detach_inplace_saved.html", "errors.html"):
            page = html_root / code / name
            raw = page.read_text(encoding="utf-8")
            switcher = re.search(r'<nav class="language-switcher".*?</nav>', raw, re.S)
            assert switcher is not None, (code, name)
            links = re.findall(r'href="([^"]+)" hreflang="([^"]+)"', switcher.group(0))
            assert len(links) == len(LANGUAGES)
            for href, _lang in links:
                target = (page.parent / href).resolve()
                assert target.exists(), (code, name, href)
                assert target.relative_to(html_root.resolve()).as_posix().split("/", 1)[1] == name
                checked += 1
    assert checked == len(LANGUAGES) ** 2 * 3


def _search_terms(root: Path, code: str) -> set[str]:
    text = (root / code / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    return set(index["terms"])


def test_each_language_search_index_holds_its_own_words(html_root: Path) -> None:
    ru = _search_terms(html_root, "ru")
    assert any(re.fullmatch(r"[а-яё]+", term) for term in ru)
    assert any(term.startswith("тензор") for term in ru)
    zh = _search_terms(html_root, "zh_CN")
    assert any(re.search(r"[\u4e00-\u9fff]", term) for term in zh)
    assert "梯度" in zh or any("梯度" in term for term in zh)
    pt = _search_terms(html_root, "pt_BR")
    assert any(term.startswith("gradient") for term in pt)
    assert any(term in pt for term in ("exempl", "exemplo", "tensor"))
    zh_language_data = (html_root / "zh_CN" / "_static" / "language_data.js").read_text(encoding="utf-8")
    assert "window.Stemmer = EnglishStemmer" in zh_language_data
    assert "ChineseStemmer" not in zh_language_data


def test_same_number_of_download_links_in_every_language(html_root: Path) -> None:
    for example in EXAMPLES:
        name = f"examples/{example.with_suffix('.html').as_posix()}"
        counts = {
            code: len(
                re.findall(
                    r'class="reference download internal"', (html_root / code / name).read_text("utf-8")
                )
            )
            for code in LANGUAGES
        }
        assert len(set(counts.values())) == 1, (example, counts)
        assert counts["en"] == 3


def test_downloads_carry_the_readers_language_and_the_same_code(html_root: Path) -> None:
    example = Path("05_inplace/plot_detach_inplace_saved.py")
    source = (ROOT / "gallery" / example).read_text(encoding="utf-8")
    code = [line for line in source.split('"""', 2)[2].splitlines() if line and not line.startswith("#")]
    for language in TRANSLATIONS:
        catalog = translations(
            ROOT / "docs" / "locale" / language / "LC_MESSAGES" / "examples" / example.with_suffix(".po")
        )
        title = catalog["Edits that backward notices"]
        download = "\n".join(
            unguarded(next((html_root / language / "_downloads").rglob(example.name)).read_text("utf-8"))
        )
        assert title in download, language
        assert [
            line for line in download.split('"""', 2)[2].splitlines() if line and not line.startswith("#")
        ] == code
        notebook = next((html_root / language / "_downloads").rglob(example.with_suffix(".ipynb").name))
        assert title in notebook.read_text(encoding="utf-8"), language
    english = next((html_root / "en" / "_downloads").rglob(example.name)).read_text(encoding="utf-8")
    assert_same_script(english, source)


# Compiles each file given with warnings as errors; prints the ones that warn or fail, a line each.
COMPILE_ALL = """
import pathlib, sys, warnings
warnings.simplefilter("error")
for name in sys.argv[1:]:
    try:
        compile(pathlib.Path(name).read_text(encoding="utf-8"), name, "exec")
    except (SyntaxError, SyntaxWarning) as error:
        print(f"{name}: {type(error).__name__}: {error}")
"""


@pytest.mark.parametrize("version", ["3.10", "3.13"])
def test_every_download_compiles_without_a_warning_on_the_oldest_and_newest_python(
    html_root: Path, version: str
) -> None:
    """A translated docstring holds reST's backslash escapes: a plain string warns on 3.12, fails later."""
    executable = python_of(version)
    scripts = sorted(str(path) for path in html_root.glob("*/_downloads/*/plot_*.py"))
    assert len(scripts) == len(EXAMPLES) * len(LANGUAGES)
    result = subprocess.run(
        [executable, "-c", COMPILE_ALL, *scripts], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == "", result.stdout[-3000:]


def test_translated_pages_show_translated_prose_and_interface(html_root: Path) -> None:
    ru = html.unescape(
        (html_root / "ru" / "examples/05_inplace/plot_detach_inplace_saved.html").read_text("utf-8")
    )
    assert "Наверх" in ru  # furo's "Back to top", from our sphinx.po
    assert "Раннеры" in ru  # the extension's own words
    assert "[кадров внутри PyTorch: 3; torch._tensor.backward" in ru  # the helper's prose in outputs
    assert "RuntimeError: one of the variables needed for gradient computation" in ru  # PyTorch's, as printed
    sharded = (html_root / "ru" / "examples/18_distributed/plot_sharded_gradients.html").read_text("utf-8")
    assert "[процесс 0 из 2]" in html.unescape(sharded)  # a traceback going on in a rank (run_ranks)
    # "Every difference": a release that raised nothing says so in the page's language
    never_sees = html_root / "ru" / "examples/19_parameters_and_optimizers/plot_optimizer_never_sees.html"
    differences = html.unescape(never_sees.read_text("utf-8")).split('class="tl-observations"', 1)[1]
    assert "<del>нет ошибки</del>" in differences  # 2.4.1-2.9.1 raised nothing where the page expects one
    assert ">no error<" not in differences
    zh = html.unescape((html_root / "zh_CN" / "index.html").read_text("utf-8"))
    assert "回到顶部" in zh


def test_a_broken_catalog_stops_the_build_naming_file_and_line(tmp_path: Path) -> None:
    project = small_site(tmp_path, [f"{PAGE.relative_to('examples')}.py"])
    po = project / "docs" / "locale" / "ru" / "LC_MESSAGES" / "errors.po"
    lines = po.read_text(encoding="utf-8").splitlines()
    lines.insert(20, 'msgid "unterminated')
    po.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # the last good build, which a failed one must leave as it was
    good = project / "build" / "html" / "ru" / "index.html"
    good.parent.mkdir(parents=True)
    good.write_text("<html lang='ru'>the last good build</html>", encoding="utf-8")
    result = build_site(project, "--language", "ru")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "locale/ru/LC_MESSAGES/errors.po:21: not a valid line of a PO file" in output
    assert good.read_text(encoding="utf-8") == "<html lang='ru'>the last good build</html>"
    assert sorted(p.name for p in (project / "build").iterdir() if p.name.startswith("html")) == [
        "html",
        "html.failed",
    ]
    assert (
        "build/html is unchanged (the last good build); what this build wrote is in build/html.failed"
        in output
    )


def edit_catalog(project: Path, language: str, change: Callable[[Catalog], None]) -> None:
    """Apply ``change`` to the catalog of ``PAGE`` in ``language`` and write it back."""
    po = project / "docs" / "locale" / language / "LC_MESSAGES" / PAGE.with_suffix(".po")
    with po.open("rb") as stream:
        catalog = read_po(stream)
    change(catalog)
    with po.open("wb") as stream:
        write_po(stream, catalog)


def test_dropped_markup_fails_the_build_naming_the_catalog(tmp_path: Path) -> None:
    def drop_literals(catalog: Catalog) -> None:
        message = next(m for m in catalog if m.id and "``" in str(m.string))
        message.string = str(message.string).replace("``", "")  # the literals become plain text

    project = small_site(tmp_path, [f"{PAGE.relative_to('examples')}.py"])
    edit_catalog(project, "pt_BR", drop_literals)
    result = build_site(project, "--language", "pt_BR")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert f"locale/pt_BR/LC_MESSAGES/{PAGE.as_posix()}.po line" in output
    assert "markup differs from English" in output


def test_an_untranslated_message_shows_in_english(tmp_path: Path) -> None:
    def forget_title(catalog: Catalog) -> None:
        catalog["Edits that backward notices"].string = ""

    project = small_site(tmp_path, [f"{PAGE.relative_to('examples')}.py"])
    edit_catalog(project, "ru", forget_title)
    result = build_site(project, "--language", "en", "--language", "ru")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    page = (project / "build/html/ru" / PAGE.with_suffix(".html")).read_text("utf-8")
    assert "Edits that backward notices" in page
    assert "Раннеры" in page  # the rest of the page is still Russian


def _append_to_first_translation(path: Path, addition: str) -> int:
    """Append ``addition`` to the first translated message of the catalog at ``path``; its line."""
    with path.open("rb") as stream:
        catalog = read_po(stream)
    message = next(m for m in catalog if m.id and m.string)
    message.string = str(message.string) + addition
    with path.open("wb") as stream:
        write_po(stream, catalog)
    with path.open("rb") as stream:
        return int(next(m for m in read_po(stream) if m.id == message.id).lineno)


HOSTILE = " <script>alert(7)</script> <img src=x onerror=alert(8)>"


@pytest.mark.parametrize(
    ("catalog", "addition", "said"),
    [
        ("index.po", HOSTILE, "the translation adds markup the English does not have (<img>, <script>)"),
        (
            f"{PAGE.as_posix()}.po",
            "\n\n.. raw:: html\n\n   <b>raw</b>",
            "the translation adds markup the English does not have",
        ),
    ],
    ids=["myst-page", "gallery-page"],
)
def test_a_translation_cannot_add_html(tmp_path: Path, catalog: str, addition: str, said: str) -> None:
    """A msgstr that adds HTML or raw output stops the build, naming the catalog and the message's line."""
    project = small_site(tmp_path, [f"{PAGE.relative_to('examples')}.py"])
    line = _append_to_first_translation(project / "docs/locale/ru/LC_MESSAGES" / catalog, addition)
    result = build_site(project, "--language", "ru")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"refused translation catalog locale/ru/LC_MESSAGES/{catalog}: line {line}: {said}" in output
    assert "alert" not in "".join(p.read_text("utf-8") for p in (project / "build").rglob("*.html"))


def test_an_interface_string_with_other_placeholders_stops_the_build(tmp_path: Path) -> None:
    def attribute(catalog: Catalog) -> None:
        message = catalog["{count} of {total}"]
        message.string = "{count.__class__} {total:<<12}"

    project = small_site(tmp_path, [f"{PAGE.relative_to('examples')}.py"])
    po = project / "docs" / "locale" / "ru" / "LC_MESSAGES" / "sphinx.po"
    with po.open("rb") as stream:
        catalog = read_po(stream)
    attribute(catalog)
    with po.open("wb") as stream:
        write_po(stream, catalog)
    result = build_site(project, "--language", "ru")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "refused translation catalog locale/ru/LC_MESSAGES/sphinx.po: line " in output
    assert (
        "placeholders must be the English's (count, total), plain names only: {count.__class__}, {total:<<12}"
    ) in output
    assert "ValueError" not in output
