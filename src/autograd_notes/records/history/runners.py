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
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..format.record import load_record
from ..format.record_format import DEVICES, Record
from .releases import RELEASES, is_release, release_of, version_key

__all__ = [
    "BUILD",
    "Baseline",
    "RunnerRecord",
    "RunnerRelease",
    "ThisBuild",
    "baseline",
    "cpu_of",
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
    """One example's record in one runner and release folder."""

    runner: RunnerRelease
    record: Record


def example_runner_records(records: Path, example: str) -> list[RunnerRecord]:
    """Every record of ``example`` (``section/plot_x.py``), in :class:`RunnerRelease` order."""
    found = []
    for device, folder in _folders(records):
        record = load_record(records / folder / Path(example).with_suffix(".json"))
        if record is not None:
            found.append(RunnerRecord(_runner_release(device, folder, record), record))
    return sorted(found, key=lambda found: found.runner)


def load_runner_records(records: Path) -> dict[str, list[RunnerRecord]]:
    """Every record under ``records``: example -> its records, in :class:`RunnerRelease` order."""
    found: dict[str, list[RunnerRecord]] = {}
    for device, folder in _folders(records):
        base = records / folder
        for path in sorted(base.rglob("*.json")):
            record = load_record(path)
            if record is not None:
                example = path.relative_to(base).with_suffix(".py").as_posix()
                found.setdefault(example, []).append(
                    RunnerRecord(_runner_release(device, folder, record), record)
                )
    return {example: sorted(runs, key=lambda found: found.runner) for example, runs in sorted(found.items())}


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
