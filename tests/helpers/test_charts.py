"""draw_series, draw_spread and draw_matrix: small charts in the helpers' style, without words."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.colors import to_hex

from autograd_notes import draw_matrix, draw_series, draw_spread

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
