"""The hidden state of tensors, as one small table."""

from __future__ import annotations

import torch

__all__ = ["show_state", "state_table"]

_COLUMNS = ("tensor", "requires_grad", "is_leaf", "grad_fn", "_version", "grad", "shares storage with")


def _compact(t: torch.Tensor | None) -> str:
    """Render a (small) tensor on one line: ``[2.0, 4.0]``, ``27.0``."""
    if t is None:
        return "None"
    values = t.detach().cpu()
    if values.numel() > 6:
        return f"<{tuple(values.shape)} {str(values.dtype).removeprefix('torch.')}>"
    return str([_rounded(x) for x in values.flatten().tolist()] if values.dim() else _rounded(values.item()))


def _rounded(x: float | complex | bool) -> float | complex | bool:
    """A number to 4 decimals: a complex one part by part (``round`` refuses complex numbers)."""
    if isinstance(x, complex):
        return complex(round(x.real, 4), round(x.imag, 4))
    return round(x, 4)


def _grad(t: torch.Tensor) -> str:
    # Reading .grad of a non-leaf warns; the table reports it without warning.
    if not t.is_leaf and not t.retains_grad:
        return "-"
    return _compact(t.grad)


def state_table(**tensors: torch.Tensor) -> str:
    """Return the autograd state of the named tensors as an aligned table.

    One row per tensor, in the order given: ``requires_grad``, ``is_leaf``,
    ``grad_fn`` (its name), ``_version`` (the in-place version counter),
    ``grad`` (``-`` for a non-leaf that does not retain it), and the other
    named tensors that share its storage (a view, ``detach()``, ``.data``).
    """
    storages: dict[str, int] = {
        name: t.untyped_storage().data_ptr() for name, t in tensors.items() if t.untyped_storage().nbytes()
    }
    rows = [list(_COLUMNS)]
    for name, t in tensors.items():
        sharing = [other for other, ptr in storages.items() if other != name and ptr == storages.get(name)]
        rows.append(
            [
                name,
                str(t.requires_grad),
                str(t.is_leaf),
                t.grad_fn.name() if t.grad_fn is not None else "None",
                str(t._version),
                _grad(t),
                ", ".join(sharing) or "-",
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def show_state(**tensors: torch.Tensor) -> None:
    """Print :func:`state_table` for the named tensors."""
    print(state_table(**tensors))
