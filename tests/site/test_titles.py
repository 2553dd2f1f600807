"""One title per page and per gallery section, in every language (the built site).

A translation that names a page one way in the navigation and another on the
page itself (ru "Подводные камни цикла обучения" in the sidebar, "Ловушки в
цикле обучения" as the section's own title) reads as two different sections.
The titles come from different catalogs (the gallery's index, the section's
page), so only the built HTML shows whether they agree.
"""

from __future__ import annotations

import re

import pytest
from _html import Element, Page, read_page
from _site import LANGUAGES, Site

# pages Sphinx writes itself, without a title of their own in any toctree
GENERATED = {"genindex.html", "search.html", "404.html"}


def pages(site: Site, language: str) -> dict[str, Page]:
    return {name: read_page(site.html / language, name) for name in site.pages(language)}


def navigation_links(page: Page) -> list[tuple[str, str]]:
    """(href, text) of every link of the sidebar's tree and of the page's own toctrees."""
    regions = [*page.root.find_all("div", "sidebar-tree"), *page.root.find_all("div", "toctree-wrapper")]
    return [
        (a.attrs["href"], a.text())
        for region in regions
        for a in region.find_all("a", "reference")
        if "internal" in a.classes
    ]


def title_at(site_pages: dict[str, Page], page: Page, href: str) -> tuple[str, str | None]:
    """Where a link lands (``page#anchor``) and the title there: the page's h1 or the section's heading."""
    target, fragment = page.resolve(href)
    landed = site_pages[target]
    return f"{target}#{fragment}", landed.heading_of(fragment) if fragment else landed.h1


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_navigation_link_is_named_by_the_title_it_leads_to(whole_site: Site, language: str) -> None:
    site_pages = pages(whole_site, language)
    checked = 0
    differing: dict[tuple[str, str], set[str]] = {}
    for name, page in site_pages.items():
        if name in GENERATED:
            continue
        for href, text in navigation_links(page):
            where, title = title_at(site_pages, page, href)
            assert title is not None, (language, name, href)
            if text != title:
                differing.setdefault((where, title), set()).add(text)
            checked += 1
    assert checked > 100, checked
    assert differing == {}, "\n".join(
        f"{where}: titled {title!r}, linked as {sorted(texts)}" for (where, title), texts in differing.items()
    )


def gallery_sections(site_pages: dict[str, Page]) -> list[tuple[str, str]]:
    """(heading, folder) of each section of the gallery's index: the folder its thumbnails link into."""
    index = site_pages["examples/index.html"]
    found = []
    for section in index.article.find_all("section"):
        heading = next(
            (e for e in section.children if isinstance(e, Element) and re.fullmatch(r"h[2-6]", e.tag)), None
        )
        if heading is None:
            continue
        folders = {
            index.resolve(a.attrs["href"])[0].split("/")[1]
            for thumbnail in section.find_all("div", "sphx-glr-thumbcontainer")
            for a in thumbnail.find_all("a")
        }
        if len(folders) == 1:
            found.append((heading.text(), folders.pop()))
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_gallery_section_has_one_title(whole_site: Site, language: str) -> None:
    """A section's heading on the gallery's index, its own page's title and its sidebar entry agree."""
    site_pages = pages(whole_site, language)
    sections = gallery_sections(site_pages)
    folders = sorted(p.name for p in (whole_site.project / "gallery").iterdir() if p.is_dir())
    assert sorted(folder for _heading, folder in sections) == folders
    home = site_pages["index.html"]
    sidebar = {title_at(site_pages, home, href)[0]: text for href, text in navigation_links(home)}
    titled_otherwise = {
        folder: (
            heading,
            site_pages[f"examples/{folder}/index.html"].h1,
            sidebar.get(f"examples/{folder}/index.html#"),
        )
        for heading, folder in sections
    }
    differing = {
        folder: f"gallery {heading!r}, page {h1!r}, sidebar {entry!r}"
        for folder, (heading, h1, entry) in titled_otherwise.items()
        if not heading == h1 == entry
    }
    assert differing == {}, (language, differing)


def _plain(markup: str) -> str:
    """A catalog message as a heading shows it: roles and code markup gone, whitespace collapsed."""
    text = re.sub(r":[\w:]+:`([^`<]*?)(?:\s*<[^>]+>)?`", r"\1", markup)  # :ref:`title <label>` -> title
    text = re.sub(r"\{[\w:]+\}`([^`<]*?)(?:\s*<[^>]+>)?`", r"\1", text)  # MyST {ref}`...`
    text = text.replace("``", "").replace("`", "").replace("\\", "")
    return _typographic(text)


def _typographic(text: str) -> str:
    """Quotes as Sphinx's smart quotes leave them: straight; whitespace collapsed."""
    text = text.translate(str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'}))
    return re.sub(r"\s+", " ", text).strip()


def catalog_of(site: Site, language: str, page: str) -> dict[str, str]:
    """The page's catalog as plain heading text: English -> translation (translated messages only)."""
    from babel.messages.pofile import read_po

    path = site.project / "docs" / "locale" / language / "LC_MESSAGES" / page.replace(".html", ".po")
    if not path.exists():
        return {}
    with path.open("rb") as stream:
        catalog = read_po(stream)
    return {_plain(m.id): _plain(m.string) for m in catalog if m.id and m.string and not m.fuzzy}


def headings(page: Page) -> list[str]:
    return [_typographic(e.text()) for e in page.article.iter() if re.fullmatch(r"h[1-6]", e.tag)]


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_every_rendered_heading_is_translated(whole_site: Site, language: str) -> None:
    """Each heading of each page shows the catalog's translation, not the English.

    A catalog can translate a heading that the built page still shows in
    English: Sphinx parses a translated title again, and one that starts with
    "1. " parses as a list, not a title, so Sphinx silently keeps the English
    (the mental-model page's four numbered headings did). Only the built page
    shows it.
    """
    english = pages(whole_site, "en")
    translated = pages(whole_site, language)
    untranslated: list[str] = []
    checked = 0  # headings found in their page's catalog (the error index's are messages, never translated)
    for name, page in translated.items():
        if name in GENERATED:
            continue
        catalog = catalog_of(whole_site, language, name)
        ours, theirs = headings(page), headings(english[name])
        assert len(ours) == len(theirs), (language, name, ours, theirs)
        for shown, source in zip(ours, theirs, strict=True):
            expected = catalog.get(source)
            if expected is None:
                continue
            checked += 1
            if shown != expected:
                untranslated.append(f"{name}: {source!r} shown as {shown!r}; the catalog has {expected!r}")
    assert checked > 200, checked
    assert untranslated == [], "\n".join(untranslated)
