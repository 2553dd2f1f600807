"""The ``runner-matrix`` directive, the runners page: every example × every runner, and this build's drift.

What each runner and release has recorded, one row each, counted from the
records; then every example × every runner and release, one mark per cell
(the record printed the same, differs, or does not exist) whose details open
on demand; then the differences between this build and its own runner's records.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.locale import _

from ...records.drift.compare import Difference
from ...records.drift.reasons import output_difference_reason
from ...records.format.record import record_path
from ...records.format.status import RecordMatch
from ...records.history.runners import BUILD, Baseline, RunnerRecord, RunnerRelease, record_outputs
from ..i18n.zh_punctuation import join_sentences
from ..upstream.gallery_rst import code_cells
from ..web.html_nodes import HtmlBlock, HtmlCode, HtmlInline, HtmlLine, HtmlList
from ..web.links import title_link
from ..web.nodes import Cell, compose, list_of, make_table, untranslatable
from .runner_base import CodeCellOutput, RunnerDirective
from .runner_facts import builds_note, facts_table
from .runner_status import RecordStatus, record_status
from .runner_words import (
    coverage_sentence,
    reason_sentence,
    release_coverage_sentence,
    runner_name,
    within_release_note,
)

__all__ = ["MARKS", "UNCOMPARED_MARK", "RunnerMatrixDirective"]

MARKS = {RecordMatch.SAME: "✓", RecordMatch.DIFFERS: "≠", RecordMatch.NONE: "–"}
"""The mark of each status in the runners matrix."""
UNCOMPARED_MARK = "?"
"""The mark of a record that has no CPU record of its release to be compared with."""

_Example = tuple[str, str, list[CodeCellOutput], list[RunnerRecord]]
"""An example, its page's docname, its live outputs (first line, output of each code cell), its records."""


def _compared_status(run: RunnerRecord, against: Baseline, live: list[CodeCellOutput]) -> RecordStatus | None:
    """``run`` against this build's outputs or its release's CPU record; ``None``: nothing to compare with."""
    if against is BUILD:
        return record_status(live, run.record, run.earlier_from)
    if isinstance(against, RunnerRecord):
        return record_status(record_outputs(against.record), run.record, run.earlier_from)
    return None


class RunnerMatrixDirective(RunnerDirective):
    """``.. runner-matrix::``: the runners, every example × every runner, and the drift of this build."""

    option_spec = {"gallery": directives.unchanged_required}  # noqa: RUF012 - docutils API

    def run(self) -> list[nodes.Node]:
        """Return the runners' facts, the legend, the matrix and a drift section per example that differs.

        The matrix has this build's runner and one column per other runner and
        release that has a record (:func:`~autograd_notes.records.history.runners.page_runners`):
        none for a runner no record backs.
        """
        generated = Path(self.env.srcdir, self.options.get("gallery", "examples"))
        pages = sorted(p for p in generated.glob("*/plot_*.rst"))
        drift_sections: list[nodes.Node] = []
        examples = self._examples(generated, pages)
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
                first_lines = [first for first, _output in live]
                marks.append((kind, self._cell(example, run, compared, against, first_lines)))
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
        notes = [nodes.paragraph("", within_release_note())] if columns else []
        all_runs = [run for *_page, runs in examples for run in runs]
        language = self.config.language or "en"
        facts = facts_table(all_runs, len(pages), self.this_runner, self._own_name(), language)
        builds = builds_note(all_runs)
        # with this build's runner alone and nothing that differs, the matrix would be one column of
        # "same": the summary line says it, and each example's page shows its own record
        matrix = [self._legend(), table] if columns or drift_sections else []
        if not columns:
            matrix.append(
                nodes.paragraph(
                    "",
                    _(
                        "No GPU has recorded the examples yet: once one has, a table here compares it with "
                        "the CPU, one row per section of the gallery."
                    ),
                )
            )
        return untranslatable([summary, facts, *builds, *notes, *matrix, *drift_sections])

    def _examples(self, generated: Path, pages: list[Path]) -> list[_Example]:
        """Each example page's example, docname, live outputs and records; each page a dependency."""
        examples: list[_Example] = []
        for page in pages:
            self.env.note_dependency(str(page))
            example = page.relative_to(generated).with_suffix(".py").as_posix()
            docname = page.relative_to(self.env.srcdir).with_suffix("").as_posix()
            live = [(c.first_line, c.output) for c in code_cells(page.read_text(encoding="utf-8"))]
            examples.append((example, docname, live, self.records(example)))
        return examples

    def _summary(self, own: int, counts: dict[RunnerRelease, int], total: int, drift: int) -> str:
        """One sentence: drift or none on this build's runner, and how many examples each runner recorded."""
        if drift:
            verdict = _(
                "{count} of {total} examples printed here a different output than their earlier "
                "recorded run on the same runner; the differences follow the table."
            ).format(count=drift, total=total)
        else:
            verdict = _(
                "Every example printed here the same output as its earlier recorded run on the same runner."
            )
        coverage = [coverage_sentence(self.this_runner, own, total)]
        coverage += [release_coverage_sentence(c.device, c.release, counts[c], total) for c in counts]
        return join_sentences([verdict, *coverage], self.config.language or "en")

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
        return _("{runner} (this site)").format(runner=runner_name(self.this_runner))

    def _column_name(self, column: RunnerRelease) -> str:
        """``CUDA runner · 2.11.0``: a runner and the PyTorch release of its records."""
        return f"{runner_name(column.device)} · {column.release}"

    def _legend(self) -> nodes.Node:
        legend = nodes.bullet_list(classes=["runner-legend"])
        for status, text in (
            (RecordMatch.SAME, _("{mark} same: the page shows what the record holds")),
            (RecordMatch.DIFFERS, _("{mark} differs: the page shows something else in some cells")),
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
        self,
        example: str,
        run: RunnerRecord | None,
        status: RecordStatus | None,
        against: Baseline = BUILD,
        first_lines: list[int] | None = None,
    ) -> nodes.Node:
        """One mark, its details (the record, what differs from what, and why) on demand.

        ``first_lines``: the first line of each code cell of the example's page (where a
        record is of an earlier version of it, the details name the cell it is from).

        ``status`` is ``None`` where the record has nothing to be compared
        with (no CPU record of its release); ``against`` is what it was
        compared with (:func:`~autograd_notes.records.history.runners.baseline`).
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
        earlier = self.earlier_nodes(run, example, first_lines or [], here=False)
        lines += [earlier] if earlier else []
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
        self, example: str, run: RunnerRecord, status: RecordStatus | None, against: Baseline
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
                _("Its page shows the same output.")
                if against is BUILD
                else _("It printed what the CPU printed with PyTorch {release}.").format(release=release)
            )
            return [[nodes.Text(same)]]
        cells = "".join(
            node.astext()
            for node in list_of([str(cell) for cell in status.cells], self.config.language or "en")
        )
        differs = (
            _("Cells where its page shows something else: {cells}.")
            if against is BUILD
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
        title = _("Differences from the record: {example}").format(example=example)
        section: list[nodes.Node] = [nodes.rubric("", title, ids=[_drift_id(example)])]
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
