"""code_cells, wrap_outputs and the directives on a page as the installed sphinx-gallery generates it.

The page comes from a build of a tiny gallery by the real sphinx-gallery
(tests/_tiny_gallery.py): when sphinx-gallery changes what it writes, these
tests fail with it.
"""

from __future__ import annotations

import pytest
from _tiny_gallery import EXAMPLE, OUTPUTS, build_tiny_gallery

from autograd_notes.site.upstream.gallery_rst import (
    CodeCell,
    changed_directive,
    code_cells,
    install_directive,
    summary_directive,
    wrap_outputs,
)

# its module-scoped fixtures build once, in one worker
pytestmark = pytest.mark.xdist_group("test_gallery_rst")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The reST that sphinx-gallery generated for the tiny gallery's example."""
    tiny = build_tiny_gallery(tmp_path_factory.mktemp("tiny"))
    return (tiny.generated / EXAMPLE).with_suffix(".rst").read_text(encoding="utf-8")


FIRST_BLOCK = ".. GENERATED FROM PYTHON SOURCE LINES 11-13"
FIRST_CODE = ".. GENERATED FROM PYTHON SOURCE LINES 13-19"
DOWNLOADS = ".. _sphx_glr_download_examples_01_x_plot_fixture.py:"

# what the blocks from the first code block on become, blank lines left out: each output a directive
WRAPPED_BLOCKS = f"""\
.. GENERATED FROM PYTHON SOURCE LINES 13-19
.. code-block:: Python
    values = [1.0, 1.0]
    print(values)
    print()
    print("after a blank line")
.. runner-outputs:: {EXAMPLE}
   :line: 13
   [1.0, 1.0]
   after a blank line
.. GENERATED FROM PYTHON SOURCE LINES 20-21
Nothing printed next.
.. GENERATED FROM PYTHON SOURCE LINES 21-23
.. code-block:: Python
    doubled = [2 * v for v in values]
.. runner-outputs:: {EXAMPLE}
   :line: 21
.. GENERATED FROM PYTHON SOURCE LINES 24-25
.. code-block:: Python
    print(type(doubled).__name__)
.. runner-outputs:: {EXAMPLE}
   :line: 24
   list
"""


def split_at(text: str, marker: str) -> tuple[str, str]:
    at = text.index(marker)
    return text[:at], text[at:]


def non_blank(text: str) -> str:
    return "".join(f"{line}\n" for line in text.splitlines() if line.strip())


# -- code_cells --------------------------------------------------------------------------


def test_code_cells_are_the_code_blocks_with_their_first_line_and_output(page: str) -> None:
    assert [(cell.first_line, cell.output) for cell in code_cells(page)] == list(OUTPUTS.items())


def test_a_code_cell_knows_the_title_of_its_section() -> None:
    page = (
        "A page\n======\n\n.. GENERATED FROM PYTHON SOURCE LINES 1-3\n\n"
        ".. code-block:: Python\n\n    a = 1\n\n"
        ".. GENERATED FROM PYTHON SOURCE LINES 3-6\n\nThe double ``where``\n--------------------\ntext\n\n"
        ".. GENERATED FROM PYTHON SOURCE LINES 6-8\n\n.. code-block:: Python\n\n    b = 2\n"
    )
    assert code_cells(page) == [CodeCell(1, [], "A page"), CodeCell(6, [], "The double ``where``")]


def test_the_changed_note_goes_above_the_runners_note() -> None:
    page = "Title\n=====\n\nintro\n\n.. GENERATED FROM PYTHON SOURCE LINES 1-3\n\ntext\n"
    lines = summary_directive(changed_directive(page, "a/plot_b.py"), "a/plot_b.py").splitlines()
    changed = lines.index(".. release-changed:: a/plot_b.py")
    assert lines.index("intro") < changed < lines.index(".. runner-summary:: a/plot_b.py")


def test_code_cells_stop_at_the_download_section() -> None:
    page = (
        ".. GENERATED FROM PYTHON SOURCE LINES 1-3\n\n.. code-block:: Python\n\n    print(1)\n\n"
        ".. rst-class:: sphx-glr-script-out\n\n .. code-block:: none\n\n    1\n\n"
        ".. _sphx_glr_download_x.py:\n\n    indented, but not output\n"
    )
    assert code_cells(page) == [CodeCell(1, ["1"])]


def test_a_page_without_blocks_has_no_code_cells() -> None:
    assert code_cells("Title\n=====\n\nText.\n") == []
    text_only = ".. GENERATED FROM PYTHON SOURCE LINES 1-4\n\nJust text.\n"
    assert code_cells(text_only) == []


# -- wrap_outputs ------------------------------------------------------------------------


def test_wrap_outputs_replaces_each_output_by_a_runner_outputs_directive(page: str) -> None:
    wrapped = wrap_outputs(page, EXAMPLE)
    head, rest = split_at(wrapped, FIRST_CODE)
    blocks, downloads = split_at(rest, DOWNLOADS)
    assert head == split_at(page, FIRST_CODE)[0]
    assert non_blank(blocks) == WRAPPED_BLOCKS
    # the blank line inside an output, and a blank line between a directive's options and content
    assert ":line: 13\n\n   [1.0, 1.0]\n\n   after a blank line\n" in blocks
    assert downloads == split_at(page, DOWNLOADS)[1]
    assert "sphx-glr-script-out" not in wrapped


def test_wrap_outputs_keeps_what_each_directive_holds_equal_to_code_cells(page: str) -> None:
    wrapped = wrap_outputs(page, EXAMPLE)
    assert wrapped.count(".. runner-outputs:: ") == len(code_cells(page))
    for cell in code_cells(page):
        directive = f".. runner-outputs:: {EXAMPLE}\n   :line: {cell.first_line}\n\n"
        assert directive in wrapped
        content = [f"   {line}" if line else "" for line in cell.output]
        assert "\n".join(content) in wrapped.split(directive, 1)[1]


def test_wrap_outputs_leaves_a_page_without_code_as_it_is() -> None:
    page = "Title\n=====\n\n.. GENERATED FROM PYTHON SOURCE LINES 1-4\n\nJust text.\n"
    assert wrap_outputs(page, EXAMPLE) == page


# -- summary_directive -------------------------------------------------------------------


def test_summary_directive_goes_before_the_first_block(page: str) -> None:
    summarised = summary_directive(page, EXAMPLE)
    before, after = split_at(page, FIRST_BLOCK)
    assert summarised == f"{before}\n.. runner-summary:: {EXAMPLE}\n\n{after}"


def test_summary_directive_of_a_page_without_blocks_goes_at_its_end() -> None:
    assert summary_directive("Title\n=====\n\nText.", EXAMPLE) == (
        f"Title\n=====\n\nText.\n\n.. runner-summary:: {EXAMPLE}\n\n"
    )


def test_the_extension_applies_both(page: str) -> None:
    done = summary_directive(wrap_outputs(page, EXAMPLE), EXAMPLE)
    assert done.count(".. runner-summary::") == 1
    assert done.index(".. runner-summary::") < done.index(FIRST_BLOCK)
    assert done.count(".. runner-outputs::") == 3
    # the outputs are still found from the wrapped page's blocks
    assert [cell.first_line for cell in code_cells(done)] == list(OUTPUTS)


def test_install_directive_goes_just_above_the_downloads(page: str) -> None:
    lines = install_directive(page).splitlines()
    at = lines.index(".. install-line::")
    assert lines[at + 2].startswith(".. _sphx_glr_download_")
    assert install_directive("Title\n=====\n") == "Title\n=====\n\n.. install-line::\n\n"
