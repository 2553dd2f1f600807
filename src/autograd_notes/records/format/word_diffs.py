"""Word diffs of two texts: the words kept, removed and added, and the diff as one line.

A word diff (:data:`WordDiff`) is a tuple of segments (:class:`Segment`),
each words that both texts have or only the old or the new one
(:class:`Change`). :func:`word_diff` computes one, :func:`spaced_segments`
and :func:`render_word_diff` lay it out on one line; the drift report, the
changelog and the site put it in their own words and markup.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import NamedTuple

from .status import Word

__all__ = ["UNRELATED", "Change", "Segment", "WordDiff", "render_word_diff", "spaced_segments", "word_diff"]


class Change(Word):
    """What a segment of a word diff is: words both texts have, or only the old or the new one."""

    KEPT = "kept"
    REMOVED = "removed"
    ADDED = "added"


class Segment(NamedTuple):
    """Words of a word diff that are kept, removed or added (joined by single spaces)."""

    change: Change
    text: str


WordDiff = tuple[Segment, ...]
"""The words of two texts, in order: a replacement is a removed segment and the added one after it."""


UNRELATED = 0.5
"""Below this share of shared words (difflib's ratio), two texts are replaced whole, not word by word."""


def word_diff(old: str, new: str, *, context: int = 4) -> WordDiff:
    """The changed words of two texts, with at most ``context`` unchanged words around each change.

    Two texts that share few words (:data:`UNRELATED`) keep their common start
    and are otherwise replaced whole.

    >>> render_word_diff(word_diff("output 0 of AddBackward0, is at", "output 0 of Add, is at"))
    'output 0 of [-AddBackward0,-]{+Add,+} is at'
    """
    a, b = old.split(), new.split()
    segments: list[Segment] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    if matcher.ratio() < UNRELATED:
        # two messages that say other things: their few shared words ("no", "on", "a") would weave
        # them into one unreadable line; after their common start, the old one goes and the new one comes
        start = next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        if start:
            segments.append(Segment(Change.KEPT, " ".join(a[:start])))
        if a[start:]:
            segments.append(Segment(Change.REMOVED, " ".join(a[start:])))
        if b[start:]:
            segments.append(Segment(Change.ADDED, " ".join(b[start:])))
        return tuple(segments)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            same = a[i1:i2]
            if len(same) > 2 * context:
                head = same[:context] if segments else []
                tail = same[-context:] if i2 < len(a) or j2 < len(b) else []
                same = [*head, "…", *tail]
            segments.append(Segment(Change.KEPT, " ".join(same)))
            continue
        if i2 > i1:
            segments.append(Segment(Change.REMOVED, " ".join(a[i1:i2])))
        if j2 > j1:
            segments.append(Segment(Change.ADDED, " ".join(b[j1:j2])))
    return tuple(segments)


def _marked(segment: Segment) -> str:
    if segment.change is Change.REMOVED:
        return f"[-{segment.text}-]"
    if segment.change is Change.ADDED:
        return f"{{+{segment.text}+}}"
    return segment.text


def spaced_segments(diff: WordDiff) -> list[tuple[str, Segment]]:
    """Each segment of a word diff with what goes before it when the diff is one line.

    A space, except before the first segment and inside a replacement: its
    removed and added words read as one word.
    """
    spaced = []
    for index, segment in enumerate(diff):
        replaced = index > 0 and segment.change is Change.ADDED and diff[index - 1].change is Change.REMOVED
        spaced.append(("" if replaced or index == 0 else " ", segment))
    return spaced


def render_word_diff(diff: WordDiff, show: Callable[[Segment], str] = _marked) -> str:
    """A word diff as one line (:func:`spaced_segments`), each segment as ``show`` writes it.

    By default a removed segment is ``[-old-]``, an added one ``{+new+}``.
    """
    return "".join(space + show(segment) for space, segment in spaced_segments(diff))
