"""One look for every picture the helpers draw: fonts, colours, sizes, a figure to draw on.

The pictures carry no words, only code (tensor names, ``grad_fn`` names,
``v1``, ``requires_grad``), numbers and symbols, so that one execution serves
every language of the site; the page's text, translated, says what they
show. They are drawn on an opaque white card, so they read the same in the
site's light and dark themes, with matplotlib alone (no LaTeX, no
mathtext, no system font).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "ACCENT",
    "CHAR",
    "LEADING",
    "MUTED",
    "PALETTE",
    "PLAIN",
    "RED",
    "TEXT",
    "blank_figure",
    "chart_figure",
    "code_ticks",
    "contrast",
    "set_title",
    "text_shade",
]

# DejaVu Sans Mono ships with matplotlib; a name with a "$" is shown as it is
PLAIN: dict[str, Any] = {
    "family": ["DejaVu Sans Mono", "monospace"],
    "usetex": False,
    "parse_math": False,
}
CHAR = 0.602 / 72  # width of one character of DejaVu Sans Mono, in inches per point of size
LEADING = 1.4 / 72  # height of a line, in inches per point of size
TEXT, MUTED, RED, ACCENT = "#111827", "#6b7280", "#b91c1c", "#2563eb"
# colour-blind-safe (Okabe-Ito), readable on white
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#8c6d1f", "#000000")
CARD = "#ffffff"
TITLE_SIZE = 11.0
# WCAG's contrast for text of a normal size (AA): what a palette colour is darkened to when it writes
TEXT_CONTRAST = 4.5


def _luminance(colour: str) -> float:
    """WCAG 2's relative luminance of ``#rrggbb``."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    """WCAG 2's contrast ratio of two ``#rrggbb`` colours, from 1 to 21."""
    light, dark = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def text_shade(colour: str) -> str:
    """``colour`` darkened, its hue kept, until text in it reads on the card (WCAG AA, 4.5:1).

    The palette's light colours (orange, sky blue) fill boxes and draw lines
    well, but as the letters of a name they are faint: a name is written in
    its colour's shade, beside boxes filled with the colour itself.
    """
    channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    shade = colour
    for step in range(101):
        shade = "#" + "".join(f"{round(c * (1 - step / 100)):02x}" for c in channels)
        if contrast(shade, CARD) >= TEXT_CONTRAST:
            break
    return shade


def set_title(figure: Figure, title: str | None, height: float | None = None, margin: float = 0.0) -> None:
    """Write ``title`` (code, not prose) at the top of ``figure``.

    On a drawing (:func:`blank_figure`), ``margin`` inches below the top of
    a figure ``height`` inches high; on a chart (``height`` omitted), where
    the constrained layout makes room for it.
    """
    if not title:
        return
    place = {"y": 1 - margin / height, "va": "top"} if height else {}
    figure.suptitle(title, fontsize=TITLE_SIZE, fontweight="bold", color=TEXT, **place, **PLAIN)


def blank_figure(width: float, height: float) -> tuple[Figure, Axes]:
    """A white figure of ``width`` × ``height`` inches and one axes over all of it, in inches, no frame."""
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(width, height), layout="none", facecolor=CARD)
    ax = figure.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return figure, ax


def chart_figure(width: float = 6.4, height: float = 3.4) -> tuple[Figure, Axes]:
    """A white figure with one chart: light grid, no top or right frame, code-font ticks."""
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(width, height), layout="constrained", facecolor=CARD)
    ax.set_facecolor(CARD)
    ax.grid(True, color="#e5e7eb", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(MUTED)
    ax.tick_params(colors=TEXT, labelsize=9)
    return figure, ax


def code_ticks(ax: Axes) -> None:
    """Write the tick labels of ``ax`` in the code font (call once the ticks are set)."""
    for label in ax.get_xticklabels() + ax.get_yticklabels():
        label.set_fontfamily(PLAIN["family"])
