"""Runner-aware pages: recorded outputs of every runner beside this build's.

Three directives, registered by :mod:`autograd_notes.site.runner_directives`:

* ``runner-outputs`` (inserted by the extension into every generated example
  page, one per code cell, holding that cell's live output): the output of
  this build and, where another runner's record differs, that runner's
  output in a tab, with a sentence saying why; where the records agree, one
  output and a mark saying so.
* ``runner-summary`` (top of each example page): which runners the page's
  outputs come from, their PyTorch and when they were recorded.
* ``runner-matrix`` (the runners page): what each runner has recorded, said
  once per runner and counted from the records; then every example × every
  runner, one mark per cell (the record printed the same as this build,
  differs from it, or does not exist) whose details open on demand; then
  the differences between this build and its own runner's records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .._runner import runner_info
from ..records.compare import Difference, OutputReason, compare_live, output_difference_reason, record_cell
from ..records.record import RUNNERS, Record, load_record, record_path
from ..records.status import RecordMatch
from .errors_page import ErrorIndexDirective, SourceStatusDirective, error_links
from .gallery_rst import code_cells
from .html_nodes import HtmlBlock, HtmlCode, HtmlInline, HtmlLine, RadioTab
from .links import cell_anchor, cell_label, title_link
from .nodes import RUNNER_NAMES, Cell, compose, list_of, make_table, untranslatable

__all__ = [
    "DIRECTIVES",
    "MARKS",
    "RUNNER_NAMES",
    "RecordStatus",
    "RunnerMatrixDirective",
    "RunnerOutputsDirective",
    "RunnerSummaryDirective",
    "coverage_sentence",
    "reason_sentence",
    "record_status",
    "runner_kind",
]

logger = logging.getLogger(__name__)

CodeCellOutput = tuple[int, list[str]]
_READ_RECORDS = "autograd_notes_records"  # env.temp_data key: the records this page read
_PAGE_CELLS = "autograd_notes_page_cells"  # env.temp_data key: the first line of each code cell

MARKS = {RecordMatch.SAME: "✓", RecordMatch.DIFFERS: "≠", RecordMatch.NONE: "–"}
"""The mark of each status in the runners matrix."""


def reason_sentence(reason: OutputReason) -> str:
    """Why two runners printed otherwise, in a sentence of this build's language.

    The records layer says why as a code
    (:func:`~autograd_notes.records.compare.output_difference_reason`); the words
    are here, in the ``sphinx`` catalog, one message per code.
    """
    sentences = {
        OutputReason.TENSOR_TYPE: _(
            "Only the tensor type named in the message differs: PyTorch calls a CUDA tensor "
            "torch.cuda.FloatTensor and a CPU tensor torch.FloatTensor."
        ),
        OutputReason.NUMBERS: _(
            "Only numbers differ: CPU and GPU kernels order and round floating-point operations "
            "differently, so results agree to a tolerance, not to the last digit."
        ),
        OutputReason.BEHAVIOUR: _(
            "The runners behave differently in this cell; the text around it explains why."
        ),
    }
    return sentences[reason]


def runner_kind(runner: str) -> str:
    """The kind of a runner as sentences name it, the same in every language: ``CPU``, ``CUDA``."""
    return runner.upper()


@dataclass(frozen=True)
class RecordStatus:
    """How a runner's record of an example compares with what this build printed."""

    status: RecordMatch
    differences: tuple[Difference, ...] = ()
    outputs: tuple[tuple[list[str], list[str]], ...] = ()  # (this build's, the record's) where they differ

    @property
    def cells(self) -> list[int]:
        """The code cells (from 1) whose outputs differ."""
        return [difference.cell + 1 for difference in self.differences]


def record_status(live: list[tuple[int, list[str]]], record: Record | None) -> RecordStatus:
    """Compare this build's outputs (first line, output of each code cell) with a record."""
    if record is None:
        return RecordStatus(RecordMatch.NONE)
    differences = compare_live(live, record)
    if not differences:
        return RecordStatus(RecordMatch.SAME)
    outputs = []
    for line, output in live:
        cell = record_cell(record, line)
        if cell is not None and cell["output"] != output:
            outputs.append((output, list(cell["output"])))
    return RecordStatus(RecordMatch.DIFFERS, tuple(differences), tuple(outputs))


