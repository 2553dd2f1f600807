"""Check that parsed JSON has the type it is annotated with: a TypedDict, a list, a literal, a union.

One checker for every format that comes from outside the process: the
records (:mod:`autograd_notes.records.format.schema`, which adds what a
record must be besides its types) and the release notes the helpers ship
(:mod:`._release_notes`). The types are read with
:func:`typing.get_type_hints`: no second copy of a format to keep in step.
Strings are data: checked for their type and length only, never altered.
"""

from __future__ import annotations

import functools
import json
import math
import types
from importlib import resources
from typing import Any, Literal, TypeVar, Union, cast, get_args, get_origin, get_type_hints, is_typeddict

__all__ = ["MAX_ITEMS", "MAX_STRING", "SchemaError", "check_typed", "read_typed", "shipped"]

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
    ``Literal``, ``list[X]``, ``dict[str, X]``, a union (``X | None``), ``str``, ``int``,
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
    elif origin is dict:
        if not isinstance(value, dict):
            raise SchemaError(where, f"must be an object, not {_type_name(value)}")
        if len(value) > MAX_ITEMS:
            raise SchemaError(where, f"has {len(value)} keys, more than {MAX_ITEMS}")
        _key_kind, item_kind = get_args(kind)
        for key, item in value.items():
            check_typed(key, str, _join(where, "(key)"))
            check_typed(item, item_kind, _join(where, key))
    elif kind is str:
        if not isinstance(value, str):
            raise SchemaError(where, f"must be a string, not {_type_name(value)}")
        if len(value) > MAX_STRING:
            raise SchemaError(where, f"is a string of {len(value)} characters, more than {MAX_STRING}")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:  # what validation accepts, writing must accept
            raise SchemaError(
                where, f"holds a character UTF-8 cannot encode ({value[error.start]!r}, a lone surrogate)"
            ) from None
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


T = TypeVar("T")


def read_typed(text: str, kind: type[T]) -> T:
    """Parse ``text`` as JSON and check it is a ``kind``; :class:`SchemaError` or ``ValueError`` if not."""
    value = json.loads(text)
    check_typed(value, kind)
    return cast("T", value)


def shipped(package: str, name: str, kind: type[T]) -> T | None:
    """The JSON file ``name`` this package ships in ``package``, checked as a ``kind``.

    ``None`` where it is missing or damaged: what reads it then says what it
    says without it.
    """
    try:
        return read_typed(resources.files(package).joinpath(name).read_text(encoding="utf-8"), kind)
    except (OSError, ValueError, SchemaError):
        return None
