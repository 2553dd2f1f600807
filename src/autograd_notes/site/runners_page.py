"""Runner-aware pages: recorded outputs of every runner beside this build's.

Three directives, registered by :mod:`autograd_notes.site.sphinxext`:

* ``runner-outputs`` (inserted by the extension into every generated example
  page, one per code cell, holding that cell's live output): the output of
  this build and, where another runner's record differs, that runner's
  output in a tab, with a sentence saying why; where the records agree, one
  output and a mark saying so.
* ``runner-summary`` (top of each example page): which runners the page's
  outputs come from, their PyTorch and when they were recorded.
* ``runner-matrix`` (the runners page): every example × every runner, with
  the differences between the records and this build.
"""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path
from typing import cast

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .._runner import runner_info
from ..records.compare import compare_live, explain_output_difference, record_cell
from ..records.record import RUNNERS, Record, load_record, record_path
from .errors_page import ErrorIndexDirective, SourceStatusDirective, error_links
from .gallery_rst import code_cells
from .nodes import Cell, doc_link, make_table, untranslatable

__all__ = [
    "DIRECTIVES",
    "RUNNER_NAMES",
    "RunnerMatrixDirective",
    "RunnerOutputsDirective",
    "RunnerSummaryDirective",
]

logger = logging.getLogger(__name__)

RUNNER_NAMES = {"cpu": _("CPU runner"), "cuda": _("CUDA runner")}
_tab_ids = itertools.count()
_READ_RECORDS = "autograd_notes_records"  # env.temp_data key: the records this page read


class _RunnerDirective(SphinxDirective):
    """Shared access to the records of an example and to this build's runner."""

    @property
    def this_runner(self) -> str:
        return runner_info().device

    def records_dir(self) -> Path:
        return Path(self.config.autograd_notes_records)

    def records(self, example: str) -> dict[str, Record | None]:
        """Every runner's record of ``example``, read once per page (its summary and each cell ask)."""
        # no note_dependency: records are hashed into a config value that
        # rebuilds the environment when any of them changes (see sphinxext)
        read = cast("dict[str, dict[str, Record | None]]", self.env.temp_data.setdefault(_READ_RECORDS, {}))
        if example not in read:
            read[example] = {
                runner: load_record(record_path(self.records_dir(), runner, example)) for runner in RUNNERS
            }
        return read[example]

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

    def describe(self, record: Record) -> str:
        runner = record["runner"]
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


def running_time(seconds: float, language: str = "en") -> str:
    """A recorded running time as a page in ``language`` shows it: ``1.5 s``, ``< 0.1 s``, ``1,5 с``."""
    from babel.numbers import format_decimal

    if seconds < 0.1:
        return _("< {value} s").format(value=format_decimal(0.1, format="0.0", locale=language))
    return _("{value} s").format(value=format_decimal(seconds, format="0.0", locale=language))


_INTERNAL_FRAMES = re.compile(r"^(\s*)\[(\d+) frames? inside PyTorch: (.*)\]$")


def localise_output(lines: list[str]) -> list[str]:
    """Translate the helper's own prose in an output: the folded PyTorch frames line.

    Everything else an example prints (values, tables, PyTorch's messages)
    stays as printed: readers search for those texts.
    """

    def localise(line: str) -> str:
        match = _INTERNAL_FRAMES.match(line)
        if match is None:
            return line
        indent, count, functions = match.groups()
        template = (
            _("[1 frame inside PyTorch: {functions}]")
            if count == "1"
            else _("[{count} frames inside PyTorch: {functions}]")
        )
        return indent + str(template).format(count=count, functions=functions)

    return [localise(line) for line in lines]


def _output_block(lines: list[str]) -> nodes.literal_block:
    text = "\n".join(localise_output(lines))
    block = nodes.literal_block(text, text, classes=["sphx-glr-script-out", "runner-output"])
    block["language"] = "none"
    return block


class RunnerOutputsDirective(_RunnerDirective):
    """``.. runner-outputs:: <example>`` with ``:line:`` and the live output as content."""

    required_arguments = 1
    has_content = True
    option_spec = {"line": directives.positive_int}  # noqa: RUF012 - docutils API

    def run(self) -> list[nodes.Node]:
        """Return this build's output, with other runners' where they differ."""
        example, line = self.arguments[0], self.options["line"]
        live = list(self.content)
        while live and not live[-1].strip():
            live.pop()
        records = self.records(example)
        this_runner = self.this_runner
        others: list[tuple[str, Record, list[str]]] = []
        for runner, record in records.items():
            cell = record_cell(record, line) if record is not None and runner != this_runner else None
            if record is not None and cell is not None:
                others.append((runner, record, cell["output"]))
        differing = [(runner, record, output) for runner, record, output in others if output != live]
        own = records.get(this_runner)
        own_cell = record_cell(own, line) if own is not None else None
        links = error_links(self.env, own_cell["events"]) if own_cell is not None else []
        if not differing:
            result: list[nodes.Node] = [_output_block(live)] if live else []
            if others and live:
                names = ", ".join(f"{RUNNER_NAMES[r]} ({self.describe(rec)})" for r, rec, _o in others)
                same = _("✓ Same output on the {runners}.").format(runners=names)
                result.append(nodes.paragraph("", same, classes=["runner-same"]))
            return untranslatable([*result, *links])
        return untranslatable([self._tabs(live, differing), *links])

    def _tabs(self, live: list[str], differing: list[tuple[str, Record, list[str]]]) -> nodes.Node:
        group = f"runner-tabs-{next(_tab_ids)}"
        info = runner_info()
        this_build = _("this build (torch {torch})").format(torch=info.torch_version)
        tabs = [(f"{RUNNER_NAMES[self.this_runner]} · {this_build}", live)]
        tabs += [(f"{RUNNER_NAMES[r]} · {self.describe(rec)}", output) for r, rec, output in differing]
        container = nodes.container(classes=["runner-tabs"])
        for index, (label, lines) in enumerate(tabs):
            tab_id = f"{group}-{index}"
            checked = " checked" if index == 0 else ""
            container += nodes.raw(
                "",
                f'<input type="radio" name="{group}" id="{tab_id}"{checked}>'
                f'<label for="{tab_id}">{html.escape(label)}</label>',
                format="html",
            )
            panel = nodes.container(classes=["runner-tab-panel"])
            panel += _output_block(lines) if lines else nodes.paragraph("", _("(no output)"))
            container += panel
        why = " ".join(sorted({_(explain_output_difference(live, output)) for _r, _c, output in differing}))
        container += nodes.paragraph(
            "", _("Why the runners differ: {why}").format(why=why), classes=["runner-why"]
        )
        return container


