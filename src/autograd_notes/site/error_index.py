"""Every error and warning the examples document, grouped for the error-message index.

Collected from the records (:mod:`autograd_notes.records.record`): each
``expect_error`` or ``expect_warning`` event gives the exact text PyTorch
printed. Texts that share their first clause (e.g. every "one of the
variables needed for gradient computation has been modified by an inplace
operation" whatever the tensor) form one *family*; each exact text is a
*variant*, with the examples, cells and runners where it was seen. Pure
functions: no Sphinx.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from ..records.record import Record

__all__ = [
    "Family",
    "Occurrence",
    "Variant",
    "collect_messages",
    "event_messages",
    "message_head",
    "message_label",
]


@dataclass(frozen=True)
class Occurrence:
    """Where a message was seen: example, source line of the check, runner."""

    example: str
    line: int
    runner: str


@dataclass
class Variant:
    """One exact text."""

    text: str
    label: str
    occurrences: list[Occurrence] = field(default_factory=list)


@dataclass
class Family:
    """Messages of one kind that start alike."""

    kind: str  # "error" or "warning"
    head: str
    variants: list[Variant] = field(default_factory=list)


def message_label(kind: str, text: str) -> str:
    """A stable reference label for one exact message, e.g. ``error-3f2a…``."""
    return f"{kind}-" + hashlib.sha256(text.encode()).hexdigest()[:12]


_CLAUSE = re.compile(r"^(.*?)(?:[.:;]\s|\s\(|\[|$)")


def message_head(text: str) -> str:
    """The first clause of a message: the part a reader would search for."""
    first_line = text.splitlines()[0] if text else ""
    kind, _, message = first_line.partition(": ")
    match = _CLAUSE.match(message)
    clause = (match.group(1) if match else message).strip() or message
    return f"{kind}: {clause}"


def event_messages(event: dict[str, object]) -> list[tuple[str, str]]:
    """The (kind, exact text) of each error or warning an event observed."""
    if event["kind"] == "error" and event.get("raised"):
        return [("error", f"{event['raised']}: {event['message']}")]
    if event["kind"] == "warning":
        return [("warning", f"{w['category']}: {w['message']}") for w in event["warnings"]]  # type: ignore[attr-defined]
    return []


def collect_messages(records: dict[str, dict[str, Record]]) -> list[Family]:
    """Group the messages of ``records`` (runner -> example -> record).

    Families are sorted errors first, then by head; variants by text;
    occurrences by example, line and runner.
    """
    variants: dict[tuple[str, str], Variant] = {}
    for runner, by_example in sorted(records.items()):
        for example, record in sorted(by_example.items()):
            for cell in record["cells"]:
                for event in cell["events"]:
                    for kind, text in event_messages(event):
                        variant = variants.setdefault((kind, text), Variant(text, message_label(kind, text)))
                        occurrence = Occurrence(example, int(event["line"]), runner)
                        if occurrence not in variant.occurrences:
                            variant.occurrences.append(occurrence)
    families: dict[tuple[str, str], Family] = {}
    for (kind, text), variant in sorted(variants.items()):
        family = families.setdefault((kind, message_head(text)), Family(kind, message_head(text)))
        variant.occurrences.sort(key=lambda o: (o.example, o.line, o.runner))
        family.variants.append(variant)
    return [families[key] for key in sorted(families, key=lambda k: (k[0] != "error", k[1].lower()))]
