"""Record files: what an example did on one runner, one JSON file per example and runner.

Layout: ``records/<runner>/<section>/<example>.json``, e.g.
``records/cpu/05_inplace/plot_detach_inplace_saved.json``. Files are JSON
with one item per line, and outputs stored as lists of lines, so that a
change reads well in ``git diff``. A record holds no path or address. Its
running time (``seconds``, to a tenth) is what the example pages show: like
the date, it is kept when a capture finds nothing else changed, so pages do
not change with every build.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import cast

from .record_format import FORMAT, RUNNERS, Record, RecordError
from .schema import SchemaError, check_typed

__all__ = [
    "load_all_records",
    "load_record",
    "record_path",
    "record_text",
    "write_record",
    "write_records",
]


def record_path(records: Path, runner: str, example: str) -> Path:
    """``records/<runner>/<section>/<name>.json`` for ``<section>/<name>.py``."""
    return records / runner / Path(example).with_suffix(".json")


def load_record(path: Path) -> Record | None:
    """Read a record, ``None`` if there is none; :class:`RecordError` if unreadable.

    Unreadable: not UTF-8, not JSON, or not of the records' types (every
    field, :func:`~.schema.check_typed`), named by the field
    (``cells[0]: missing key(s): 'events', ...``), so that no command that
    reads records meets a ``KeyError`` later.
    """
    if not path.exists():
        return None
    try:
        record: object = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise RecordError(path, f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise RecordError(
            path, f"not valid JSON: line {error.lineno} column {error.colno}: {error.msg}"
        ) from None
    if not isinstance(record, dict) or record.get("format") != FORMAT or "cells" not in record:
        raise RecordError(path, f"not a record of format {FORMAT}")
    try:
        check_typed(record, Record)
    except SchemaError as error:
        raise RecordError(path, f"not a valid record: {error}") from None
    return cast("Record", record)


def record_text(record: Record) -> str:
    """``record`` as its file holds it: stable, diff-friendly JSON."""
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


def write_record(path: Path, record: Record) -> None:
    """Write ``record`` as stable, diff-friendly JSON, whole or not at all.

    Encoded first, then written to a temporary file beside ``path`` and
    renamed over it: a failure or a kill leaves the old file as it was, never
    an empty or half-written one.
    """
    write_records([(path, record)])


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def write_records(records: list[tuple[Path, Record]]) -> None:
    """Write several records, all or none as far as a failure before the renames goes.

    Every record is encoded (a string UTF-8 cannot hold raises here, before
    anything is written), then each is written to a temporary file in its
    folder and flushed to disk; only then are they renamed into place, each
    rename atomic. A temporary file a killed run left is removed by the next.
    """
    encoded = [(path, record_text(record).encode("utf-8")) for path, record in records]
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in encoded:
            path.parent.mkdir(parents=True, exist_ok=True)
            for stale in path.parent.glob(f".{path.name}.*.tmp"):
                stale.unlink(missing_ok=True)
            temporary = _temporary(path)
            staged.append((temporary, path))
            with temporary.open("wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
    except BaseException:
        for temporary, _path in staged:
            temporary.unlink(missing_ok=True)
        raise
    for temporary, path in staged:
        temporary.replace(path)


def load_all_records(records: Path) -> dict[str, dict[str, Record]]:
    """Every record under ``records``: runner -> example (``section/plot_x.py``) -> record."""
    found: dict[str, dict[str, Record]] = {}
    for runner in RUNNERS:
        folder = records / runner
        for path in sorted(folder.rglob("*.json")):
            record = load_record(path)
            if record is not None:
                found.setdefault(runner, {})[path.relative_to(folder).with_suffix(".py").as_posix()] = record
    return found