class RunnerSummaryDirective(_RunnerDirective):
    """``.. runner-summary:: <example>``: where this page's outputs come from."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """Return a note naming this build's runner and every recorded one."""
        example = self.arguments[0]
        info = runner_info()
        # a container styled as an admonition: a real admonition title would
        # become a message of every page's catalog
        note = nodes.container(classes=["admonition", "note", "runner-summary"])
        note += nodes.paragraph("", _("Runners"), classes=["admonition-title"])
        note += nodes.paragraph(
            "",
            _(
                "Outputs on this page ran when the site was built, on the {runner}: "
                "torch {torch} ({variant}), {device}."
            ).format(
                runner=RUNNER_NAMES[info.device],
                torch=info.torch_version,
                variant=info.variant,
                device=info.device_name,
            ),
        )
        items = nodes.bullet_list()
        for runner, record in self.records(example).items():
            if record is None:
                text = _("{runner}: no record yet; no such runner has captured this example.").format(
                    runner=RUNNER_NAMES[runner]
                )
                if runner == info.device and self.config.autograd_notes_require_records:
                    self.missing_record(example, runner)
            else:
                text = f"{RUNNER_NAMES[runner]}: {self.describe(record)}."
                if runner == info.device:
                    page = Path(self.env.doc2path(self.env.docname)).read_text(encoding="utf-8")
                    live = [(c.first_line, c.output) for c in code_cells(page)]
                    changed = compare_live(live, record)
                    text += " " + (
                        _("This build differs from it in {count} cell(s): see the drift report.").format(
                            count=len(changed)
                        )
                        if changed
                        else _("This build printed the same.")
                    )
            items += nodes.list_item("", nodes.paragraph("", text))
        note += items
        return untranslatable([note])


class RunnerMatrixDirective(_RunnerDirective):
    """``.. runner-matrix::``: every example × every runner, and the drift of this build."""

    option_spec = {"gallery": directives.unchanged_required}  # noqa: RUF012 - docutils API

    def run(self) -> list[nodes.Node]:
        """Return the matrix table and a drift section per example that differs."""
        generated = Path(self.env.srcdir, self.options.get("gallery", "examples"))
        pages = sorted(p for p in generated.glob("*/plot_*.rst"))
        rows: list[list[Cell]] = []
        drift_sections: list[nodes.Node] = []
        for page in pages:
            self.env.note_dependency(str(page))
            example = page.relative_to(generated).with_suffix(".py").as_posix()
            docname = page.relative_to(self.env.srcdir).with_suffix("").as_posix()
            records = self.records(example)
            live = [(c.first_line, c.output) for c in code_cells(page.read_text(encoding="utf-8"))]
            row: list[Cell] = [doc_link(docname, example, literal=True)]
            differences = []
            for runner in RUNNERS:
                record = records[runner]
                if record is None:
                    status = _("no record yet")
                else:
                    status = self.describe(record)
                    if runner == self.this_runner:
                        differences = compare_live(live, record)
                        status += (
                            "; " + _("this build: {count} cell(s) differ").format(count=len(differences))
                            if differences
                            else "; " + _("this build: same")
                        )
                row.append(status)
            rows.append(row)
            if differences:
                section = nodes.rubric("", _("Drift: {example}").format(example=example))
                drift_sections.append(section)
                for difference in differences:
                    drift_sections.append(
                        nodes.paragraph(
                            "",
                            _("cell {cell} (lines {first}-{last}):").format(
                                cell=difference.cell, first=difference.lines[0], last=difference.lines[1]
                            ),
                        )
                    )
                    block = nodes.literal_block(difference.detail, difference.detail)
                    block["language"] = "diff"
                    drift_sections.append(block)
        if not drift_sections:
            drift_sections.append(
                nodes.paragraph(
                    "",
                    _("No drift: every example printed on this build what its record for this runner holds."),
                )
            )
        header = [
            _("Example"),
            *(f"{RUNNER_NAMES[r]}{_(' (this build)') if r == self.this_runner else ''}" for r in RUNNERS),
        ]
        table = make_table(rows, header=header, widths=[2, *(3 for _ in RUNNERS)], classes=["runner-matrix"])
        return untranslatable([table, *drift_sections])


DIRECTIVES: dict[str, type[SphinxDirective]] = {
    "runner-outputs": RunnerOutputsDirective,
    "runner-summary": RunnerSummaryDirective,
    "runner-matrix": RunnerMatrixDirective,
    "error-index": ErrorIndexDirective,
    "source-status": SourceStatusDirective,
}
