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

import datetime
import json
import time
from pathlib import Path
from typing import Literal, TypedDict, cast

import torch

from .._events import Event
from .._runner import runner_info
from .cells import run_cells
from .device_details import GpuDetails, gpu_details

__all__ = [
    "DEVICES",
    "RUNNERS",
    "CellRecord",
    "CellStatus",
    "Record",
    "Runner",
    "UnexpectedWarning",
    "capture_example",
    "load_all_records",
    "load_record",
    "record_path",
    "record_text",
    "runner_metadata",
    "write_record",
]

RUNNERS = ("cpu", "cuda")
"""The runners of the pinned release, ``records/<runner>``: what the site documents today."""
DEVICES = ("cpu", "cuda", "mps", "xpu")
"""The devices a capture runs on; those not in :data:`RUNNERS` only for release records
(``records/releases/<release>/<device>``)."""
FORMAT = 1

CellStatus = Literal["ran", "failed", "unavailable", "not run"]
"""How a cell's run ended (:class:`~.cells.CellResult`)."""


class Runner(GpuDetails):
    """The runner of a capture (:func:`runner_metadata`); a GPU's details only on a GPU runner."""

    device: str
    device_name: str
    torch: str
    variant: str
    cuda: str | None
    python: str


class UnexpectedWarning(TypedDict):
    """A warning that no ``expect_warning`` caught: a site build fails on it, a capture records it."""

    line: int
    """The example's line that was running when it warned."""
    category: str
    message: str
    """The warning's normalised message."""


class _Unexpected(TypedDict, total=False):
    unexpected: list[UnexpectedWarning]
    """The cell's unexpected warnings, each once, in order; only where it had some (records from
    before it never have it)."""


class CellRecord(_Unexpected):
    """One cell of a record: its lines, how its run ended, what it printed and what its checks saw."""

    lines: list[int]
    """``[first, last]``, 1-based and inclusive."""
    status: CellStatus
    output: list[str]
    events: list[Event]


class _Timed(TypedDict, total=False):
    seconds: float
    """The running time, to a tenth of a second (records from before it lack it)."""


class Record(_Timed):
    """A record file's content, in the order the file holds it."""

    format: int
    example: str
    runner: Runner
    recorded: str
    """The date of the capture, ``YYYY-MM-DD``."""
    cells: list[CellRecord]


class RecordError(Exception):
    """A record file that cannot be read, with its path and the reason.

    A plain exception, not a frozen dataclass: Python sets ``__traceback__``
    (and ``__context__``) on an exception as it travels, which a frozen
    dataclass refuses, so that the error hid its own message.
    """

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(path, reason)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def runner_metadata() -> Runner:
    """Describe the runner of a capture: PyTorch, its build, device and Python.

    A GPU runner adds what PyTorch tells of its GPU (compute capability, ROCm
    version, driver: :func:`~.device_details.gpu_details`); a CPU runner's
    metadata is the same six keys as ever.
    """
    info = runner_info()
    return {
        "device": info.device,
        "device_name": info.device_name,
        "torch": info.torch_version,
        "variant": info.variant,
        "cuda": torch.version.cuda,
        "python": info.python,
        **gpu_details(torch.device(info.device)),
    }


def record_path(records: Path, runner: str, example: str) -> Path:
    """``records/<runner>/<section>/<name>.json`` for ``<section>/<name>.py``."""
    return records / runner / Path(example).with_suffix(".json")


def capture_example(gallery: Path, example: str, root: Path) -> Record:
    """Run ``gallery/<example>`` on this runner and return its record."""
    start = time.perf_counter()
    cells = run_cells(gallery / example, root)
    seconds = time.perf_counter() - start
    return {
        "format": FORMAT,
        "example": example,
        "runner": runner_metadata(),
        "recorded": datetime.date.today().isoformat(),
        "seconds": round(seconds, 1),
        "cells": [cell.as_record() for cell in cells],
    }


def load_record(path: Path) -> Record | None:
    """Read a record, ``None`` if there is none; :class:`RecordError` if unreadable.

    Unreadable: not UTF-8, not JSON, or not of the records' types (every
    field, :func:`~.schema.check_typed`), named by the field
    (``cells[0]: missing key(s): 'events', ...``), so that no command that
    reads records meets a ``KeyError`` later.
    """
    from .schema import SchemaError, check_typed  # schema reads this module's types

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
    """Write ``record`` as stable, diff-friendly JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record_text(record), encoding="utf-8")


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
