"""draw_series, draw_spread and draw_matrix: small charts in the helpers' style, without words."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.colors import to_hex, to_rgb

from autograd_notes import draw_matrix, draw_series, draw_spread
from autograd_notes._charts import MATRIX_COLOURS, MATRIX_SPREAD
from autograd_notes._figure_style import TEXT

matplotlib.use("agg")


def test_a_series_is_drawn_against_its_steps_with_a_legend_of_code() -> None:
    figure = draw_series({"w.grad": [1.0, 2.0, 3.0], "w.grad, zero_grad()": [1.0, 1.0, 1.0]}, xlabel="k")
    ax = figure.axes[0]
    lines = ax.get_lines()
    assert [list(line.get_xdata()) for line in lines] == [[1, 2, 3], [1, 2, 3]]
    assert [list(line.get_ydata()) for line in lines] == [[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == ["w.grad", "w.grad, zero_grad()"]
    assert ax.get_xlabel() == "k"
    assert to_hex(figure.get_facecolor()) == "#ffffff"
    assert plt.get_fignums()[-1] == figure.number  # left to pyplot for sphinx-gallery


def test_a_series_needs_as_many_x_as_values() -> None:
    with pytest.raises(ValueError, match="has 2 values for 3 x positions"):
        draw_series({"y": [1.0, 2.0]}, x=[0, 1, 2])
    with pytest.raises(ValueError, match="no series"):
        draw_series({})
    with pytest.raises(ValueError, match="'y' has no values"):
        draw_series({"y": []})


def test_log_and_steps() -> None:
    figure = draw_series({"n": [1, 10, 100]}, log=True, steps=True, title="len(graph)")
    ax = figure.axes[0]
    assert ax.get_yscale() == "log"
    assert ax.get_lines()[0].get_drawstyle() == "steps-post"
    assert figure._suptitle is not None
    assert figure._suptitle.get_text() == "len(graph)"


def test_a_spread_has_one_row_per_group_and_one_dot_per_result() -> None:
    figure = draw_spread({"sum()": [0.0, 1e-7, 2e-7], "fsum": [0.0, 0.0]}, reference=0.0)
    ax = figure.axes[0]
    collections = ax.collections
    assert [len(c.get_offsets()) for c in collections] == [3, 2]
    xs = [list(np.asarray(c.get_offsets())[:, 0]) for c in collections]
    assert xs == [[0.0, 1e-7, 2e-7], [0.0, 0.0]]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["sum()", "fsum"]
    assert [list(line.get_xdata()) for line in ax.get_lines()] == [[0.0, 0.0]]  # the reference


def test_a_spread_is_the_same_on_every_run() -> None:
    first = draw_spread({"x": [1.0, 1.0, 1.0, 2.0]})
    second = draw_spread({"x": [1.0, 1.0, 1.0, 2.0]})
    assert np.array_equal(
        first.axes[0].collections[0].get_offsets(), second.axes[0].collections[0].get_offsets()
    )


def test_zeros_on_a_log_axis_sit_at_its_left() -> None:
    figure = draw_spread({"|a - b|": [0.0, 1e-6, 1e-4]}, log=True)
    xs = list(np.asarray(figure.axes[0].collections[0].get_offsets())[:, 0])
    assert xs == [pytest.approx(1e-7), 1e-6, 1e-4]


def test_a_matrix_writes_its_values_in_its_cells() -> None:
    figure = draw_matrix(
        torch.tensor([[1.0, 0.0], [2.0, -3.0]]), rows=["y[0]", "y[1]"], columns=["x[0]", "x[1]"]
    )
    ax = figure.axes[0]
    assert [t.get_text() for t in ax.texts] == ["1", "0", "2", "-3"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["x[0]", "x[1]"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["y[0]", "y[1]"]


def test_a_matrix_must_be_two_dimensional_and_finite() -> None:
    with pytest.raises(ValueError, match="2-D"):
        draw_matrix(torch.ones(3))
    with pytest.raises(ValueError, match="finite"):
        draw_matrix([[1.0, float("nan")]])


# -- the digits of draw_matrix, readable on the page and in dark mode -----------------------------

CSS = Path(__file__).resolve().parents[2] / "src/autograd_notes/site/web/static/autograd_notes.css"


def _luminance(rgb: np.ndarray) -> float:
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def _contrast(a: np.ndarray, b: np.ndarray) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _dark_mode_filter() -> Callable[[np.ndarray], np.ndarray]:
    """The site's dark-mode figure filter (invert(a) hue-rotate(d)), as CSS Filter Effects define it."""
    filters = set(
        re.findall(r"--autograd-figure-filter: (invert\([^)]*\) hue-rotate\([^)]*\));", CSS.read_text())
    )
    assert len(filters) == 1, filters  # one filter, the same for both ways of choosing dark mode
    amount, degrees = map(float, re.findall(r"\(([\d.]+)(?:deg)?\)", filters.pop()))
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    rotate = np.array(
        [
            [0.213 + c * 0.787 - s * 0.213, 0.715 - c * 0.715 - s * 0.715, 0.072 - c * 0.072 + s * 0.928],
            [0.213 - c * 0.213 + s * 0.143, 0.715 + c * 0.285 + s * 0.140, 0.072 - c * 0.072 - s * 0.283],
            [0.213 - c * 0.213 - s * 0.787, 0.715 - c * 0.715 + s * 0.715, 0.072 + c * 0.928 + s * 0.072],
        ]
    )
    return lambda rgb: np.clip(rotate @ (rgb * (1 - amount) + (1 - rgb) * amount), 0.0, 1.0)


def test_matrix_digits_keep_a_contrast_of_4_5_on_every_cell_in_both_modes() -> None:
    dark = _dark_mode_filter()
    colours = matplotlib.colormaps[MATRIX_COLOURS]
    digits = np.array(to_rgb(TEXT))
    for value in np.linspace(-1.0, 1.0, 201):  # a cell's value over the matrix's largest magnitude
        cell = np.array(colours(0.5 + value / (2 * MATRIX_SPREAD))[:3])
        assert _contrast(cell, digits) >= 4.5, value
        assert _contrast(dark(cell), dark(digits)) >= 4.5, value


def test_the_matrix_is_drawn_with_the_tested_scale() -> None:
    figure = draw_matrix([[2.0, -1.0], [0.0, 0.5]])
    image = figure.axes[0].get_images()[0]
    assert image.get_cmap().name == MATRIX_COLOURS
    assert image.get_clim() == (-2.0 * MATRIX_SPREAD, 2.0 * MATRIX_SPREAD)
    assert {to_hex(text.get_color()) for text in figure.axes[0].texts} == {TEXT}
    plt.close(figure)
