"""sphinx-gallery's matplotlib scraper, writing each figure's smallest text size into its PNG.

A figure is an image: a browser test cannot read the size of its letters.
So, as each figure is saved, its smallest visible text (a value, a tick
label, a name) is measured in pixels of the saved image, and written into
the PNG as a text chunk under :data:`TEXT_KEY`. A test then multiplies it by
the scale the page displays the image at (``tests/site/test_browser.py``):
every value must be at least 10 px tall as a reader sees it at 1280 px.

Named in ``docs/conf.py`` as sphinx-gallery's image scraper
(``"autograd_notes.site.examples.figure_scraper.scraper"``).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..upstream.outputs import scraped_image_paths

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["TEXT_KEY", "add_png_text", "png_texts", "scraper", "smallest_text_px"]

TEXT_KEY = "autograd-notes:smallest-text-px"
"""The PNG text chunk holding a figure's smallest text height, in pixels of the saved image."""

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def smallest_text_px(figure: Figure, dpi: float) -> float | None:
    """The font size, in pixels at ``dpi``, of the smallest visible text of ``figure`` (``None``: no text).

    Text outside the figure, empty or invisible (a tick label past the
    axis' limits) does not count.
    """
    from matplotlib.text import Text

    figure.draw_without_rendering()  # tick labels exist only once drawn
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    box = figure.bbox
    sizes = []
    for text in figure.findobj(match=Text):
        if not isinstance(text, Text) or not text.get_visible() or not text.get_text().strip():
            continue
        extent = text.get_window_extent(renderer)
        if extent.width <= 0 or not extent.overlaps(box):
            continue
        sizes.append(float(text.get_fontsize()) * dpi / 72)
    return min(sizes) if sizes else None


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def add_png_text(path: Path, key: str, value: str) -> None:
    """Add a ``tEXt`` chunk ``key: value`` to the PNG at ``path``, before its end; the pixels stay."""
    data = path.read_bytes()
    if not data.startswith(_PNG_SIGNATURE) or not data.endswith(_chunk(b"IEND", b"")):
        raise ValueError(f"{path}: not a PNG file that ends with its IEND chunk")
    end = len(data) - len(_chunk(b"IEND", b""))
    text = _chunk(b"tEXt", key.encode("latin-1") + b"\0" + value.encode("latin-1"))
    path.write_bytes(data[:end] + text + data[end:])


def png_texts(data: bytes) -> dict[str, str]:
    """Every ``tEXt`` chunk of a PNG file's bytes, by key."""
    found = {}
    at = len(_PNG_SIGNATURE)
    while at + 8 <= len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        if kind == b"tEXt":
            key, _, value = data[at + 8 : at + 8 + length].partition(b"\0")
            found[key.decode("latin-1")] = value.decode("latin-1")
        at += 12 + length
    return found


def scraper(
    block: Any, block_vars: MutableMapping[str, Any], gallery_conf: dict[str, Any], **kwargs: Any
) -> str:
    """sphinx-gallery's matplotlib scraper; each figure's PNG also gets its smallest text size."""
    import matplotlib
    import matplotlib.pyplot as plt
    from sphinx_gallery.scrapers import matplotlib_scraper

    setting = kwargs.get("dpi", matplotlib.rcParams["savefig.dpi"])
    smallest = [
        smallest_text_px(figure, figure.dpi if setting == "figure" else float(setting))
        for figure in map(plt.figure, plt.get_fignums())
    ]
    before = len(scraped_image_paths(block_vars))
    rst = matplotlib_scraper(block, block_vars, gallery_conf, **kwargs)
    saved = scraped_image_paths(block_vars)[before:]
    for path, size in zip(saved, smallest, strict=False):
        if size is not None and path.suffix == ".png" and path.exists():
            add_png_text(path, TEXT_KEY, f"{size:.2f}")
    return str(rst)
