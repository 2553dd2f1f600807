"""Every record under a records folder, read and checked once, in the views the site shows.

A site build reads the records folder once into a :class:`RecordStore`:
every example's records on every runner and release (:attr:`RecordStore.runs`),
the pinned release's per runner (:attr:`RecordStore.pinned`), the timelines
across releases (:attr:`RecordStore.timelines`) and the files each example's
records come from (:meth:`RecordStore.files`, what a page that shows them
depends on). Every view is computed from the one reading, never by reading
the files again.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from ..format.record_format import Record
from .releases import version_key
from .runners import RunnerRecord, load_runner_records
from .timeline import ExampleTimeline, timelines_of

__all__ = ["RecordStore"]


@dataclass(frozen=True)
class RecordStore:
    """The records of one folder, as read once."""

    folder: Path
    runs: dict[str, list[RunnerRecord]]
    """Example (``section/plot_x.py``) -> its records, every runner and release, in runner order."""

    @classmethod
    def read(cls, folder: Path) -> RecordStore:
        """Read and check every record file under ``folder`` (an error names a bad file)."""
        return cls(folder, load_runner_records(folder))

    @functools.cached_property
    def pinned(self) -> dict[str, dict[str, Record]]:
        """The pinned release's records (``records/<runner>``): runner -> example -> record."""
        found: dict[str, dict[str, Record]] = {}
        for example, runs in self.runs.items():
            for run in runs:
                if run.runner.pinned:
                    found.setdefault(run.runner.device, {})[example] = run.record
        return {runner: dict(sorted(records.items())) for runner, records in sorted(found.items())}

    def releases(self, device: str = "cpu") -> dict[str, dict[str, Record]]:
        """Every release's records on ``device`` (``records/releases/<release>``), oldest release first."""
        found: dict[str, dict[str, Record]] = {}
        for example, runs in self.runs.items():
            for run in runs:
                if not run.runner.pinned and run.runner.device == device:
                    release = Path(run.runner.folder).parent.name
                    found.setdefault(release, {})[example] = run.record
        return {release: found[release] for release in sorted(found, key=version_key)}

    @functools.cached_property
    def timelines(self) -> dict[str, ExampleTimeline]:
        """Every example's timeline on the CPU: today's records against every release's."""
        return timelines_of(self.pinned.get("cpu", {}), self.releases("cpu"))

    def files(self, example: str | None = None) -> list[Path]:
        """The record files of ``example`` (``section/plot_x.py``), or of every example."""
        examples = [example] if example is not None else list(self.runs)
        return [run.runner.path(self.folder, name) for name in examples for run in self.runs.get(name, [])]
