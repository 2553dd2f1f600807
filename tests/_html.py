"""Read a built HTML page as a tree: elements by tag, class and id, their text, their links.

BeautifulSoup parses the page (with the standard library's parser);
:class:`Element` is the small view of its tags that the tests use, and
:class:`Page` a page with its path under the language's folder.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup, Tag
from bs4.element import PreformattedString

__all__ = ["Element", "Page", "parse_page", "read_page"]

_HEADING = re.compile(r"h[1-6]")


class Element:
    """One element of a parsed page: its tag, attributes, children (elements and text) and parent.

    A view of a BeautifulSoup tag. Each tag has one view, so elements compare with ``is``.
    """

    def __init__(self, tag: Tag, views: dict[int, Element]) -> None:
        self._tag = tag
        self._views = views  # the views of one page, by id of their tag (the page keeps its tags alive)
        views[id(tag)] = self

    def _view(self, tag: Tag) -> Element:
        return self._views.get(id(tag)) or Element(tag, self._views)

    def __repr__(self) -> str:
        return f"Element({self.tag!r}, {self.attrs!r})"

    @property
    def tag(self) -> str:
        return self._tag.name

    @property
    def attrs(self) -> dict[str, str]:
        """The attributes as written: ``class`` as one string."""
        return {
            name: " ".join(value) if isinstance(value, list) else value
            for name, value in self._tag.attrs.items()
        }

    @property
    def children(self) -> list[Element | str]:
        """The child elements and text, in order (comments left out)."""
        return [
            self._view(child) if isinstance(child, Tag) else str(child)
            for child in self._tag.children
            if isinstance(child, Tag) or not isinstance(child, PreformattedString)
        ]

    @property
    def parent(self) -> Element | None:
        return self._view(self._tag.parent) if self._tag.parent is not None else None

    @property
    def classes(self) -> set[str]:
        return set(self._tag.get_attribute_list("class", [])) - {""}

    @property
    def id(self) -> str:
        return self.attrs.get("id", "")

    def _is(self, tag: str | None, class_: str | None) -> bool:
        return (tag is None or self.tag == tag) and (class_ is None or class_ in self.classes)

    def iter(self) -> Iterator[Element]:
        """This element and every element under it, in document order."""
        yield self
        for tag in self._tag.descendants:
            if isinstance(tag, Tag):
                yield self._view(tag)

    def find_all(self, tag: str | None = None, class_: str | None = None) -> list[Element]:
        """This element and those under it with that tag and class, in document order."""
        below = self._tag.find_all(tag, class_=class_) if class_ is not None else self._tag.find_all(tag)
        itself = [self] if self._is(tag, class_) else []
        return itself + [self._view(found) for found in below]

    def find(self, tag: str | None = None, class_: str | None = None) -> Element:
        found = self.find_all(tag, class_)
        assert found, f"no <{tag or '*'} class={class_!r}>"
        return found[0]

    def by_id(self, ident: str) -> Element | None:
        if self.id == ident:
            return self
        found = self._tag.find(id=ident)
        return self._view(found) if isinstance(found, Tag) else None

    def text(self, hidden: Collection[str] = ()) -> str:
        """The visible text, whitespace collapsed.

        Left out: a heading's "¶" link, scripts and styles, and the elements
        with a class in ``hidden`` (what a page shows only when opened).
        """
        left_out = {"headerlink", *hidden}

        def strings(tag: Tag) -> Iterator[str]:
            if tag.name in ("script", "style") or left_out & set(tag.get_attribute_list("class", [])):
                return
            for child in tag.children:
                if isinstance(child, Tag):
                    yield from strings(child)
                elif not isinstance(child, PreformattedString):
                    yield child

        return re.sub(r"\s+", " ", "".join(strings(self._tag))).strip()

    def ancestors(self) -> Iterator[Element]:
        """The parent, its parent, ... up to the document."""
        for tag in self._tag.parents:
            yield self._view(tag)


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
    return Page(name, Element(BeautifulSoup(html, "html.parser"), {}))


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
