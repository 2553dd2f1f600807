"""Runners × releases: every record of an example, and each GPU record's CPU of the same release.

A runner record is what one example did on one device with one PyTorch
release. The pinned release's builds keep theirs in ``records/<device>/``
(``cpu``, ``cuda``); every other release in ``records/releases/<release>/<device>/``
(:mod:`.releases`). A folder is a runner and release only where it holds
records: nothing here invents a runner that no record backs.

A difference between runners is computed within one release: a GPU record of
2.11.0 is compared with the CPU record of 2.11.0 (:func:`cpu_of`), never with
another release's, whose outputs may differ for reasons that have nothing to
do with the device.

Records are read against today's gallery scripts (``gallery/`` beside the
records folder): a record of an earlier version of its page keeps only its
cells of today's code (:func:`~.currency.current_part`), and says where the
rest begins (:attr:`RunnerRecord.earlier_from`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..format.currency import CellCode, current_part, in_todays_cells, script_code
from ..format.record import load_record
from ..format.record_format import DEVICES, CellRecord, Record
from .releases import RELEASES, is_release, release_of, version_key

__all__ = [
    "BUILD",
    "Baseline",
    "RunnerRecord",
    "RunnerRelease",
    "ThisBuild",
    "baseline",
    "cpu_of",
    "earlier_records",
    "example_runner_records",
    "load_runner_records",
    "page_runners",
    "record_outputs",
    "runner_releases",
]


@dataclass(frozen=True, order=True)
class RunnerRelease:
    """One folder of records: a device and the PyTorch release (and build) it ran.

    ``folder`` is the path under the records folder (``cuda``,
    ``releases/2.11.0/cuda``); ``release`` is read from the records' own
    PyTorch version, so that ``records/cuda`` is the release it recorded.
    Ordered by device (as :data:`~.record.DEVICES`), release, then the pinned
    folder before the release folder of the same release.
    """

    device_rank: int
    release_key: tuple[int, int, int]
    pinned_first: int
    device: str
    release: str
    folder: str

    @property
    def pinned(self) -> bool:
        """Whether this is a pinned release's folder, ``records/<device>``."""
        return self.folder == self.device

    def path(self, records: Path, example: str) -> Path:
        """The record file of ``example`` (``section/plot_x.py``) in this folder."""
        return records / self.folder / Path(example).with_suffix(".json")


def _runner_release(device: str, folder: str, record: Record) -> RunnerRelease:
    release = release_of(record["runner"]["torch"])
    return RunnerRelease(
        DEVICES.index(device), version_key(release), int(folder != device), device, release, folder
    )


def _folders(records: Path) -> list[tuple[str, str]]:
    """(device, folder under ``records``) of every device folder, pinned and per release."""
    found = [(device, device) for device in DEVICES if (records / device).is_dir()]
    base = records / RELEASES
    releases = (
        sorted(p.name for p in base.iterdir() if p.is_dir() and is_release(p.name)) if base.is_dir() else []
    )
    for release in releases:
        found += [(d, f"{RELEASES}/{release}/{d}") for d in DEVICES if (base / release / d).is_dir()]
    return found


@dataclass(frozen=True)
class RunnerRecord:
    """One example's record in one runner and release folder: the part of it of today's code."""

    runner: RunnerRelease
    record: Record
    earlier_from: int | None = None
    """The first line from which the record ran an earlier version of the page (its cells from
    there on are left out of :attr:`record`); ``None`` where it ran today's code throughout."""
    placed: list[CellRecord] | None = None
    """Every cell of the record as stored, earlier versions' included, on today's cells
    (:func:`~.currency.in_todays_cells`); ``None``: :attr:`record`'s cells are all of them."""

    @property
    def all_cells(self) -> list[CellRecord]:
        """Every cell the record holds, on today's cells: for what does not hang on the code around it."""
        return self.placed if self.placed is not None else self.record["cells"]


class _Scripts:
    """Today's code of each gallery script, read once (no gallery: every record is taken as it is)."""

    def __init__(self, gallery: Path) -> None:
        self.gallery = gallery
        self.read: dict[str, list[CellCode] | None] = {}

    def runner_record(self, runner: RunnerRelease, example: str, record: Record) -> RunnerRecord:
        if example not in self.read:
            script = self.gallery / example
            self.read[example] = script_code(script) if script.is_file() else None
        code = self.read[example]
        if code is None:
            return RunnerRecord(runner, record)
        current = current_part(record, code)
        if current.earlier_from is None:
            return RunnerRecord(runner, current.record)
        return RunnerRecord(runner, current.record, current.earlier_from, in_todays_cells(record, code))


