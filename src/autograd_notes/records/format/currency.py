"""Whether a record ran today's code of its page, and the part of it that did.

Each cell of a record carries the digest of the code it ran
(:func:`~.script_cells.code_digest`) beside its lines. A page edited since a
runner recorded it (a GPU, lent now and then, records less often than a page
changes) keeps its record: the cells before the first one whose lines or code
differ from today's script still say what this page's code does there, since
a cell sees only what the cells before it did; from that cell on, the record
is of an earlier version of the page, and nothing shows it as today's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

from .record_format import CellRecord, Record
from .script_cells import code_digest, split_cells

__all__ = ["CellCode", "Currency", "current_part", "in_todays_cells", "script_code"]


@dataclass(frozen=True)
class CellCode:
    """One cell of a script as a record names it: its ``[first, last]`` lines and code digest."""

    lines: list[int]
    code: str


def script_code(script: Path) -> list[CellCode]:
    """The cells of ``script`` (a gallery script) with the digests of their code."""
    return [
        CellCode([cell.first, cell.last], code_digest(cell))
        for cell in split_cells(script.read_text(encoding="utf-8"))
    ]


@dataclass(frozen=True)
class Currency:
    """What :func:`current_part` found: the record's cells of today's code, and where that ends."""

    record: Record
    """The record, its cells cut before the first cell of an earlier version (all of them if none)."""
    earlier_from: int | None
    """The first line, in today's script, of the first cell the record ran in an earlier version;
    ``None`` where every cell ran today's code."""


def current_part(record: Record, script: list[CellCode]) -> Currency:
    """Cut ``record`` to its leading cells that ran ``script``'s code (:class:`Currency`).

    A cell is of today's code when it has the lines of the script's cell in
    its place and its digest (a cell without one, made by hand, is taken as
    it is). The first that is not ends the current part, and every cell after
    it, whatever its code, is left out with it: what it printed depended on
    the cells before.
    """
    cells = record["cells"]
    for index, cell in enumerate(cells):
        today = script[index] if index < len(script) else None
        if today is None or cell["lines"] != today.lines or cell.get("code", today.code) != today.code:
            first = today.lines[0] if today is not None else (script[-1].lines[1] if script else 1)
            return Currency({**record, "cells": cells[:index]}, first)
    if len(cells) < len(script):
        return Currency(record, script[len(cells)].lines[0])
    return Currency(record, None)


def in_todays_cells(record: Record, script: list[CellCode]) -> list[CellRecord]:
    """Every cell of ``record``, earlier versions' included, at the lines of today's cell in its place.

    For what a cell did that does not hang on the code around it, such as
    the messages it raised (the error index): the n-th cell is placed on
    today's n-th cell, its checks' lines moved with it and kept inside it;
    cells that today's script no longer has are left out.
    """
    placed: list[CellRecord] = []
    for cell, today in zip(record["cells"], script, strict=False):
        if cell["lines"] == today.lines:
            placed.append(cell)
            continue
        first, last = today.lines
        shift = first - cell["lines"][0]
        events = [{**event, "line": min(max(event["line"] + shift, first), last)} for event in cell["events"]]
        placed.append(cast("CellRecord", {**cell, "lines": list(today.lines), "events": events}))
    return placed
