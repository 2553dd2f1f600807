"""Which recorded messages a pasted error is: normalised tokens and a similarity score.

Readers arrive with their own error: a message or a whole traceback, from
their release of PyTorch, about their tensors. The "paste your error" box
(:mod:`autograd_notes.site.pages.error_box`, ``static/error_search.js``)
finds the example pages that explain it, in the browser, and ``python -m
autograd_notes explain`` (:mod:`autograd_notes._explain`) in a terminal, with this module's
algorithm (the JavaScript is a line-by-line port;
``tests/site/error_search_cases.json`` holds the cases both must agree on).
Pure functions of the standard library: no Sphinx, no PyTorch.

The algorithm:

1. **The message** (:func:`error_message`). Of a traceback, only the last
   line that names an exception or warning type (``RuntimeError: ...``,
   ``/path/x.py:3: UserWarning: ...``; the last one, as a chained traceback
   ends with the error that stopped the program) and the unindented lines
   after it (a message of several lines); frames (``File "..."``) and the
   source lines a warning quotes are dropped. Without such a line, the whole
   text is the message and the type is unknown. A C++ error (libtorch's,
   or PyTorch's with ``TORCH_SHOW_CPP_STACKTRACES``) ends its message where
   ``Exception raised from ...`` and its frames begin.
2. **Tokens** (:func:`normalise`). What differs from one run to the next
   becomes a placeholder token, what it was becomes a *detail*:
   ``[torch.FloatTensor [4, 3]]`` is ``<tensor>`` (detail ``shape:[4,3]``),
   ``torch.Size([2])`` and a bare ``[64, 128]`` are ``<shape>``, a quoted
   name (``'to_total'``, ``'SqrtBackward0'``) is ``<name>`` (detail
   ``name:to_total``), a number is ``<n>`` (detail ``n:3``). Memory
   addresses, file paths and web addresses are dropped. Autograd's node
   names lose their ``Backward0`` suffix and ``torch::autograd::`` prefix, so
   that PyTorch 2.12's ``output 0 of AddBackward0`` and 2.13's ``output 0 of
   Add`` are the same words. The rest is lower-cased and split into words of
   letters, digits and underscores; words of one letter are dropped. A
   message is its type and two sets: its tokens and its details.
3. **Weights** (:func:`token_weights`). A token weighs by its rarity among
   the recorded messages, ``ln(1 + N / df)`` (``N`` messages, ``df`` of them
   hold it; a token none holds weighs ``ln(1 + N)``); a detail weighs
   :data:`DETAIL_WEIGHT` of that, so that the reader's own shapes and numbers
   only break ties.
4. **Score** (:func:`similarity`). The weighted F-score of the two sets,
   ``(1 + β²) · w(shared) / (β² · w(recorded) + w(pasted))`` over tokens and
   details together (β = :data:`RECALL_WEIGHT`: the recorded message's words
   found in the paste count more than the paste's own words, which readers
   pad with their context), plus :data:`TYPE_BONUS` where both name the same
   type. Two messages that share only placeholders (``KeyError: '<name>'``)
   score 0: nothing says it is the same message.
5. **Ranking** (:func:`rank`). A page scores as its best message. The pages
   whose score is within :data:`SAME_MESSAGE` of the best one raise the same
   message, with other shapes or names: they come first. Among them, a page
   that is about that message comes first (its questions quote it:
   :mod:`autograd_notes.site.errors.subjects`; the in-place error is raised
   on fifteen pages, most of them on the way to something else), then the
   page that raises it in more cells, then by score. A page whose questions
   quote words the pasted message holds (``device-side assert triggered``:
   a message no CPU record holds) is about it too, and listed whatever its
   score, with the quote as what it matched. The others follow by score (ties: the page with more recorded
   messages that score the same, then by name). Each is listed with the
   cells that raise its best messages, down to :data:`MIN_SCORE` and
   :data:`NEAR_BEST` of the best score (the pages that explain the same
   message, not the ones that share a few words with it), at most
   :data:`MAX_PAGES`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "DETAIL_WEIGHT",
    "MAX_PAGES",
    "MIN_SCORE",
    "NEAR_BEST",
    "RECALL_WEIGHT",
    "SAME_MESSAGE",
    "TYPE_BONUS",
    "Match",
    "Message",
    "Normalised",
    "error_message",
    "normalise",
    "quoted",
    "rank",
    "similarity",
    "token_weights",
    "unknown_weight",
]

DETAIL_WEIGHT = 0.2
"""What a detail (an exact shape, number or name) weighs, against a token of the same rarity."""
TYPE_BONUS = 0.1
"""Added to the score of a recorded message of the pasted message's type."""
MIN_SCORE = 0.4
"""The lowest score a page is listed with. Measured on 78 errors users posted in public issue threads
(``tests/site/error_holdout.json``, ``benchmarks/error_search_quality.py``): at 0.2, 16 of the 20 that no
page explained then got a page; at 0.4, 1 of the 13 that none explains now does (a dtype mismatch in a
loss, against a scheduler's), and 64 of the 65 others are found; at 0.5 none does, but 62 are found."""
NEAR_BEST = 0.6
"""The lowest score a page is listed with, as a share of the best page's."""
RECALL_WEIGHT = 1.5
"""β of the score: the recorded message's words found in the paste weigh β² times the paste's own.
On the hold-out set (``benchmarks/error_search_quality.py``), β = 1.5 finds a message padded with the
reader's context ("... (when checking argument for argument mat2 in method wrapper_mm)") that Dice
(β = 1) misses; β = 2 gives one more unrelated error a page."""
SAME_MESSAGE = 0.06
"""Scores within this of the best are one message with other details: the page about it comes first,
then the page that raises it in more cells. Measured on the hold-out set with the pages' quotes
(``benchmarks/error_search_quality.py``): at 0.04 the page comes first for 60 of 65, at 0.06 to 0.2 for
61 (a reader's ``+=: 'NoneType' and 'Tensor'`` is the recorded ``*: 'NoneType' and 'float'``)."""
MAX_PAGES = 6
"""The most pages listed."""

