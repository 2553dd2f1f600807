"""furo's navigation tree for one page, derived from the tree its folder shares.

furo builds the sidebar's navigation tree of every page from scratch: Sphinx
resolves the whole table of contents for the page (copying every page's
table of contents), renders it, and furo parses that HTML with BeautifulSoup
to add its expand checkboxes. On this site that was the largest single cost
of writing a page (about a fifth of a build without execution).

Every page of one folder gets the same tree, but for the marks of the page
being shown. Sphinx marks the entry that links to the page and every entry
and list above it ``current`` (the link's address becomes ``#``), and furo
then ticks the checkbox of each ``current`` entry and adds ``current-page``
to the last one. :class:`NavigationTree` holds a folder's tree without those
marks (as furo writes it for a page of that folder that is in no table of
contents) and puts them in for one page, as text edits.

The format read here is furo's output (furo 2025.12.19, Sphinx 9.0):
BeautifulSoup's serialisation, where ``>`` inside an attribute value is
escaped and attributes are sorted by name. ``tests/site/test_navigation.py``
builds a site with the real Sphinx and furo and checks, on every page, that
the tree made here is furo's own, byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeGuard

__all__ = ["FURO_TOCTREE_ARGUMENTS", "NavigationTree", "is_sphinx_toctree"]

FURO_TOCTREE_ARGUMENTS = {"collapse": False, "titles_only": True, "maxdepth": -1, "includehidden": True}
"""The arguments furo's ``_compute_navigation_tree`` calls the page's ``toctree()`` with."""

_SPHINX_TOCTREE = "StandaloneHTMLBuilder.handle_page.<locals>.<lambda>"
"""The qualified name of the ``toctree()`` Sphinx puts in a page's context (``handle_page``, Sphinx 9.0)."""


def is_sphinx_toctree(toctree: object) -> TypeGuard[Callable[..., str]]:
    """Whether a page's ``toctree()`` is still Sphinx's own, which no extension replaced.

    ``notfound`` replaces it on its 404 page with one that writes absolute
    links; a page like that keeps furo's own tree.
    """
    return callable(toctree) and getattr(toctree, "__qualname__", None) == _SPHINX_TOCTREE


_TAG = re.compile(r"<(/?)(ul|li|a|input)\b([^>]*)>")
_CLASS = re.compile(r'\bclass="([^"]*)"')
_HREF = re.compile(r'\bhref="([^"]*)"')
_LINK = 'class="reference internal"'
_INTERNAL_HREF = re.compile(r'(<a class="reference internal" href=")([^"#]*)')


@dataclass
class _Element:
    """A start tag of the tree: where it is, its text, and the elements it is in."""

    start: int
    text: str
    parent: _Element | None
    checkbox: _Element | None = field(default=None, repr=False)


def _with_class(tag: str, word: str, *, after_level: bool) -> str:
    """``tag`` with ``word`` added to its classes: after ``toctree-lN`` (as Sphinx adds it) or last."""
    found = _CLASS.search(tag)
    if found is None:
        return tag[:-1] + f' class="{word}">' if tag.endswith(">") else tag
    words = found.group(1).split()
    if after_level and words and words[0].startswith("toctree-l"):
        words.insert(1, word)
    else:
        words.append(word)
    return tag[: found.start(1)] + " ".join(words) + tag[found.end(1) :]


class NavigationTree:
    """The navigation tree of one folder's pages, without the marks of the page shown."""

    def __init__(self, html: str) -> None:
        self.html = html
        self._links: dict[str, list[_Element]] = {}
        open_elements: list[_Element] = []
        for match in _TAG.finditer(html):
            closing, name = match.group(1), match.group(2)
            if name == "input":
                owner = open_elements[-1] if open_elements else None
                if owner is not None and owner.text.startswith("<li"):
                    owner.checkbox = _Element(match.start(), match.group(0), owner)
                continue
            if closing:
                if name != "a":  # links are not containers here; lists and items are
                    while open_elements and not open_elements.pop().text.startswith(f"<{name}"):
                        pass
                continue
            element = _Element(match.start(), match.group(0), open_elements[-1] if open_elements else None)
            if name == "a":
                href = _HREF.search(match.group(3))
                if href is not None and _LINK in match.group(3):
                    self._links.setdefault(href.group(1), []).append(element)
            else:
                open_elements.append(element)

    def moved(self, address: Callable[[str], str]) -> NavigationTree:
        """The tree of another folder: each internal link's address (before any ``#``) mapped by ``address``.

        Sphinx writes every link of the tree relative to the page shown, and
        adds the link's anchor after; the tree of the site's top folder holds
        each page's own address, which ``address`` makes relative.
        """
        moved = _INTERNAL_HREF.sub(lambda found: found.group(1) + address(found.group(2)), self.html)
        return NavigationTree(moved)

    def for_page(self, href: str) -> str:
        """The tree as furo writes it for the page this folder's tree links to as ``href``."""
        links = self._links.get(href)
        if not links:
            return self.html
        edits: dict[int, tuple[str, str]] = {}
        current: list[_Element] = []
        for link in links:
            marked = link.text.replace(_LINK, 'class="current reference internal"', 1)
            edits[link.start] = (link.text, marked.replace(f'href="{href}"', 'href="#"', 1))
            above = link.parent
            while above is not None:
                if above.start not in edits:
                    is_item = above.text.startswith("<li")
                    edits[above.start] = (above.text, _with_class(above.text, "current", after_level=is_item))
                    if is_item:
                        current.append(above)
                        if above.checkbox is not None:
                            box = above.checkbox.text
                            ticked = box.replace(' class="', ' checked="" class="', 1)
                            edits[above.checkbox.start] = (box, ticked)
                above = above.parent
        last = max(current, key=lambda item: item.start, default=None)
        if last is not None:
            old, new = edits[last.start]
            edits[last.start] = (old, _with_class(new, "current-page", after_level=False))
        pieces: list[str] = []
        position = 0
        for start in sorted(edits):
            old, new = edits[start]
            pieces.append(self.html[position:start])
            pieces.append(new)
            position = start + len(old)
        pieces.append(self.html[position:])
        return "".join(pieces)
