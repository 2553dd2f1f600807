"""Tracebacks on an example page numbered as the reader's download numbers them.

An example runs from the gallery when the site is built, so the frames of
its tracebacks name ``gallery/<section>/plot_x.py`` and its lines. A reader
runs the page's download, ``plot_x.py``, whose header, import guard and
translated text move every line (:mod:`.downloads`). Once a page is
resolved, each frame of its own example, in every output block (this
build's and every runner's), names the download and its line in the page's
language (:func:`~.downloads.download_line_map`): the page and the reader's
terminal then agree. Other files' frames are left as they are.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config

from ..i18n.page_catalog import page_catalog
from ..upstream.gallery_conf import gallery_folders
from .downloads import download_line_map

__all__ = ["download_lines", "renumber_frames", "setup"]


def renumber_frames(text: str, example: str, lines: dict[int, int]) -> str:
    """``text``, each frame and warning of ``example`` (``section/plot_x.py``) naming the download's line."""
    name = Path(example).name
    frame = re.compile(rf'File "(?:[^"\n]*/)?{re.escape(example)}", line (\d+)')
    # a warning's place, as Python prints it: "gallery/05_x/plot_a.py:12: UserWarning: ..."
    warned = re.compile(rf"(?<![\w/.-])(?:[\w.-]+/)*{re.escape(example)}:(\d+): ")

    def renumbered(found: re.Match[str]) -> str:
        line = int(found[1])
        return f'File "{name}", line {lines.get(line, line)}'

    def rewarned(found: re.Match[str]) -> str:
        line = int(found[1])
        return f"{name}:{lines.get(line, line)}: "

    return warned.sub(rewarned, frame.sub(renumbered, text))


@functools.lru_cache(maxsize=512)
def _line_map(script: str, _mtime_ns: int, catalog: tuple[tuple[str, str], ...]) -> dict[int, int]:
    return download_line_map(Path(script).read_text(encoding="utf-8"), dict(catalog))


def download_lines(srcdir: str | Path, config: Config, docname: str) -> tuple[str, dict[int, int]] | None:
    """The example of page ``docname`` (``section/plot_x.py``), and each of its lines' line in the download.

    ``None`` when ``docname`` is no example page. The page's "line N" (its
    tracebacks, its list of differences across releases) is the download's:
    the reader's file and terminal number lines so.
    """
    for gallery in gallery_folders(config, srcdir):
        prefix = f"{gallery.prefix}/"
        if not docname.startswith(prefix):
            continue
        example = f"{docname.removeprefix(prefix)}.py"
        script = gallery.source / example
        if not script.is_file():
            return None
        catalog = page_catalog(srcdir, config, docname)[1]
        return example, _line_map(str(script), script.stat().st_mtime_ns, tuple(sorted(catalog.items())))
    return None


def _renumber(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    found = download_lines(app.srcdir, app.config, docname)
    if found is None:
        return
    example, lines = found
    for block in doctree.findall(nodes.literal_block):
        text = block.astext()
        if example not in text:
            continue
        renumbered = renumber_frames(text, example, lines)
        if renumbered != text:
            block.children = [nodes.Text(renumbered)]
            block.rawsource = renumbered


def setup(app: Sphinx) -> dict[str, Any]:
    """Renumber the frames of every example page once it is resolved, in each language."""
    app.connect("doctree-resolved", _renumber)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
