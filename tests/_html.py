"""Read a built HTML page as a tree: elements by tag, class and id, their text, their links.

lxml parses the page (libxml2's HTML parser: the 90 English pages in 0.24 s of
CPU, against 6.75 s for BeautifulSoup's tree, which every worker of the suite
built for each page it read); :class:`Element` is the small view of its
elements that the tests use, and :class:`Page` a page with its path under the
language's folder.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import lxml.html
from lxml import etree

__all__ = ["Element", "Page", "parse_page", "read_page"]

_HEADING = re.compile(r"h[1-6]")


def _elements(node: etree._Element) -> bool:
    """Whether a node of the tree is an element (not a comment or a processing instruction)."""
    return isinstance(node.tag, str)


def _classes(node: etree._Element) -> set[str]:
    """The names in an element's ``class``."""
    return set(str(node.get("class", "")).split())


class Element:
    """One element of a parsed page: its tag, attributes, children (elements and text) and parent.

    A view of an lxml element. Each element has one view, so elements compare with ``is``.
    """

    def __init__(self, node: etree._Element, views: dict[etree._Element, Element]) -> None:
        self._node = node
        self._views = views  # the views of one page, by their element (which the page keeps alive)
        views[node] = self

    def _view(self, node: etree._Element) -> Element:
        return self._views.get(node) or Element(node, self._views)

    def __repr__(self) -> str:
        return f"Element({self.tag!r}, {self.attrs!r})"

    @property
    def tag(self) -> str:
        return str(self._node.tag)

    @property
    def attrs(self) -> dict[str, str]:
        """The attributes as written (``class`` with its names one space apart)."""
        return {
            str(name): " ".join(str(value).split()) if name == "class" else str(value)
            for name, value in self._node.attrib.items()
        }

    @property
    def children(self) -> list[Element | str]:
        """The child elements and text, in order (comments left out, the text after them kept)."""
        found: list[Element | str] = [self._node.text] if self._node.text else []
        for child in self._node:
            if _elements(child):
                found.append(self._view(child))
            if child.tail:
                found.append(child.tail)
        return found

    @property
    def parent(self) -> Element | None:
        parent = self._node.getparent()
        return self._view(parent) if parent is not None else None

    @property
    def classes(self) -> set[str]:
        return _classes(self._node)

    @property
    def id(self) -> str:
        return str(self._node.get("id", ""))

    def iter(self) -> Iterator[Element]:
        """This element and every element under it, in document order."""
        for node in self._node.iter(etree.Element):
            yield self._view(node)

    def find_all(self, tag: str | None = None, class_: str | None = None) -> list[Element]:
        """This element and those under it with that tag and class, in document order."""
        nodes = self._node.iter(tag) if tag is not None else self._node.iter(etree.Element)
        return [self._view(node) for node in nodes if class_ is None or class_ in _classes(node)]

    def find(self, tag: str | None = None, class_: str | None = None) -> Element:
        found = self.find_all(tag, class_)
        assert found, f"no <{tag or '*'} class={class_!r}>"
        return found[0]

    def by_id(self, ident: str) -> Element | None:
        found = self._node.xpath("descendant-or-self::*[@id=$ident][1]", ident=ident)
        return self._view(found[0]) if found else None

    def text(self, hidden: Collection[str] = (), separator: str = "") -> str:
        """The visible text, whitespace collapsed; ``separator`` between its pieces (none as a page shows it).

        Left out: a heading's "¶" link, scripts and styles, and the elements
        with a class in ``hidden`` (what a page shows only when opened).
        """
        left_out = {"headerlink", *hidden}

        def strings(node: etree._Element) -> Iterator[str]:
            if node.tag in ("script", "style") or left_out & _classes(node):
                return
            if node.text:
                yield node.text
            for child in node:
                if _elements(child):
                    yield from strings(child)
                if child.tail:
                    yield child.tail

        return re.sub(r"\s+", " ", separator.join(strings(self._node))).strip()

    def ancestors(self) -> Iterator[Element]:
        """The parent, its parent, ... up to the page's ``<html>``."""
        for node in self._node.iterancestors():
            yield self._view(node)


@dataclass
class Page:
    """A built page: its path under the language's folder and its tree.

    A parsed page is shared by every test that reads it (:func:`read_page`) and never changed:
    what is looked up in it again and again (its article, its title, where an anchor lands, as
    every sidebar link of every page asks) is found once.
    """

    name: str
    root: Element
    _landings: dict[str, str | None] = field(default_factory=dict, repr=False, compare=False)

    @functools.cached_property
    def article(self) -> Element:
        return self.root.find("article")

    @functools.cached_property
    def h1(self) -> str:
        return self.article.find("h1").text()

    def heading_of(self, ident: str) -> str | None:
        """The text of the heading that ``#ident`` lands on: a section's, or the next heading's."""
        if ident not in self._landings:
            self._landings[ident] = self._heading_of(ident)
        return self._landings[ident]

    def _heading_of(self, ident: str) -> str | None:
        target = self.root.by_id(ident)
        if target is None:
            return None
        if _HEADING.fullmatch(target.tag):
            return target.text()
        section = (
            target
            if target.tag == "section"
            else next((a for a in target.ancestors() if a.tag == "section"), None)
        )
        if section is None:
            return None
        heading = next((e for e in section.iter() if _HEADING.fullmatch(e.tag)), None)
        return heading.text() if heading is not None else None

    def resolve(self, href: str) -> tuple[str, str]:
        """The page (under the language's folder) and fragment a relative link points to."""
        path, _, fragment = href.partition("#")
        if not path:
            return self.name, fragment
        return posixpath.normpath(posixpath.join(posixpath.dirname(self.name), path)), fragment


def parse_page(html: str, name: str) -> Page:
    """Parse the HTML of the page ``name`` (its path under the language's folder)."""
    return Page(name, Element(lxml.html.document_fromstring(html), {}))


def read_page(folder: Path, name: str) -> Page:
    """Parse ``folder/name`` (e.g. ``build/html/ru``, ``examples/index.html``).

    Pages are read by many tests, and followed link after link: a page is
    parsed once per version of its file (its path, size and time of change).
    """
    path = folder / name
    status = path.stat()
    return _parsed(path, name, status.st_mtime_ns, status.st_size)


@functools.lru_cache(maxsize=512)
def _parsed(path: Path, name: str, _mtime_ns: int, _size: int) -> Page:
    return parse_page(path.read_text(encoding="utf-8"), name)
