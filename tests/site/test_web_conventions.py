"""What every published page carries for the web, read from the built site (every language)."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _html import read_page
from _site import LANGUAGES, ROOT, TRANSLATIONS, Site

from autograd_notes.site.build.sitebuild import site_url_of
from autograd_notes.site.web.page_meta import og_locale

SITE = site_url_of(ROOT / "docs")
REPOSITORY = "https://github.com/autograd-notes/autograd-notes/edit/main/"
EXAMPLE = "examples/05_inplace/plot_detach_inplace_saved"


def page(site: Site, language: str, name: str) -> str:
    return (site.html / language / f"{name}.html").read_text(encoding="utf-8")


def meta(raw: str, key: str) -> list[str]:
    return [
        html.unescape(v)
        for v in re.findall(rf'<meta (?:property|name)="{re.escape(key)}" content="([^"]*)"', raw)
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_open_graph_canonical_and_language_alternates(whole_site: Site, language: str) -> None:
    raw = page(whole_site, language, EXAMPLE)
    url = f"{SITE}{language}/{EXAMPLE}.html"
    assert f'<link rel="canonical" href="{url}">' in raw
    assert meta(raw, "og:url") == [url]
    assert meta(raw, "og:locale") == [og_locale(language)]
    assert sorted(meta(raw, "og:locale:alternate")) == sorted(
        og_locale(c) for c in LANGUAGES if c != language
    )
    assert meta(raw, "og:site_name") == ["Autograd Notes"]
    (title,) = meta(raw, "og:title")
    page_title = re.search(r"<title>(.*?)</title>", raw, re.S)
    assert page_title is not None
    assert title
    assert title in html.unescape(page_title.group(1))
    (description,) = meta(raw, "og:description")
    assert 40 <= len(description) <= 200
    assert "download" not in description.lower()  # the page's own prose, not sphinx-gallery's note
    for code in LANGUAGES:
        alternate = (
            f'<link rel="alternate" hreflang="{code.replace("_", "-")}" href="{SITE}{code}/{EXAMPLE}.html">'
        )
        assert alternate in raw
    assert f'<link rel="alternate" hreflang="x-default" href="{SITE}en/{EXAMPLE}.html">' in raw


@pytest.mark.parametrize(
    ("language", "name", "source"),
    [
        ("en", EXAMPLE, "gallery/05_inplace/plot_detach_inplace_saved.py"),
        ("en", "examples/05_inplace/index", "gallery/05_inplace/GALLERY_HEADER.rst"),
        ("en", "examples/index", "gallery/GALLERY_HEADER.rst"),
        ("en", "concepts/mental_model", "docs/concepts/mental_model.md"),
        ("en", "errors", "docs/errors.md"),
        ("ru", EXAMPLE, f"docs/locale/ru/LC_MESSAGES/{EXAMPLE}.po"),
        ("zh_CN", "index", "docs/locale/zh_CN/LC_MESSAGES/index.po"),
    ],
)
def test_edit_links_open_the_file_a_contributor_edits(
    whole_site: Site, language: str, name: str, source: str
) -> None:
    raw = page(whole_site, language, name)
    assert f'href="{REPOSITORY}{source}" rel="edit"' in raw
    assert (ROOT / source).exists()


def test_generated_pages_have_no_edit_link(whole_site: Site) -> None:
    for name in ("search", "genindex"):
        assert 'rel="edit"' not in page(whole_site, "en", name)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "Built with PyTorch {torch} on the CPU runner, Python"),
        ("ru", "Сборка: CPU-раннер, PyTorch {torch}, Python"),
        ("zh_CN", "在 CPU 运行器上使用 PyTorch {torch} 和 Python"),
        ("pt_BR", "Gerado com PyTorch {torch} e Python"),
    ],
)
def test_footer_names_the_torch_and_runner_that_built_the_site(
    whole_site: Site, language: str, words: str
) -> None:
    import platform

    import torch

    raw = page(whole_site, language, "index").split('<div class="built-with">', 1)[1].split("</div>")[0]
    footer = " ".join(html.unescape(raw).split())
    assert words.format(torch=torch.__version__) in footer
    assert platform.python_version() in footer
    # the runner is named once, its kind not repeated before it
    assert "раннер: CPU-раннер" not in footer
    assert "运行器：CPU 运行器" not in footer


@pytest.mark.parametrize(
    ("language", "duration"),
    [
        # no-break spaces inside the time: the unit never wraps alone (a reader saw "5,3 / s" at 390 px)
        ("en", "ran in (<\u00a00\\.1|\\d+\\.\\d)\u00a0s"),
        ("ru", "время выполнения (<\u00a00,1|\\d+,\\d)\u00a0с"),
        ("zh_CN", "运行耗时 (<\u00a00\\.1|\\d+\\.\\d)\u00a0秒"),
        ("pt_BR", "executado em (<\u00a00,1|\\d+,\\d)\u00a0s"),
    ],
)
def test_example_pages_show_the_recorded_running_time(whole_site: Site, language: str, duration: str) -> None:
    raw = html.unescape(page(whole_site, language, EXAMPLE))
    summary = raw.split("runner-summary", 1)[1].split("</div>", 1)[0]
    assert re.search(duration, summary), summary


def test_link_previews_show_a_title_as_text(whole_site: Site) -> None:
    raw = page(whole_site, "en", "examples/02_backward/plot_non_leaf_grad")
    (title,) = meta(raw, "og:title")
    assert "<" not in title
    assert ".grad" in title


def test_running_times_stay_out_of_the_catalogs() -> None:
    for catalog in (ROOT / "docs" / "locale").rglob("*.po"):
        text = catalog.read_text(encoding="utf-8")
        assert "Total running time" not in text, catalog
        assert not re.search(r"\d+\.\d+ s(econds)?\b", text), catalog


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_loads_anything_from_another_host(whole_site: Site, language: str) -> None:
    for file in (whole_site.html / language).rglob("*.html"):
        raw = file.read_text(encoding="utf-8")
        for tag in re.findall(r"<(?:script|link|img|iframe)\b[^>]*>", raw):
            if 'rel="alternate"' in tag or 'rel="canonical"' in tag:
                continue
            source = re.search(r'\b(?:src|href)="([^"]+)"', tag)
            if source and re.match(r"(https?:)?//", source.group(1)):
                pytest.fail(f"{file.relative_to(whole_site.html)} loads {source.group(1)}")
        assert "mathjax" not in raw.lower(), file


def test_math_is_written_as_mathml(whole_site: Site) -> None:
    raw = page(whole_site, "en", "examples/10_higher_order/plot_create_graph")
    assert raw.count("<math ") >= 5
    assert "<msup><mi>x</mi><mn>3</mn></msup>" in raw


def test_not_found_page_links_work_from_any_depth(whole_site: Site) -> None:
    raw = (whole_site.html / "404.html").read_text(encoding="utf-8")
    assert raw == (whole_site.html / "en" / "404.html").read_text(encoding="utf-8")
    base = re.sub(r"^https?://[^/]+", "", SITE)
    article = raw.split("<article", 1)[1].split("</article>", 1)[0]
    links = re.findall(r'href="([^"]+)"', article)
    assert f"{base}en/errors.html#error-index" in links
    assert all(link.startswith((base, "#", "http")) for link in links), links
    stylesheets = re.findall(r'<link rel="stylesheet"[^>]*href="([^"]+)"', raw)
    assert stylesheets
    assert all(s.startswith(f"{base}en/_static/") for s in stylesheets)


def test_sitemap_and_robots_cover_every_language(whole_site: Site) -> None:
    root = ET.parse(whole_site.html / "sitemap.xml").getroot()
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locations = {u.findtext("s:loc", namespaces=ns) for u in root.findall("s:url", ns)}
    for language in LANGUAGES:
        assert f"{SITE}{language}/{EXAMPLE}.html" in locations
        assert f"{SITE}{language}/search.html" not in locations
    english = [p for p in locations if p and p.startswith(f"{SITE}en/")]
    assert len(locations) == len(LANGUAGES) * len(english)
    assert f"Sitemap: {SITE}sitemap.xml" in (whole_site.html / "robots.txt").read_text(encoding="utf-8")


def test_published_folder_holds_only_the_site(whole_site: Site) -> None:
    assert sorted(p.name for p in whole_site.html.iterdir()) == sorted(
        [*LANGUAGES, "404.html", "_figures", "index.html", "packages", "robots.txt", "sitemap.xml"]
    )
    assert not (whole_site.project / "build" / "html.next").exists()


def test_favicon_is_local(whole_site: Site) -> None:
    raw = page(whole_site, "en", "index")
    icon = re.search(r'<link rel="(?:shortcut )?icon" href="([^"]+)"', raw)
    assert icon is not None
    assert (whole_site.html / "en" / Path(icon.group(1).split("?")[0])).exists()


# what may stay in Latin letters in a translated footer or runner box: names, code, versions, paths
NAMES = re.compile(
    r"Autograd Notes|PyTorch|Python|Sphinx|Furo|@pradyunsg|torch|CPU|CUDA|GPU|NVIDIA|H100|HBM3|x86_64|"
    r"\d[\w.+-]*|records/\S+|[\w/]+\.(?:json|py)|cu\d+|Copyright"
)


ENGLISH_WORDS = {"made", "with", "and", "built", "the", "runner", "maintainers", "recorded", "same", "this"}


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_a_translated_footer_and_runner_box_hold_no_english_words(whole_site: Site, language: str) -> None:
    for name in ("index", EXAMPLE):
        root = read_page(whole_site.html / language, f"{name}.html").root
        boxes = [
            box
            for bottom in root.find_all("div", "bottom-of-page")
            for box in bottom.find_all("div", "left-details")
        ]
        boxes += root.find("article").find_all("div", "runner-summary")
        for box in boxes:
            text = NAMES.sub(" ", box.text(separator=" "))
            english = re.findall(r"\b[A-Za-z]{3,}\b", text)
            if language == "pt_BR":  # Portuguese is written in Latin letters: look for English words
                english = [word for word in english if word.lower() in ENGLISH_WORDS]
            assert english == [], (name, text)
