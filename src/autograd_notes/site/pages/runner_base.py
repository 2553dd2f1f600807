"""The base of the runner directives: this build's runner, and an example's records read once a page.

The runners are those that have a record
(:mod:`autograd_notes.records.history.runners`): this build's, and every GPU runner of
any release, never a column or tab that no record backs. A record of this
build's release is compared with what this build printed; a GPU record of
another release with the CPU record of that release, never across releases.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from docutils import nodes
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ..._device import runner_info
from ...records.format.record import record_path
from ...records.format.record_format import Record
from ...records.history.releases import release_of
from ...records.history.runners import Baseline, RunnerRecord, baseline, page_runners
from ..upstream.gallery_rst import code_cells
from ..web.links import cell_label, label_link
from ..web.nodes import compose
from .record_store import note_records, site_records
from .runner_words import runner_name, running_time

__all__ = ["CodeCellOutput", "RunnerDirective", "nothing_current"]

logger = logging.getLogger(__name__)

CodeCellOutput = tuple[int, list[str]]
_PAGE_CELLS = "autograd_notes_page_cells"  # env.temp_data key: the first line of each code cell


def nothing_current(run: RunnerRecord, first_lines: list[int]) -> bool:
    """Whether ``run`` is of an earlier version of its page from its first code cell on (``first_lines``)."""
    return run.earlier_from is not None and (not first_lines or run.earlier_from <= first_lines[0])


class RunnerDirective(SphinxDirective):
    """Shared access to the records of an example and to this build's runner."""

    @property
    def this_runner(self) -> str:
        """The device of this build's runner: ``cpu``, ``cuda``."""
        return runner_info().device

    def records_dir(self) -> Path:
        """The records folder (``autograd_notes_records``)."""
        return Path(self.config.autograd_notes_records)

    @property
    def this_release(self) -> str:
        """The PyTorch release of this build: ``2.11.0``."""
        return release_of(runner_info().torch_version)

    def records(self, example: str) -> list[RunnerRecord]:
        """Every record of ``example``, each runner and release; the page depends on their files."""
        note_records(self.env, example)
        return site_records(self.env).runs.get(example, [])

    def own_run(self, runs: list[RunnerRecord]) -> RunnerRecord | None:
        """The record of this build's runner and release (``records/<device>``), if there is one."""
        own = [run for run in runs if run.runner.pinned and run.runner.device == self.this_runner]
        return own[0] if own else None

    def others(self, runs: list[RunnerRecord]) -> list[tuple[RunnerRecord, Baseline]]:
        """The other runners a page shows, each with what it is compared with (:func:`baseline`)."""
        return [
            (run, baseline(run, runs, self.this_release))
            for run in page_runners(runs)
            if not (run.runner.pinned and run.runner.device == self.this_runner)
        ]

    def runner_label(self, run: RunnerRecord) -> str:
        """A runner and its record as a label: ``CUDA runner · torch 2.11.0+cu130, NVIDIA H100, …``."""
        return f"{runner_name(run.runner.device)} · {self.describe(run.record)}"

    def page_cells(self) -> list[CodeCellOutput]:
        """(first line, output) of each code cell of this page, read once per page."""
        cells = cast("list[CodeCellOutput] | None", self.env.temp_data.get(_PAGE_CELLS))
        if cells is None:
            page = Path(self.env.doc2path(self.env.docname)).read_text(encoding="utf-8")
            cells = [(c.first_line, c.output) for c in code_cells(page)]
            self.env.temp_data[_PAGE_CELLS] = cells
        return cells

    def missing_record(self, example: str, runner: str) -> None:
        """Warn (an error under ``-W``) that this build's runner has no record of ``example``."""
        path = record_path(self.records_dir(), runner, example)
        shown = path.relative_to(self.records_dir().parent).as_posix()
        logger.warning(
            "%s has no record on the %s runner, this build's (%s is missing): record it with "
            "`python -m autograd_notes capture --device %s %s`",
            example,
            runner,
            shown,
            runner,
            Path(example).stem,
            location=self.get_location(),
            type="autograd_notes",
            subtype="record",
        )

    def describe(self, record: Record, *, known: bool = False) -> str:
        """A record in this build's language: its PyTorch, machine, date and running time.

        ``known``: the PyTorch and machine were said just before (this build's
        own), so only the date and running time are.
        """
        runner = record["runner"]
        if known:
            if "seconds" in record:
                return _("recorded {date}, ran in {duration}").format(
                    date=record["recorded"],
                    duration=running_time(record["seconds"], self.config.language or "en"),
                )
            return _("recorded {date}").format(date=record["recorded"])
        if "seconds" in record:
            return _("torch {torch}, {device}, recorded {date}, ran in {duration}").format(
                torch=runner["torch"],
                device=runner["device_name"],
                date=record["recorded"],
                duration=running_time(record["seconds"], self.config.language or "en"),
            )
        return _("torch {torch}, {device}, recorded {date}").format(
            torch=runner["torch"], device=runner["device_name"], date=record["recorded"]
        )

    def earlier_nodes(
        self, run: RunnerRecord, example: str, first_lines: list[int], *, here: bool
    ) -> list[nodes.Node]:
        """The sentence saying from which cell ``run`` ran an earlier version of its page; none if it did not.

        ``first_lines``: the first line of each code cell of the example's page; ``here``: the
        sentence is on that page (else on the runners page, of another page). The cell is a
        link to it.
        """
        if run.earlier_from is None:
            return []
        if nothing_current(run, first_lines):
            nothing = (
                _(
                    "It ran an earlier version of this page's code: nothing of it is shown until this runner "
                    "records the page again."
                )
                if here
                else _(
                    "It ran an earlier version of its page's code: the page shows nothing of it until this "
                    "runner records it again."
                )
            )
            return [nodes.Text(nothing)]
        # the first code cell whose code starts at or after the first line of the earlier version
        number = sum(first < run.earlier_from for first in first_lines) + 1
        template = (
            _(
                "From cell {cell} on it ran an earlier version of this page's code: those cells show nothing "
                "of it until this runner records the page again."
            )
            if here
            else _(
                "From cell {cell} of its page on it ran an earlier version of that page's code: those cells "
                "show nothing of it until this runner records it again."
            )
        )
        return compose(template, cell=label_link(cell_label(example, number), nodes.Text(str(number))))
