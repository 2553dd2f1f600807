"""The record file's format: the types of what an example did on one runner.

A record is one JSON file per example and runner (:mod:`.record` reads and
writes them; :mod:`.schema` checks a file against these types). This module
imports nothing but the standard library: the site, the schema and a
reader's tools read records without PyTorch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypedDict

from ..._events import Event

__all__ = [
    "DEVICES",
    "FORMAT",
    "RUNNERS",
    "CellRecord",
    "CellStatus",
    "GpuDetails",
    "Record",
    "RecordError",
    "Runner",
    "UnexpectedWarning",
]

RUNNERS = ("cpu", "cuda")
"""The runners of the pinned release, ``records/<runner>``: what the site documents today."""
DEVICES = ("cpu", "cuda", "mps", "xpu")
"""The devices a capture runs on; those not in :data:`RUNNERS` only for release records
(``records/releases/<release>/<device>``)."""
FORMAT = 1

CellStatus = Literal["ran", "failed", "unavailable", "not run"]
"""How a cell's run ended (:class:`~.cells.CellResult`)."""


class GpuDetails(TypedDict, total=False):
    """The keys a GPU runner's record adds to its runner (each only where PyTorch tells it)."""

    capability: str
    """Compute capability, ``major.minor`` (CUDA and ROCm devices)."""
    arch: str
    """The GPU's architecture name on ROCm (``gcnArchName``, e.g. ``gfx942``)."""
    hip: str
    """The ROCm (HIP) version of a ROCm build of PyTorch."""
    driver: str
    """The GPU driver's version, where PyTorch can tell it."""


class Runner(GpuDetails):
    """The runner of a capture (:func:`~.device_details.runner_metadata`).

    A GPU's details only on a GPU runner.
    """

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
    code: str
    """The digest of the code the cell ran (:func:`~.script_cells.code_digest`): a record whose cells
    are not the script's code ran an earlier version of the page (:mod:`.currency`). Every committed
    record has it; a record made by hand may leave it out, and is then taken as of today's code."""


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
    failures_accepted: bool
    """``ingest --accept-failures`` wrote it: a cell failed with an exception the page does not
    document, and a maintainer chose to keep that as what this runner does."""


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
