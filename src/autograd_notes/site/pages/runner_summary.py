"""The ``runner-summary`` directive, atop each example page: which runners its outputs come from.

Their machine, PyTorch and when they were recorded; for this build's runner,
whether this build printed what its record holds.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.locale import _

from ..._device import runner_info
from ...records.drift.compare import compare_live
from ...records.format.record_format import Record
from ...records.format.status import RecordMatch
from ...records.history.runners import BUILD, Baseline, RunnerRecord, record_outputs
from ..i18n.zh_punctuation import sentence_gap
from ..web.nodes import untranslatable
from .runner_base import RunnerDirective, nothing_current
from .runner_status import record_status
from .runner_words import runner_kind, runner_name

__all__ = ["RunnerSummaryDirective"]


class RunnerSummaryDirective(RunnerDirective):
    """``.. runner-summary:: <example>``: where this page's outputs come from."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """Return a note naming this build's runner and every recorded one."""
        example = self.arguments[0]
        info = runner_info()
        # a container styled as an admonition: a real admonition title would
        # become a message of every page's catalog
        note = nodes.container(classes=["admonition", "note", "runner-summary"])
        note += nodes.paragraph("", _("Where these outputs come from"), classes=["admonition-title"])
        note += nodes.paragraph(
            "",
            _(
                "The outputs on this page were printed when the site was built, by its {kind} runner, "
                "the machine that runs every example: torch {torch} ({variant}), {device}."
            ).format(
                kind=runner_kind(info.device),
                torch=info.torch_version,
                variant=info.variant,
                device=info.device_name,
            ),
        )
        runs = self.records(example)
        items = nodes.bullet_list()
        own = self.own_run(runs)
        own_line = self._own_line(example, own.record if own is not None else None)
        items += nodes.list_item("", nodes.paragraph("", own_line))
        for run, against in self.others(runs):
            items += nodes.list_item("", nodes.paragraph("", "", *self._other_line(example, run, against)))
        note += items
        return untranslatable([note])

    def _own_line(self, example: str, record: Record | None) -> str:
        """The line of this build's runner: its record, and whether this build printed the same."""
        runner = self.this_runner
        if record is None:
            if self.config.autograd_notes_require_records:
                self.missing_record(example, runner)
            return _("{runner}: no record yet; no such runner has captured this example.").format(
                runner=runner_name(runner)
            )
        info = runner_info()
        # the note's first sentence named this build's PyTorch and machine: said once
        known = (record["runner"]["torch"], record["runner"]["device_name"]) == (
            info.torch_version,
            info.device_name,
        )
        changed = compare_live(self.page_cells(), record)
        if changed:
            return _(
                "{runner}: {record}. The outputs on this page differ from it in {count} cell(s); "
                "the runners page shows the differences."
            ).format(
                runner=runner_name(runner), record=self.describe(record, known=known), count=len(changed)
            )
        return _("{runner}: {record}. The outputs on this page match it.").format(
            runner=runner_name(runner), record=self.describe(record, known=known)
        )

    def _other_line(self, example: str, run: RunnerRecord, against: Baseline) -> list[nodes.Node]:
        """Another runner's record; how it compares; from where it is of an earlier version of the page."""
        name, record = runner_name(run.runner.device), self.describe(run.record)
        first_lines = [first for first, _output in self.page_cells()]
        earlier = self.earlier_nodes(run, example, first_lines, here=True)
        if nothing_current(run, first_lines):
            said = _("{runner}: {record}.").format(runner=name, record=record)
        else:
            said = self._compared_words(run, against, name, record)
        gap = [nodes.Text(sentence_gap(self.config.language or "en"))] if earlier else []
        return [nodes.Text(said), *gap, *earlier]

    def _compared_words(self, run: RunnerRecord, against: Baseline, name: str, record: str) -> str:
        """Another runner's record against this build, or against its release's CPU record."""
        if against is BUILD:
            return _("{runner}: {record}.").format(runner=name, record=record)
        if not isinstance(against, RunnerRecord):
            return _("{runner}: {record}. No CPU record of PyTorch {release} to compare it with.").format(
                runner=name, record=record, release=run.runner.release
            )
        status = record_status(record_outputs(against.record), run.record, run.earlier_from)
        if status.status == RecordMatch.SAME:
            return _("{runner}: {record}. It printed what the CPU printed with PyTorch {release}.").format(
                runner=name, record=record, release=run.runner.release
            )
        return _(
            "{runner}: {record}. It printed otherwise than the CPU with PyTorch {release} "
            "in {count} cell(s), shown beside this page's output."
        ).format(runner=name, record=record, release=run.runner.release, count=len(status.cells))
