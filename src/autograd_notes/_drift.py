"""The one error raised when PyTorch no longer behaves as an example documents."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from types import FrameType

from ._download_page import DownloadPage, running_page
from ._paths import display_path
from ._reader_words import words
from ._release_notes import pinned_release, recorded_difference, recorded_note

__all__ = ["STRICT_VARIABLE", "BehaviourDrift", "Location", "caller_location", "expected_on_this_release"]

STRICT_VARIABLE = "AUTOGRAD_NOTES_STRICT"
"""Set to ``1``: a download stops at every difference, recorded for the reader's release or not."""


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
        note = recorded_note(
            location.path, location.line, documented, self.torch_version, page, source=location.file
        )
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
    return "\n".join(_explained(page, drift.torch_version, drift.location, drift.documented, drift.observed))


def _explained(
    page: DownloadPage, torch_version: str, location: Location, documented: str, observed: str
) -> list[str]:
    """A download's first lines of a difference, in its page's language: where, documented, observed."""
    said = words(page.language)
    pinned = pinned_release() or "?"
    return [
        said["lead"].format(torch=torch_version, pinned=pinned, location=location),
        said["documented"].format(documented=documented),
        said["observed"].format(observed=observed),
    ]


def expected_on_this_release(location: Location, documented: str, observed: str) -> bool:
    """Whether a download may go on past this difference: its release is recorded doing exactly this.

    A reader runs a download on the PyTorch their pip chose, often a newer
    release than the page documents. Where the site's records show that
    release doing otherwise at this very check, the difference is expected:
    this says so, in the page's language (what the page documents, what the
    release is recorded to do, that the example goes on) and returns True;
    the caller then goes on as a capture does. Everywhere else (no
    download: a gallery script the site builds, a capture; a difference no
    record explains; ``AUTOGRAD_NOTES_STRICT=1``) it returns False and the
    caller raises :class:`BehaviourDrift`.
    """
    import torch

    page = running_page(location.file or None)
    if page is None or os.environ.get(STRICT_VARIABLE, "") not in ("", "0"):
        return False
    if not recorded_difference(location.path, location.line, documented, torch.__version__, location.file):
        return False
    lines = [
        *_explained(page, torch.__version__, location, documented, observed),
        recorded_note(
            location.path, location.line, documented, torch.__version__, page, source=location.file
        ),
        words(page.language)["goes_on"].format(variable=STRICT_VARIABLE),
    ]
    print("\n".join(lines), flush=True)
    return True
