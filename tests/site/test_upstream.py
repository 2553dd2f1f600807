"""The contract with sphinx-gallery and furo: what site/upstream.py reads is in what they generate.

A tiny gallery is built by the installed sphinx-gallery with the furo theme
(tests/_tiny_gallery.py, a few seconds); each test names the function of
``autograd_notes.site.upstream.outputs`` whose format moved when it fails.
"""

from __future__ import annotations

import pickle
import textwrap
from pathlib import Path

import pytest
from _site import copy_project, executions, sphinx_build
from _tiny_gallery import EXAMPLE, OUTPUTS, TinyGallery, build_tiny_gallery
from docutils import nodes
from sphinx import addnodes
from sphinx_gallery.py_source_parser import split_code_and_text_blocks

from autograd_notes.site.upstream import outputs as upstream
from autograd_notes.site.upstream.gallery_rst import code_cells

# its module-scoped fixtures build once, in one worker
pytestmark = pytest.mark.xdist_group("test_upstream")

UPDATE = "update autograd_notes/site/upstream.py (and what calls it) to the new format"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyGallery:
    return build_tiny_gallery(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def page(tiny: TinyGallery) -> list[str]:
    return (tiny.generated / EXAMPLE).with_suffix(".rst").read_text(encoding="utf-8").splitlines()


def generated_rst(what: str, function: str) -> str:
    return f"sphinx-gallery's generated reST no longer has {what} that upstream.{function} reads; {UPDATE}"


# -- sphinx-gallery: the reST of an example page -------------------------------------------------


def test_each_block_starts_with_its_source_lines(tiny: TinyGallery, page: list[str]) -> None:
    firsts = [first for line in page if (first := upstream.generated_block_first_line(line)) is not None]
    assert firsts, generated_rst(
        "the '.. GENERATED FROM PYTHON SOURCE LINES' comments", "generated_block_first_line"
    )
    # they are the blocks of sphinx-gallery's own parser, after the docstring
    _, blocks = split_code_and_text_blocks(str(tiny.script))
    assert firsts == [block.lineno for block in blocks[1:]], generated_rst(
        "a comment per block with its first line", "generated_block_first_line"
    )


def test_code_blocks_and_their_outputs_are_marked(page: list[str]) -> None:
    assert sum(map(upstream.is_code_block, page)) == len(OUTPUTS), generated_rst(
        "a '.. code-block:: Python' per code cell", "is_code_block"
    )
    starts = [i for i, line in enumerate(page) if upstream.is_output_start(line)]
    assert len(starts) == sum(1 for output in OUTPUTS.values() if output), generated_rst(
        "the '.. rst-class:: sphx-glr-script-out' line of each output", "is_output_start"
    )
    for start in starts:
        body = next(i for i in range(start + 1, len(page)) if page[i].strip())
        assert upstream.is_literal_block(page[body]), generated_rst(
            "the literal block of an output", "is_literal_block"
        )
        text = next(i for i in range(body + 1, len(page)) if page[i].strip())
        indent = len(page[text]) - len(page[text].lstrip())
        assert indent == len(upstream.OUTPUT_INDENT), generated_rst(
            "an output's lines indented by four spaces", "OUTPUT_INDENT"
        )


def test_the_download_section_comes_after_every_block(page: list[str]) -> None:
    targets = [i for i, line in enumerate(page) if upstream.is_download_target(line)]
    assert len(targets) == 1, generated_rst("the '.. _sphx_glr_download_' target", "is_download_target")
    last_block = max(i for i, line in enumerate(page) if upstream.generated_block_first_line(line))
    assert targets[0] > last_block


def test_code_cells_reads_what_each_cell_printed(page: list[str]) -> None:
    """The whole reading, on the real page: every code cell with its first line and its output."""
    cells = code_cells("\n".join(page))
    assert {cell.first_line: cell.output for cell in cells} == OUTPUTS, generated_rst(
        "the outputs as they were", "is_output_start/is_literal_block"
    )


# -- sphinx-gallery: the thumbnail cards -------------------------------------------------------------


def test_a_card_is_an_opening_a_doc_link_and_a_title(tiny: TinyGallery) -> None:
    """The order thumbnails.py relies on: the card's raw opening, its :doc: link, its raw title."""
    doctree = pickle.loads((tiny.doctrees / "examples" / "index.doctree").read_bytes())
    sequence = []
    for node in doctree.findall(lambda n: isinstance(n, (nodes.raw, addnodes.pending_xref))):
        if isinstance(node, addnodes.pending_xref) and upstream.is_card_link(
            node.get("refdomain"), node.get("reftype")
        ):
            sequence.append(("link", str(node["reftarget"]).lstrip("/")))
        elif isinstance(node, nodes.raw) and upstream.is_card_opening(node.astext()):
            sequence.append(("opening", ""))
        elif isinstance(node, nodes.raw) and upstream.is_card_title(node.astext()):
            sequence.append(("title", ""))
    example = f"examples/{Path(EXAMPLE).with_suffix('').as_posix()}"
    assert sequence == [("opening", ""), ("link", example), ("title", "")], (
        f"sphinx-gallery's cards are no longer a raw opening, a :doc: link and a raw title, in that order,"
        f" as upstream.is_card_opening/is_card_link/is_card_title and site/thumbnails.py read them; {UPDATE}"
    )


def test_a_cards_title_and_hover_text_can_be_replaced(tiny: TinyGallery) -> None:
    index = (tiny.html / "examples" / "index.html").read_text(encoding="utf-8")
    assert 'tooltip="What the cells do."' in index
    retitled = upstream.set_card_title(index, "A &amp; B")
    assert retitled.count("A &amp; B") == 1, (
        f"sphinx-gallery's card title moved: upstream.set_card_title no longer finds it; {UPDATE}"
    )
    rehovered = upstream.set_card_tooltip(index, r"C \1 D")
    assert 'tooltip="C \\1 D"' in rehovered, (
        f"sphinx-gallery's card hover text moved: upstream.set_card_tooltip no longer finds it; {UPDATE}"
    )


# -- furo ------------------------------------------------------------------------------------------------


def test_furos_navigation_toggles_are_found_in_the_context(tiny: TinyGallery) -> None:
    tree = tiny.navigation_tree("index")
    toggles = tree.count('class="toctree-checkbox"')
    assert toggles == 2  # the gallery and its section have children
    relabelled = upstream.relabel_navigation_toggles(tree, lambda title: f"Ouvrir {title}")
    assert relabelled.count('aria-label="Ouvrir ') == toggles, (
        f"furo's navigation tree (context[{upstream.FURO_NAVIGATION_TREE!r}]) no longer labels its"
        f" {toggles} toggles as upstream.relabel_navigation_toggles reads them; {UPDATE}"
    )
    assert 'aria-label="Ouvrir Gallery"' in relabelled
    assert "Toggle navigation of" not in relabelled


def test_sphinxs_toctree_captions_are_found_in_the_tree_and_the_page(tiny: TinyGallery) -> None:
    """Sphinx's caption heading, without aria-level, in furo's sidebar tree and in the page's body."""
    tree = tiny.navigation_tree("index")
    body = (tiny.html / "index.html").read_text(encoding="utf-8")
    body = body[body.index("<article") :]
    for where, html in (("furo's navigation tree", tree), ("the page's toctree", body)):
        leveled = upstream.level_toctree_captions(html)
        assert leveled.count('role="heading" aria-level="2"') == 1, (
            f'Sphinx\'s toctree caption (<p class="caption" role="heading">) in {where} is no longer'
            f" found by upstream.level_toctree_captions; {UPDATE}"
        )
        assert upstream.level_toctree_captions(leveled) == leveled  # once only
        # a Sphinx that writes aria-level itself makes this a no-op: then drop the function
        assert "aria-level" not in html, f"Sphinx writes aria-level on toctree captions now: {UPDATE}"


def test_furos_page_template_is_the_one_the_fork_was_taken_from() -> None:
    assert upstream.furo_page_sha256() == upstream.FURO_PAGE_SHA256, (
        "furo's page.html changed since docs/_templates/page.html was forked from it: re-merge furo's"
        " changes into the fork (keeping its gettext calls, the edit link and the footer's runner), then"
        " record the new digest as upstream.FURO_PAGE_SHA256"
    )


def test_the_fork_of_page_html_names_the_furo_it_was_taken_from() -> None:
    import furo

    fork = (Path(__file__).resolve().parents[2] / "docs" / "_templates" / "page.html").read_text(
        encoding="utf-8"
    )
    assert f"furo {furo.__version__}" in fork.splitlines()[0]


# -- sphinx-gallery: running the examples again when the runner changed ------------------------------


def test_a_new_runner_sets_run_stale_examples_and_the_same_runner_does_not(tmp_path: Path) -> None:
    conf = {"plot_gallery": True, "run_stale_examples": False}
    assert upstream.rerun_if_runner_changed(conf, [tmp_path], "torch=1") is True  # no key stored yet
    assert conf["run_stale_examples"] is True
    assert upstream.remember_runner(conf | {"failing_examples": {}}, [tmp_path], "torch=1") is True
    assert (tmp_path / upstream.RUNNER_KEY_FILE).read_text(encoding="utf-8") == "torch=1\n"
    again = {"plot_gallery": True, "run_stale_examples": False}
    assert upstream.rerun_if_runner_changed(again, [tmp_path], "torch=1") is False
    assert again["run_stale_examples"] is False
    assert upstream.rerun_if_runner_changed(again, [tmp_path], "torch=2") is True


def test_the_runner_is_remembered_only_after_every_example_ran(tmp_path: Path) -> None:
    failed = {"plot_gallery": True, "failing_examples": {"plot_x.py": "Traceback"}}
    assert upstream.remember_runner(failed, [tmp_path], "torch=1") is False
    not_run = {"plot_gallery": False, "failing_examples": {}}
    assert upstream.remember_runner(not_run, [tmp_path], "torch=1") is False
    assert not (tmp_path / upstream.RUNNER_KEY_FILE).exists()
    # a build that runs nothing (the other languages, plot_gallery=0) does not ask for a rerun either
    assert upstream.rerun_if_runner_changed(not_run, [tmp_path], "torch=1") is False


INDEX = """\
# Fixture

```{toctree}
examples/index
```
"""

EXAMPLES = {
    "plot_one.py": '"""\nOne\n===\n\nThe first.\n"""\n\n# %%\nprint("one")\n',
    "plot_two.py": '"""\nTwo\n===\n\nThe second.\n"""\n\n# %%\nprint("two")\n',
}


def test_the_real_configuration_reruns_every_example_only_when_the_runner_changes(tmp_path: Path) -> None:
    """docs/conf.py on a two-example gallery: built, rebuilt unchanged, rebuilt under another runner."""
    project = copy_project(tmp_path, gallery=False)
    docs = project / "docs"
    for page in docs.rglob("*.md"):
        if not page.relative_to(docs).parts[0].startswith("_"):
            page.unlink()
    (docs / "index.md").write_text(INDEX, encoding="utf-8")
    gallery = project / "gallery"
    gallery.mkdir()
    (gallery / "GALLERY_HEADER.rst").write_text("Fixture gallery\n===============\n", encoding="utf-8")
    for name, code in EXAMPLES.items():
        (gallery / name).write_text(textwrap.dedent(code), encoding="utf-8")
    key_file = docs / "examples" / upstream.RUNNER_KEY_FILE

    def build(log_name: str) -> list[str]:
        log = project / log_name
        result = sphinx_build(
            project, "-D", "autograd_notes_require_records=0", env={"AUTOGRAD_NOTES_EXECUTION_LOG": str(log)}
        )
        assert result.returncode == 0, result.output[-3000:]
        return sorted(executions(log))

    assert build("first.log") == sorted(EXAMPLES)
    key = key_file.read_text(encoding="utf-8")
    assert build("unchanged.log") == []
    key_file.write_text("torch=0.0.0;variant=CPU;device=cpu;python=3\n", encoding="utf-8")
    assert build("changed.log") == sorted(EXAMPLES)
    assert key_file.read_text(encoding="utf-8") == key
    assert list((docs / "examples").glob("*.md5")) != []  # sphinx-gallery's own cache, kept
    assert build("after.log") == []