# Every pattern is ASCII-only (re.ASCII), as JavaScript's \w, \d and \b are; error_search.js has the same.
# A line that names the type: "RuntimeError: ...", "x.py:3: UserWarning: ...", "torch.OutOfMemoryError: ..."
_TYPE = re.compile(r"(?:^|[\s:])((?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Warning|Exception)))(?::\s|:$|$)", re.A)
_TYPE_START = re.compile(r"^((?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Warning|Exception)))(?::\s|:$|$)", re.A)
_CPP_CONTEXT = re.compile(r"\n[ \t]*Exception raised from ")  # c10::Error's what(): its frames follow
_TRACEBACK_LINE = re.compile(
    r"^(?:Traceback \(most recent call last\)|During handling of the above exception|"
    r"The above exception was the direct cause)"
)
_SPACE = re.compile(r"[^\S\n]")  # any space but a new line, Unicode's too (a web page's no-break space)
_TENSOR = re.compile(r"\[torch\.(?:\w+\.)*\w*Tensor \[([^\]]*)\]\]", re.A)
_SIZE = re.compile(r"torch\.Size\(\[([^\]]*)\]\)", re.A)
_BARE_SHAPE = re.compile(r"(^|[\s(=:,])\[(\s*\d+(?:\s*,\s*\d+)*\s*,?\s*)?\]", re.A)
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b", re.A)
_URL = re.compile(r"\b(?:https?|file)://\S*", re.A)
_PATH = re.compile(r"(^|[\s\"'(])(?:[A-Za-z]:)?[\\/][^\s\"',)]*", re.A)
_QUOTED = re.compile(r"(^|\W)'([^'\s]+)'(?!\w)", re.A)
_NAMESPACE = re.compile(r"\b(?:[A-Za-z_]\w*::)+", re.A)
_NODE = re.compile(r"\b([A-Z]\w*?)Backward\d*\b", re.A)
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?(?:e[-+]?\d+)?(?:st|nd|rd|th)?\b", re.A)
_WORD = re.compile(r"<[a-z]+>|[a-z0-9_]+")


