"""What the checks observed, for ``python -m autograd_notes capture``.

Outside a capture, the checks raise :class:`~autograd_notes.BehaviourDrift`
on a mismatch and report nothing. Inside :func:`recording`, each check also
reports what it observed as an :data:`Event` (a plain dict, as the record
files store it), and a mismatch is *recorded* (``"holds": false``) instead of
stopping the example, so that one capture describes everything a PyTorch does
differently.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal, TypedDict

__all__ = [
    "ErrorEvent",
    "Event",
    "EventKind",
    "ValueEvent",
    "Warned",
    "WarningEvent",
    "is_recording",
    "recording",
    "report",
]

EventKind = Literal["error", "warning", "value"]
"""What a check observed: an ``expect_error``, an ``expect_warning`` or a ``check`` of a value."""


class ErrorEvent(TypedDict):
    """What an ``expect_error`` block observed."""

    kind: Literal["error"]
    line: int
    documented: str
    raised: str | None
    """The exception's class name; ``None`` when nothing was raised."""
    message: str | None
    """The exception's normalised message; ``None`` when nothing was raised."""
    holds: bool


class Warned(TypedDict):
    """One warning caught by an ``expect_warning`` block."""

    category: str
    message: str


class WarningEvent(TypedDict):
    """What an ``expect_warning`` block observed: every warning caught inside it."""

    kind: Literal["warning"]
    line: int
    documented: str
    warnings: list[Warned]
    holds: bool


class ValueEvent(TypedDict):
    """What a ``check`` of a value observed."""

    kind: Literal["value"]
    line: int
    label: str | None
    value: str
    documented: str
    holds: bool


Event = ErrorEvent | WarningEvent | ValueEvent
"""One check's observation, told apart by its ``kind``."""

_sinks: list[list[Event]] = []


def is_recording() -> bool:
    """Whether a capture is collecting events (and checks must not raise)."""
    return bool(_sinks)


def report(event: Event) -> None:
    """Add ``event`` to the innermost :func:`recording`, if any."""
    if _sinks:
        _sinks[-1].append(event)


@contextmanager
def recording() -> Iterator[list[Event]]:
    """Collect the events reported inside the block into the yielded list."""
    events: list[Event] = []
    _sinks.append(events)
    try:
        yield events
    finally:
        _sinks.pop()
