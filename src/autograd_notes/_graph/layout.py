"""The layout of a layered graph: rows, the order within them and each slot's position.

Plain indices only, no PyTorch and no matplotlib: the nodes are ``0 .. n-1``,
``edges[i]`` lists where node ``i`` points, node 0 is the root. The
reading of an autograd graph (:mod:`.reading`, which builds the model
of :mod:`.model`) uses :func:`layers` and :func:`arrange` to number its
nodes row by row; the drawing (:mod:`.drawing`) uses
:func:`columns` to place them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Sequence
from itertools import pairwise

__all__ = ["Slot", "arrange", "columns", "hangs_from", "layers", "pack"]

Slot = int | tuple[int, int]
"""A place in a row: a node's index, or an edge ``(from, to)`` passing through."""


def layers(edges: Sequence[Sequence[int]], leaves: Collection[int]) -> list[int]:
    """Each node's row: its longest path from the root (node 0), with every leaf on the bottom row."""
    indegree = [0] * len(edges)
    for targets in edges:
        for target in targets:
            indegree[target] += 1
    depth = [0] * len(edges)
    ready = deque([0])
    while ready:
        source = ready.popleft()
        for target in edges[source]:
            depth[target] = max(depth[target], depth[source] + 1)
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    bottom = max((d for i, d in enumerate(depth) if i not in leaves), default=-1) + 1
    return [bottom if i in leaves else d for i, d in enumerate(depth)]


def hangs_from(slot: Slot, row_above: Sequence[Slot], targets: Callable[[int], Sequence[int]]) -> list[Slot]:
    """The slots of the row above that ``slot`` is joined to (``targets(node)``: where a node's edges go).

    A node hangs from the nodes with an edge to it and from the edges passing
    through on their way to it; an edge passing through hangs from its
    source, or from its own slot one row up.
    """
    if isinstance(slot, tuple):
        return [other for other in row_above if other in (slot[0], slot)]
    return [
        other
        for other in row_above
        if (other[1] == slot if isinstance(other, tuple) else slot in targets(other))
    ]


def arrange(rows_of: Sequence[int], edges: Sequence[Sequence[int]]) -> list[list[Slot]]:
    """Order each row to keep crossings few (barycentre sweeps down, up, down), deterministically.

    ``rows_of`` is each node's row (:func:`layers`). An edge that skips rows
    gets a slot in each row it crosses, so that it is drawn between the nodes
    of that row instead of through them.
    """
    rows: list[list[Slot]] = [[] for _ in range(max(rows_of) + 1)]
    for node, layer in enumerate(rows_of):
        rows[layer].append(node)
    for source, targets in enumerate(edges):
        for target in targets:
            for layer in range(rows_of[source] + 1, rows_of[target]):
                rows[layer].append((source, target))

    def above(slot: Slot, layer: int) -> list[Slot]:
        return hangs_from(slot, rows[layer - 1], edges.__getitem__)

    def below(slot: Slot, layer: int) -> list[Slot]:
        """The slots of ``layer + 1`` joined to ``slot``."""
        return [candidate for candidate in rows[layer + 1] if slot in above(candidate, layer + 1)]

    def place(row: list[Slot]) -> dict[Slot, float]:
        return {slot: i - (len(row) - 1) / 2 for i, slot in enumerate(row)}

    for sweep in ("down", "up", "down"):
        order = range(1, len(rows)) if sweep == "down" else range(len(rows) - 2, -1, -1)
        for layer in order:
            neighbour = place(rows[layer - 1] if sweep == "down" else rows[layer + 1])
            current = place(rows[layer])
            keys: dict[Slot, float] = {}
            for slot in rows[layer]:
                joined = above(slot, layer) if sweep == "down" else below(slot, layer)
                keys[slot] = sum(neighbour[j] for j in joined) / len(joined) if joined else current[slot]
            rows[layer].sort(key=lambda slot: keys[slot])  # stable: ties keep their order
    return rows


def pack(wanted: Sequence[float], gaps: Sequence[float]) -> list[float]:
    """Positions as close to ``wanted`` as they can be (least squares), in order, ``gaps`` apart at least.

    With ``c`` the running sum of the gaps, ``x - c`` must not decrease: an
    isotonic regression of ``wanted - c``, solved by pooling adjacent
    violators. A slot that nothing pushes stays where it is wanted, so an
    edge passing through several rows stays straight.
    """
    offsets = [0.0]
    for gap in gaps:
        offsets.append(offsets[-1] + gap)
    blocks: list[tuple[float, int]] = []  # (sum, count) of pooled targets
    for target in (w - c for w, c in zip(wanted, offsets, strict=True)):
        total, count = target, 1
        while blocks and blocks[-1][0] / blocks[-1][1] > total / count:
            before, size = blocks.pop()
            total, count = total + before, count + size
        blocks.append((total, count))
    levels = [total / count for total, count in blocks for _ in range(count)]
    return [level + c for level, c in zip(levels, offsets, strict=True)]


def columns(
    rows: Sequence[Sequence[Slot]],
    targets: Callable[[int], Sequence[int]],
    slot_width: Callable[[Slot], float],
    gap: float,
) -> dict[tuple[int, Slot], float]:
    """The x of each slot's centre: under what it hangs from, each row packed ``gap`` apart without overlap.

    ``rows`` as :func:`arrange` orders them, ``targets(node)`` where a node's
    edges go. The result is keyed by ``(row, slot)``: an edge has a slot in
    several rows.
    """
    x: dict[tuple[int, Slot], float] = {}
    for layer, row in enumerate(rows):
        wanted = []
        for slot in row:
            above = hangs_from(slot, rows[layer - 1], targets) if layer else []
            wanted.append(sum(x[layer - 1, other] for other in above) / len(above) if above else 0.0)
        gaps = [(slot_width(left) + slot_width(right)) / 2 + gap for left, right in pairwise(row)]
        placed = pack(wanted, gaps)
        x.update({(layer, slot): p for slot, p in zip(row, placed, strict=True)})
    return x
