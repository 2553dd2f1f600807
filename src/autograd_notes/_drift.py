"""The one error raised when PyTorch no longer behaves as an example documents."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from types import FrameType

from ._download_page import DownloadPage, running_page
from ._paths import display_path
from ._reader_words import words
from ._release_notes import pinned_release, recorded_note

__all__ = ["BehaviourDrift", "Location", "caller_location"]


@dataclass(frozen=True)
class Location:
    """A place in an example script: display path and line number (and the file, not compared)."""

    path: str
    line: int
    file: str = field(default="", compare=False, repr=False)
    """The file as Python names it, whose first line may name a download's page."""

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
    filename = frame.f_code.co_filename
    return Location(display_path(filename), frame.f_lineno, filename)


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
        page = running_page(location.file or None)
        note = recorded_note(location.path, location.line, documented, self.torch_version, page)
        super().__init__(drift_message(self, page) + (f"\n{note}" if note else ""))


def drift_message(drift: BehaviourDrift, page: DownloadPage | None) -> str:
    """The first lines of ``drift``'s message, without the recorded releases' note.

    In a download (``page``) it leads with the explanation, in the page's
    language: a reader meets it below two chained tracebacks. Elsewhere (a
    gallery script, a capture, a reader's own code) it is the English
    ``behaviour drift at …``.
    """
    if page is None:
        return (
            f"behaviour drift at {drift.location}\n"
            f"  documented: {drift.documented}\n"
            f"  observed:   {drift.observed}\n"
            f"  PyTorch {drift.torch_version}: this example was written for a PyTorch "
            "that behaves as documented; yours behaves differently."
        )
    said = words(page.language)
    pinned = pinned_release() or "?"
    lead = said["lead"].format(torch=drift.torch_version, pinned=pinned, location=drift.location)
    return "\n".join(
        [
            lead,
            said["documented"].format(documented=drift.documented),
            said["observed"].format(observed=drift.observed),
        ]
    )
