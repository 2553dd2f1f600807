"""The one error raised when PyTorch no longer behaves as an example documents."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import FrameType

from ._paths import display_path
from ._release_notes import recorded_note

__all__ = ["BehaviourDrift", "Location", "caller_location"]


@dataclass(frozen=True)
class Location:
    """A place in an example script: display path and line number."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def caller_location(depth: int = 2) -> Location:
    """Return the location of the frame ``depth`` levels above this call.

    ``depth=2`` is the caller of the function that calls this one, which is
    where an example wrote ``with expect_error(...)`` or ``check(...)``.
    """
    frame: FrameType | None = sys._getframe(depth)
    if frame is None:  # pragma: no cover - only without a Python stack
        return Location("<unknown>", 0)
    return Location(display_path(frame.f_code.co_filename), frame.f_lineno)


class BehaviourDrift(Exception):
    """PyTorch did something other than what the example documents.

    Raised by :func:`~autograd_notes.expect_error`,
    :func:`~autograd_notes.expect_warning` and :func:`~autograd_notes.check`.
    It is not a subclass of :class:`AssertionError` or :class:`RuntimeError`,
    so no documented expectation in an example can swallow it by accident.
    The message always names the place, what was documented, what happened
    and the PyTorch that ran.
    """

    def __init__(self, *, location: Location, documented: str, observed: str) -> None:
        import torch

        self.location = location
        self.documented = documented
        self.observed = observed
        self.torch_version = torch.__version__
        note = recorded_note(location.path, location.line, documented, self.torch_version)
        super().__init__(
            f"behaviour drift at {location}\n"
            f"  documented: {documented}\n"
            f"  observed:   {observed}\n"
            f"  PyTorch {self.torch_version}: this example was written for a PyTorch "
            "that behaves as documented; yours behaves differently." + (f"\n{note}" if note else "")
        )
