"""Runner-aware pages: recorded outputs of every runner beside this build's.

Three directives, registered by :mod:`autograd_notes.site.runner_directives`:

* ``runner-outputs`` (inserted by the extension into every generated example
  page, one per code cell, holding that cell's live output): the output of
  this build and, where another runner's record differs, that runner's
  output in a tab, with a sentence saying why; where the records agree, one
  output and a mark saying so.
* ``runner-summary`` (top of each example page): which runners the page's
  outputs come from, their machine, PyTorch and when they were recorded.
* ``runner-matrix`` (the runners page): what each runner and release has
  recorded, one row each, counted from the records; then every example ×
  every runner and release, one mark per cell (the record printed the same,
  differs, or does not exist) whose details open on demand; then the
  differences between this build and its own runner's records.

The runners are those that have a record
(:mod:`autograd_notes.records.runners`): this build's, and every GPU runner of
any release, never a column or tab that no record backs. A record of this
build's release is compared with what this build printed; a GPU record of
another release with the CPU record of that release, never across releases.
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
from ..records.record import Record, record_path
from ..records.releases import release_of
from ..records.runners import (
    BUILD,
    RunnerRecord,
    RunnerRelease,
    baseline,
    example_runner_records,
    page_runners,
    record_outputs,
)
from ..records.status import RecordMatch
from .errors_page import ErrorIndexDirective, SourceRecordsDirective, SourceStatusDirective, error_links
from .gallery_rst import code_cells
from .html_nodes import HtmlBlock, HtmlCode, HtmlInline, HtmlLine, HtmlList, RadioTab
from .links import cell_anchor, cell_label, title_link
from .nodes import RUNNER_NAMES, Cell, compose, list_of, make_table, untranslatable
from .repeated_warnings import fold_repeated_warnings

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
UNCOMPARED_MARK = "?"
"""The mark of a record that has no CPU record of its release to be compared with."""


def runner_name(device: str) -> str:
    """A device's runner as a label: ``CUDA runner``; a device the site has no name for, ``XYZ``."""
    return str(RUNNER_NAMES[device]) if device in RUNNER_NAMES else runner_kind(device)


def release_coverage_sentence(device: str, release: str, count: int, total: int) -> str:
    """How many examples a runner has recorded with one PyTorch release, in this build's language."""
    kind = runner_kind(device)
    if count == total:
        return _("All {total} examples have a {kind} record of PyTorch {release}.").format(
            total=total, kind=kind, release=release
        )
    return _("{count} of {total} examples have a {kind} record of PyTorch {release}.").format(
        count=count, total=total, kind=kind, release=release
    )


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

    @property
    def this_release(self) -> str:
        return release_of(runner_info().torch_version)

    def records(self, example: str) -> list[RunnerRecord]:
        """Every record of ``example``, each runner and release, read once per page (summary and cells)."""
        # no note_dependency: records are hashed into a config value that
        # rebuilds the environment when any of them changes (see runner_key)
        read = cast("dict[str, list[RunnerRecord]]", self.env.temp_data.setdefault(_READ_RECORDS, {}))
        if example not in read:
            read[example] = example_runner_records(self.records_dir(), example)
        return read[example]

    def own_run(self, runs: list[RunnerRecord]) -> RunnerRecord | None:
        """The record of this build's runner and release (``records/<device>``), if there is one."""
        own = [run for run in runs if run.runner.pinned and run.runner.device == self.this_runner]
        return own[0] if own else None

    def others(self, runs: list[RunnerRecord]) -> list[tuple[RunnerRecord, RunnerRecord | str | None]]:
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


