"""Which tensors share memory, and the autograd state of each: a picture of storages and views.

:func:`tensor_layout` reads, for named tensors, the storage each one uses,
which elements of it it covers (offset, strides, shape), its version
counter, its ``grad_fn`` and whether it requires a gradient.
:func:`draw_tensors` draws that as one strip of cells per storage, with the
values in it, and under it one row per tensor that marks the cells it
covers: a view, ``detach()`` and ``.data`` sit over the same cells as
their base, a copy gets a strip of its own. Each row ends with the
tensor's facts as code: ``[2] v1 MulBackward0``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from ._figure_style import (
    CHAR,
    MUTED,
    PALETTE,
    PLAIN,
    TEXT,
    TITLE_SIZE,
    blank_figure,
    set_title,
    text_shade,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["StorageView", "TensorRow", "draw_tensors", "tensor_layout"]

_MAX_CELLS = 24  # beyond this a storage is drawn as a bar, not cell by cell


@dataclass(frozen=True)
class TensorRow:
    """One named tensor: which cells of its storage it covers, and its autograd facts."""

    name: str
    cells: frozenset[int]
    shape: tuple[int, ...]
    version: int | None
    grad_fn: str | None
    requires_grad: bool
    device: str
    inference: bool

    @property
    def facts(self) -> str:
        """The facts as code: ``[2, 3] v1 MulBackward0``, ``[3] v0 requires_grad``, ``cuda:0``..."""
        shape = f"[{', '.join(map(str, self.shape))}]"
        parts = [shape] if self.version is None else [shape, f"v{self.version}"]
        if self.grad_fn:
            parts.append(self.grad_fn)
        elif self.requires_grad:
            parts.append("requires_grad")
        if self.inference:
            parts.append("is_inference")
        if self.device != "cpu":
            parts.append(self.device)
        return " ".join(parts)


@dataclass(frozen=True)
class StorageView:
    """One storage (a block of memory) and the named tensors over it, in the order given."""

    size: int
    values: tuple[str, ...] | None
    tensors: tuple[TensorRow, ...]


def _covered(tensor: torch.Tensor) -> frozenset[int]:
    """The storage elements ``tensor`` reads (in units of its own element size)."""
    if tensor.numel() == 0:
        return frozenset()
    index = torch.zeros((), dtype=torch.long)
    for size, stride in zip(tensor.shape, tensor.stride(), strict=True):
        index = index.unsqueeze(-1) + torch.arange(size) * stride
    offset = int(tensor.storage_offset())
    return frozenset((index + offset).flatten().tolist())


def _format(value: float | int | bool) -> str:
    if isinstance(value, bool):
        return "T" if value else "F"
    if isinstance(value, float):
        text = f"{value:.3g}"
        return text if ("." in text or "e" in text or "n" in text) else text + "."
    return str(value)


def _values(tensor: torch.Tensor, size: int) -> tuple[str, ...] | None:
    """The values in ``tensor``'s storage, as short text; ``None`` where they cannot be read (meta)."""
    if tensor.device.type == "meta" or size > _MAX_CELLS:
        return None
    try:
        with torch.no_grad():
            flat = torch.empty(0, dtype=tensor.dtype, device=tensor.device)
            flat.set_(tensor.untyped_storage(), 0, (size,), (1,))
            items = flat.cpu().tolist()
    except RuntimeError:
        return None
    return tuple(_format(v) for v in items)


def tensor_layout(tensors: Mapping[str, torch.Tensor]) -> list[StorageView]:
    """Group the named tensors by the storage they use, storages in the order their first tensor comes.

    Tensors share a storage when they are the same memory: a view, its
    base, ``detach()`` and ``.data`` do; a copy, ``clone()`` and advanced
    indexing do not. A tensor with no storage (no elements) has a strip of
    its own.
    """
    groups: dict[tuple[str, int] | str, list[tuple[str, torch.Tensor]]] = {}
    for name, tensor in tensors.items():
        storage = tensor.untyped_storage()
        key = (str(tensor.device), storage.data_ptr()) if storage.nbytes() else name
        groups.setdefault(key, []).append((name, tensor))
    layout = []
    for members in groups.values():
        first = members[0][1]
        size = first.untyped_storage().nbytes() // first.element_size()
        rows = tuple(
            TensorRow(
                name=name,
                cells=_covered(t),
                shape=tuple(t.shape),
                version=None if t.is_inference() else t._version,  # inference tensors have no counter
                # as draw_graph names nodes: CopySlices, not torch::autograd::CopySlices
                grad_fn=t.grad_fn.name().removeprefix("torch::autograd::") if t.grad_fn is not None else None,
                requires_grad=t.requires_grad,
                device=str(t.device),
                inference=t.is_inference(),
            )
            for name, t in members
        )
        layout.append(StorageView(size=size, values=_values(first, size), tensors=rows))
    return layout