@dataclass(frozen=True)
class Normalised:
    """A message as the matcher sees it: its type (``""`` unknown), tokens and details, each sorted."""

    type: str
    tokens: tuple[str, ...]
    details: tuple[str, ...]


def error_message(text: str) -> str:
    """The message of ``text``: its last line naming a type and the unindented lines after it (step 1)."""
    text = _SPACE.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n"))
    cut = _CPP_CONTEXT.search(text)
    if cut:
        text = text[: cut.start()]
    lines = text.split("\n")
    named = [(n, found) for n, line in enumerate(lines) if (found := _TYPE.search(line))]
    if not named:
        return text.strip()
    start, found = named[-1]
    message = [lines[start][found.start(1) :]]
    for line in lines[start + 1 :]:
        if not line.strip() or line[0] in " \t" or _TRACEBACK_LINE.match(line):
            break
        message.append(line)
    return "\n".join(message).strip()


def _shape(dims: str | None) -> str:
    return "shape:[" + re.sub(r"\s+", "", dims or "").rstrip(",") + "]"


def _node(name: str) -> str:
    return _NODE.sub(r"\1", _NAMESPACE.sub("", name))


def normalise(text: str) -> Normalised:
    """The type, tokens and details of a message, a traceback or any text (steps 1 and 2)."""
    message = error_message(text)
    kind = ""
    found = _TYPE_START.match(message)
    if found:
        kind = found.group(2)
        message = message[found.end() :]
    details: set[str] = set()

    def tensor(match: re.Match[str]) -> str:
        details.add(_shape(match.group(1)))
        return " <tensor> "

    def size(match: re.Match[str]) -> str:
        details.add(_shape(match.group(1)))
        return " <shape> "

    def bare_shape(match: re.Match[str]) -> str:
        details.add(_shape(match.group(2)))
        return match.group(1) + " <shape> "

    def quoted(match: re.Match[str]) -> str:
        details.add("name:" + _node(match.group(2)).lower())
        return match.group(1) + " <name> "

    def number(match: re.Match[str]) -> str:
        details.add("n:" + match.group(0))
        return " <n> "

    message = _URL.sub(" ", message)
    message = _ADDRESS.sub(" ", message)
    message = _TENSOR.sub(tensor, message)
    message = _SIZE.sub(size, message)
    message = _PATH.sub(r"\1 ", message)
    message = _BARE_SHAPE.sub(bare_shape, message)
    message = _QUOTED.sub(quoted, message)
    message = _node(message)
    message = _NUMBER.sub(number, message)
    tokens = {word for word in _WORD.findall(message.lower()) if len(word) > 1}
    return Normalised(kind, tuple(sorted(tokens)), tuple(sorted(details)))


@dataclass(frozen=True)
class Message:
    """A recorded message: its normalised form and where it is explained (page -> cells)."""

    normalised: Normalised
    places: Mapping[str, Sequence[int]]
    about: frozenset[str] = frozenset()
    """The pages of ``places`` that are about this message (their questions quote it)."""


def unknown_weight(count: int) -> float:
    """The weight of a token none of ``count`` recorded messages holds: ``ln(1 + count)``."""
    return round(math.log(1 + count), 6)


def token_weights(messages: Iterable[Normalised]) -> dict[str, float]:
    """Each token's and detail's weight among ``messages`` (step 3); :func:`similarity` weighs the rest."""
    recorded = list(messages)
    counts: dict[str, int] = {}
    for message in recorded:
        for token in {*message.tokens, *message.details}:
            counts[token] = counts.get(token, 0) + 1
    total = len(recorded)
    return {
        token: round(math.log(1 + total / count) * (DETAIL_WEIGHT if ":" in token else 1), 6)
        for token, count in sorted(counts.items())
    }


