"""The one cell splitter agrees with sphinx-gallery's own parser, on every gallery script."""

from __future__ import annotations

from pathlib import Path

import pytest
from sphinx_gallery.py_source_parser import split_code_and_text_blocks

from autograd_notes.records.format.script_cells import Cell, is_cell_marker, split_cells, text_end

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "gallery").glob("*/plot_*.py"))


def blocks_of(source: str) -> list[tuple[str, int, str]]:
    """(kind, first line, content) of each block after the first marker, from split_cells and text_end.

    The shape of sphinx-gallery's blocks: a cell's comment lines after its
    marker are a text block (``#`` removed), the rest up to the next marker a
    code block; an empty one is no block.
    """
    lines = source.splitlines()
    blocks = []
    for cell in split_cells(source)[1:]:
        marker = cell.first - 1
        end = text_end(lines, marker)
        text = "\n".join(line[1:] for line in lines[marker + 1 : end])
        if text.strip():
            blocks.append(("text", marker + 2, " ".join(text.split())))
        code = "\n".join(lines[end : cell.last])
        if code.strip():
            blocks.append(("code", end + 1, code.strip()))
    return blocks


def sphinx_gallery_blocks(script: Path) -> list[tuple[str, int, str]]:
    """sphinx-gallery's blocks of ``script`` from its first marker on, in the shape of :func:`blocks_of`."""
    _, blocks = split_code_and_text_blocks(str(script))
    first_marker = split_cells(script.read_text(encoding="utf-8"))[1].first
    return [
        (
            block.type,
            block.lineno,
            " ".join(block.content.split()) if block.type == "text" else block.content.strip(),
        )
        for block in blocks
        if block.lineno > first_marker
    ]


def test_every_gallery_script_is_found() -> None:
    assert len(SCRIPTS) >= 40


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.relative_to(ROOT / "gallery").as_posix())
def test_split_cells_agrees_with_sphinx_gallery(script: Path) -> None:
    source = script.read_text(encoding="utf-8")
    cells = split_cells(source)
    assert len(cells) > 1, "a gallery script has cells"
    assert blocks_of(source) == sphinx_gallery_blocks(script)
    # cell 0, before the first marker, is sphinx-gallery's docstring (and any code beside it)
    _, blocks = split_code_and_text_blocks(str(script))
    before = [(block.type, block.lineno) for block in blocks if block.lineno < cells[1].first]
    assert before[0] == ("text", 1)
    assert len(before) + len(blocks_of(source)) == len(blocks)


SEPARATORS = '''\
"""
Title
=====
"""

#####################################################################
# Text after twenty hashes
x = 1
# %%
y = 2
'''


def test_a_line_of_twenty_hashes_starts_a_cell_as_in_sphinx_gallery(tmp_path: Path) -> None:
    assert is_cell_marker("#" * 20)
    assert not is_cell_marker("#" * 19)
    assert [(cell.first, cell.last) for cell in split_cells(SEPARATORS)] == [(1, 5), (6, 8), (9, 10)]
    script = tmp_path / "plot_separators.py"
    script.write_text(SEPARATORS, encoding="utf-8")
    assert blocks_of(SEPARATORS) == sphinx_gallery_blocks(script)
    assert blocks_of(SEPARATORS) == [
        ("text", 7, "Text after twenty hashes"),
        ("code", 8, "x = 1"),
        ("code", 10, "y = 2"),
    ]


def test_text_end_stops_at_code_and_at_the_next_marker() -> None:
    lines = ["# %%", "# text", "#", "# more", "code()", "# %%", "# %%", "# text"]
    assert text_end(lines, 0) == 4
    assert text_end(lines, 5) == 6  # a marker right after a marker: no text
    assert text_end(lines, 6) == 8
    assert split_cells("\n".join(lines))[1] == Cell(6, 6, "# %%")
