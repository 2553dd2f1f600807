"""The cells of a gallery script, where sphinx-gallery splits it: one splitter for every layer.

sphinx-gallery splits a script at its ``# %%`` lines (or a line of twenty
``#`` or more): the comment lines right after such a marker are the cell's
text, the lines after them, up to the next marker, its code. The records run
a script cell by cell (:mod:`autograd_notes.records.capture.cells`) and the site
translates the text of the downloads (:mod:`autograd_notes.site.examples.downloads`)
with these functions. ``tests/records/test_script_cells.py`` checks them
against sphinx-gallery's own parser on every gallery script. This module
imports nothing outside the standard library.

A record stamps each cell with :func:`code_digest`, the digest of the code it
ran: its lines of code and their numbers, blank and comment lines and the
page's docstring left out, so that an edit of a page's prose keeps its records, and an edit of its
code, or a line that moves it, tells them apart (:mod:`.currency`).
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Cell", "code_digest", "code_digests", "is_cell_marker", "split_cells", "text_end"]

# sphinx_gallery.py_source_parser.split_code_and_text_blocks's header line
_MARKER = re.compile(r"^(?:# ?%%|#{20,})")


def is_cell_marker(line: str) -> bool:
    """Whether ``line`` starts a cell: ``# %%`` (``#%%``, ``# %% [markdown]``) or ``#`` × 20 and more."""
    return _MARKER.match(line) is not None


@dataclass(frozen=True)
class Cell:
    """Lines ``first``..``last`` (1-based, inclusive) of a script."""

    first: int
    last: int
    code: str


def split_cells(source: str) -> list[Cell]:
    """Split a script into cells at its marker lines (:func:`is_cell_marker`).

    The part before the first marker (the docstring and anything beside it)
    is cell 0, so that every line of the script belongs to one cell.
    """
    lines = source.splitlines()
    starts = [0] + [i for i, line in enumerate(lines) if is_cell_marker(line) and i > 0]
    cells = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        cells.append(Cell(first=start + 1, last=end, code="\n".join(lines[start:end])))
    return cells


def text_end(lines: Sequence[str], marker: int) -> int:
    """The index just after the text of the cell whose marker is ``lines[marker]`` (0-based).

    The text is the run of comment lines that follows the marker, up to the
    first line that is not a comment, or is the next marker; the cell's code
    starts there.
    """
    end = marker + 1
    while end < len(lines) and lines[end].startswith("#") and not is_cell_marker(lines[end]):
        end += 1
    return end


def _docstring_end(cell: Cell) -> int:
    """The last line (in the cell, from 1) of the script's docstring, if ``cell`` is the first; else 0."""
    if cell.first != 1:
        return 0
    try:
        body = ast.parse(cell.code).body
    except SyntaxError:
        return 0
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return (first.end_lineno or 0) if isinstance(first.value.value, str) else 0
    return 0


def code_digest(cell: Cell) -> str:
    """The digest of what ``cell`` runs: 16 hex digits of a SHA-256.

    It covers every line of code with its number in the script, and leaves
    out blank lines, comment lines (a cell's text) and the script's docstring
    (the page's title and introduction): the same code on the same lines
    gives the same digest however its prose reads, on every Python.
    """
    skip = _docstring_end(cell)
    kept = [
        f"{cell.first + index}:{line.rstrip()}"
        for index, line in enumerate(cell.code.splitlines())
        if index >= skip and line.strip() and not line.lstrip().startswith("#")
    ]
    return hashlib.sha256("\n".join(kept).encode("utf-8")).hexdigest()[:16]


def code_digests(source: str) -> list[str]:
    """:func:`code_digest` of each cell of ``source``, in order."""
    return [code_digest(cell) for cell in split_cells(source)]
