"""On request, one line under an autograd error's traceback that names the page explaining it.

* In a script: :func:`explain_errors` chains :data:`sys.excepthook`: the
  traceback is printed first, as it always is, then the line.
* In IPython or Jupyter: ``%load_ext autograd_notes`` (:func:`load_ipython_extension`)
  shows the traceback as IPython shows it, then the line;
  ``%unload_ext autograd_notes`` takes it away.

The exception itself is never changed, hidden or delayed: the line comes
after the traceback, from the index the package ships (:mod:`.index`),
and only for an error that a page explains. Nothing is on unless asked for.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

from .._reader_words import words
from .index import explain, reader_language

__all__ = ["explain_errors", "explanation_line", "load_ipython_extension", "unload_ipython_extension"]


def explanation_line(error: BaseException, language: str | None = None) -> str | None:
    """The line to print under ``error``'s traceback; ``None`` when no page explains it."""
    language = language or reader_language()
    text = f"{type(error).__name__}: {error}"
    try:
        pages = explain(text, language)
    except Exception:
        return None
    if not pages:
        return None
    return words(language)["explained"].format(title=pages[0].title, url=pages[0].url)


def explain_errors(language: str | None = None) -> None:
    """Print, under the traceback of an error that stops the script, the page that explains it.

    Chains the current :data:`sys.excepthook`; calling it again adds nothing.
    """
    previous = sys.excepthook
    if getattr(previous, "_autograd_notes", False):
        return

    def hook(kind: type[BaseException], error: BaseException, traceback: TracebackType | None) -> None:
        previous(kind, error, traceback)
        line = explanation_line(error, language)
        if line is not None:
            print(line, file=sys.stderr)

    hook._autograd_notes = True  # type: ignore[attr-defined]
    sys.excepthook = hook


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext autograd_notes``: IPython shows each error as it does, then the explaining page."""

    def shown(
        shell: Any, kind: type[BaseException], error: BaseException, traceback: Any, tb_offset: Any = None
    ) -> Any:
        shell.showtraceback((kind, error, traceback), tb_offset=tb_offset)
        line = explanation_line(error)
        if line is not None:
            print(line, file=sys.stderr)
        return None

    ipython.set_custom_exc((Exception,), shown)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext autograd_notes``: IPython shows errors as before."""
    ipython.set_custom_exc((), None)
