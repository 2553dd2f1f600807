"""Links into the example pages, shared by the pages that point at an example or one of its cells.

Each code cell of an example page carries a target: the HTML id
:func:`cell_anchor` and the site-wide reference label :func:`cell_label` (set
by the ``runner-outputs`` directive). The error index, the runners pages and
the release timeline link to them: :func:`cell_number` finds the cell that
holds a source line from :func:`example_first_lines` (and
:func:`example_cell_headings` names it by its section), :func:`title_link`,
:func:`page_link` and :func:`label_link` make the references, named by the
target's title in the build's language, and :func:`gallery_docname` names an
example's page.

Every link is a ``pending_xref`` that Sphinx resolves when it writes a page,
and warns about (an error under ``-W``) when its target is missing. A
:func:`page_link` is a reference type of the site's own, resolved by the
``missing-reference`` handler this module's :func:`setup` registers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.nodes import clean_astext, make_refnode

from ..upstream.gallery_conf import gallery_folders
from ..upstream.gallery_rst import CodeCell, code_cells

__all__ = [
    "cell_anchor",
    "cell_label",
    "cell_number",
    "example_cell_headings",
    "example_first_lines",
    "gallery_docname",
    "label_link",
    "page_link",
    "resolve_page_link",
    "setup",
    "title_link",
]

_CELLS = "autograd_notes_code_cells"  # env.temp_data key: example -> its page's code cells


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


PAGE_REF = "autograd-notes-page"
"""The reference type of :func:`page_link` (no domain has it: :func:`resolve_page_link` resolves it)."""


def page_link(docname: str, anchor: str) -> pending_xref:
    """A link to ``anchor`` on page ``docname``, named by the page's title, as this build's language gives it.

    Sphinx's ``doc`` references have no anchor, and a ``ref`` to a label is
    named by its section's title, not by its page's. The page must exist
    (Sphinx warns otherwise); the anchor is one that every such page has.
    """
    ref: pending_xref = pending_xref(
        "", refdomain="", reftype=PAGE_REF, reftarget=f"/{docname}", refanchor=anchor, refwarn=True
    )
    ref += nodes.inline(docname, docname)
    return ref


def resolve_page_link(
    app: Sphinx, env: BuildEnvironment, node: pending_xref, contnode: nodes.Element
) -> nodes.reference | None:
    """Resolve a :func:`page_link` (``missing-reference``); ``None`` for any other or a missing page."""
    if node["reftype"] != PAGE_REF:
        return None
    docname = node["reftarget"].removeprefix("/")
    if docname not in env.all_docs:
        return None  # Sphinx warns: "'autograd-notes-page' reference target not found: /<docname>"
    title = clean_astext(env.titles[docname])
    return make_refnode(app.builder, node["refdoc"], docname, node["refanchor"], nodes.Text(title))


def _example_cells(env: BuildEnvironment, example: str) -> list[CodeCell]:
    """The code cells of an example's generated page ([] before it exists).

    Read once per example by the page being read (``env.temp_data`` lasts one
    page), which may link to many of its cells; that page then depends on it.
    """
    gallery = gallery_folders(env.config, env.srcdir)[0]
    page = (gallery.generated / example).with_suffix(".rst")
    if not page.exists():
        return []
    env.note_dependency(str(page))
    cache = cast("dict[str, list[CodeCell]]", env.temp_data.setdefault(_CELLS, {}))
    if example not in cache:
        cache[example] = code_cells(page.read_text(encoding="utf-8"))
    return cache[example]


def example_first_lines(env: BuildEnvironment, example: str) -> list[int]:
    """The first source line of each code cell of an example's generated page ([] before it exists)."""
    return [cell.first_line for cell in _example_cells(env, example)]


def example_cell_headings(env: BuildEnvironment, example: str) -> list[str]:
    """The title of the section each code cell of an example's page is in, as written (reST)."""
    return [cell.heading for cell in _example_cells(env, example)]


def gallery_docname(env: BuildEnvironment, example: str) -> str:
    """The docname of ``<section>/plot_x.py``'s generated page: ``examples/<section>/plot_x``."""
    return gallery_folders(env.config, env.srcdir)[0].docname(example)


def setup(app: Sphinx) -> dict[str, Any]:
    """Resolve the site's :func:`page_link` references."""
    app.connect("missing-reference", resolve_page_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
