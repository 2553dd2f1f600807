"""The docutils builders shared by the site's directives."""

from __future__ import annotations

from docutils import nodes
from sphinx.addnodes import pending_xref

from autograd_notes.site.nodes import doc_link, make_table


def test_table_with_header_and_mixed_cells() -> None:
    table = make_table(
        [["a", nodes.literal("x", "x")], ["b", "c"]], widths=[1, 2], header=["name", "value"], classes=["k"]
    )
    assert table["classes"] == ["k"]
    (group,) = table.children
    assert [c["colwidth"] for c in group.findall(nodes.colspec)] == [1, 2]
    head = next(iter(group.findall(nodes.thead)))
    assert head.astext().split() == ["name", "value"]
    body = next(iter(group.findall(nodes.tbody)))
    assert [row.astext().split() for row in body.children] == [["a", "x"], ["b", "c"]]


def test_table_without_header() -> None:
    table = make_table([["PyTorch", "2.13.0"]], widths=[1, 3])
    assert not list(table.findall(nodes.thead))
    assert table.astext().split() == ["PyTorch", "2.13.0"]


def test_doc_link_is_an_explicit_absolute_doc_reference() -> None:
    paragraph = doc_link("examples/05_inplace/plot_x", "05_inplace/plot_x.py", literal=True)
    (ref,) = paragraph.children
    assert isinstance(ref, pending_xref)
    assert (ref["reftype"], ref["reftarget"], ref["refexplicit"]) == (
        "doc",
        "/examples/05_inplace/plot_x",
        True,
    )
    assert isinstance(ref.children[0], nodes.literal)
    assert doc_link("errors", "index").astext() == "index"
