"""The cells of a gallery script, where sphinx-gallery splits it: one splitter for every layer.

sphinx-gallery splits a script at its ``# %%`` lines (or a line of twenty
``#`` or more): the comment lines right after such a marker are the cell's
text, the lines after them, up to the next marker, its code. The records run
a script cell by cell (:mod:`autograd_notes.records.capture.cells`) and the site
translates the text of the downloads (:mod:`autograd_notes.site.examples.downloads`)
with these functions. ``tests/records/test_script_cells.py`` checks them
against sphinx-gallery's own parser on every gallery script. This module
imports nothing outside the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Cell", "is_cell_marker", "split_cells", "text_end"]

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
