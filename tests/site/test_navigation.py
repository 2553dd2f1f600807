"""The site's navigation, read from the built HTML of every language.

The sidebar lists every gallery section once, as a page, all at one level
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
from html.parser import HTMLParser

import pytest
from _site import ROOT, Site

pytestmark = pytest.mark.build

LANGUAGES = ["en", "ru", "zh_CN", "pt_BR"]
SECTIONS = sorted(p.parent.name for p in (ROOT / "gallery").glob("*/GALLERY_HEADER.rst"))
GALLERY = "examples/index.html"
VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


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


class _Tree(HTMLParser):
    """The nested lists inside every element whose class is ``css_class``, as entries."""

    def __init__(self, css_class: str) -> None:
        super().__init__(convert_charrefs=True)
        self.css_class = css_class
        self.depth = 0  # elements open inside a matching element; 0: outside every one
        self.roots: list[Entry] = []
        self.open: list[Entry] = []
        self.in_link = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        if self.depth == 0:
            if self.css_class in (dict(attrs).get("class") or "").split():
                self.depth = 1
            return
        self.depth += 1
        if tag == "li":
            entry = Entry()
            (self.open[-1].children if self.open else self.roots).append(entry)
            self.open.append(entry)
        elif tag == "a" and self.open and not self.open[-1].href:
            self.open[-1].href = dict(attrs).get("href") or ""
            self.in_link = True

    def handle_endtag(self, tag: str) -> None:
        if self.depth == 0 or tag in VOID:
            return
        self.depth -= 1
        if tag == "li" and self.open:
            self.open.pop()
        elif tag == "a":
            self.in_link = False

    def handle_data(self, data: str) -> None:
        if self.in_link and self.open:
            self.open[-1].text += data


def navigation(html: str, page: str, css_class: str = "sidebar-tree") -> list[Entry]:
    """The entries of a page's sidebar (or other tree), their links made relative to the language's root.

    The 404 page's links are absolute (``/<site path>/<language>/<page>``): they become relative too.
    """
    parser = _Tree(css_class)
    parser.feed(html)
    for root in parser.roots:
        for _, entry in root.walk():
            entry.text = " ".join(entry.text.split())
            address, _, anchor = entry.href.partition("#")
            if address.startswith("/"):  # /<site path>/<language>/<page>
                target = next(
                    address.split(f"/{code}/", 1)[1] for code in LANGUAGES if f"/{code}/" in address
                )
            else:
                target = (
                    posixpath.normpath(posixpath.join(posixpath.dirname(page), address)) if address else page
                )
            entry.href = f"{target}#{anchor}" if anchor else target
    return parser.roots


def pages(site: Site, language: str) -> list[str]:
    base = site.html / language
    return sorted(
        p.relative_to(base).as_posix()
        for p in base.rglob("*.html")
        if not p.relative_to(base).parts[0].startswith("_")
    )


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
    names = pages(whole_site, language)
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
def test_the_home_page_lists_the_gallery_sections_as_pages(whole_site: Site, language: str) -> None:
    html = (whole_site.html / language / "index.html").read_text(encoding="utf-8")
    body = html[html.index("<article") :]
    hrefs = [
        entry.href for root in navigation(body, "index.html", "toctree-wrapper") for _, entry in root.walk()
    ]
    assert GALLERY in hrefs
    assert not [href for href in hrefs if href.startswith(f"{GALLERY}#")], (language, hrefs)
    for name in SECTIONS:
        assert hrefs.count(f"examples/{name}/index.html") == 1, (language, name, hrefs)


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
