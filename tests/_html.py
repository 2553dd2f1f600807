"""Read a built HTML page as a small tree: elements by tag, class and id, their text, their links.

The standard library's parser, so that tests read pages the way a browser's DOM has them without
adding a dependency. Not a validator: it closes what is open when an end tag comes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    """One element: its tag, attributes and children (elements and text)."""

    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list, repr=False)
    parent: Element | None = field(default=None, repr=False)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    @property
    def id(self) -> str:
        return self.attrs.get("id", "")

    def iter(self) -> Iterator[Element]:
        """This element and every element under it, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str | None = None, class_: str | None = None) -> list[Element]:
        return [
            e
            for e in self.iter()
            if (tag is None or e.tag == tag) and (class_ is None or class_ in e.classes)
        ]

    def find(self, tag: str | None = None, class_: str | None = None) -> Element:
        found = self.find_all(tag, class_)
        assert found, f"no <{tag or '*'} class={class_!r}>"
        return found[0]

    def by_id(self, ident: str) -> Element | None:
        return next((e for e in self.iter() if e.id == ident), None)

    def text(self) -> str:
        """The visible text, whitespace collapsed; a heading's "¶" link left out."""
        parts: list[str] = []

        def walk(element: Element) -> None:
            if "headerlink" in element.classes or element.tag in ("script", "style"):
                return
            for child in element.children:
                if isinstance(child, str):
                    parts.append(child)
                else:
                    walk(child)

        walk(self)
        return re.sub(r"\s+", " ", "".join(parts)).strip()

    def ancestors(self) -> Iterator[Element]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, parent=self.open[-1])
        self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}, parent=self.open[-1]))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)


@dataclass
class Page:
    """A built page: its path under the language's folder and its tree."""

    name: str
    root: Element

    @property
    def article(self) -> Element:
        return self.root.find("article")

    @property
    def h1(self) -> str:
        return self.article.find("h1").text()

    def heading_of(self, ident: str) -> str | None:
        """The text of the heading that ``#ident`` lands on: a section's, or the next heading's."""
        target = self.root.by_id(ident)
        if target is None:
            return None
        if re.fullmatch(r"h[1-6]", target.tag):
            return target.text()
        section = (
            target
            if target.tag == "section"
            else next((a for a in target.ancestors() if a.tag == "section"), None)
        )
        if section is None:
            return None
        heading = next((e for e in section.iter() if re.fullmatch(r"h[1-6]", e.tag)), None)
        return heading.text() if heading is not None else None

    def resolve(self, href: str) -> tuple[str, str]:
        """The page (under the language's folder) and fragment a relative link points to."""
        path, _, fragment = href.partition("#")
        if not path:
            return self.name, fragment
        return posixpath.normpath(posixpath.join(posixpath.dirname(self.name), path)), fragment


def parse_page(html: str, name: str) -> Page:
    """Parse the HTML of the page ``name`` (its path under the language's folder)."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return Page(name, builder.root)


def read_page(folder: Path, name: str) -> Page:
    """Parse ``folder/name`` (e.g. ``build/html/ru``, ``examples/index.html``)."""
    return parse_page((folder / name).read_text(encoding="utf-8"), name)
