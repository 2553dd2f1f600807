"""The links between pages that the site resolves itself: a page's title, with an anchor on it."""

from __future__ import annotations

from types import SimpleNamespace

from docutils import nodes

from autograd_notes.site.web.links import label_link, page_link, resolve_page_link

PAGE = "examples/02_backward/plot_retain_graph"
ENV = SimpleNamespace(all_docs={PAGE: 0.0}, titles={PAGE: nodes.title("", "Backward twice: retain_graph")})
APP = SimpleNamespace(builder=SimpleNamespace(get_relative_uri=lambda source, target: f"{target}.html"))


def resolved(ref: nodes.Element) -> nodes.Element | None:
    ref["refdoc"] = "timeline"  # as Sphinx sets it before the missing-reference event
    return resolve_page_link(APP, ENV, ref, ref[0])


def test_a_page_link_is_named_by_the_pages_title_and_keeps_its_anchor() -> None:
    link = resolved(page_link(PAGE, "across-pytorch-releases"))
    assert link is not None
    assert link["refuri"] == f"{PAGE}.html#across-pytorch-releases"
    assert link.astext() == "Backward twice: retain_graph"


def test_a_page_link_to_a_missing_page_is_left_to_sphinx_which_warns() -> None:
    assert resolved(page_link("examples/02_backward/plot_gone", "cell-1")) is None


def test_other_references_are_left_to_their_domains() -> None:
    assert resolved(label_link("cell-02_backward/plot_retain_graph.py-1", "Cell 1")) is None
