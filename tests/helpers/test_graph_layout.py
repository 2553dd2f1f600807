"""The layout of a layered graph on plain indices: rows, their order, positions (no PyTorch)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from autograd_notes._graph.layout import arrange, columns, layers, pack

# 0 -> 1 -> 2 -> 3 (leaf), and 0 -> 3 directly: an edge that skips two rows
CHAIN_AND_SHORTCUT = [[1, 3], [2], [3], []]


def test_a_row_is_the_longest_path_and_leaves_sit_on_the_bottom_row() -> None:
    assert layers(CHAIN_AND_SHORTCUT, leaves={3}) == [0, 1, 2, 3]
    # a leaf reached early still goes to the bottom, under the deepest other node
    assert layers([[1, 2], [3], [], []], leaves={2}) == [0, 1, 3, 2]


def test_an_edge_that_skips_rows_has_a_slot_in_each_row_it_crosses() -> None:
    rows = arrange(layers(CHAIN_AND_SHORTCUT, leaves={3}), CHAIN_AND_SHORTCUT)
    assert [sorted(row, key=str) for row in rows] == [[0], [(0, 3), 1], [(0, 3), 2], [3]]


def test_the_order_of_a_row_follows_what_it_hangs_from() -> None:
    # 0 -> 1, 2; 1 -> 4; 2 -> 3: the bottom row is listed 3, 4 and must be swapped under 1, 2
    edges = [[1, 2], [4], [3], [], []]
    rows = arrange(layers(edges, leaves={3, 4}), edges)
    assert rows == [[0], [1, 2], [4, 3]]


def test_pack_keeps_what_fits_and_pushes_apart_what_overlaps() -> None:
    assert pack([0.0, 5.0], [1.0]) == [0.0, 5.0]  # far enough apart: left where wanted
    assert pack([0.0, 0.0], [2.0]) == [-1.0, 1.0]  # both wanted at 0: spread evenly around it
    placed = pack([0.0, 0.1, 0.2, 9.0], [1.0, 1.0, 1.0])
    assert all(right - left >= 1.0 - 1e-12 for left, right in pairwise(placed))
    assert placed[3] == pytest.approx(9.0)


def test_a_passing_edge_stays_under_its_source() -> None:
    rows = arrange(layers(CHAIN_AND_SHORTCUT, leaves={3}), CHAIN_AND_SHORTCUT)
    x = columns(rows, CHAIN_AND_SHORTCUT.__getitem__, lambda slot: 1.0, gap=0.5)
    assert x[1, (0, 3)] == pytest.approx(x[2, (0, 3)])  # straight down through both rows
    assert abs(x[1, 1] - x[1, (0, 3)]) >= 1.5 - 1e-12  # beside node 1, not through it