def _repeats_line(count: int) -> str:
    """The line under a warning printed ``count`` times in a row (shown once), in the page's language."""
    return str(_("[the warning above was printed {count} times]")).format(count=count)


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
    text = "\n".join(fold_repeated_warnings(localise_output(lines), _repeats_line))
    block = nodes.literal_block(text, text, classes=["sphx-glr-script-out", "runner-output"])
    block["language"] = "autograd-output"  # plain text, show_state tables marked (site.output_lexer)
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
        runs = self.records(example)
        compared = []
        for run, against in self.others(runs):
            output = _cell_output(run.record, line)
            reference = live if against == BUILD else _reference_output(against, line)
            if output is not None and reference is not None:
                compared.append(_CellComparison(run, against, output, reference))
        differing = [comparison for comparison in compared if comparison.differs]
        own = self.own_run(runs)
        own_cell = record_cell(own.record, line) if own is not None else None
        links = error_links(self.env, own_cell["events"]) if own_cell is not None else []
        target = self._cell_target(example, line)
        if not differing:
            result: list[nodes.Node] = [_output_block(live)] if live else []
            if live:
                result += [self._same(comparison) for comparison in compared]
            return [*target, *untranslatable([*result, *links])]
        return [*target, *untranslatable([self._tabs(live, differing), *links])]

    def _same(self, comparison: _CellComparison) -> nodes.Node:
        """The line saying another runner printed the same, in this build or in its own release."""
        run = comparison.run
        if comparison.against == BUILD:
            same = _("✓ Same output on the {kind} runner ({record}).").format(
                kind=runner_kind(run.runner.device), record=self.describe(run.record)
            )
        else:
            same = _(
                "✓ The {kind} runner printed what the CPU printed with PyTorch {release} ({record})."
            ).format(
                kind=runner_kind(run.runner.device),
                release=run.runner.release,
                record=self.describe(run.record),
            )
        return nodes.paragraph("", same, classes=["runner-same"])

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

    def _tabs(self, live: list[str], differing: list[_CellComparison]) -> nodes.Node:
        """Tabs: this build's output, then each runner that printed otherwise than the CPU of its release.

        A runner of another release comes after that release's CPU output,
        unless the CPU printed there what this build prints.
        """
        # unique on the page, whatever else this build reads (no counter shared by the pages)
        group = f"runner-tabs-{self.env.new_serialno('runner-tabs')}"
        info = runner_info()
        this_build = _("this build (torch {torch})").format(torch=info.torch_version)
        tabs = [(f"{runner_name(self.this_runner)} · {this_build}", live)]
        for comparison in differing:
            against = comparison.against
            if isinstance(against, RunnerRecord) and comparison.reference != live:
                cpu_tab = (self.runner_label(against), comparison.reference)
                if cpu_tab not in tabs:
                    tabs.append(cpu_tab)
            tabs.append((self.runner_label(comparison.run), comparison.output))
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
            sorted(
                {
                    reason_sentence(output_difference_reason(comparison.reference, comparison.output))
                    for comparison in differing
                }
            )
        )
        container += nodes.paragraph(
            "", _("Why the runners differ: {why}").format(why=why), classes=["runner-why"]
        )
        if any(comparison.against != BUILD for comparison in differing):
            container += nodes.paragraph("", _within_release_note(), classes=["runner-why"])
        return container


@dataclass(frozen=True)
class _CellComparison:
    """One cell of another runner's record against its baseline's output (same release)."""

    run: RunnerRecord
    against: RunnerRecord | str | None
    output: list[str]
    reference: list[str]

    @property
    def differs(self) -> bool:
        return self.output != self.reference


def _cell_output(record: Record, line: int) -> list[str] | None:
    cell = record_cell(record, line)
    return None if cell is None else list(cell["output"])


def _reference_output(against: RunnerRecord | str | None, line: int) -> list[str] | None:
    """The CPU record's output of the cell at ``line``; ``None`` where nothing is there to compare with."""
    return _cell_output(against.record, line) if isinstance(against, RunnerRecord) else None


def _compared_status(
    run: RunnerRecord, against: RunnerRecord | str | None, live: list[CodeCellOutput]
) -> RecordStatus | None:
    """``run`` against this build's outputs or its release's CPU record; ``None``: nothing to compare with."""
    if against == BUILD:
        return record_status(live, run.record)
    if isinstance(against, RunnerRecord):
        return record_status(record_outputs(against.record), run.record)
    return None


