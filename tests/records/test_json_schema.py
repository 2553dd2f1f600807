"""The records' JSON Schema: committed as the types generate it, and every committed record valid under it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from autograd_notes.records.format.json_schema import record_schema, schema_text
from autograd_notes.records.format.record_format import Record
from autograd_notes.records.format.schema import MAX_STRING, SchemaError, check_typed

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "records" / "record.schema.json"
# records/<runner>/<section>/<example>.json and records/releases/<release>/<device>/...
RECORD_FILES = sorted(
    path for path in (ROOT / "records").rglob("*.json") if len(path.relative_to(ROOT / "records").parts) > 2
)


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(COMMITTED.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_committed_schema_is_what_the_types_generate() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == schema_text(), (
        "records/record.schema.json is stale: "
        "python -m autograd_notes.records.format.json_schema > records/record.schema.json"
    )


def test_every_committed_record_is_valid(validator: jsonschema.Draft202012Validator) -> None:
    assert len(RECORD_FILES) > 500
    invalid = {}
    for path in RECORD_FILES:
        errors = list(validator.iter_errors(json.loads(path.read_text(encoding="utf-8"))))
        if errors:
            invalid[str(path.relative_to(ROOT))] = [error.message for error in errors[:3]]
    assert not invalid


def _a_record() -> dict[str, Any]:
    return json.loads(
        (ROOT / "records" / "cpu" / "05_inplace" / "plot_detach_inplace_saved.json").read_text()
    )


def _unknown_key(record: dict[str, Any]) -> None:
    record["cells"][0]["colour"] = "red"


def _missing_key(record: dict[str, Any]) -> None:
    del record["runner"]["torch"]


def _unknown_event(record: dict[str, Any]) -> None:
    next(cell for cell in record["cells"] if cell["events"])["events"][0]["kind"] = "guess"


def _long_string(record: dict[str, Any]) -> None:
    record["example"] = "x" * (MAX_STRING + 1)


def _text_for_a_number(record: dict[str, Any]) -> None:
    record["cells"][0]["lines"][0] = "1"


@pytest.mark.parametrize(
    "spoil", [_unknown_key, _missing_key, _unknown_event, _long_string, _text_for_a_number]
)
def test_the_schema_refuses_what_ingest_refuses(
    validator: jsonschema.Draft202012Validator, spoil: Any
) -> None:
    """The schema and ``ingest``'s check read the same types: each refuses the same spoilt record."""
    record = _a_record()
    check_typed(record, Record)
    assert validator.is_valid(record)
    spoilt = copy.deepcopy(record)
    spoil(spoilt)
    with pytest.raises(SchemaError):
        check_typed(spoilt, Record)
    assert not validator.is_valid(spoilt)


def test_the_format_is_fixed() -> None:
    """A record of another format is not this schema's: the file says so."""
    record = _a_record()
    record["format"] = 2
    assert not jsonschema.Draft202012Validator(record_schema()).is_valid(record)
