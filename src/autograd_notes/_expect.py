"""Expected errors and warnings, in the shape of ``pytest.raises``."""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from types import TracebackType
from typing import Generic, Literal, TypeVar

from ._download_page import running_page
from ._drift import BehaviourDrift, Location, caller_location, expected_on_this_release
from ._events import is_recording, report
from ._normalise import normalise_message
from ._paths import display_path
from ._reader_words import words
from ._traceback import format_clean_traceback

__all__ = ["ExampleTimeout", "expect_error", "expect_warning"]

E = TypeVar("E", bound=BaseException)
W = TypeVar("W", bound=Warning)


def _names(kinds: type | tuple[type, ...]) -> str:
    if isinstance(kinds, tuple):
        return " or ".join(kind.__name__ for kind in kinds)
    return kinds.__name__


def _documented(kinds: type | tuple[type, ...], match: str | None) -> str:
    what = _names(kinds)
    return f"{what} matching {match!r}" if match is not None else what


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(normalise_message(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _said(location: Location) -> Mapping[str, str]:
    """The words of what a check saw, in the language of the download running it (English elsewhere)."""
    page = running_page(location.file or None)
    return words(page.language if page is not None else "en")


class ExampleTimeout(Exception):
    """An example ran longer than its timeout (raised by the build's and the capture's timer).

    :func:`expect_error` never catches it: a timeout stops the example whatever it expected.
    """


class expect_error(Generic[E]):  # noqa: N801 - used like a function, as pytest.raises
    """Run a block that must raise, print a clean traceback, and go on.

    >>> with expect_error(ZeroDivisionError, match="division by zero"):
    ...     1 / 0  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ZeroDivisionError: division by zero

    The exception must be an instance of ``expected`` and, when ``match`` is
    given, :func:`re.search` must find ``match`` in its message. Then its
    traceback is printed by
    :func:`~autograd_notes._traceback.format_clean_traceback` and the
    exception is suppressed, so the example goes on with its next line. The
    exception is kept in :attr:`value`.

    Otherwise :class:`~autograd_notes.BehaviourDrift` is raised: when the
    block raised nothing, raised another type (chained to it), or a message
    that ``match`` no longer finds. During a capture
    (:func:`~autograd_notes._events.recording`) the outcome is reported
    instead, and a raised exception of any type is printed and suppressed.
    """

    def __init__(self, expected: type[E] | tuple[type[E], ...], *, match: str | None = None) -> None:
        self.expected = expected
        self.match = match
        self.value: E | None = None
        self._location: Location | None = None

    def __enter__(self) -> expect_error[E]:
        self._location = caller_location()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        assert self._location is not None, "expect_error used without 'with'"
        if exc is not None and (
            not isinstance(exc, Exception) or isinstance(exc, (BehaviourDrift, ExampleTimeout))
        ):
            return False  # interrupts, timeouts and drift are never an example's documented error
        documented = _documented(self.expected, self.match)
        problem = None
        said = _said(self._location)
        if exc is None:
            problem = said["no_exception"]
        elif not isinstance(exc, self.expected):
            problem = f"{type(exc).__name__}: {_one_line(str(exc))}"
        elif self.match is not None and not re.search(self.match, str(exc)):
            problem = said["message_changed"].format(message=repr(_one_line(str(exc))))
        report(
            {
                "kind": "error",
                "line": self._location.line,
                "documented": documented,
                "raised": type(exc).__name__ if exc is not None else None,
                "message": normalise_message(str(exc)) if exc is not None else None,
                "holds": problem is None,
            }
        )
        if (
            problem is not None
            and not is_recording()
            and not expected_on_this_release(self._location, documented, problem)
        ):
            raise BehaviourDrift(location=self._location, documented=documented, observed=problem) from exc
        if exc is None:
            return False
        self.value = exc  # type: ignore[assignment]  # a capture keeps what was raised, of any type
        print(format_clean_traceback(exc, tb))
        return True


class expect_warning(Generic[W]):  # noqa: N801 - used like a function, as pytest.warns
    """Run a block that must warn, print the warning cleanly, and go on.

    At least one warning of category ``expected`` whose message
    :func:`re.search` finds ``match`` in must be emitted inside the block.
    Each such warning is printed as ``path:line: Category: message``, with a
    display path and a normalised message; the matches are kept in
    :attr:`records`. Any other warning emitted inside the block is emitted
    again after it, so nothing is hidden.

    Otherwise :class:`~autograd_notes.BehaviourDrift` is raised, saying which
    warnings (if any) were emitted instead; during a capture, every warning
    caught is reported and printed instead, and the example goes on.
    """

    def __init__(self, expected: type[W] | tuple[type[W], ...], *, match: str | None = None) -> None:
        self.expected = expected
        self.match = match
        self.records: list[warnings.WarningMessage] = []
        self._location: Location | None = None
        self._catcher: warnings.catch_warnings[list[warnings.WarningMessage]] | None = None
        self._caught: list[warnings.WarningMessage] = []

    def __enter__(self) -> expect_warning[W]:
        self._location = caller_location()
        self._catcher = warnings.catch_warnings(record=True)
        self._caught = self._catcher.__enter__()
        warnings.simplefilter("always")
        return self

    def _matches(self, record: warnings.WarningMessage) -> bool:
        if not issubclass(record.category, self.expected):
            return False
        return self.match is None or re.search(self.match, str(record.message)) is not None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        assert self._catcher is not None, "expect_warning used without 'with'"
        assert self._location is not None
        self._catcher.__exit__(exc_type, exc, tb)
        if exc is not None:
            return False
        self.records = [record for record in self._caught if self._matches(record)]
        others = [record for record in self._caught if not self._matches(record)]
        documented = _documented(self.expected, self.match)
        report(
            {
                "kind": "warning",
                "line": self._location.line,
                "documented": documented,
                "warnings": [
                    {"category": record.category.__name__, "message": normalise_message(str(record.message))}
                    for record in self._caught
                ],
                "holds": bool(self.records),
            }
        )
        going_on = is_recording()
        if not self.records and not is_recording():
            observed = "; ".join(
                f"{record.category.__name__}: {_one_line(str(record.message))}" for record in others
            )
            said = _said(self._location)
            observed = said["other_warnings"].format(warnings=observed) if others else said["no_warning"]
            going_on = expected_on_this_release(self._location, documented, observed)
            if not going_on:
                raise BehaviourDrift(location=self._location, documented=documented, observed=observed)
        shown = self.records
        if not self.records and going_on:
            # a capture records the mismatch and goes on, as expect_error does: the
            # warnings caught are printed, not emitted again (they would stop the example)
            shown, others = others, []
        for record in shown:
            message = normalise_message(str(record.message))
            print(f"{display_path(record.filename)}:{record.lineno}: {record.category.__name__}: {message}")
        for record in others:
            warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
        return False
