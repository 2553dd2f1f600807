"""The picture of an autograd graph: :func:`draw_graph`, with matplotlib alone.

It draws the model of :mod:`.model` (:func:`~.reading.autograd_graph`):
the nodes in the rows and order the model gives, each as a box with its
title and lines, placed by :func:`.layout.columns`, and the edges as
arrows that pass between the nodes of the rows they cross.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._figure_style import CHAR, LEADING, MUTED, PLAIN, RED, TEXT, TITLE_SIZE, blank_figure, set_title
from .layout import Slot, columns
from .model import AutogradGraph, GraphNode, Status
from .reading import autograd_graph

if TYPE_CHECKING:
    import torch
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["draw_graph"]

_PLAIN: dict[str, Any] = {**PLAIN, "va": "top", "zorder": 3}
_TITLE_SIZE, _LINE_SIZE = 10.0, 8.5  # points
_PAD, _GAP_X, _GAP_Y, _MARGIN, _PASS_WIDTH = 0.1, 0.3, 0.45, 0.2, 0.2  # inches
_LEAF_COLOURS = ("#dbeafe", "#2563eb")  # face, edge
_NODE_COLOURS = ("#f3f4f6", "#4b5563")
_TEXT, _MODIFIED_COLOUR, _FREED_COLOUR, _ARROW = TEXT, RED, MUTED, "#4b5563"
_WARNING = "⚠ "


def _drawn_lines(node: GraphNode) -> list[tuple[str, str]]:
    """The lines under a node's title as drawn, with their colours: a modified tensor red and marked."""
    statuses: list[Status] = [] if node.is_leaf else [saved.status for saved in node.saved]
    statuses += ["saved"] * (len(node.drawn_lines) - len(statuses))  # saved values, or a leaf's line
    colours = {"saved": _TEXT, "modified": _MODIFIED_COLOUR, "freed": _FREED_COLOUR}
    return [
        ((_WARNING if status == "modified" else "") + line, colours[status])
        for line, status in zip(node.drawn_lines, statuses, strict=True)
    ]


def _box_size(node: GraphNode) -> tuple[float, float]:
    """Width and height of a node's box, in inches."""
    lines = [line for line, _ in _drawn_lines(node)]
    width = max(
        [len(node.drawn_title) * _TITLE_SIZE * CHAR, *(len(line) * _LINE_SIZE * CHAR for line in lines)]
    )
    height = _TITLE_SIZE * LEADING + len(lines) * _LINE_SIZE * LEADING
    return width + 2 * _PAD, height + 2 * _PAD


def _draw_node(ax: Axes, node: GraphNode, x: float, top: float, size: tuple[float, float]) -> None:
    """Draw a node's box at ``x`` (its centre) from ``top`` down, with its title and lines."""
    from matplotlib.patches import FancyBboxPatch

    width, height = size
    face, edge = _LEAF_COLOURS if node.is_leaf else _NODE_COLOURS
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, top - height),
            width,
            height,
            boxstyle="round,pad=0,rounding_size=0.06",
            facecolor=face,
            edgecolor=_MODIFIED_COLOUR if node.modified else edge,
            linewidth=2.0 if node.modified else 1.0,
            zorder=2,
        )
    )
    y = top - _PAD
    ax.text(
        x, y, node.drawn_title, ha="center", fontsize=_TITLE_SIZE, fontweight="bold", color=_TEXT, **_PLAIN
    )
    y -= _TITLE_SIZE * LEADING
    for line, colour in _drawn_lines(node):
        ax.text(x - width / 2 + _PAD, y, line, ha="left", fontsize=_LINE_SIZE, color=colour, **_PLAIN)
        y -= _LINE_SIZE * LEADING


def draw_graph(
    graph: torch.Tensor | AutogradGraph,
    names: Mapping[str, torch.Tensor] | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """Draw the autograd graph of a tensor (or an :func:`autograd_graph`) as a matplotlib figure.

    The root is at the top and the leaves (``AccumulateGrad``, blue) at the
    bottom; arrows go the way gradients flow. Under each node's name are the
    tensors it saved for backward, with their shapes and versions
    (``self (y) [3] v0``), and its other saved values (``alpha=1``); a saved
    tensor modified in place since it was saved is red and marked ``⚠`` with
    both versions (``v1 ≠ v0``), and its node framed in red: backward through
    that node will raise. A saved tensor that backward freed is grey and
    marked ``∅``. The picture has no words (see :mod:`._figure_style`); its
    text form, :meth:`AutogradGraph.text`, says the same in words. The
    figure's size follows from the graph; it is made with
    :mod:`matplotlib.pyplot`, and not shown:
    call ``plt.show()`` (sphinx-gallery captures the figure).
    """
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    model = graph if isinstance(graph, AutogradGraph) else autograd_graph(graph, names)
    sizes = [_box_size(node) for node in model.nodes]

    def slot_width(slot: Slot) -> float:
        return sizes[slot][0] if isinstance(slot, int) else _PASS_WIDTH

    row_heights = [max((sizes[s][1] for s in row if isinstance(s, int)), default=0.0) for row in model.rows]
    row_heights = [h or _PASS_WIDTH for h in row_heights]  # a row that edges only pass through
    x_of = columns(model.rows, lambda n: model.nodes[n].next, slot_width, _GAP_X)
    left = min(x - slot_width(slot) / 2 for (_, slot), x in x_of.items())
    right = max(x + slot_width(slot) / 2 for (_, slot), x in x_of.items())
    heading = 0.45 if title else 0.0
    title_width = len(title or "") * TITLE_SIZE * CHAR
    width = max(right - left, title_width) + 2 * _MARGIN
    height = sum(row_heights) + _GAP_Y * (len(model.rows) - 1) + 2 * _MARGIN + heading
    x_of = {key: x - (left + right) / 2 + width / 2 for key, x in x_of.items()}
    tops = [height - _MARGIN - heading - sum(row_heights[:i]) - _GAP_Y * i for i in range(len(model.rows))]

    figure, ax = blank_figure(width, height)
    set_title(figure, title, height, _MARGIN)
    for index, node in enumerate(model.nodes):
        _draw_node(ax, node, x_of[node.layer, index], tops[node.layer], sizes[index])
        for target in node.next:
            points = [(x_of[node.layer, index], tops[node.layer] - sizes[index][1])]
            for layer in range(node.layer + 1, model.nodes[target].layer):
                x = x_of[layer, (index, target)]
                points += [(x, tops[layer]), (x, tops[layer] - row_heights[layer])]
            lower = model.nodes[target].layer
            points.append((x_of[lower, target], tops[lower]))
            codes = [Path.MOVETO] + [Path.LINETO] * (len(points) - 1)
            ax.add_patch(
                FancyArrowPatch(
                    path=Path(points, codes),
                    arrowstyle="-|>",
                    mutation_scale=12,
                    color=_ARROW,
                    linewidth=1.0,
                    zorder=1,
                )
            )
    return figure