_CELL, _ROW, _GAP, _MARGIN, _SIZE = 0.42, 0.3, 0.25, 0.2, 9.0  # inches; font size in points
_BAR = 6.0  # inches: the width of a storage too long to draw cell by cell


def draw_tensors(tensors: Mapping[str, torch.Tensor], *, title: str | None = None) -> Figure:
    """Draw the named tensors over their storages (see the module's docstring); return the figure.

    Each storage is a strip of cells (grey) with its values; under it, each
    tensor over that storage has a row in its own colour, filled where it
    reads the storage and ending with its shape, version (``v1``),
    ``grad_fn`` or ``requires_grad``, and device when not the CPU. Tensors
    in one strip share memory: writing through one changes what the others
    read. The version shown is each tensor's own counter (views share their
    base's; ``.data`` has a fresh one). Not shown: call ``plt.show()``.
    """
    from matplotlib.patches import Rectangle

    layout = tensor_layout(tensors)
    if not layout:
        raise ValueError("draw_tensors needs at least one named tensor")
    label_width = max(len(row.name) for view in layout for row in view.tensors) * _SIZE * CHAR + 0.15
    cells = max((view.size for view in layout if view.size <= _MAX_CELLS), default=0)
    strip = max(cells * _CELL, _BAR if any(view.size > _MAX_CELLS for view in layout) else 0.0, _CELL)
    facts_width = max(len(row.facts) for view in layout for row in view.tensors) * _SIZE * CHAR + 0.2
    heading = 0.45 if title else 0.0
    rows = sum(1 + len(view.tensors) for view in layout)
    width = max(
        2 * _MARGIN + label_width + strip + facts_width, len(title or "") * TITLE_SIZE * CHAR + 2 * _MARGIN
    )
    height = 2 * _MARGIN + heading + rows * _ROW + (len(layout) - 1) * _GAP
    figure, ax = blank_figure(width, height)
    set_title(figure, title, height, _MARGIN)
    left = _MARGIN + label_width
    y = height - _MARGIN - heading
    colour = 0
    for view in layout:
        by_cell = view.size <= _MAX_CELLS
        unit = _CELL if by_cell else _BAR / max(view.size, 1)
        # the storage: grey cells with the values
        for i in range(view.size) if by_cell else [0]:
            ax.add_patch(
                Rectangle(
                    (left + i * unit, y - _ROW + 0.04),
                    unit if by_cell else _BAR,
                    _ROW - 0.08,
                    facecolor="#f3f4f6",
                    edgecolor=MUTED,
                    linewidth=0.8,
                )
            )
            if view.values is not None and by_cell:
                ax.text(
                    left + (i + 0.5) * unit, y - _ROW / 2, view.values[i],
                    ha="center", va="center", fontsize=_SIZE - 1.5, color=TEXT, **PLAIN,
                )  # fmt: skip
        if not by_cell:
            ax.text(
                left + _BAR + 0.1,
                y - _ROW / 2,
                f"× {view.size}",
                va="center",
                fontsize=_SIZE,
                color=MUTED,
                **PLAIN,
            )
        y -= _ROW
        for row in view.tensors:
            tint = PALETTE[colour % len(PALETTE)]
            colour += 1
            ax.text(
                left - 0.12,
                y - _ROW / 2,
                row.name,
                ha="right",
                va="center",
                fontsize=_SIZE,
                fontweight="bold",
                color=text_shade(tint),
                **PLAIN,
            )
            for i in sorted(row.cells):
                inset = 0.05 if by_cell else 0.0
                ax.add_patch(
                    Rectangle(
                        (left + i * unit + inset, y - _ROW + 0.07),
                        unit - 2 * inset,
                        _ROW - 0.14,
                        facecolor=tint,
                        edgecolor="none",
                        alpha=0.85,
                    )
                )
            ax.text(
                left + strip + 0.2, y - _ROW / 2, row.facts, va="center", fontsize=_SIZE, color=TEXT, **PLAIN
            )
            y -= _ROW
        y -= _GAP
    return figure
