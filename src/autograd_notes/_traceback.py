"""Clean tracebacks: the example's own frames, PyTorch's internals in one line."""

from __future__ import annotations

import linecache
import os
import traceback
from pathlib import Path
from types import TracebackType

from ._download_page import running_page
from ._normalise import normalise_message
from ._paths import display_path, notebook_cell
from ._reader_words import words

__all__ = ["attach_remote_frames", "format_clean_traceback", "is_internal_file"]

_REMOTE = "_autograd_notes_remote_frames"
"""The attribute of an exception raised again from another process: where, and that process's frames."""

RemoteFrame = tuple[str, int, str]
"""A frame of another process: file name, line number, function."""

_OWN_ROOT = str(Path(__file__).resolve().parent) + os.sep
"""This helper package's folder, as a prefix of its files' resolved paths."""


def attach_remote_frames(exc: BaseException, rank: int, world_size: int, frames: list[RemoteFrame]) -> None:
    """Note on ``exc`` that it was raised in rank ``rank`` of ``world_size``, through ``frames``.

    :func:`format_clean_traceback` goes on from the page's frames into
    those; the frames of this package, which started the rank here and
    raised its error again there, are left out on both sides.
    """
    setattr(exc, _REMOTE, (rank, world_size, frames))


def _internal_roots() -> tuple[str, ...]:
    import torch

    return (str(Path(torch.__file__).resolve().parent) + os.sep, _OWN_ROOT)


def is_internal_file(filename: str) -> bool:
    """Whether ``filename`` belongs to PyTorch or to this helper package."""
    return str(Path(filename).resolve()).startswith(_internal_roots())


def _is_own_file(filename: str) -> bool:
    """Whether ``filename`` belongs to this helper package (its frames are never the reader's code)."""
    return str(Path(filename).resolve()).startswith(_OWN_ROOT)


def _module_name(filename: str, function: str) -> str:
    """``torch/autograd/graph.py`` + ``f`` gives ``torch.autograd.graph.f``."""
    path = Path(filename).resolve()
    parts = list(path.with_suffix("").parts)
    if "torch" in parts:
        parts = parts[len(parts) - 1 - parts[::-1].index("torch") :]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([*parts, function])


def format_clean_traceback(exc: BaseException, tb: TracebackType | None = None) -> str:
    """Format ``exc`` as a short traceback fit for a published page.

    Frames of the example (and of any non-PyTorch code it calls) keep their
    display path (see :func:`~autograd_notes._paths.display_path`), line
    number, function and source line. Each run of consecutive PyTorch frames
    becomes one line naming the functions it went through, without their
    line numbers, which change with every PyTorch release. Frames of this
    helper package are left out: they are neither the reader's code nor
    PyTorch's, and the page's line that called the helper says enough. The last line is
    the exception, normalised by
    :func:`~autograd_notes._normalise.normalise_message`. That line is in the
    language of the download running (its page's; English elsewhere), as
    the page shows it.
    """
    frames = traceback.extract_tb(tb if tb is not None else exc.__traceback__)
    lines = ["Traceback (most recent call last):"]
    internal: list[str] = []
    page = running_page()
    said = words(page.language if page else None)

    def flush_internal() -> None:
        if internal:
            template = said["frame"] if len(internal) == 1 else said["frames"]
            lines.append(f"  {template.format(count=len(internal), functions=' > '.join(internal))}")
            internal.clear()

    def add(filename: str, lineno: int | None, function: str, source: str | None) -> None:
        if _is_own_file(filename):
            return
        if is_internal_file(filename):
            internal.append(_module_name(filename, function))
            return
        flush_internal()
        cell = notebook_cell(filename)
        place = f"Cell {cell}" if cell else f'File "{display_path(filename)}"'  # IPython's own words
        lines.append(f"  {place}, line {lineno}, in {function}")
        source = source or linecache.getline(filename, lineno or 0).strip()
        if source:
            lines.append(f"    {source}")

    remote = getattr(exc, _REMOTE, None)
    for frame in frames:
        add(frame.filename, frame.lineno, frame.name, frame.line)
    if remote is not None:
        rank, world_size, remote_frames = remote
        flush_internal()
        lines.append(f"  {said['rank'].format(rank=rank, world_size=world_size)}")
        for filename, lineno, function in remote_frames:
            add(filename, lineno, function, None)
    flush_internal()
    exception_text = "".join(traceback.format_exception_only(type(exc), exc)).rstrip("\n")
    lines.append(normalise_message(exception_text))
    return "\n".join(lines)
