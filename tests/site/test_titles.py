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
from _site import Site

pytestmark = pytest.mark.build

LANGUAGES = ["en", "ru", "zh_CN", "pt_BR"]
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