def _within_release_note() -> str:
    return _(
        "A GPU record of another PyTorch release is compared with the CPU record of that same release, "
        "never with this build's."
    )


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
        runs = self.records(example)
        items = nodes.bullet_list()
        own = self.own_run(runs)
        own_line = self._own_line(example, own.record if own is not None else None)
        items += nodes.list_item("", nodes.paragraph("", own_line))
        for run, against in self.others(runs):
            items += nodes.list_item("", nodes.paragraph("", self._other_line(run, against)))
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
        changed = compare_live(self.page_cells(), record)
        if changed:
            return _(
                "{runner}: {record}. This build differs from it in {count} cell(s): see the drift report."
            ).format(runner=runner_name(runner), record=self.describe(record), count=len(changed))
        return _("{runner}: {record}. This build printed the same.").format(
            runner=runner_name(runner), record=self.describe(record)
        )

    def _other_line(self, run: RunnerRecord, against: RunnerRecord | str | None) -> str:
        """Another runner's record; of another release, how it compares with that release's CPU."""
        name, record = runner_name(run.runner.device), self.describe(run.record)
        if against == BUILD:
            return _("{runner}: {record}.").format(runner=name, record=record)
        if not isinstance(against, RunnerRecord):
            return _("{runner}: {record}. No CPU record of PyTorch {release} to compare it with.").format(
                runner=name, record=record, release=run.runner.release
            )
        status = record_status(record_outputs(against.record), run.record)
        if status.status == RecordMatch.SAME:
            return _("{runner}: {record}. It printed what the CPU printed with PyTorch {release}.").format(
                runner=name, record=record, release=run.runner.release
            )
        return _(
            "{runner}: {record}. It printed otherwise than the CPU with PyTorch {release} "
            "in {count} cell(s), shown beside this build's output."
        ).format(runner=name, record=record, release=run.runner.release, count=len(status.cells))