def _gallery(records: Path, gallery: Path | None) -> Path:
    return gallery if gallery is not None else records.parent / "gallery"


def example_runner_records(records: Path, example: str, gallery: Path | None = None) -> list[RunnerRecord]:
    """Every record of ``example`` (``section/plot_x.py``), in :class:`RunnerRelease` order.

    ``gallery`` holds today's scripts (by default ``gallery/`` beside ``records``).
    """
    scripts = _Scripts(_gallery(records, gallery))
    found = []
    for device, folder in _folders(records):
        record = load_record(records / folder / Path(example).with_suffix(".json"))
        if record is not None:
            found.append(scripts.runner_record(_runner_release(device, folder, record), example, record))
    return sorted(found, key=lambda found: found.runner)


def load_runner_records(records: Path, gallery: Path | None = None) -> dict[str, list[RunnerRecord]]:
    """Every record under ``records``: example -> its records, in :class:`RunnerRelease` order.

    ``gallery`` holds today's scripts (by default ``gallery/`` beside ``records``).
    """
    scripts = _Scripts(_gallery(records, gallery))
    found: dict[str, list[RunnerRecord]] = {}
    for device, folder in _folders(records):
        base = records / folder
        for path in sorted(base.rglob("*.json")):
            record = load_record(path)
            if record is not None:
                example = path.relative_to(base).with_suffix(".py").as_posix()
                found.setdefault(example, []).append(
                    scripts.runner_record(_runner_release(device, folder, record), example, record)
                )
    return {example: sorted(runs, key=lambda found: found.runner) for example, runs in sorted(found.items())}


def earlier_records(records: Path, gallery: Path | None = None) -> list[tuple[Path, int]]:
    """The records of an earlier version of their page: (file under ``records``, the line it is from)."""
    return sorted(
        (run.runner.path(Path(), example), run.earlier_from)
        for example, runs in load_runner_records(records, gallery).items()
        for run in runs
        if run.earlier_from is not None
    )


def runner_releases(runs: Iterable[RunnerRecord]) -> list[RunnerRelease]:
    """The runners and releases of ``runs``, each once, in order."""
    return sorted({run.runner for run in runs})


def cpu_of(runs: Iterable[RunnerRecord], release: str) -> RunnerRecord | None:
    """The CPU record of ``release`` among ``runs``: the pinned folder's, else the release folder's."""
    cpu = [run for run in runs if run.runner.device == "cpu" and run.runner.release == release]
    return min(cpu, key=lambda run: run.runner) if cpu else None


def record_outputs(record: Record) -> list[tuple[int, list[str]]]:
    """(first line, output) of each cell of ``record``: what a build that printed it would show."""
    return [(cell["lines"][0], list(cell["output"])) for cell in record["cells"]]


def page_runners(runs: Iterable[RunnerRecord]) -> list[RunnerRecord]:
    """The records an example's runners box and outputs show: every pinned folder's, every GPU's.

    The CPU records of other releases are the timeline's (:mod:`.timeline`), not runners of their own.
    """
    return [run for run in runs if run.runner.pinned or run.runner.device != "cpu"]


@dataclass(frozen=True)
class ThisBuild:
    """What :func:`baseline` gives for a record of the build's own release: compare it with the build."""


BUILD = ThisBuild()
"""The one :class:`ThisBuild`."""

Baseline = RunnerRecord | ThisBuild | None
"""What a record is compared with: this build's outputs, its release's CPU record, or nothing."""


def baseline(run: RunnerRecord, runs: Iterable[RunnerRecord], build_release: str) -> Baseline:
    """What ``run`` is compared with, within its release.

    :data:`BUILD` where it recorded the release this build runs (the page's
    own outputs are that release's); otherwise the CPU record of its release
    among ``runs`` (:func:`cpu_of`), or ``None`` where there is none: then
    nothing is compared, rather than a CPU of another release.
    """
    if run.runner.release == build_release:
        return BUILD
    return cpu_of(runs, run.runner.release)
