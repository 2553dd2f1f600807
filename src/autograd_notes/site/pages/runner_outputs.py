"""The ``runner-outputs`` directive: a code cell's output, and other runners' where they differ.

The extension inserts one into every generated example page per code cell,
holding that cell's live output: the output of this build and, where another
runner's record differs, that runner's output in a tab, with a sentence saying
why; where the records agree, one output and a mark saying so. Records agree as
drift and the page's summary compare them (:func:`~autograd_notes.records.drift.printed.same_output`):
where only PyTorch's own frames or a float's last printed digit differ, the mark
says that too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.locale import _

from ..._device import runner_info
from ...records.drift.compare import record_cell
from ...records.drift.printed import same_output
from ...records.drift.reasons import output_difference_reason
from ...records.format.record_format import Record
from ...records.history.runners import BUILD, Baseline, RunnerRecord
from ..examples.repeated_warnings import fold_repeated_warnings
from ..i18n.zh_punctuation import join_sentences
from ..web.html_nodes import RadioTab
from ..web.links import cell_anchor, cell_label
from ..web.nodes import untranslatable
from .errors import error_links
from .runner_base import RunnerDirective
from .runner_words import reason_sentence, runner_kind, runner_name, within_release_note

__all__ = ["RunnerOutputsDirective", "localise_output"]


_INTERNAL_FRAMES = re.compile(r"^(\s*)\[(\d+) frames? inside PyTorch: (.*)\]$")
_RANK = re.compile(r"^(\s*)\[rank (\d+) of (\d+)\]$")


def localise_output(lines: list[str]) -> list[str]:
    """Translate the helper's own prose in an output: the folded PyTorch frames line, the rank line.

    Everything else an example prints (values, tables, PyTorch's messages)
    stays as printed: readers search for those texts.
    """

    def localise(line: str) -> str:
        rank = _RANK.match(line)
        if rank is not None:  # a traceback going on in another process (run_ranks)
            template = str(_("[rank {rank} of {world_size}]"))
            return rank.group(1) + template.format(rank=rank.group(2), world_size=rank.group(3))
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


class RunnerOutputsDirective(RunnerDirective):
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
            reference = live if against is BUILD else _reference_output(against, line)
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
        said = self._same_words(comparison)
        if comparison.output != comparison.reference:  # the same as drift compares, not to the letter
            said = join_sentences(
                [said, _("Only PyTorch's own frames in a traceback, or a last printed digit, differ there.")],
                self.config.language or "en",
            )
        return nodes.paragraph("", said, classes=["runner-same"])

    def _same_words(self, comparison: _CellComparison) -> str:
        run = comparison.run
        if comparison.against is BUILD:
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
        return str(same)

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
        this_build = _("this page (torch {torch})").format(torch=info.torch_version)
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
        why = join_sentences(
            sorted(
                {
                    reason_sentence(output_difference_reason(comparison.reference, comparison.output))
                    for comparison in differing
                }
            ),
            self.config.language or "en",
        )
        # the sentences quote code (device='cuda:0'), which typographic quotes would change
        container += nodes.paragraph(
            "",
            _("Why the runners differ: {why}").format(why=why),
            classes=["runner-why"],
            support_smartquotes=False,
        )
        if any(comparison.against is not BUILD for comparison in differing):
            container += nodes.paragraph("", within_release_note(), classes=["runner-why"])
        return container


@dataclass(frozen=True)
class _CellComparison:
    """One cell of another runner's record against its baseline's output (same release)."""

    run: RunnerRecord
    against: Baseline
    output: list[str]
    reference: list[str]

    @property
    def differs(self) -> bool:
        """Whether it printed otherwise, as drift and the page's summary judge (frames, last digits aside)."""
        return not same_output(self.reference, self.output)


def _cell_output(record: Record, line: int) -> list[str] | None:
    cell = record_cell(record, line)
    return None if cell is None else list(cell["output"])


def _reference_output(against: Baseline, line: int) -> list[str] | None:
    """The CPU record's output of the cell at ``line``; ``None`` where nothing is there to compare with."""
    return _cell_output(against.record, line) if isinstance(against, RunnerRecord) else None
