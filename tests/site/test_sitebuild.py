"""Languages of the site and the root page that sends visitors to one."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _site import LANGUAGES, build_site, copy_project

from autograd_notes.site.build.sitebuild import languages_of, main, swap_in, write_root_index
from autograd_notes.site.web.sitemap import content_pages, write_robots, write_root_not_found, write_sitemap

ROOT = Path(__file__).resolve().parents[2]


def test_languages_come_from_conf_with_english_first() -> None:
    languages = languages_of(ROOT / "docs")
    # the site's four languages, as readers find them named; every test takes them from conf.py
    assert languages == {"en": "English", "ru": "Русский", "zh_CN": "简体中文", "pt_BR": "Português (Brasil)"}
    assert list(languages) == LANGUAGES


def test_root_index_redirects_to_english_and_links_every_language(tmp_path: Path) -> None:
    write_root_index(tmp_path, {"en": "English", "ru": "Русский"})
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'content="0; url=en/index.html"' in page
    assert '<a href="ru/index.html" hreflang="ru">Русский</a>' in page


def test_list_languages(capsys: object) -> None:
    assert main(["--list-languages", str(ROOT / "docs")]) == 0
    assert capsys.readouterr().out.split() == LANGUAGES  # type: ignore[attr-defined]


def _fake_language(out: Path, code: str, pages: list[str]) -> None:
    for page in pages:
        (out / code / page).parent.mkdir(parents=True, exist_ok=True)
        (out / code / page).write_text(f"<html lang='{code}'>{page}</html>", encoding="utf-8")


def test_sitemap_lists_every_content_page_with_its_language_alternates(tmp_path: Path) -> None:
    pages = ["index.html", "examples/05_inplace/plot_x.html", "search.html", "genindex.html", "404.html"]
    for code in ("en", "ru"):
        _fake_language(tmp_path, code, pages)
        _fake_language(tmp_path, code, ["_static/x.html", "_downloads/abc/plot_x.html"])
    count = write_sitemap(tmp_path, "https://example.test/site", ["en", "ru"])
    assert count == 4  # two content pages in two languages
    xml = ET.parse(tmp_path / "sitemap.xml").getroot()
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    urls = {u.findtext("s:loc", namespaces=ns): u for u in xml.findall("s:url", ns)}
    assert set(urls) == {
        "https://example.test/site/en/index.html",
        "https://example.test/site/ru/index.html",
        "https://example.test/site/en/examples/05_inplace/plot_x.html",
        "https://example.test/site/ru/examples/05_inplace/plot_x.html",
    }
    alternates = {
        link.get("hreflang"): link.get("href")
        for link in urls["https://example.test/site/ru/examples/05_inplace/plot_x.html"].findall("x:link", ns)
    }
    assert alternates == {
        "en": "https://example.test/site/en/examples/05_inplace/plot_x.html",
        "ru": "https://example.test/site/ru/examples/05_inplace/plot_x.html",
        "x-default": "https://example.test/site/en/examples/05_inplace/plot_x.html",
    }
    assert content_pages(tmp_path / "en") == ["examples/05_inplace/plot_x.html", "index.html"]


def test_robots_and_root_404(tmp_path: Path) -> None:
    write_robots(tmp_path, "https://example.test/site/")
    assert "Sitemap: https://example.test/site/sitemap.xml" in (tmp_path / "robots.txt").read_text("utf-8")
    assert not write_root_not_found(tmp_path)
    _fake_language(tmp_path, "en", ["404.html"])
    assert write_root_not_found(tmp_path)
    assert (tmp_path / "404.html").read_text("utf-8") == (tmp_path / "en" / "404.html").read_text("utf-8")


def test_swap_in_replaces_the_site_and_leaves_no_leftovers(tmp_path: Path) -> None:
    out, staging = tmp_path / "html", tmp_path / "html.next"
    _fake_language(out, "en", ["old.html"])
    _fake_language(staging, "en", ["new.html"])
    swap_in(staging, out)
    assert (out / "en" / "new.html").exists()
    assert not (out / "en" / "old.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["html"]


def test_an_unknown_language_is_refused_before_anything_is_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "html"
    assert main([str(ROOT / "docs"), str(out), "--language", "pt-BR"]) == 2
    assert "unknown language pt-BR; the site has en ru zh_CN pt_BR" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


SMALL_EXAMPLE = '''\
"""
A small example
===============

It prints a sum.
"""

print(1 + 1)
'''


def _small_site(tmp_path: Path) -> Path:
    """The real conf.py and extension, a one-page index and a gallery of one example."""
    project = copy_project(tmp_path, gallery=False)
    docs = project / "docs"
    for page in docs.rglob("*.md"):
        if not page.relative_to(docs).parts[0].startswith("_"):
            page.unlink()
    (docs / "index.md").write_text("# Small site\n\n```{toctree}\nexamples/index\n```\n", encoding="utf-8")
    gallery = project / "gallery"
    gallery.mkdir()
    (gallery / "GALLERY_HEADER.rst").write_text("Small gallery\n=============\n", encoding="utf-8")
    (gallery / "plot_small.py").write_text(SMALL_EXAMPLE, encoding="utf-8")
    return project


def test_the_log_names_the_folder_the_pages_are_in_once_they_are_there(tmp_path: Path) -> None:
    project = _small_site(tmp_path)
    result = build_site(project, "--language", "en", "-D", "autograd_notes_require_records=0")
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    assert "build succeeded" in result.stdout
    # Sphinx's closing line would name the staging folder, gone by the end: only the final one is named
    assert "The HTML pages are in" not in log
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    closing = lines[max(n for n, line in enumerate(lines) if "build succeeded" in line) :]
    assert not [line for line in closing if "html.next" in line], closing
    assert lines[-1] == "autograd_notes: the HTML pages are in build/html/en; start at build/html/index.html"
    assert (project / "build" / "html" / "en" / "index.html").exists()
    assert not (project / "build" / "html.next").exists()


def test_a_second_build_of_the_same_site_refuses_while_the_first_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from filelock import FileLock

    out = tmp_path / "build" / "html"
    leftover = tmp_path / "build" / "languages.abc123"  # what a killed build left
    leftover.mkdir(parents=True)
    with FileLock(tmp_path / "build" / "build.lock"):  # the first build
        assert main([str(ROOT / "docs"), str(out), "--language", "en"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "another build of " in err
    assert "is running" in err
    assert leftover.exists()  # the running build's scratch is left alone
    assert not out.exists()


def test_a_build_after_a_killed_one_starts_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a killed build left (its languages' scratch folders) goes once the next build holds the lock."""
    import autograd_notes.site.build.sitebuild as sitebuild

    out = tmp_path / "build" / "html"
    leftovers = [tmp_path / "build" / "languages.abc123", tmp_path / "build" / "languages.def456"]
    for leftover in leftovers:
        (leftover / "english-gallery").mkdir(parents=True)
    seen: list[bool] = []
    monkeypatch.setattr(
        sitebuild, "_build_all", lambda *a, **k: seen.append(any(p.exists() for p in leftovers)) or 0
    )
    assert sitebuild.build_all(ROOT / "docs", out, only=["en"]) == 0
    assert seen == [False]  # gone before the languages were built
