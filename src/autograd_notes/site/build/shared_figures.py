"""Figures stored once for every language of the site.

Each language is its own Sphinx build, with its own ``_images/`` folder; the
figures carry no words (:mod:`autograd_notes._figure_style`), so each
language's copy of a figure is the same file. Once every language is built,
:func:`share_figures` moves each image that two or more languages hold with
the same bytes to the site's ``_figures/`` folder, deletes the copies and
points the languages' pages at the shared file. A reader who switches
language loads no figure twice, and the site is stored with one copy.

Only references are rewritten: a relative ``…/_images/<name>`` in a ``src``,
``srcset`` or ``href`` attribute of a page that resolves to its language's
``_images/`` folder.
"""

from __future__ import annotations

import re
import shutil
from collections import defaultdict
from pathlib import Path

__all__ = ["SHARED", "share_figures"]

SHARED = "_figures"
"""The site's folder of figures shared by the languages."""

_ATTRIBUTE = re.compile(r'(?P<start>\b(?:src|srcset|href)=")(?P<value>[^"]*)(?P<end>")')
_REFERENCE = re.compile(r"(?P<up>(?:\.\./)*)_images/(?P<name>[\w.\-]+)")


def _same(a: Path, b: Path) -> bool:
    return a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()


def _rewrite(page: Path, images: Path, moved: set[str]) -> bool:
    """Point ``page``'s references to moved images of ``images`` at the shared folder; whether it changed."""
    text = page.read_text(encoding="utf-8")

    def shared(match: re.Match[str]) -> str:
        up, name = match["up"], match["name"]
        if name not in moved or (page.parent / up / "_images").resolve() != images.resolve():
            return match[0]
        return f"{up}../{SHARED}/{name}"

    def attribute(match: re.Match[str]) -> str:
        return match["start"] + _REFERENCE.sub(shared, match["value"]) + match["end"]

    new = _ATTRIBUTE.sub(attribute, text)
    if new != text:
        page.write_text(new, encoding="utf-8")
    return new != text


def share_figures(site: Path, languages: list[str]) -> tuple[int, int]:
    """Store the languages' identical images once in ``site/_figures``; return (files shared, bytes saved).

    An image already in ``_figures`` (from a language built earlier) is
    shared by a language whose copy has the same bytes; one that differs
    stays in its language.
    """
    shared = site / SHARED
    copies: defaultdict[str, list[Path]] = defaultdict(list)
    for language in languages:
        images = site / language / "_images"
        if images.is_dir():
            for image in images.iterdir():
                if image.is_file():
                    copies[image.name].append(image)
    moved: defaultdict[str, set[str]] = defaultdict(set)
    saved = 0
    for name, paths in copies.items():
        target = shared / name
        if not target.exists():
            if len(paths) < 2 or not all(_same(paths[0], other) for other in paths[1:]):
                continue
            shared.mkdir(exist_ok=True)
            shutil.copy2(paths[0], target)
            saved -= target.stat().st_size
        for path in paths:
            if _same(path, target):
                saved += path.stat().st_size
                path.unlink()
                moved[path.parent.parent.name].add(name)
    for language, names in moved.items():
        images = site / language / "_images"
        for page in (site / language).rglob("*.html"):
            _rewrite(page, images, names)
    return sum(len(names) for names in moved.values()), saved