def _weight(token: str, weights: Mapping[str, float], unknown: float) -> float:
    if token in weights:
        return weights[token]
    return unknown * (DETAIL_WEIGHT if ":" in token else 1)


def similarity(
    pasted: Normalised, recorded: Normalised, weights: Mapping[str, float], unknown: float
) -> float:
    """The weighted F-score of the two messages, plus the type's bonus (step 4).

    ``unknown`` is the weight of a token no recorded message holds, ``ln(1 + N)``.
    """
    mine = {*pasted.tokens, *pasted.details}
    theirs = {*recorded.tokens, *recorded.details}
    # summed in sorted order, as the JavaScript does, for the same rounding
    recall = RECALL_WEIGHT * RECALL_WEIGHT
    total = sum(_weight(t, weights, unknown) for t in sorted(mine))
    total += recall * sum(_weight(t, weights, unknown) for t in sorted(theirs))
    if not total:
        return 0.0
    common = mine & theirs
    if all(token.startswith("<") for token in common):
        return 0.0  # placeholders alone ("KeyError: '<name>'") say nothing of which message it is
    shared = sum(_weight(t, weights, unknown) for t in sorted(common))
    bonus = TYPE_BONUS if pasted.type and pasted.type == recorded.type else 0.0
    return (1 + recall) * shared / total + bonus


@dataclass
class Match:
    """A page that explains the pasted message: its score and the cells that raise its best messages."""

    page: str
    score: float
    cells: list[int] = field(default_factory=list)
    ties: int = 0
    """How many of its messages score its best score."""
    depth: int = 0
    """How many of its cells raise a message within :data:`SAME_MESSAGE` of the best page's score."""
    about: bool = False
    """Whether the page is about a message within :data:`SAME_MESSAGE` of the best page's score."""
    message: int = -1
    """The first of ``messages`` that scores its best score (its index): the message it matched, which
    the box shows under the page too; -1 where the page has none."""
    quote: str = ""
    """The quote of the page's questions that the pasted message holds, if any."""


def quoted(quotes: Iterable[str], text: str) -> str:
    """The first of ``quotes`` that ``text`` holds, spaces aside (``""`` if none)."""
    spaced = " ".join(text.split())
    return next((quote for quote in quotes if quote in spaced), "")


def rank(
    text: str,
    messages: Sequence[Message],
    weights: Mapping[str, float],
    quotes: Mapping[str, Sequence[str]] | None = None,
) -> list[Match]:
    """The pages that explain ``text``, best first (step 5); ``quotes``: each page's quoted messages."""
    pasted = normalise(text)
    if not pasted.tokens and not pasted.details:
        return []
    unknown = unknown_weight(len(messages))
    scores = [round(similarity(pasted, message.normalised, weights, unknown), 9) for message in messages]
    top = max(scores, default=0.0)
    best: dict[str, Match] = {}
    near: dict[str, set[int]] = {}
    about: set[str] = set()
    for number, (message, score) in enumerate(zip(messages, scores, strict=True)):
        for page, cells in message.places.items():
            match = best.get(page)
            if match is None or score > match.score:
                best[page] = match = Match(page, score, message=number)
            if score == match.score:
                match.ties += 1
                match.cells = sorted({*match.cells, *cells})
            if score >= top - SAME_MESSAGE:
                near.setdefault(page, set()).update(cells)
                if page in message.about:
                    about.add(page)
    for page, raising in near.items():
        best[page].depth = len(raising)
        best[page].about = page in about
    said = error_message(text)
    for page, own in (quotes or {}).items():
        quote = quoted(own, said)
        if quote:
            match = best.setdefault(page, Match(page, 0.0))
            match.about, match.quote = True, quote
    found = sorted(best.values(), key=lambda m: (not m.about, -m.depth, -m.score, -m.ties, m.page))
    lowest = max(MIN_SCORE, top * NEAR_BEST)
    for match in found:
        if match.quote and match.score < lowest:  # listed for its quote alone: no message, no cell
            match.message, match.cells = -1, []
    return [m for m in found if m.score >= lowest or m.quote][:MAX_PAGES]
