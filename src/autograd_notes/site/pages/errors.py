"""The error-message index and the per-source status, built from the records.

* ``error-index`` (the errors page): every error and warning any example
  documents, one section per exception type (the page's table of contents
  lists the types only). Each entry is a short summary of a message
  (:func:`~autograd_notes.site.errors.families.message_summary`), then each exact
  text (all but the first folded) in a wrapped block with a reference label
  (:func:`~autograd_notes.site.errors.families.message_label`) and links to the
  cells that raise it, named by their example's title in the page's
  language. The exact texts are on the page, so the site search finds it
  when a reader pastes an error message.
* ``source-status:: source_00N`` (the sources page): the examples that
  rebuild a source document and, per runner, whether all their checks held
  when recorded.

Example pages link their tracebacks to the index with :func:`error_links`;
each code cell of an example page carries a target ``cell-<n>`` (see
:mod:`autograd_notes.site.web.links`, set by the ``runner-outputs`` directive) for
the index's links.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

from ..._device import runner_info
from ..._events import Event
from ...records.format.record_format import RUNNERS, Record
from ..errors.families import (
    PLACEHOLDER,
    Family,
    Variant,
    collect_messages,
    event_messages,
    group_by_type,
    message_head,
    message_label,
)
from ..upstream.gallery_conf import gallery_folders
from ..web.html_nodes import HtmlBlock, HtmlCode, HtmlLine
from ..web.links import cell_label, cell_number, example_first_lines, gallery_docname, label_link, title_link
from ..web.nodes import ERROR_LINKS_CLASS, RUNNER_NAMES, compose, list_of, make_table, untranslatable
from .record_store import note_records, site_records
from .timeline_sentences import held_sentence

__all__ = [
    "ERROR_INDEX_DOC",
    "ErrorIndexDirective",
    "SourceRecordsDirective",
    "SourceStatusDirective",
    "error_links",
    "setup",
]

ERROR_INDEX_DOC = "errors"


def _language(env: BuildEnvironment) -> str:
    return str(env.config.language or "en")


def error_links(env: BuildEnvironment, events: list[Event]) -> list[nodes.Node]:
    """A line linking each documented message of a cell to its index entry."""
    if ERROR_INDEX_DOC not in env.found_docs:
        return []
    messages = list(dict.fromkeys(m for event in events for m in event_messages(event)))
    if not messages:
        return []
    # one link per summary: two texts of one message (other shapes) would read as the same words twice
    first: dict[str, tuple[str, str]] = {}
    for kind, text in messages:
        first.setdefault(message_head(text), (kind, text))
    links = [label_link(message_label(kind, text), head) for head, (kind, text) in first.items()]
    sentence = compose(
        _("Explained in the error-message index: {messages}"), messages=list_of(links, _language(env))
    )
    return untranslatable([nodes.paragraph("", "", *sentence, classes=[ERROR_LINKS_CLASS])])


def _summary(family: Family) -> nodes.paragraph:
    """The family's summary, its placeholders marked: ``Mismatch in shape ... of <shape>``.

    PyTorch's quotes stay straight, as a reader searches for them.
    """
    line = nodes.strong(support_smartquotes=False)
    position = 0
    for match in PLACEHOLDER.finditer(family.summary):
        line += nodes.Text(family.summary[position : match.start()])
        line += nodes.inline(
            match.group(0), match.group(0), classes=["error-placeholder"], support_smartquotes=False
        )
        position = match.end()
    line += nodes.Text(family.summary[position:])
    return nodes.paragraph("", "", line, classes=["error-summary"])


class ErrorIndexDirective(SphinxDirective):
    """``.. error-index::``: every documented message, a section per exception type."""

    def run(self) -> list[nodes.Node]:
        """Return one section per type, an entry per family, a target per exact message."""
        note_records(self.env)
        records = site_records(self.env).pinned
        self._runners = sorted(records)
        result: list[nodes.Node] = []
        jumps: list[nodes.Node] = []
        for group in group_by_type(collect_messages(records)):
            ident = nodes.make_id(f"{group.kind}-type-{group.name}")
            section = nodes.section(ids=[ident])
            section += nodes.title(group.name, group.name)
            for family in group.families:
                section += self._family(family)
            result.append(section)
            count = f" ({len(group.families)})"
            jumps += [nodes.Text(" · ")] if jumps else []
            link = nodes.reference(group.name, "", HtmlCode(group.name, group.name), refid=ident)
            jumps += [link, nodes.Text(count)]
        if not result:
            return untranslatable([nodes.paragraph("", _("No example has been recorded yet."))])
        # the page is long: a reader jumps to the type of their error (each with its number of entries)
        jump = nodes.paragraph("", "", *compose(_("Jump to a type: {types}."), types=jumps))
        jump["classes"].append("error-jump")
        return untranslatable([jump, *result])

    def _family(self, family: Family) -> nodes.Node:
        """The summary, the first exact text, and the others folded: they differ by shape or number.

        A link to a folded text opens it (a browser opens a ``<details>`` to
        show the target of a link), and the site search reads folded text.
        """
        entry = nodes.container(ids=[family.label], classes=["error-entry"])
        entry += _summary(family)
        first, *others = family.variants
        entry += self._variant(first)
        if others:
            label = (
                _("One more text of this message, with other shapes, numbers or names")
                if len(others) == 1
                else _("{count} more texts of this message, with other shapes, numbers or names").format(
                    count=len(others)
                )
            )
            entry += HtmlBlock(
                "",
                HtmlLine("", label, tag="summary"),
                *(self._variant(variant) for variant in others),
                tag="details",
                classes=["error-more-variants"],
            )
        return entry

    def _variant(self, variant: Variant) -> nodes.Node:
        box = nodes.container(ids=[variant.label], names=[variant.label], classes=["error-variant"])
        self.state.document.note_explicit_target(box)
        block = nodes.literal_block(variant.text, variant.text, classes=["error-text"])
        block["language"] = "none"
        box += block
        cells: dict[str, list[int]] = {}
        for occurrence in variant.occurrences:
            number = cell_number(example_first_lines(self.env, occurrence.example), occurrence.line)
            if number not in cells.setdefault(occurrence.example, []):
                cells[occurrence.example].append(number)
        language = _language(self.env)
        places = []
        for example, numbers in cells.items():
            links = [
                label_link(cell_label(example, n), nodes.Text(_("cell {number}").format(number=n)))
                for n in sorted(numbers)
            ]
            places.append(
                compose(
                    _("{example}, {cells}"),
                    example=title_link(gallery_docname(self.env, example)),
                    cells=list_of(links, language),
                )
            )
        if len(places) == 1:
            seen = compose(_("Explained in: {example}"), example=places[0])
            box += nodes.paragraph("", "", *seen, classes=["error-examples"])
        else:
            box += nodes.paragraph("", _("Explained in:"), classes=["error-examples"])
            examples = nodes.bullet_list(classes=["error-examples"])
            for place in places:
                examples += nodes.list_item("", nodes.paragraph("", "", *place))
            box += examples
        if len(self._runners) > 1:
            runners = sorted({o.runner for o in variant.occurrences}, key=RUNNERS.index)
            recorded = compose(
                _("Recorded on: {runners}."), runners=list_of([RUNNER_NAMES[r] for r in runners], language)
            )
            box += nodes.paragraph("", "", *recorded, classes=["error-runners"])
        return box


_CITATION = re.compile(r":ref:`(source_\d{3})`")


class SourceStatusDirective(SphinxDirective):
    """``.. source-status:: source_00N``: its examples, and whether their checks hold per runner."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """Return a table: example × runner, with the checks that held."""
        source = self.arguments[0]
        gallery = gallery_folders(self.config, self.env.srcdir)[0].source
        note_records(self.env)
        records = site_records(self.env).pinned
        examples = []
        for script in sorted(gallery.glob("*/plot_*.py")):
            self.env.note_dependency(str(script))
            if source in _CITATION.findall(script.read_text(encoding="utf-8")):
                examples.append(script.relative_to(gallery).as_posix())
        timelines = site_records(self.env).timelines
        # a column per runner that has a record, and this build's: none that no record backs
        runners = [r for r in RUNNERS if records.get(r) or r == runner_info().device]
        rows = [
            [
                nodes.paragraph("", "", title_link(gallery_docname(self.env, example))),
                *(self._status(records.get(runner, {}).get(example)) for runner in runners),
                (
                    held_sentence(timelines[example], self.config.language or "en")
                    if example in timelines
                    else _("no record yet")
                ),
            ]
            for example in examples
        ]
        header = [
            _("Example"),
            *(str(RUNNER_NAMES[runner]) for runner in runners),
            _("Across PyTorch releases"),
        ]
        widths = [3, *(2 for _ in runners), 3]
        table = make_table(rows, header=header, widths=widths, classes=["source-status"])
        return untranslatable([table])

    @staticmethod
    def _status(record: Record | None) -> str:
        """Whether a record's checks hold; its PyTorch and date are said once, by ``source-records``."""
        if record is None:
            return _("no record yet")
        events = [e for cell in record["cells"] for e in cell["events"]]
        failing = sum(not e["holds"] for e in events)
        if failing:
            return _("{failing} of {count} checks do not hold").format(failing=failing, count=len(events))
        return _("all {count} checks hold").format(count=len(events))


