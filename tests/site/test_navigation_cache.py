"""The sidebar's tree made once per build (site/build/navigation_cache.py) is furo's own, on every page.

The tiny gallery is built by the real Sphinx, sphinx-gallery and furo with
the cache on. After the cache put its tree in a page's context, a handler
asks furo to make the page's tree its own way, from Sphinx's own
``toctree()``, and keeps both: they must be the same text. The pages cover
what the tree's marks depend on: the home page (in no table of contents), a
gallery index and a section index (entries with children), an example (a
leaf three levels down), a page that no table of contents lists, in a
folder of its own, and Sphinx's search and index pages.
"""

from __future__ import annotations

import pytest
from _tiny_gallery import TinyGallery, build_tiny_gallery

from autograd_notes.site.upstream.navigation import NavigationTree, is_sphinx_toctree

CONF = """
extensions.append("autograd_notes.site.build.navigation_cache")


def _both_trees(app, pagename, templatename, context, doctree):
    import furo

    ours = context["furo_navigation_tree"]
    theirs = furo._compute_navigation_tree(context)
    for name, tree in (("ours", ours), ("furo", theirs)):
        target = Path(app.outdir, "_trees", name, pagename + ".html")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(tree, encoding="utf-8")


def _furos_own_work(app, pagename, templatename, context, doctree):
    # right after furo's handler (500), before the cache's second (550): what furo made itself
    target = Path(app.outdir, "_trees", "furo-made", pagename + ".html")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(context["furo_navigation_tree"], encoding="utf-8")


app_setup = setup


def setup(app):
    app_setup(app)
    app.connect("html-page-context", _furos_own_work, priority=520)
    app.connect("html-page-context", _both_trees, priority=600)
"""

ORPHAN = """\
:orphan:

A page no table of contents lists
=================================

It is reached by its address only.
"""

PAGES = [
    "index",
    "examples/index",
    "examples/01_x/index",
    "examples/01_x/plot_fixture",
    "extra/orphan",
    "search",
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyGallery:
    project = tmp_path_factory.mktemp("navigation")
    (project / "docs" / "extra").mkdir(parents=True)
    (project / "docs" / "extra" / "orphan.rst").write_text(ORPHAN, encoding="utf-8")
    return build_tiny_gallery(project, conf=CONF)


def _tree(tiny: TinyGallery, who: str, page: str) -> str:
    return (tiny.html / "_trees" / who / f"{page}.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES)
def test_each_pages_tree_is_the_one_furo_makes(tiny: TinyGallery, page: str) -> None:
    ours = _tree(tiny, "ours", page)
    assert 'class="reference internal"' in ours
    assert ours == _tree(tiny, "furo", page)


def test_the_page_shown_is_marked_and_the_others_are_not(tiny: TinyGallery) -> None:
    tree = _tree(tiny, "ours", "examples/01_x/plot_fixture")
    assert tree.count('class="current reference internal" href="#"') == 1
    assert tree.count("current-page") == 1
    assert tree.count('checked=""') == 2  # the gallery and the section above the example
    # the gallery's link, from the example's folder
    assert '<a class="reference internal" href="../index.html">' in tree
    assert "current" not in _tree(tiny, "ours", "extra/orphan")


def test_a_folders_tree_is_the_top_trees_with_its_links_moved() -> None:
    link = '<a class="reference internal" href="a/b.html#c">B</a>'
    top = NavigationTree(f'<ul><li class="toctree-l1">{link}</li></ul>')
    moved = top.moved(lambda address: "../" + address)
    assert 'href="../a/b.html#c"' in moved.html
    assert moved.for_page("../a/b.html") == moved.html  # an anchor's link is not the page's own


def test_only_sphinxs_own_toctree_is_answered_from_the_cache() -> None:
    def toctree(**arguments: object) -> str:  # what an extension (notfound) puts in its place
        return ""

    assert not is_sphinx_toctree(toctree)
    assert not is_sphinx_toctree(None)


@pytest.mark.parametrize("page", PAGES)
def test_furo_made_no_tree_of_its_own(tiny: TinyGallery, page: str) -> None:
    # the cache recognised Sphinx's own toctree() and answered furo's call with nothing to parse
    assert _tree(tiny, "furo-made", page) == ""
