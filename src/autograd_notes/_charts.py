"""Small charts in the helpers' one style: values over steps, a spread of results, a matrix.

Like every picture of the helpers, they carry code, numbers and symbols,
not words: labels are the expressions the example computes (``w.grad``,
``x.grad[0]``), and the page's translated text explains them. Each
function returns the figure, left to :mod:`matplotlib.pyplot` for
sphinx-gallery to capture; none shows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import torch

from ._figure_style import CHAR, MUTED, PALETTE, PLAIN, TEXT, chart_figure, code_ticks, set_title

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["draw_matrix", "draw_series", "draw_spread"]

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _finish(ax: Axes, xlabel: str | None, ylabel: str | None) -> None:
    code_ticks(ax)
    if xlabel:
        ax.set_xlabel(xlabel, color=TEXT, fontsize=10, **PLAIN)
    if ylabel:
        ax.set_ylabel(ylabel, color=TEXT, fontsize=10, **PLAIN)


def _check_lengths(series: Mapping[str, Sequence[float]]) -> None:
    if not series:
        raise ValueError("nothing to draw: no series given")
    for label, values in series.items():
        if len(values) == 0:
            raise ValueError(f"series {label!r} has no values")


def draw_series(
    series: Mapping[str, Sequence[float]],
    *,
    x: Sequence[float] | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    log: bool = False,
    steps: bool = False,
) -> Figure:
    """Draw each named sequence of values as a line with markers, against ``x`` (``1, 2, ...`` if omitted).

    ``steps=True`` draws a series that changes only at each step (a value
    after step ``k``) as a staircase; ``log=True`` uses a logarithmic y
    axis. The legend names each series by its label (code).
    """
    _check_lengths(series)
    figure, ax = chart_figure()
    for number, (label, values) in enumerate(series.items()):
        xs = list(x) if x is not None else list(range(1, len(values) + 1))
        if len(xs) != len(values):
            raise ValueError(f"series {label!r} has {len(values)} values for {len(xs)} x positions")
        style: dict[str, Any] = {
            "color": PALETTE[number % len(PALETTE)],
            "marker": _MARKERS[number % len(_MARKERS)],
            "label": label,
            "linewidth": 1.8,
            "markersize": 5,
        }
        if steps:
            ax.step(xs, list(values), where="post", **style)
        else:
            ax.plot(xs, list(values), **style)
    if log:
        ax.set_yscale("log")
    if x is None or all(float(value).is_integer() for value in x):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _finish(ax, xlabel, ylabel)
    ax.legend(prop={"family": PLAIN["family"], "size": 9}, frameon=False, labelcolor=TEXT)
    set_title(figure, title)
    return figure


def draw_spread(
    samples: Mapping[str, Sequence[float]],
    *,
    reference: float | None = None,
    xlabel: str | None = None,
    title: str | None = None,
    log: bool = False,
) -> Figure:
    """Draw each named group of results as a row of dots, to show how far apart they lie.

    One row per group (top to bottom in the order given), one dot per
    result, jittered vertically so equal results stay visible as one dense
    dot; ``reference`` draws a vertical line (the exact value, or the
    result of the first run). With ``log=True`` the axis is logarithmic,
    and zeros, which it cannot show, are drawn at its left edge as ``0``.
    """
    _check_lengths(samples)
    figure, ax = chart_figure(6.4, 0.7 + 0.55 * len(samples))
    smallest = min((abs(v) for vs in samples.values() for v in vs if v), default=1.0)
    floor = smallest / 10  # where a zero sits on a log axis
    for row, values in enumerate(samples.values()):
        count = len(values)
        jitter = [((i * 0.618) % 1 - 0.5) * 0.3 for i in range(count)]  # golden-ratio spacing: no randomness
        shown = [v if not log or v > 0 else floor for v in values]
        ax.scatter(
            shown,
            [row + j for j in jitter],
            s=22,
            color=PALETTE[row % len(PALETTE)],
            alpha=0.75,
            edgecolors="none",
            zorder=3,
        )
    if reference is not None:
        ax.axvline(reference, color=MUTED, linewidth=1.0, linestyle="--", zorder=2)
    ax.set_yticks(range(len(samples)), list(samples))
    ax.set_ylim(len(samples) - 0.5, -0.5)
    ax.grid(False, axis="y")
    if log:
        ax.set_xscale("log")
    _finish(ax, xlabel, None)
    set_title(figure, title)
    return figure


MATRIX_COLOURS = "RdBu"
MATRIX_SPREAD = 2.7
"""The colour scale of :func:`draw_matrix` spans this many times the largest magnitude.

Its strongest cell stays light enough for dark digits to read (contrast
4.5:1 or more) on the page and on the figure inverted in dark mode, where
a light cell turns dark and the digits light (tests/helpers/test_charts.py).
"""


def draw_matrix(
    matrix: torch.Tensor | Sequence[Sequence[float]],
    *,
    rows: Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
    title: str | None = None,
) -> Figure:
    """Draw a small matrix (a Jacobian, a Hessian) as a grid of coloured cells with their values.

    Positive values are blue, negative red, zero white; ``rows`` and
    ``columns`` label the grid (``y[0]``, ``x[1]``). Each value is written
    in its cell to three significant digits.
    """
    values = torch.as_tensor(matrix, dtype=torch.float64).detach().cpu()
    if values.dim() != 2 or values.numel() == 0:
        raise ValueError(f"draw_matrix needs a non-empty 2-D matrix, got shape {tuple(values.shape)}")
    if not bool(values.isfinite().all()):
        raise ValueError("draw_matrix needs finite values")
    n_rows, n_columns = values.shape
    labels = max((len(label) for label in rows or []), default=2)
    width = 0.5 + labels * 9 * CHAR + 0.75 * n_columns  # the row labels, then the cells
    figure, ax = chart_figure(width, 0.6 + 0.55 * n_rows + (0.35 if title else 0.0))
    bound = float(values.abs().max()) or 1.0
    spread = bound * MATRIX_SPREAD
    ax.imshow(values.numpy(), cmap=MATRIX_COLOURS, vmin=-spread, vmax=spread, aspect="auto")
    for i in range(n_rows):
        for j in range(n_columns):
            value = float(values[i, j])
            text = "0" if value == 0 else f"{value:.3g}"
            ax.text(j, i, text, ha="center", va="center", fontsize=9, color=TEXT, **PLAIN)
    ax.set_xticks(range(n_columns), list(columns) if columns else [str(j) for j in range(n_columns)])
    ax.set_yticks(range(n_rows), list(rows) if rows else [str(i) for i in range(n_rows)])
    ax.tick_params(top=True, labeltop=True, bottom=False, labelbottom=False, length=0)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    code_ticks(ax)
    set_title(figure, title)
    return figure