class RunnerMatrixDirective(_RunnerDirective):
    """``.. runner-matrix::``: the runners, every example × every runner, and the drift of this build."""

    option_spec = {"gallery": directives.unchanged_required}  # noqa: RUF012 - docutils API

    def run(self) -> list[nodes.Node]:
        """Return the runners' facts, the legend, the matrix and a drift section per example that differs.

        The matrix has this build's runner and one column per other runner and
        release that has a record (:func:`~autograd_notes.records.runners.page_runners`):
        none for a runner no record backs.
        """
        generated = Path(self.env.srcdir, self.options.get("gallery", "examples"))
        pages = sorted(p for p in generated.glob("*/plot_*.rst"))
        drift_sections: list[nodes.Node] = []
        examples: list[tuple[str, str, list[CodeCellOutput], list[RunnerRecord]]] = []
        for page in pages:
            self.env.note_dependency(str(page))
            example = page.relative_to(generated).with_suffix(".py").as_posix()
            docname = page.relative_to(self.env.srcdir).with_suffix("").as_posix()
            live = [(c.first_line, c.output) for c in code_cells(page.read_text(encoding="utf-8"))]
            examples.append((example, docname, live, self.records(example)))
        columns = sorted({run.runner for *_page, runs in examples for run, _against in self.others(runs)})
        own_count = 0
        counts = dict.fromkeys(columns, 0)
        # per section: per column (0: this build's runner), each example's mark with its title
        sections: dict[str, list[list[tuple[str, str, nodes.Node]]]] = {}
        for example, docname, live, runs in examples:
            own = self.own_run(runs)
            status = record_status(live, own.record if own is not None else None)
            own_count += own is not None
            marks: list[tuple[str, nodes.Node]] = [(str(status.status), self._cell(example, own, status))]
            if status.differences:
                drift_sections += self._drift(example, status.differences)
            others = {run.runner: (run, against) for run, against in self.others(runs)}
            for column in columns:
                if column not in others:
                    marks.append(
                        (str(RecordMatch.NONE), self._cell(example, None, RecordStatus(RecordMatch.NONE)))
                    )
                    continue
                run, against = others[column]
                counts[column] += 1
                compared = _compared_status(run, against, live)
                kind = "uncompared" if compared is None else str(compared.status)
                marks.append((kind, self._cell(example, run, compared, against)))
            section = sections.setdefault(docname.rsplit("/", 1)[0], [[] for _mark in marks])
            for place, (kind, mark) in zip(section, marks, strict=True):
                place.append((kind, docname, mark))
        drift = len({node["ids"][0] for node in drift_sections if node["ids"]})
        summary = nodes.paragraph(
            "", self._summary(own_count, counts, len(pages), drift), classes=["runner-summary-line"]
        )
        rows: list[list[Cell]] = [
            [_title_link(f"{folder}/index"), *(self._section_cell(cell) for cell in cells)]
            for folder, cells in sections.items()
        ]
        header = [self._own_name(), *(self._column_name(column) for column in columns)]
        table = make_table(
            rows,
            header=[_("Section"), *header],
            widths=[6, *(3 for _ in header)],
            classes=["runner-matrix"],
        )
        notes = [nodes.paragraph("", _within_release_note())] if columns else []
        facts = self._facts([run for *_page, runs in examples for run in runs], len(pages))
        return untranslatable([summary, facts, *notes, self._legend(), table, *drift_sections])

    def _summary(self, own: int, counts: dict[RunnerRelease, int], total: int, drift: int) -> str:
        """One sentence: drift or none on this build's runner, and how many examples each runner recorded."""
        if drift:
            verdict = _(
                "Drift: {count} of {total} examples printed on this build something else than "
                "their records hold (below the table)."
            ).format(count=drift, total=total)
        else:
            verdict = _(
                "No drift: every example printed on this build what its record for this runner holds."
            )
        coverage = [coverage_sentence(self.this_runner, own, total)]
        coverage += [release_coverage_sentence(c.device, c.release, counts[c], total) for c in counts]
        return " ".join([verdict, *coverage])

    def _section_cell(self, marks: list[tuple[str, str, nodes.Node]]) -> nodes.Node:
        """A section's examples on one runner: how many of each mark, each example and its mark on demand."""
        tally: dict[str, int] = {}
        for kind, _docname, _mark in marks:
            tally[kind] = tally.get(kind, 0) + 1
        symbols = {**{str(k): v for k, v in MARKS.items()}, "uncompared": UNCOMPARED_MARK}
        shown: list[nodes.Node] = []
        for kind in ("differs", "uncompared", "same", "none"):
            if kind in tally:
                shown.append(
                    HtmlInline(
                        symbols[kind],
                        f"{symbols[kind]} {tally[kind]}",
                        tag="span",
                        classes=["runner-tally", f"runner-{kind}"],
                    )
                )
        items = HtmlList(classes=["runner-examples"])
        for _kind, docname, mark in marks:
            items += nodes.list_item("", nodes.paragraph("", "", mark, nodes.Text(" "), title_link(docname)))
        return HtmlBlock(
            "",
            HtmlLine("", "", *shown, tag="summary"),
            items,
            tag="details",
            classes=["runner-section-cell"],
            support_smartquotes=False,
        )

    def _own_name(self) -> str:
        return _("{runner} (this build)").format(runner=runner_name(self.this_runner))

    def _column_name(self, column: RunnerRelease) -> str:
        """``CUDA runner · 2.11.0``: a runner and the PyTorch release of its records."""
        return f"{runner_name(column.device)} · {column.release}"

    def _facts(self, runs: list[RunnerRecord], total: int) -> nodes.Node:
        """One row per runner and release that has records: PyTorch, machine, dates and count, said once."""
        language = self.config.language or "en"
        rows: list[list[Cell]] = []
        by_runner: dict[RunnerRelease, list[Record]] = {}
        for run in runs:
            by_runner.setdefault(run.runner, []).append(run.record)
        own = [runner for runner in by_runner if runner.pinned and runner.device == self.this_runner]
        for runner in [*own, *(runner for runner in sorted(by_runner) if runner not in own)]:
            records = by_runner[runner]
            torches = sorted({record["runner"]["torch"] for record in records})
            machines = sorted({record["runner"]["device_name"] for record in records})
            dates = sorted({record["recorded"] for record in records})
            when = (
                dates[0] if len(dates) == 1 else _("{first} to {last}").format(first=dates[0], last=dates[-1])
            )
            rows.append(
                [
                    self._own_name() if runner in own else runner_name(runner.device),
                    nodes.paragraph("", "", *list_of(torches, language)),
                    nodes.paragraph("", "", *list_of(machines, language)),
                    when,
                    _("{count} of {total}").format(count=len(records), total=total),
                ]
            )
        if not own:
            rows.insert(0, [self._own_name(), "—", "—", "—", "—"])
        header = [_("Runner"), "PyTorch", _("Machine"), _("Recorded"), _("Examples")]
        return make_table(rows, header=header, widths=[3, 2, 3, 3, 2], classes=["runner-facts"])

    def _legend(self) -> nodes.Node:
        legend = nodes.bullet_list(classes=["runner-legend"])
        for status, text in (
            (RecordMatch.SAME, _("{mark} same: this build printed what the record holds")),
            (RecordMatch.DIFFERS, _("{mark} differs: this build printed something else in some cells")),
            (RecordMatch.NONE, _("{mark} no record yet")),
        ):
            mark = nodes.inline(MARKS[status], MARKS[status], classes=["runner-mark", f"runner-{status}"])
            legend += nodes.list_item("", nodes.paragraph("", "", *compose(text, mark=mark)))
        note = _(
            "Each cell counts a section's marks on one runner: open it for its examples, and a mark for "
            "its record (the PyTorch, machine, date and running time, and what differs)."
        )
        return nodes.container("", legend, nodes.paragraph("", note), classes=["runner-legend-box"])

    def _cell(
        self, example: str, run: RunnerRecord | None, status: RecordStatus | None, against: object = BUILD
    ) -> nodes.Node:
        """One mark, its details (the record, what differs from what, and why) on demand.

        ``status`` is ``None`` where the record has nothing to be compared
        with (no CPU record of its release); ``against`` is what it was
        compared with (:func:`~autograd_notes.records.runners.baseline`).
        """
        if status is None:
            label, symbol, kind = (
                _("not compared: no CPU record of its release"),
                UNCOMPARED_MARK,
                "uncompared",
            )
        else:
            label = {
                RecordMatch.SAME: _("same"),
                RecordMatch.DIFFERS: _("differs"),
                RecordMatch.NONE: _("no record yet"),
            }[status.status]
            symbol, kind = MARKS[status.status], str(status.status)
        mark = [
            HtmlInline(symbol, symbol, tag="span", classes=["runner-mark"], aria_hidden="true"),
            HtmlInline(label, label, tag="span", classes=["runner-mark-label"]),
        ]
        if run is None:
            return HtmlLine(
                "",
                "",
                *mark,
                tag="span",
                classes=["runner-cell", "runner-none"],
                title=label,
                support_smartquotes=False,
            )
        lines: list[list[nodes.Node]] = [[nodes.Text(self.describe(run.record))]]
        lines += self._compared_lines(example, run, status, against)
        shown = record_path(self.records_dir(), run.runner.folder, example).relative_to(
            self.records_dir().parent
        )
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
            classes=["runner-cell", f"runner-{kind}"],
            support_smartquotes=False,  # the records' words as written
        )

    def _compared_lines(
        self, example: str, run: RunnerRecord, status: RecordStatus | None, against: object
    ) -> list[list[nodes.Node]]:
        """What a mark's details say of the comparison: this build's, or the CPU's of the record's release."""
        release = run.runner.release
        if status is None:
            return [
                [
                    nodes.Text(
                        _("No CPU record of PyTorch {release} to compare it with.").format(release=release)
                    )
                ]
            ]
        if status.status == RecordMatch.SAME:
            same = (
                _("This build printed the same.")
                if against == BUILD
                else _("It printed what the CPU printed with PyTorch {release}.").format(release=release)
            )
            return [[nodes.Text(same)]]
        cells = "".join(
            node.astext()
            for node in list_of([str(cell) for cell in status.cells], self.config.language or "en")
        )
        differs = (
            _("Cells where this build printed something else: {cells}.")
            if against == BUILD
            else _("Cells where the CPU printed something else with PyTorch {release}: {cells}.")
        )
        lines: list[list[nodes.Node]] = [[nodes.Text(differs.format(cells=cells, release=release))]]
        if run.runner.pinned and run.runner.device == self.this_runner:
            below = _("The differences follow the table.")
            lines.append([nodes.reference(below, below, refid=_drift_id(example), internal=True)])
        else:
            why = {reason_sentence(output_difference_reason(live, other)) for live, other in status.outputs}
            lines += [[nodes.Text(reason)] for reason in sorted(why)]
        return lines

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
    "source-records": SourceRecordsDirective,
}
