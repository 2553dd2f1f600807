"""The error-message index and the per-source status, built from the records.

* ``error-index`` (the errors page): every error and warning any example
  documents, by family, each exact text with a reference label
  (:func:`~autograd_notes.site.error_index.message_label`) and links to the
  examples that explain it. Its text is on the page, so the site search
  finds it when a reader pastes an error message.
* ``source-status:: source_00N`` (the sources page): the examples that
  rebuild a source document and, per runner, whether all their checks held
  when recorded.

Example pages link their tracebacks to the index with
:func:`error_links`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

from ..records.record import RUNNERS, Record, load_record
from .error_index import Variant, collect_messages, event_messages, message_head, message_label
from .gallery_conf import gallery_folders
from .nodes import doc_link, make_table, untranslatable

__all__ = [
    "ERROR_INDEX_DOC",
    "ErrorIndexDirective",
    "SourceStatusDirective",
    "error_links",
    "load_all_records",
]

ERROR_INDEX_DOC = "errors"


def load_all_records(records: Path) -> dict[str, dict[str, Record]]:
    """Every record under ``records``: runner -> example (``section/plot_x.py``) -> record."""
    found: dict[str, dict[str, Record]] = {}
    for runner in RUNNERS:
        folder = records / runner
        for path in sorted(folder.rglob("*.json")):
            record = load_record(path)
            if record is not None:
                found.setdefault(runner, {})[path.relative_to(folder).with_suffix(".py").as_posix()] = record
    return found


def _label_link(label: str, text: str) -> pending_xref:
    ref: pending_xref = pending_xref(
        "", refdomain="std", reftype="ref", reftarget=label, refexplicit=True, refwarn=True
    )
    ref += nodes.literal(text, text)
    return ref


def _gallery_docname(env: Any, example: str) -> str:
    return gallery_folders(env.config, env.srcdir)[0].docname(example)


def error_links(env: Any, events: list[dict[str, Any]]) -> list[nodes.Node]:
    """A line linking each documented message of a cell to its index entry."""
    if ERROR_INDEX_DOC not in env.found_docs:
        return []
    links: list[nodes.Node] = []
    for kind, text in [message for event in events for message in event_messages(event)]:
        if links:
            links.append(nodes.Text(", "))
        links.append(_label_link(message_label(kind, text), message_head(text)))
    if not links:
        return []
    return untranslatable(
        [nodes.paragraph("", _("Explained in the error-message index: "), *links, classes=["error-links"])]
    )


class ErrorIndexDirective(SphinxDirective):
    """``.. error-index::``: every documented message, by family."""

    def run(self) -> list[nodes.Node]:
        """Return one section per family, with a target per exact message."""
        records = load_all_records(Path(self.config.autograd_notes_records))
        result: list[nodes.Node] = []
        for family in collect_messages(records):
            section = nodes.section(ids=[nodes.make_id(f"{family.kind}-{family.head}")])
            section += nodes.title("", family.head)
            for variant in family.variants:
                section += self._variant(variant)
            result.append(section)
        if not result:
            result.append(nodes.paragraph("", _("No example has been recorded yet.")))
        return untranslatable(result)

    def _variant(self, variant: Variant) -> nodes.Node:
        box = nodes.container(ids=[variant.label], names=[variant.label], classes=["error-entry"])
        self.state.document.note_explicit_target(box)
        block = nodes.literal_block(variant.text, variant.text, classes=["error-text"])
        block["language"] = "none"
        box += block
        seen = nodes.paragraph("", _("Explained in: "))
        by_place: dict[tuple[str, int], list[str]] = {}
        for occurrence in variant.occurrences:
            by_place.setdefault((occurrence.example, occurrence.line), []).append(occurrence.runner)
        for n, ((example, line), runners) in enumerate(by_place.items()):
            if n:
                seen += nodes.Text("; ")
            seen += doc_link(_gallery_docname(self.env, example), f"{example}, line {line}").children[0]
            seen += nodes.Text(f" ({', '.join(runners)})")
        box += seen
        return box


_CITATION = re.compile(r":ref:`(source_\d{3})`")


class SourceStatusDirective(SphinxDirective):
    """``.. source-status:: source_00N``: its examples, and whether their checks hold per runner."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """Return a table: example × runner, with the checks that held."""
        source = self.arguments[0]
        gallery = gallery_folders(self.config, self.env.srcdir)[0].source
        records = load_all_records(Path(self.config.autograd_notes_records))
        examples = []
        for script in sorted(gallery.glob("*/plot_*.py")):
            self.env.note_dependency(str(script))
            if source in _CITATION.findall(script.read_text(encoding="utf-8")):
                examples.append(script.relative_to(gallery).as_posix())
        rows = [
            [
                doc_link(_gallery_docname(self.env, example), example, literal=True),
                *(self._status(records.get(runner, {}).get(example)) for runner in RUNNERS),
            ]
            for example in examples
        ]
        header = [_("Example"), *(_("{runner} runner").format(runner=runner) for runner in RUNNERS)]
        table = make_table(rows, header=header, widths=[3, *(2 for _ in RUNNERS)], classes=["source-status"])
        return untranslatable([table])

    @staticmethod
    def _status(record: Record | None) -> str:
        if record is None:
            return _("no record yet")
        events = [e for cell in record["cells"] for e in cell["events"]]
        failing = sum(not e["holds"] for e in events)
        torch = record["runner"]["torch"]
        if failing:
            return _("{failing} of {count} checks do not hold (torch {torch}, {date})").format(
                failing=failing, count=len(events), torch=torch, date=record["recorded"]
            )
        return _("all {count} checks hold (torch {torch}, {date})").format(
            count=len(events), torch=torch, date=record["recorded"]
        )
