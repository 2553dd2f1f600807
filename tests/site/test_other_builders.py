"""The timeline and runners pages are document nodes: any builder shows them, and Sphinx checks their links.

A small site (one real example; the runners, errors and timeline pages) is
built with the text builder, which knows none of the site's own HTML nodes
and shows each as its docutils base; the same site with the record of an
example it does not have fails the build, as the timeline page's link to
that example's page points nowhere.

sphinx-gallery writes its figures (``imgsgnode``) for HTML and LaTeX only:
the text builds skip them (:data:`SKIP_FIGURES`, added to the copy's conf.py).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from _site import ROOT, Build, small_site, sphinx_build

# its module-scoped fixtures build once, in one worker
pytestmark = [pytest.mark.xdist_group("test_other_builders")]

EXAMPLE = "02_backward/plot_retain_graph.py"
PAGE = "examples/02_backward/plot_retain_graph.txt"
TITLE = "Backward twice: retain_graph"
GONE = "01_graph_basics/plot_tensor_kinds.py"  # an example the small site leaves out
SKIP_FIGURES = """

def setup(app):
    from docutils import nodes
    from sphinx_gallery.directives import imgsgnode

    def skip(translator, node):
        raise nodes.SkipNode

    app.add_node(imgsgnode, override=True, text=(skip, None))
"""


def text_build(project: Path) -> Build:
    """``sphinx-build -b text`` of ``project``, its gallery's figures skipped."""
    with (project / "docs" / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(SKIP_FIGURES)
    return sphinx_build(project, "-b", "text", timeout=600)


@pytest.fixture(scope="module")
def text_site(tmp_path_factory: pytest.TempPathFactory) -> Build:
    result = text_build(small_site(tmp_path_factory.mktemp("text") / "project", [EXAMPLE]))
    assert result.returncode == 0, result.output[-3000:]
    assert "WARNING" not in result.output, result.output[-3000:]
    return result


def lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def column(text: str, header: str, index: int) -> list[str]:
    """The lines of a column of the text table whose header row starts with ``header``, head to foot."""
    start = re.search(rf"\| {re.escape(header)} +\|", text)  # the header itself: "Example", not "Examples"
    assert start is not None, header
    table = text[start.start() :].split("\n\n")[0]
    rows = [line for line in table.splitlines() if line.startswith("|") and not line.startswith("|=")]
    return [row.strip("|").split("|")[index].strip() for row in rows]


def test_the_example_page_has_its_timeline_in_text(text_site: Build) -> None:
    page = text_site.page(PAGE)
    section = page[page.index("Across PyTorch releases") :]
    assert "Every check holds in every recorded release" in section
    assert "is the release the page documents" in " ".join(lines(section))
    # the table: a row per checked cell (its name, then how many checks it has), a mark per release
    rows = [line for line in lines(section) if re.match(r"\| \S[^|]*\| \d+ +\|", line)]
    assert rows
    assert all(row.count("✓") + row.count("◇") + row.count("≈") >= 1 for row in rows), rows
    # the legend, and the link to the timeline page as its text
    assert "* ✓ same as documented" in lines(section)
    assert "All examples and a changelog by release: Behaviour across PyTorch releases." in " ".join(
        lines(section)
    )


def test_the_timeline_page_has_the_matrix_in_text(text_site: Build) -> None:
    page = lines(text_site.page("timeline.txt"))
    # the example's row, named by its page's title
    assert any(line.startswith(f"| {TITLE}") for line in page), page
    # the legend names the marks the matrix shows
    assert "* ✓ same as documented" in page


def test_the_runners_page_has_each_mark_and_its_details_in_text(text_site: Build) -> None:
    page = text_site.page("runners.txt")
    same = "Every example printed here the same output as its earlier recorded run on the same runner."
    assert f"{same} All 1 " in " ".join(page.split())
    # the runner's facts, in the table's cells
    runner = column(page, "Runner", 0)
    assert runner[:2] == ["Runner", "CPU runner (this site)"]
    # one runner and nothing that differs: no matrix of one column of "same", which says nothing more
    assert not [line for line in page.splitlines() if re.match(r"\| Section +\|", line)]


def test_a_link_to_a_missing_page_fails_the_build(tmp_path: Path) -> None:
    """A record of an example the site does not have: the timeline page's link to its page is an error."""
    project = small_site(tmp_path / "project", [EXAMPLE])
    stale = Path("records/cpu") / Path(GONE).with_suffix(".json")
    (project / stale).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / stale, project / stale)
    result = text_build(project)
    assert result.returncode != 0
    page = f"examples/{Path(GONE).with_suffix('').as_posix()}"
    assert re.search(
        rf"timeline\.md.*WARNING: 'autograd-notes-page' reference target not found: /{page}", result.output
    ), result.output[-3000:]
