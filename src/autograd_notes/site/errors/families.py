"""Every error and warning the examples document, grouped for the error-message index.

Collected from the records (:mod:`autograd_notes.records.format.record`): each
``expect_error`` or ``expect_warning`` event gives the exact text PyTorch
printed. The index is grouped by exception type (``RuntimeError``,
``UserWarning``, ...); within a type, texts that say the same thing about
different tensors (e.g. every "one of the variables needed for gradient
computation has been modified by an inplace operation", whatever the
tensor's shape and the node that saved it) form one *family*, named by a
short *summary*: the message's first sentence with its varying parts
replaced by placeholders (``<tensor>``, ``<shape>``, ``<op>``, ``<n>``),
shortened at a clause boundary when it is long. Each exact text is a
*variant*, with the examples, lines and runners where it was seen. Pure
functions: no Sphinx.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..._events import Event
from ...records.format.record_format import Record
from ...records.history.runners import RunnerRecord

__all__ = [
    "PLACEHOLDER",
    "ErrorType",
    "Family",
    "Occurrence",
    "Variant",
    "collect_messages",
    "event_messages",
    "group_by_type",
    "message_head",
    "message_label",
    "message_summary",
    "message_type",
    "recorded_messages",
]

SUMMARY_LIMIT = 140
"""The longest summary, in characters, before it is shortened."""

PLACEHOLDER = re.compile(r"<(tensor|shape|op|n)>")
"""The placeholders a summary may hold, for whoever renders it."""

# What varies between the texts of one message: replaced, in this order, by a placeholder.
_VARYING = [
    # [torch.FloatTensor [2, 3]], [torch.cuda.FloatTensor []]
    (re.compile(r"\[torch\.(?:cuda\.)?\w*Tensor \[[^\]]*\]\]"), "[<tensor>]"),
    (re.compile(r"torch\.Size\(\[[^\]]*\]\)"), "<shape>"),
    # output 0 of Add, Output 1 of Unbind, output 0 of torch::autograd::CopySlices
    (re.compile(r"\b([Oo]utput) \d+ of (?:\w+::)*\w+"), r"\1 <n> of <op>"),
    (re.compile(r"\bversion \d+"), "version <n>"),
    # add(): functions with out=... arguments, exp(): functions with ...
    (re.compile(r"^\w+\(\):"), "<op>():"),
]
# A sentence ends at a period after a word, before a capital or the end ("allowed.You" included);
# never inside "out=..." or "tensor.detach()", nor inside a dotted name (:func:`_in_dotted_name`).
_SENTENCE_END = re.compile(r"(?<=[^.\s])\.(?=\s+[A-Z]|[A-Z]|\s*$)")
# a name that PyTorch's messages write with dots: torch.Tensor, aten.add.Tensor, nn.Module
_DOTTED = re.compile(r"[\w.]+")
_NAMESPACES = frozenset(
    {"torch", "aten", "nn", "F", "np", "numpy", "cuda", "ops", "prims", "func", "autograd", "optim", "amp"}
    | {"utils", "distributed", "functional", "jit", "fx", "linalg", "sparse", "special", "fft", "backends"}
)
# Where a long summary may be cut: after a clause, before a parenthesis.
_CLAUSE_BREAK = re.compile(r",\s|;\s|:\s|\s\(|\s-\s")
_SHORTEST = 40


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
    """Messages of one type that say the same thing, named by their summary."""

    kind: str  # "error" or "warning"
    type: str  # "RuntimeError", "UserWarning", ...
    summary: str
    variants: list[Variant] = field(default_factory=list)

    @property
    def head(self) -> str:
        """The type and the summary: ``RuntimeError: Mismatch in shape: ...``."""
        return f"{self.type}: {self.summary}"

    @property
    def label(self) -> str:
        """A stable reference label for the family."""
        return message_label(f"{self.kind}s", self.head)


@dataclass
class ErrorType:
    """One exception or warning type, and its families."""

    kind: str
    name: str
    families: list[Family] = field(default_factory=list)


def message_label(kind: str, text: str) -> str:
    """A stable reference label for one exact message, e.g. ``error-3f2a…``."""
    return f"{kind}-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def message_type(text: str) -> str:
    """The exception or warning type a message starts with: ``RuntimeError``."""
    first_line = text.splitlines()[0] if text else ""
    kind, separator, _message = first_line.partition(": ")
    return kind if separator and kind.replace(".", "").isidentifier() else ""


def _shorten(summary: str, limit: int) -> str:
    if len(summary) <= limit:
        return summary
    breaks = [m.start() for m in _CLAUSE_BREAK.finditer(summary) if _SHORTEST <= m.start() <= limit]
    if breaks:
        return summary[: breaks[-1]] + " …"
    cut = summary.rfind(" ", 0, limit)
    return summary[: cut if cut >= _SHORTEST else limit].rstrip(" ,;:") + " …"


def message_summary(text: str, *, limit: int = SUMMARY_LIMIT) -> str:
    """What a message says, short: its first sentence, varying parts as placeholders.

    ``RuntimeError: Mismatch in shape: grad_output[0] has a shape of
    torch.Size([2]) and ...`` gives ``Mismatch in shape: grad_output[0] has a
    shape of <shape> and output[0] has a shape of <shape>``; a sentence over
    ``limit`` characters is cut at its last clause boundary (or word) before
    it, and ends with ``…``. The type is not part of the summary. A message
    that Python shows as its ``repr`` (a ``KeyError``'s, in quotes, its lines
    joined by backslash-n escapes) is summarised from its first line, without the quote.
    """
    first_line = text.splitlines()[0] if text else ""
    message = first_line.partition(": ")[2] if message_type(text) else first_line
    if message[:1] in "\"'" and "\\n" in message:  # a KeyError's repr: its lines joined by \n escapes
        message = message[1:].split("\\n")[0]
    for pattern, placeholder in _VARYING:
        message = pattern.sub(placeholder, message)
    end = next((m for m in _SENTENCE_END.finditer(message) if not _in_dotted_name(message, m.start())), None)
    sentence = (message[: end.start()] if end else message).strip() or message.strip()
    # a first line that ends mid-sentence ("... input 0," then the numbers) ends at its last word
    sentence = sentence.rstrip(",;:(") or sentence
    return _shorten(sentence, limit)


def _in_dotted_name(message: str, at: int) -> bool:
    """Whether the period at ``at`` is inside a dotted name (``aten.add.Tensor``, ``torch.Tensor``).

    It is when a word follows it directly and its name has another period,
    starts with one of PyTorch's namespaces or is a name of code (``add_.Tensor``,
    ``ShardingStrategy.FULL_SHARD``); ``allowed.You`` stays a sentence end.
    """
    if at + 1 >= len(message) or not message[at + 1].isalnum():
        return False
    token = next(m for m in _DOTTED.finditer(message) if m.start() <= at < m.end()).group(0)
    head = token.split(".", 1)[0]
    # a name of code before it: snake_case (aten::add_.Tensor) or CamelCase (ShardingStrategy.FULL_SHARD)
    code = "_" in head or any(char.isupper() for char in head[1:])
    return token.count(".") > 1 or head in _NAMESPACES or code


def message_head(text: str) -> str:
    """The type and summary of a message: the name of its entry in the index."""
    kind = message_type(text)
    return f"{kind}: {message_summary(text)}" if kind else message_summary(text)


def event_messages(event: Event) -> list[tuple[str, str]]:
    """The (kind, exact text) of each error or warning an event observed."""
    if event["kind"] == "error" and event["raised"]:
        return [("error", f"{event['raised']}: {event['message']}")]
    if event["kind"] == "warning":
        return [("warning", f"{w['category']}: {w['message']}") for w in event["warnings"]]
    return []


def _sort_key(summary: str) -> str:
    """Sort summaries by their words: a placeholder or a quote first does not count."""
    return re.sub(r"[^a-z0-9 ]", "", PLACEHOLDER.sub("", summary).lower()).strip()


def collect_messages(records: dict[str, dict[str, Record]]) -> list[Family]:
    """Group the messages of ``records`` (runner -> example -> record).

    Families are sorted errors first, then by type and summary; variants by
    text; occurrences by example, line and runner.
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
    families: dict[tuple[str, str, str], Family] = {}
    for (kind, text), variant in sorted(variants.items()):
        key = (kind, message_type(text), message_summary(text))
        family = families.setdefault(key, Family(*key))
        variant.occurrences.sort(key=lambda o: (o.example, o.line, o.runner))
        family.variants.append(variant)
    return [
        families[key]
        for key in sorted(families, key=lambda k: (k[0] != "error", k[1].lower(), _sort_key(k[2]), k[2]))
    ]


def group_by_type(families: list[Family]) -> list[ErrorType]:
    """The families of :func:`collect_messages`, one group per type, in the same order."""
    groups: dict[tuple[str, str], ErrorType] = {}
    for family in families:
        group = groups.setdefault((family.kind, family.type), ErrorType(family.kind, family.type))
        group.families.append(family)
    return list(groups.values())


def recorded_messages(runs: Mapping[str, Iterable[RunnerRecord]]) -> dict[str, dict[str, set[int]]]:
    """Every exact message of ``runs`` (example -> its records, every runner and release).

    Text -> example -> the source lines of the checks that saw it. A record of an earlier
    version of its page counts whole, each cell on today's cell in its place
    (:attr:`~autograd_notes.records.history.runners.RunnerRecord.all_cells`): the page still
    explains a message a runner raised there, until that runner records the page again.
    """
    found: dict[str, dict[str, set[int]]] = {}
    for example, records in sorted(runs.items()):
        for run in records:
            for cell in run.all_cells:
                for event in cell["events"]:
                    for _kind, text in event_messages(event):
                        found.setdefault(text, {}).setdefault(example, set()).add(int(event["line"]))
    return dict(sorted(found.items()))
