"""The site's navigation, read from the built HTML of every language.

The sidebar lists every gallery section once (the home page's body
repeats no table of contents; it links the gallery), as a page, all at one level
under the gallery, and no entry contains itself; the gallery page still
shows every example with its thumbnail. (sphinx-gallery copies each
section's header into the gallery page: with the same title level as the
gallery's own, each became a top-level entry of its own, and the toctree of
section pages hung under the last one.)
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from _html import Element, parse_page
from _site import LANGUAGES, ROOT, Site

SECTIONS = sorted(p.parent.name for p in (ROOT / "gallery").glob("*/GALLERY_HEADER.rst"))
GALLERY = "examples/index.html"


@dataclass
class Entry:
    """One item of a navigation tree: its text, the page (and anchor) it opens, what it contains."""

    text: str = ""
    href: str = ""
    children: list[Entry] = field(default_factory=list)

    def walk(self, depth: int = 0) -> Iterator[tuple[int, Entry]]:
        yield depth, self
        for child in self.children:
            yield from child.walk(depth + 1)


def _owner(element: Element, tree: Element) -> Element | None:
    """The list item ``element`` belongs to inside ``tree``: its nearest ``<li>`` ancestor below ``tree``."""
    for ancestor in element.ancestors():
        if ancestor is tree:
            return None
        if ancestor.tag == "li":
            return ancestor
    return None


def _relative(href: str, page: str) -> str:
    """A link of ``page`` as a path under the language's root; the 404 page's are absolute."""
    address, _, anchor = href.partition("#")
    if address.startswith("/"):  # /<site path>/<language>/<page>
        target = next(address.split(f"/{code}/", 1)[1] for code in LANGUAGES if f"/{code}/" in address)
    else:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), address)) if address else page
    return f"{target}#{anchor}" if anchor else target


def navigation(html: str, page: str, css_class: str = "sidebar-tree") -> list[Entry]:
    """The entries of a page's sidebar (or other tree), their links made relative to the language's root.

    Each ``<li>`` is an entry, named and linked by its first link; the ``<li>`` nested in it are its
    entries. The 404 page's links are absolute (``/<site path>/<language>/<page>``): they become
    relative too.
    """
    roots: list[Entry] = []
    for tree in parse_page(html, page).root.find_all(class_=css_class):

        def entry(item: Element, tree: Element = tree) -> Entry:
            link = next((a for a in item.find_all("a") if _owner(a, tree) is item), None)
            children = [entry(li) for li in item.find_all("li") if _owner(li, tree) is item]
            if link is None:
                return Entry(children=children)
            return Entry(link.text(), _relative(link.attrs.get("href", ""), page), children)

        roots += [entry(li) for li in tree.find_all("li") if _owner(li, tree) is None]
    return roots


def problems_of(roots: list[Entry]) -> list[str]:
    """What is wrong with a navigation tree: repeats, anchors, entries in themselves, sections misplaced."""
    entries = [(depth, entry) for root in roots for depth, entry in root.walk()]
    found = []
    for text, count in Counter(entry.text for _, entry in entries).items():
        if count > 1:
            found.append(f"{text!r} listed {count} times")
    for href, count in Counter(entry.href for _, entry in entries).items():
        if count > 1:
            found.append(f"{href} listed {count} times")
    found += [
        f"{entry.text!r} is an anchor ({entry.href}), not a page" for _, entry in entries if "#" in entry.href
    ]
    for _, entry in entries:
        for _, inner in list(entry.walk())[1:]:
            if inner.text == entry.text or inner.href == entry.href:
                found.append(f"{entry.text!r} contains itself")
    sections = {
        name: (depth, entry)
        for depth, entry in entries
        for name in SECTIONS
        if entry.href == f"examples/{name}/index.html"
    }
    missing = [name for name in SECTIONS if name not in sections]
    if missing:
        found.append(f"sections missing: {missing}")
    if len({depth for depth, _ in sections.values()}) > 1:
        found.append(f"sections at several levels: { {n: d for n, (d, _) in sections.items()} }")
    gallery = [entry for _, entry in entries if entry.href == GALLERY]
    if len(gallery) != 1 or sorted(c.href for c in gallery[0].children) != sorted(
        f"examples/{name}/index.html" for name in SECTIONS
    ):
        found.append("the gallery's entries are not exactly its sections")
    for name, (_, entry) in sections.items():
        examples = [c.href for c in entry.children]
        wanted = sorted(f"examples/{name}/{p.stem}.html" for p in (ROOT / "gallery" / name).glob("plot_*.py"))
        if sorted(examples) != wanted:
            found.append(f"section {name} lists {sorted(examples)}, not its examples {wanted}")
    return found


def test_the_checks_find_the_faults_of_a_nested_gallery() -> None:
    """The sidebar this test was written against: sections as anchors, then nested in the last one."""
    last = SECTIONS[-1]
    pages_ = [
        Entry(f"Section {n}", f"examples/{n}/index.html", [Entry(f"x{n}", f"examples/{n}/plot_x.html")])
        for n in SECTIONS
    ]
    anchors = [Entry(f"Section {n}", f"{GALLERY}#s{n}") for n in SECTIONS[:-1]]
    broken = [Entry("Gallery", GALLERY), *anchors, Entry(f"Section {last}", f"{GALLERY}#s{last}", pages_)]
    found = " | ".join(problems_of(broken))
    assert f"'Section {SECTIONS[0]}' listed 2 times" in found
    assert "is an anchor" in found
    assert f"'Section {last}' contains itself" in found
    assert "the gallery's entries are not exactly its sections" in found


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sidebar_lists_each_gallery_section_once_at_one_level(whole_site: Site, language: str) -> None:
    names = whole_site.pages(language)
    assert len(names) > 40
    failures = {}
    for name in names:
        html = (whole_site.html / language / name).read_text(encoding="utf-8")
        roots = navigation(html, name)
        assert roots, (language, name)
        found = problems_of(roots)
        if found:
            failures[name] = found
    assert not failures, (language, dict(list(failures.items())[:3]))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_home_page_links_the_gallery_and_repeats_no_contents(whole_site: Site, language: str) -> None:
    # the sidebar lists every page; the home page's body repeated it as unstyled lists
    html = (whole_site.html / language / "index.html").read_text(encoding="utf-8")
    body = html[html.index("<article") :]
    assert "toctree-l1" not in body  # (the hidden tables of contents leave an empty wrapper)
    assert f'href="{GALLERY}"' in body


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_gallery_page_shows_every_example_with_its_thumbnail(whole_site: Site, language: str) -> None:
    html = (whole_site.html / language / GALLERY).read_text(encoding="utf-8")
    thumbnails = html.split('class="sphx-glr-thumbcontainer"')[1:]
    examples = sorted(p.relative_to(ROOT / "gallery") for p in (ROOT / "gallery").glob("*/plot_*.py"))
    assert len(thumbnails) == len(examples)
    for example in examples:
        page = f"{example.with_suffix('').as_posix()}.html"
        (card,) = [t for t in thumbnails if f'href="{page}"' in t]
        assert f"sphx_glr_{example.stem}_thumb." in card, (language, example)  # its own picture
