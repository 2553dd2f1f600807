"""Check that data from outside is a record: its types, its sizes, its example and cells.

A record that comes from another machine (``ingest``) is checked against the
types the records are written with (:class:`~.record.Record` and the
TypedDicts inside it, read by :func:`typing.get_type_hints`: no second copy
of the format to keep in step), then against the gallery: its example must be
one of the gallery's scripts, and its cells the cells that script splits into
(:func:`~.script_cells.split_cells`). Strings are data: they are checked for
their type and length only, never altered or interpreted.
"""

from __future__ import annotations

import datetime
import functools
import math
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

from .record_format import FORMAT, Record
from .script_cells import split_cells

__all__ = ["MAX_ITEMS", "MAX_STRING", "SchemaError", "check_record", "check_typed", "gallery_cells"]

MAX_STRING = 64 * 1024
"""The longest string a record may hold (a line of output, a message)."""
MAX_ITEMS = 10_000
"""The longest list a record may hold (its cells, a cell's output lines or events)."""


class SchemaError(Exception):
    """Data that is not what it must be: where in it (``cells[2].events[0].line``) and why.

    A plain exception (not a frozen dataclass, which refuses the
    ``__traceback__`` Python sets on it as it travels).
    """

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(where, reason)
        self.where = where
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}" if self.where else self.reason


def _join(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _check_union(value: object, options: tuple[Any, ...], where: str) -> None:
    typed = [o for o in options if is_typeddict(o)]
    if typed and isinstance(value, dict) and len(typed) == len(options):
        # TypedDicts told apart by a literal "kind" (the events): check the one it names
        kinds = {get_args(_hints(o)["kind"])[0]: o for o in typed if "kind" in _hints(o)}
        if kinds:
            kind = value.get("kind")
            if not isinstance(kind, str) or kind not in kinds:
                raise SchemaError(_join(where, "kind"), f"must be one of {', '.join(sorted(kinds))}")
            check_typed(value, kinds[kind], where)
            return
    errors = []
    for option in options:
        try:
            check_typed(value, option, where)
        except SchemaError as error:
            errors.append(error)
        else:
            return
    raise errors[0] if len(errors) == 1 else SchemaError(where, f"unexpected {_type_name(value)}")


@functools.cache
def _hints(kind: Any) -> dict[str, Any]:
    """A TypedDict's fields and their types, resolved once (a record's check asks thousands of times)."""
    return get_type_hints(kind)


def _check_dict(value: object, kind: Any, where: str) -> None:
    if not isinstance(value, dict):
        raise SchemaError(where, f"must be an object, not {_type_name(value)}")
    hints = _hints(kind)
    unknown = sorted(str(key) for key in value if key not in hints)
    if unknown:
        raise SchemaError(where, f"unexpected key(s): {', '.join(map(repr, unknown))}")
    missing = sorted(key for key in kind.__required_keys__ if key not in value)
    if missing:
        raise SchemaError(where, f"missing key(s): {', '.join(map(repr, missing))}")
    for key, item in value.items():
        check_typed(item, hints[key], _join(where, key))


def check_typed(value: object, kind: Any, where: str = "") -> None:
    """Raise :class:`SchemaError` unless ``value`` (parsed JSON) has the type ``kind``.

    ``kind`` is a type as the records are annotated with: a TypedDict, a
    ``Literal``, ``list[X]``, a union (``X | None``), ``str``, ``int``,
    ``float`` (an int too; finite), ``bool`` or ``None``. Strings and lists
    longer than :data:`MAX_STRING` and :data:`MAX_ITEMS` are refused.
    """
    origin = get_origin(kind)
    if is_typeddict(kind):
        _check_dict(value, kind, where)
    elif origin is Literal:
        allowed = get_args(kind)
        if isinstance(value, bool) or value not in allowed:
            raise SchemaError(where, f"must be one of {', '.join(map(repr, allowed))}, not {value!r:.80}")
    elif origin in (Union, types.UnionType):
        _check_union(value, get_args(kind), where)
    elif origin is list:
        if not isinstance(value, list):
            raise SchemaError(where, f"must be a list, not {_type_name(value)}")
        if len(value) > MAX_ITEMS:
            raise SchemaError(where, f"has {len(value)} items, more than {MAX_ITEMS}")
        (item_kind,) = get_args(kind)
        for index, item in enumerate(value):
            check_typed(item, item_kind, _join(where, index))
    elif kind is str:
        if not isinstance(value, str):
            raise SchemaError(where, f"must be a string, not {_type_name(value)}")
        if len(value) > MAX_STRING:
            raise SchemaError(where, f"is a string of {len(value)} characters, more than {MAX_STRING}")
    elif kind is bool:
        if not isinstance(value, bool):
            raise SchemaError(where, f"must be true or false, not {_type_name(value)}")
    elif kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(where, f"must be a whole number, not {_type_name(value)}")
    elif kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise SchemaError(where, f"must be a finite number, not {value!r:.80}")
    elif kind is None or kind is type(None):
        if value is not None:
            raise SchemaError(where, f"must be null, not {_type_name(value)}")
    else:  # pragma: no cover - a type the records do not use
        raise TypeError(f"check_typed cannot check {kind!r}")


def gallery_cells(gallery: Path) -> dict[str, list[list[int]]]:
    """Every example of ``gallery`` (``section/plot_x.py``) -> its cells' ``[first, last]`` lines."""
    return {
        path.relative_to(gallery).as_posix(): [
            [cell.first, cell.last] for cell in split_cells(path.read_text(encoding="utf-8"))
        ]
        for path in sorted(gallery.glob("*/plot_*.py"))
    }


def check_record(data: object, example: str, known: dict[str, list[list[int]]]) -> None:
    """Raise :class:`SchemaError` unless ``data`` is a record of ``example``, one of ``known``'s.

    Besides the types (:func:`check_typed` against
    :class:`~.record.Record`): the record's format, its example (the one its
    place names, and a script of the gallery), its cells (exactly the script's,
    line for line), its date (``YYYY-MM-DD``), its running time (not negative)
    and every check's and unexpected warning's line (inside the script).
    """
    check_typed(data, Record)
    record = typing.cast("Record", data)
    if record["format"] != FORMAT:
        raise SchemaError("format", f"must be {FORMAT}, not {record['format']}")
    if record["example"] != example:
        raise SchemaError("example", f"is {record['example']!r:.200}, but the record's place is {example!r}")
    if example not in known:
        raise SchemaError("example", f"{example!r} is not an example of this gallery")
    lines = [cell["lines"] for cell in record["cells"]]
    if lines != known[example]:
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
