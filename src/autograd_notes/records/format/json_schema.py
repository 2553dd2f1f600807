"""The records' JSON Schema, generated from the types they are written with.

``records/record.schema.json`` is this module's output, committed: tools
outside Python read a record file with it, and the tests check that it is
what the types say today and that every committed record validates against
it. :mod:`.schema` is the check ``ingest`` runs; both read the same types
(:class:`~.record_format.Record` and the TypedDicts inside it), so neither
can drift from the format.

Regenerate: ``python -m autograd_notes.records.format.json_schema > records/record.schema.json``.
"""

from __future__ import annotations

import inspect
import json
import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

from .record_format import FORMAT, Record
from .schema import MAX_ITEMS, MAX_STRING

__all__ = ["SCHEMA_DIALECT", "record_schema", "schema_text"]

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _describe(kind: Any) -> str:
    """A TypedDict's docstring, its first paragraph on one line."""
    return " ".join((inspect.getdoc(kind) or "").split("\n\n")[0].split())


def _schema_of(kind: Any, definitions: dict[str, Any]) -> dict[str, Any]:
    origin = get_origin(kind)
    if is_typeddict(kind):
        name = kind.__name__.lstrip("_")
        if name not in definitions:
            definitions[name] = {}  # taken before its fields, so that a type may contain itself
            hints = get_type_hints(kind)
            definition: dict[str, Any] = {
                "type": "object",
                "properties": {key: _schema_of(hint, definitions) for key, hint in hints.items()},
                "required": sorted(kind.__required_keys__),
                "additionalProperties": False,
            }
            if description := _describe(kind):
                definition = {"description": description, **definition}
            definitions[name] = definition
        return {"$ref": f"#/$defs/{name}"}
    if origin is Literal:
        values = list(get_args(kind))
        return {"const": values[0]} if len(values) == 1 else {"enum": values}
    if origin in (Union, types.UnionType):
        options = [_schema_of(option, definitions) for option in get_args(kind)]
        return {"anyOf": options}
    if origin is list:
        (item,) = get_args(kind)
        return {"type": "array", "items": _schema_of(item, definitions), "maxItems": MAX_ITEMS}
    if kind is str:
        return {"type": "string", "maxLength": MAX_STRING}
    if kind is bool:
        return {"type": "boolean"}
    if kind is int:
        return {"type": "integer"}
    if kind is float:
        return {"type": "number"}
    if kind is None or kind is type(None):
        return {"type": "null"}
    raise TypeError(f"no JSON Schema for {kind!r}")  # pragma: no cover - a type the records do not use


def record_schema() -> dict[str, Any]:
    """The JSON Schema of a record file (format :data:`~.record_format.FORMAT`)."""
    definitions: dict[str, Any] = {}
    root = _schema_of(Record, definitions)
    definitions["Record"]["properties"]["format"] = {"const": FORMAT}
    return {
        "$schema": SCHEMA_DIALECT,
        "title": f"Autograd Notes record, format {FORMAT}",
        "description": (
            "What one example did on one runner: records/<runner>/<section>/<example>.json, "
            "or records/releases/<release>/<device>/<section>/<example>.json. "
            "Generated from autograd_notes.records.format.record_format; do not edit."
        ),
        **root,
        "$defs": dict(sorted(definitions.items())),
    }


def schema_text() -> str:
    """The schema as the committed file holds it."""
    return json.dumps(record_schema(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(schema_text(), end="")
