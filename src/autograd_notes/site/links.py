"""Links into the example pages, shared by the pages that point at an example or one of its cells.

Each code cell of an example page carries a target: the HTML id
:func:`cell_anchor` and the site-wide reference label :func:`cell_label` (set
by the ``runner-outputs`` directive). The error index, the runners pages and
the release timeline link to them: :func:`cell_number` finds the cell that
holds a source line from :func:`example_first_lines`, :func:`title_link` and
:func:`label_link` make the references, named by the target's title in the
build's language, and :func:`gallery_docname` names an example's page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref

from .gallery_conf import gallery_folders
from .gallery_rst import code_cells

__all__ = [
    "cell_anchor",
    "cell_label",
    "cell_number",
    "example_first_lines",
    "gallery_docname",
    "label_link",
    "title_link",
]

_FIRST_LINES = "autograd_notes_first_lines"  # env.temp_data key: example -> its cells' first lines


def cell_anchor(number: int) -> str:
    """The HTML id of the ``number``-th code cell (from 1) of an example page: ``cell-3``."""
    return f"cell-{number}"


def cell_label(example: str, number: int) -> str:
    """The reference label of that cell, unique on the site: ``cell-05_inplace/plot_x.py-3``."""
    return f"cell-{example.lower()}-{number}"


def cell_number(first_lines: Sequence[int], line: int) -> int:
    """Which code cell (from 1) of a page holds source ``line``, given each cell's first line."""
    return max(1, sum(first <= line for first in first_lines))


def label_link(label: str, content: nodes.Node | str) -> pending_xref:
    """A link to the reference ``label``, showing ``content`` (a string is shown as code)."""
    ref: pending_xref = pending_xref(
        "", refdomain="std", reftype="ref", reftarget=label, refexplicit=True, refwarn=True
    )
    ref += content if isinstance(content, nodes.Node) else nodes.literal(content, content)
    return ref


def title_link(docname: str) -> pending_xref:
    """A link to ``docname`` named by its title, as this build's language gives it."""
    ref: pending_xref = pending_xref(
        "", refdomain="std", reftype="doc", reftarget=f"/{docname}", refexplicit=False, refwarn=True
    )
    ref += nodes.inline(docname, docname)
    return ref


def example_first_lines(env: Any, example: str) -> list[int]:
    """The first source line of each code cell of an example's generated page ([] before it exists).

    Read once per example by the page being read (``env.temp_data`` lasts one
    page), which may link to many of its cells; that page then depends on it.
    """
    gallery = gallery_folders(env.config, env.srcdir)[0]
    page = (gallery.generated / example).with_suffix(".rst")
    if not page.exists():
        return []
    env.note_dependency(str(page))
    cache: dict[str, list[int]] = env.temp_data.setdefault(_FIRST_LINES, {})
    if example not in cache:
        cache[example] = [cell.first_line for cell in code_cells(page.read_text(encoding="utf-8"))]
    return cache[example]


def gallery_docname(env: Any, example: str) -> str:
    """The docname of ``<section>/plot_x.py``'s generated page: ``examples/<section>/plot_x``."""
    return gallery_folders(env.config, env.srcdir)[0].docname(example)