def coverage_sentence(runner: str, count: int, total: int) -> str:
    """How many examples ``runner`` has recorded, in a sentence of this build's language."""
    kind = runner_kind(runner)
    if count == 0:
        return _("No example has a {kind} record yet.").format(kind=kind)
    if count == total:
        return _("All {total} examples have a {kind} record.").format(total=total, kind=kind)
    return _("{count} of {total} examples have a {kind} record.").format(count=count, total=total, kind=kind)


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
        # rebuilds the environment when any of them changes (see runner_key)
        read = cast("dict[str, dict[str, Record | None]]", self.env.temp_data.setdefault(_READ_RECORDS, {}))
        if example not in read:
            read[example] = {
                runner: load_record(record_path(self.records_dir(), runner, example)) for runner in RUNNERS
            }
        return read[example]

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


def _code_above(parent: nodes.Element) -> nodes.literal_block | None:
    """The code block of the cell whose output comes next in ``parent`` (``None`` if there is none).

    The last literal block so far, unless it is an output (another cell's):
    its images may follow the code.
    """
    for node in reversed(parent.children):
        if isinstance(node, nodes.literal_block):
            return None if "runner-output" in node["classes"] else node
        if isinstance(node, nodes.container) and any(
            "runner-output" in block["classes"] for block in node.findall(nodes.literal_block)
        ):
            return None
    return None


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
        target = self._cell_target(example, line)
        if not differing:
            result: list[nodes.Node] = [_output_block(live)] if live else []
            if live:
                for runner, record, _output in others:
                    same = _("✓ Same output on the {kind} runner ({record}).").format(
                        kind=runner_kind(runner), record=self.describe(record)
                    )
                    result.append(nodes.paragraph("", same, classes=["runner-same"]))
            return [*target, *untranslatable([*result, *links])]
        return [*target, *untranslatable([self._tabs(live, differing), *links])]

    def _cell_target(self, example: str, line: int) -> list[nodes.Node]:
        """The anchor of this code cell (``cell-<n>``), for the error index's and the timeline's links.

        It goes on the cell's code, above which the cell's number is shown (a
        link to itself): a link lands on the code, not on its output, and the
        stylesheet highlights the code it targets. Where the code is not found
        (no code block before the output), the anchor stays with the output.
        """
        first_lines = [first for first, _output in self.page_cells()]
        if line not in first_lines:
            return []
        number = first_lines.index(line) + 1
        anchor = cell_anchor(number)
        target = nodes.target("", "", ids=[anchor], names=[cell_label(example, number)])
        self.state.document.note_explicit_target(target)
        parent = self.state.parent
        code = _code_above(parent)
        if code is None:
            return [target]
        text = _("Cell {number}").format(number=number)
        shown = nodes.paragraph(
            "", "", nodes.reference(text, text, refid=anchor), classes=["cell-number"], translatable=False
        )
        # the target's id moves to the node after it, the code (docutils' PropagateTargets)
        at = parent.index(code)
        parent.insert(at, target)
        parent.insert(at, shown)
        return []

    def _tabs(self, live: list[str], differing: list[tuple[str, Record, list[str]]]) -> nodes.Node:
        # unique on the page, whatever else this build reads (no counter shared by the pages)
        group = f"runner-tabs-{self.env.new_serialno('runner-tabs')}"
        info = runner_info()
        this_build = _("this build (torch {torch})").format(torch=info.torch_version)
        tabs = [(f"{RUNNER_NAMES[self.this_runner]} · {this_build}", live)]
        tabs += [(f"{RUNNER_NAMES[r]} · {self.describe(rec)}", output) for r, rec, output in differing]
        container = nodes.container(classes=["runner-tabs"])
        for index, (label, lines) in enumerate(tabs):
            container += RadioTab(
                "",
                label,
                group=group,
                input_id=f"{group}-{index}",
                checked=index == 0,
                support_smartquotes=False,  # the labels as written, like the outputs
            )
            panel = nodes.container(classes=["runner-tab-panel"])
            panel += _output_block(lines) if lines else nodes.paragraph("", _("(no output)"))
            container += panel
        why = " ".join(
            sorted({reason_sentence(output_difference_reason(live, output)) for _r, _c, output in differing})
        )
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
                "Outputs on this page ran when the site was built, on the {kind} runner: "
                "torch {torch} ({variant}), {device}."
            ).format(
                kind=runner_kind(info.device),
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
            elif runner == info.device:
                changed = compare_live(self.page_cells(), record)
                if changed:
                    text = _(
                        "{runner}: {record}. This build differs from it in {count} cell(s): "
                        "see the drift report."
                    ).format(runner=RUNNER_NAMES[runner], record=self.describe(record), count=len(changed))
                else:
                    text = _("{runner}: {record}. This build printed the same.").format(
                        runner=RUNNER_NAMES[runner], record=self.describe(record)
                    )
            else:
                text = _("{runner}: {record}.").format(
                    runner=RUNNER_NAMES[runner], record=self.describe(record)
                )
            items += nodes.list_item("", nodes.paragraph("", text))
        note += items
        return untranslatable([note])


class RunnerMatrixDirective(_RunnerDirective):
    """``.. runner-matrix::``: the runners, every example × every runner, and the drift of this build."""

    option_spec = {"gallery": directives.unchanged_required}  # noqa: RUF012 - docutils API

    def run(self) -> list[nodes.Node]:
        """Return the runners' facts, the legend, the matrix and a drift section per example that differs."""
        generated = Path(self.env.srcdir, self.options.get("gallery", "examples"))
        pages = sorted(p for p in generated.glob("*/plot_*.rst"))
        rows: list[list[Cell]] = []
        drift_sections: list[nodes.Node] = []
        recorded: dict[str, list[Record]] = {runner: [] for runner in RUNNERS}
        for page in pages:
            self.env.note_dependency(str(page))
            example = page.relative_to(generated).with_suffix(".py").as_posix()
            docname = page.relative_to(self.env.srcdir).with_suffix("").as_posix()
            records = self.records(example)
            live = [(c.first_line, c.output) for c in code_cells(page.read_text(encoding="utf-8"))]
            row: list[Cell] = [_title_link(docname)]
            for runner in RUNNERS:
                record = records[runner]
                status = record_status(live, record)
                if record is not None:
                    recorded[runner].append(record)
                row.append(self._cell(example, runner, record, status))
                if runner == self.this_runner and status.differences:
                    drift_sections += self._drift(example, status.differences)
            rows.append(row)
        if not drift_sections:
            drift_sections.append(
                nodes.paragraph(
                    "",
                    _("No drift: every example printed on this build what its record for this runner holds."),
                )
            )
        header = [_("Example"), *(self._runner_name(r) for r in RUNNERS)]
        table = make_table(rows, header=header, widths=[6, *(2 for _ in RUNNERS)], classes=["runner-matrix"])
        coverage = [
            nodes.paragraph(
                "", coverage_sentence(r, len(recorded[r]), len(pages)), classes=["runner-coverage"]
            )
            for r in RUNNERS
        ]
        return untranslatable([self._facts(recorded), *coverage, self._legend(), table, *drift_sections])

    def _runner_name(self, runner: str) -> str:
        if runner == self.this_runner:
            return _("{runner} (this build)").format(runner=RUNNER_NAMES[runner])
        return str(RUNNER_NAMES[runner])

    def _facts(self, recorded: dict[str, list[Record]]) -> nodes.Node:
        """One row per runner: the PyTorch, machine and dates of its records, said once."""
        language = self.config.language or "en"
        rows: list[list[Cell]] = []
        for runner in RUNNERS:
            records = recorded[runner]
            if not records:
                rows.append([self._runner_name(runner), "—", "—", "—"])
                continue
            torches = sorted({record["runner"]["torch"] for record in records})
            machines = sorted({record["runner"]["device_name"] for record in records})
            dates = sorted({record["recorded"] for record in records})
            when = (
                dates[0] if len(dates) == 1 else _("{first} to {last}").format(first=dates[0], last=dates[-1])
            )
            rows.append(
                [
                    self._runner_name(runner),
                    nodes.paragraph("", "", *list_of(torches, language)),
                    nodes.paragraph("", "", *list_of(machines, language)),
                    when,
                ]
            )
        header = [_("Runner"), "PyTorch", _("Machine"), _("Recorded")]
        return make_table(rows, header=header, widths=[3, 2, 3, 3], classes=["runner-facts"])

    def _legend(self) -> nodes.Node:
        legend = nodes.bullet_list(classes=["runner-legend"])
        for status, text in (
            (RecordMatch.SAME, _("{mark} same: this build printed what the record holds")),
            (RecordMatch.DIFFERS, _("{mark} differs: this build printed something else in some cells")),
            (RecordMatch.NONE, _("{mark} no record yet")),
        ):
            mark = nodes.inline(MARKS[status], MARKS[status], classes=["runner-mark", f"runner-{status}"])
            legend += nodes.list_item("", nodes.paragraph("", "", *compose(text, mark=mark)))
        note = _("Open a mark for its record: the PyTorch, machine, date and running time, and what differs.")
        return nodes.container("", legend, nodes.paragraph("", note), classes=["runner-legend-box"])

    def _cell(self, example: str, runner: str, record: Record | None, status: RecordStatus) -> nodes.Node:
        """One mark, its details (the record, what differs and why) on demand."""
        label = {
            RecordMatch.SAME: _("same"),
            RecordMatch.DIFFERS: _("differs"),
            RecordMatch.NONE: _("no record yet"),
        }[status.status]
        mark = [
            HtmlInline(
                MARKS[status.status],
                MARKS[status.status],
                tag="span",
                classes=["runner-mark"],
                aria_hidden="true",
            ),
            HtmlInline(label, label, tag="span", classes=["runner-mark-label"]),
        ]
        if record is None:
            return HtmlLine(
                "",
                "",
                *mark,
                tag="span",
                classes=["runner-cell", "runner-none"],
                title=label,
                support_smartquotes=False,
            )
        lines: list[list[nodes.Node]] = [[nodes.Text(self.describe(record))]]
        if status.status == RecordMatch.SAME:
            lines.append([nodes.Text(_("This build printed the same."))])
        else:
            cells = list_of([str(cell) for cell in status.cells], self.config.language or "en")
            lines.append(
                [
                    nodes.Text(
                        _("Cells where this build printed something else: {cells}.").format(
                            cells="".join(node.astext() for node in cells)
                        )
                    )
                ]
            )
            if runner == self.this_runner:
                below = _("The differences follow the table.")
                lines.append([nodes.reference(below, below, refid=_drift_id(example), internal=True)])
            else:
                why = {
                    reason_sentence(output_difference_reason(live, other)) for live, other in status.outputs
                }
                lines += [[nodes.Text(reason)] for reason in sorted(why)]
        shown = record_path(self.records_dir(), runner, example).relative_to(self.records_dir().parent)
        lines.append([HtmlCode(shown.as_posix(), shown.as_posix())])
        details = HtmlBlock(
            "",
            *(HtmlLine("", "", *line, tag="span") for line in lines),
            tag="span",
            classes=["runner-cell-details"],
        )
        return HtmlBlock(
            "",
            HtmlLine("", "", *mark, tag="summary", title=label),
            details,
            tag="details",
            classes=["runner-cell", f"runner-{status.status}"],
            support_smartquotes=False,  # the records' words as written
        )

    def _drift(self, example: str, differences: tuple[Difference, ...]) -> list[nodes.Node]:
        section: list[nodes.Node] = [
            nodes.rubric("", _("Drift: {example}").format(example=example), ids=[_drift_id(example)])
        ]
        for difference in differences:
            section.append(
                nodes.paragraph(
                    "",
                    _("cell {cell} (lines {first}-{last}):").format(
                        cell=difference.cell + 1, first=difference.lines[0], last=difference.lines[1]
                    ),
                )
            )
            block = nodes.literal_block(difference.detail, difference.detail)
            block["language"] = "diff"
            section.append(block)
        return section


def _drift_id(example: str) -> str:
    return str(nodes.make_id(f"drift-{example}"))


def _title_link(docname: str) -> nodes.paragraph:
    """A paragraph linking to ``docname``, named by its title in this build's language."""
    return nodes.paragraph("", "", title_link(docname))


DIRECTIVES: dict[str, type[SphinxDirective]] = {
    "runner-outputs": RunnerOutputsDirective,
    "runner-summary": RunnerSummaryDirective,
    "runner-matrix": RunnerMatrixDirective,
    "error-index": ErrorIndexDirective,
    "source-status": SourceStatusDirective,
}
