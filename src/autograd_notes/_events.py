"""What the checks observed, for ``python -m autograd_notes capture``.

Outside a capture, the checks raise :class:`~autograd_notes.BehaviourDrift`
on a mismatch and report nothing. Inside :func:`recording`, each check also
reports what it observed as a plain dict, and a mismatch is *recorded*
(``"holds": false``) instead of stopping the example, so that one capture
describes everything a PyTorch does differently.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["Event", "is_recording", "recording", "report"]

Event = dict[str, Any]

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
