"""Find the code cells and their outputs in the reST that sphinx-gallery generates.

sphinx-gallery marks every block of an example page with a comment
``.. GENERATED FROM PYTHON SOURCE LINES a-b`` (``b`` exclusive); a code
block may be followed by its output, a ``sphx-glr-script-out`` literal
block. :func:`wrap_outputs` hands each code cell's output to the
``runner-outputs`` directive, which shows it beside the recorded outputs of
the other runners. Pure text functions: no Sphinx here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "CodeCell",
    "code_cells",
    "install_directive",
    "summary_directive",
    "timeline_directive",
    "wrap_outputs",
]

_GENERATED = re.compile(r"^\.\. GENERATED FROM PYTHON SOURCE LINES (\d+)-(\d+)\s*$")
_OUTPUT_START = ".. rst-class:: sphx-glr-script-out"
_DOWNLOAD = re.compile(r"^\.\. _sphx_glr_download_")


@dataclass(frozen=True)
class CodeCell:
    """A code block of a generated page: its first source line, and what it printed."""

    first_line: int
    output: list[str]


def _segments(lines: list[str]) -> list[tuple[int, int, int]]:
    """(start index, end index, first source line) of each generated block."""
    starts = [(i, int(m.group(1))) for i, line in enumerate(lines) if (m := _GENERATED.match(line))]
    end_of_blocks = next((i for i, line in enumerate(lines) if _DOWNLOAD.match(line)), len(lines))
    segments = []
    for n, (start, first) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else end_of_blocks
        segments.append((start, end, first))
    return segments


def _is_code(lines: list[str]) -> bool:
    return any(line.startswith(".. code-block:: Python") for line in lines)


def _output_span(lines: list[str]) -> tuple[int, int, list[str]] | None:
    """Where the output block of a segment is, and its text (indent removed)."""
    try:
        start = lines.index(_OUTPUT_START)
    except ValueError:
        return None
    body = start + 1
    while body < len(lines) and not lines[body].strip().startswith(".. code-block::"):
        body += 1
    output: list[str] = []
    end = body + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith("    ")):
        output.append(lines[end][4:])
        end += 1
    while output and not output[-1].strip():
        output.pop()
    while output and not output[0].strip():
        output.pop(0)
    return start, end, output


def code_cells(source: str) -> list[CodeCell]:
    """The code cells of a generated page, in order, with their outputs."""
    lines = source.splitlines()
    cells = []
    for start, end, first in _segments(lines):
        segment = lines[start:end]
        if _is_code(segment):
            span = _output_span(segment)
            cells.append(CodeCell(first, span[2] if span else []))
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


def install_directive(source: str) -> str:
    """Insert an ``install-line`` directive just above the downloads (at the end without them)."""
    lines = source.splitlines()
    at = next((i for i, line in enumerate(lines) if _DOWNLOAD.match(line)), len(lines))
    block = ["", ".. install-line::", ""]
    return "\n".join([*lines[:at], *block, *lines[at:]]) + "\n"


def timeline_directive(source: str, example: str) -> str:
    """Insert a ``release-timeline`` directive after the last generated block, above the downloads."""
    lines = source.splitlines()
    at = next((i for i, line in enumerate(lines) if _DOWNLOAD.match(line)), len(lines))
    block = ["", f".. release-timeline:: {example}", ""]
    return "\n".join([*lines[:at], *block, *lines[at:]]) + "\n"
