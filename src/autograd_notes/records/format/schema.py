"""Check that data from outside is a record: its types, its sizes, its example and cells.

A record that comes from another machine (``ingest``) is checked against the
types the records are written with (:class:`~.record.Record` and the
TypedDicts inside it, read by :func:`typing.get_type_hints`: no second copy
of the format to keep in step), then against the gallery: its example must be
one of the gallery's scripts, and its cells the cells that script splits into
(:func:`~.script_cells.split_cells`), each stamped with the digest of the
code it ran (:mod:`.currency`). Strings are data: they are checked for their
type and length only, never altered or interpreted.
"""

from __future__ import annotations

import datetime
import re
import typing
from pathlib import Path

from ..._typed_json import MAX_ITEMS, MAX_STRING, SchemaError, check_typed
from .currency import CellCode
from .record_format import FORMAT, Record
from .script_cells import split_cells

__all__ = ["MAX_ITEMS", "MAX_STRING", "SchemaError", "check_record", "check_typed", "gallery_cells"]


def gallery_cells(gallery: Path) -> dict[str, list[list[int]]]:
    """Every example of ``gallery`` (``section/plot_x.py``) -> its cells' ``[first, last]`` lines."""
    return {
        path.relative_to(gallery).as_posix(): [
            [cell.first, cell.last] for cell in split_cells(path.read_text(encoding="utf-8"))
        ]
        for path in sorted(gallery.glob("*/plot_*.py"))
    }


_DIGEST = re.compile(r"[0-9a-f]{16}")


def check_record(
    data: object,
    example: str,
    known: dict[str, list[list[int]]],
    *,
    code: list[CellCode] | None = None,
    earlier: bool = False,
) -> None:
    """Raise :class:`SchemaError` unless ``data`` is a record of ``example``, one of ``known``'s.

    Besides the types (:func:`check_typed` against
    :class:`~.record.Record`): the record's format, its example (the one its
    place names, and a script of the gallery), its cells (exactly the script's,
    line for line), its date (``YYYY-MM-DD``), its running time (not negative),
    every cell's code digest (16 hex digits) and every check's and unexpected
    warning's line (inside the script). With ``code`` (the script's, from
    :func:`~.currency.script_code`), every cell must have run it: a record of
    an earlier version of the page is refused. ``earlier``: the record may be
    of an earlier version (a committed GPU record): its cells and lines are
    not held to today's script.
    """
    check_typed(data, Record)
    record = typing.cast("Record", data)
    if record["format"] != FORMAT:
        raise SchemaError("format", f"must be {FORMAT}, not {record['format']}")
    if record["example"] != example:
        raise SchemaError("example", f"is {record['example']!r:.200}, but the record's place is {example!r}")
    if example not in known:
        raise SchemaError("example", f"{example!r} is not an example of this gallery")
    for index, cell in enumerate(record["cells"]):
        if "code" in cell and not _DIGEST.fullmatch(cell["code"]):
            raise SchemaError(f"cells[{index}].code", "must be 16 hex digits, the digest of the cell's code")
    lines = [cell["lines"] for cell in record["cells"]]
    if not earlier and lines != known[example]:
        raise SchemaError(
            "cells",
            f"the record's cells (lines {_spans(lines)}) are not the script's "
            f"(lines {_spans(known[example])})",
        )
    try:
        date = datetime.date.fromisoformat(record["recorded"])
    except ValueError:
        date = None
    if date is None or date.isoformat() != record["recorded"]:
        raise SchemaError("recorded", f"must be a date, YYYY-MM-DD, not {record['recorded']!r:.80}")
    if record.get("seconds", 0) < 0:
        raise SchemaError("seconds", "must not be negative")
    if code is not None:
        for index, (cell, today) in enumerate(zip(record["cells"], code, strict=True)):
            if cell.get("code") != today.code:
                raise SchemaError(
                    f"cells[{index}].code",
                    f"the cell at lines {_spans([today.lines])} ran other code than this checkout's script "
                    "(a capture of an earlier version of the page, or from before records named their code): "
                    "capture it again with this checkout",
                )
    if earlier:
        return
    last = known[example][-1][1] if known[example] else 0
    for index, cell in enumerate(record["cells"]):
        for place, found in (("events", cell["events"]), ("unexpected", cell.get("unexpected", []))):
            for number, item in enumerate(found):
                if not 1 <= item["line"] <= last:
                    raise SchemaError(
                        f"cells[{index}].{place}[{number}].line", f"is not a line of the script (1-{last})"
                    )


def _spans(lines: list[list[int]]) -> str:
    shown = ", ".join("-".join(map(str, span)) for span in lines[:8])
    return shown + (", ..." if len(lines) > 8 else "")