class SourceRecordsDirective(SphinxDirective):
    """``.. source-records::``: once, above the sources' tables, the records they come from.

    Per runner with records: its PyTorch build(s) and the day, or the first
    and last days, they were recorded.
    """

    def run(self) -> list[nodes.Node]:
        """Return one sentence listing each runner's PyTorch and recording dates."""
        note_records(self.env)
        records = site_records(self.env).pinned
        language = _language(self.env)
        parts = []
        for runner in RUNNERS:
            found = list(records.get(runner, {}).values())
            if not found:
                continue
            torches = ", ".join(sorted({r["runner"]["torch"] for r in found}))
            days = sorted({r["recorded"] for r in found})
            dates = days[0] if len(days) == 1 else _("{first} to {last}").format(first=days[0], last=days[-1])
            parts.append(
                _("{runner}: torch {torch}, recorded {dates}").format(
                    runner=str(RUNNER_NAMES[runner]), torch=torches, dates=dates
                )
            )
        if not parts:
            return []
        sentence = compose(
            _("The tables below come from these records: {runners}."), runners=list_of(parts, language)
        )
        return untranslatable([nodes.paragraph("", "", *sentence, classes=["source-records"])])


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the error-message index's directives and the per-source status."""
    app.add_directive("error-index", ErrorIndexDirective)
    app.add_directive("source-status", SourceStatusDirective)
    app.add_directive("source-records", SourceRecordsDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
