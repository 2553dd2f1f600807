"""Find the code cells and their outputs in the reST that sphinx-gallery generates.

sphinx-gallery marks every block of an example page with a comment naming
its source lines; a code block may be followed by its output, a literal
block (the format is read through :mod:`autograd_notes.site.upstream.outputs`).
:func:`wrap_outputs` hands each code cell's output to the
``runner-outputs`` directive, which shows it beside the recorded outputs of
the other runners. Pure text functions: no Sphinx here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .outputs import (
    OUTPUT_INDENT,
    generated_block_first_line,
    is_code_block,
    is_download_target,
    is_literal_block,
    is_output_start,
)

__all__ = [
    "CodeCell",
    "changed_directive",
    "code_cells",
    "install_directive",
    "summary_directive",
    "timeline_directive",
    "wrap_outputs",
]


@dataclass(frozen=True)
class CodeCell:
    """A code block of a generated page: its first source line, what it printed, and its section's title."""

    first_line: int
    output: list[str]
    heading: str = ""
    """The title of the section the cell is in (the page's title before the first section)."""


# a reST section title's underline: one punctuation character repeated
_UNDERLINE = re.compile(r"""^([=\-~^"'`#*+<>:._])\1+\s*$""")


def _headings(lines: list[str]) -> list[tuple[int, str]]:
    """(index, title) of each section title of a page, in order."""
    found = []
    for index in range(len(lines) - 1):
        title, underline = lines[index].rstrip(), lines[index + 1].rstrip()
        if title and not title[0].isspace() and _UNDERLINE.match(underline) and len(underline) >= len(title):
            found.append((index, title))
    return found


def _segments(lines: list[str]) -> list[tuple[int, int, int]]:
    """(start index, end index, first source line) of each generated block."""
    starts = [
        (i, first) for i, line in enumerate(lines) if (first := generated_block_first_line(line)) is not None
    ]
    end_of_blocks = _downloads_at(lines)
    segments = []
    for n, (start, first) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else end_of_blocks
        segments.append((start, end, first))
    return segments


def _downloads_at(lines: list[str]) -> int:
    """The index of the download section's first line (the end of ``lines`` without one)."""
    return next((i for i, line in enumerate(lines) if is_download_target(line)), len(lines))


def _is_code(lines: list[str]) -> bool:
    return any(is_code_block(line) for line in lines)


def _output_span(lines: list[str]) -> tuple[int, int, list[str]] | None:
    """Where the output block of a segment is, and its text (indent removed)."""
    start = next((i for i, line in enumerate(lines) if is_output_start(line)), None)
    if start is None:
        return None
    body = start + 1
    while body < len(lines) and not is_literal_block(lines[body]):
        body += 1
    output: list[str] = []
    end = body + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith(OUTPUT_INDENT)):
        output.append(lines[end][len(OUTPUT_INDENT) :])
        end += 1
    while output and not output[-1].strip():
        output.pop()
    while output and not output[0].strip():
        output.pop(0)
    return start, end, output


def code_cells(source: str) -> list[CodeCell]:
    """The code cells of a generated page, in order, with their outputs."""
    lines = source.splitlines()
    headings = _headings(lines)
    cells = []
    for start, end, first in _segments(lines):
        segment = lines[start:end]
        if _is_code(segment):
            span = _output_span(segment)
            heading = next((title for index, title in reversed(headings) if index < start), "")
            cells.append(CodeCell(first, span[2] if span else [], heading))
    return cells


def wrap_outputs(source: str, example: str) -> str:
    """Replace each code cell's output block by a ``runner-outputs`` directive.

    The directive gets the example, the cell's first line and the output as
    its content; a cell that printed nothing gets the directive without
    content (another runner may have printed something there).
    """
    lines = source.splitlines()
    result: list[str] = []
    cursor = 0
    for start, end, first in _segments(lines):
        segment = lines[start:end]
        if not _is_code(segment):
            continue
        span = _output_span(segment)
        result.extend(lines[cursor:start])
        if span is None:
            result.extend(segment)
            output: list[str] = []
            after: list[str] = []
        else:
            out_start, out_end, output = span
            result.extend(segment[:out_start])
            after = segment[out_end:]
        result.extend(["", f".. runner-outputs:: {example}", f"   :line: {first}", ""])
        result.extend(f"   {line}" if line.strip() else "" for line in output)
        result.append("")
        result.extend(after)
        cursor = end
    result.extend(lines[cursor:])
    return "\n".join(result) + "\n"


def summary_directive(source: str, example: str) -> str:
    """Insert a ``runner-summary`` directive before the first generated block."""
    lines = source.splitlines()
    segments = _segments(lines)
    at = segments[0][0] if segments else len(lines)
    block = ["", f".. runner-summary:: {example}", ""]  # blank lines: never part of a paragraph
    return "\n".join([*lines[:at], *block, *lines[at:]]) + "\n"


def changed_directive(source: str, example: str) -> str:
    """Insert a ``release-changed`` directive before the first generated block.

    It is the note that a newer release does otherwise than the page
    documents, above the ``runner-summary``.
    """
    lines = source.splitlines()
    segments = _segments(lines)
    at = segments[0][0] if segments else len(lines)
    block = ["", f".. release-changed:: {example}", ""]
    return "\n".join([*lines[:at], *block, *lines[at:]]) + "\n"


def install_directive(source: str) -> str:
    """Insert an ``install-line`` directive just above the downloads (at the end without them)."""
    lines = source.splitlines()
    at = _downloads_at(lines)
    block = ["", ".. install-line::", ""]
    return "\n".join([*lines[:at], *block, *lines[at:]]) + "\n"


def timeline_directive(source: str, example: str) -> str:
    """Insert a ``release-timeline`` directive after the last generated block, above the downloads."""
    lines = source.splitlines()
    at = _downloads_at(lines)
    block = ["", f".. release-timeline:: {example}", ""]
    return "\n".join([*lines[:at], *block, *lines[at:]]) + "\n"
