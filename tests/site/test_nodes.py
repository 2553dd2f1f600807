"""The docutils builders shared by the site's directives, and the site's own nodes."""

from __future__ import annotations

import pytest
from _render import NodeWriter
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.utils import new_document
from sphinx.addnodes import pending_xref

from autograd_notes.site.web.html_nodes import (
    HtmlBlock,
    HtmlCode,
    HtmlInline,
    HtmlLine,
    HtmlList,
    HtmlPre,
    HtmlTable,
    RadioTab,
    UnwrapTables,
)
from autograd_notes.site.web.nodes import CHARACTERS_PER_WIDTH, compose, doc_reference, gap, make_table


def test_table_with_header_and_mixed_cells() -> None:
    table = make_table(
        [["a", nodes.literal("x", "x")], ["b", "c"]], widths=[1, 2], header=["name", "value"], classes=["k"]
    )
    assert table["classes"] == ["k"]
    (group,) = table.children
    # in proportion to the widths given, in characters for the text builder
    assert [c["colwidth"] for c in group.findall(nodes.colspec)] == [
        CHARACTERS_PER_WIDTH,
        2 * CHARACTERS_PER_WIDTH,
    ]
    head = next(iter(group.findall(nodes.thead)))
    assert head.astext().split() == ["name", "value"]
    body = next(iter(group.findall(nodes.tbody)))
    assert [row.astext().split() for row in body.children] == [["a", "x"], ["b", "c"]]


def test_table_without_header() -> None:
    table = make_table([["PyTorch", "2.13.0"]], widths=[1, 3])
    assert not list(table.findall(nodes.thead))
    assert table.astext().split() == ["PyTorch", "2.13.0"]


def test_doc_reference_is_an_explicit_absolute_doc_reference() -> None:
    ref = doc_reference("examples/05_inplace/plot_x", nodes.literal("x.py", "x.py"))
    assert isinstance(ref, pending_xref)
    assert (ref["reftype"], ref["reftarget"], ref["refexplicit"]) == (
        "doc",
        "/examples/05_inplace/plot_x",
        True,
    )
    assert isinstance(ref.children[0], nodes.literal)


# -- the site's own nodes (html_nodes): their HTML, and what other builders show ---------------------


@pytest.fixture(scope="module")
def html(tmp_path_factory: pytest.TempPathFactory) -> NodeWriter:
    return NodeWriter(tmp_path_factory.mktemp("html"), "html")


@pytest.fixture(scope="module")
def text(tmp_path_factory: pytest.TempPathFactory) -> NodeWriter:
    return NodeWriter(tmp_path_factory.mktemp("text"), "text")


def mark_details() -> HtmlBlock:
    """A runners-matrix mark and what opens under it."""
    mark = HtmlInline("✓", "✓", tag="span", classes=["runner-mark"], aria_hidden="true")
    lines = HtmlBlock(
        "",
        HtmlLine("", "torch 2.13.0+cpu, x86_64", tag="span"),
        HtmlLine("", "", HtmlCode("records/cpu/a.json", "records/cpu/a.json"), tag="span"),
        tag="span",
        classes=["runner-cell-details"],
    )
    summary = HtmlLine("", "", mark, tag="summary", title="same")
    return HtmlBlock("", summary, lines, tag="details", classes=["runner-cell", "runner-same"])


def scoped_table() -> HtmlTable:
    """A table whose first column names its rows, with a title on a cell."""
    group = nodes.tgroup(cols=2)
    group += [nodes.colspec(colwidth=10, stub=1), nodes.colspec(colwidth=8)]
    group += nodes.thead(
        "",
        nodes.row(
            "",
            nodes.entry("", nodes.paragraph("", "Cell")),
            nodes.entry("", nodes.paragraph("", "2.4"), classes=["tl-release"], title="2.4.1"),
        ),
    )
    mark = HtmlInline("✓", "✓", tag="span", aria_label="2.4.1: same")
    group += nodes.tbody(
        "",
        nodes.row(
            "",
            nodes.entry("", nodes.paragraph("", "Cell 1")),
            nodes.entry("", nodes.paragraph("", "", mark), classes=["tl-mark"], title="2.4.1: same"),
        ),
    )
    return HtmlTable("", group, classes=["tl-table"])


def lines_list() -> HtmlList:
    """A list whose item has two lines and a word diff."""
    diff = HtmlPre(
        "",
        "",
        nodes.Text("output of "),
        HtmlInline("AddBackward0", "AddBackward0", tag="del"),
        HtmlInline("Add", "Add", tag="ins"),
        classes=["tl-text", "tl-diff"],
    )
    item = nodes.list_item(
        "", nodes.paragraph("", "expected error"), nodes.paragraph("", "cell 3"), diff, classes=["tl-words"]
    )
    return HtmlList("", item, classes=["tl-changelog"])


def test_elements_are_written_with_their_classes_and_attributes_only(html: NodeWriter) -> None:
    assert html.write(mark_details()) == (
        '<details class="runner-cell runner-same"><summary title="same">'
        '<span class="runner-mark" aria-hidden="true">✓</span></summary>'
        '<span class="runner-cell-details"><span>torch 2.13.0+cpu, x86_64</span>'
        "<span><code>records/cpu/a.json</code></span></span></details>"
    )
    assert html.write(HtmlBlock("", nodes.paragraph("", "x"), tag="div", classes=["tl-scroll"])).startswith(
        '<div class="tl-scroll"><p>x</p>'
    )


def test_text_and_attributes_are_escaped(html: NodeWriter) -> None:
    line = HtmlLine("", 'a <b> & "c"', tag="span", title='"y" <z>')
    assert html.write(line) == '<span title="&quot;y&quot; &lt;z&gt;">a &lt;b&gt; &amp; &quot;c&quot;</span>'


def test_a_table_has_scoped_header_cells_and_no_docutils_markup(html: NodeWriter) -> None:
    assert html.write(scoped_table()) == (
        '<table class="tl-table"><thead><tr><th scope="col">Cell</th>'
        '<th class="tl-release" scope="col" title="2.4.1">2.4</th></tr></thead>'
        '<tbody><tr><th scope="row">Cell 1</th><td class="tl-mark" title="2.4.1: same">'
        '<span aria-label="2.4.1: same">✓</span></td></tr></tbody></table>'
    )


def test_a_list_items_paragraphs_are_lines(html: NodeWriter) -> None:
    assert html.write(lines_list()) == (
        '<ul class="tl-changelog"><li class="tl-words">expected error<br>cell 3'
        '<pre class="tl-text tl-diff">output of <del>AddBackward0</del><ins>Add</ins></pre></li></ul>'
    )


def test_a_radio_tab_is_an_input_and_its_label(html: NodeWriter) -> None:
    tab = RadioTab(
        "", "CPU runner · this build", group="runner-tabs-1", input_id="runner-tabs-1-0", checked=True
    )
    assert html.write(tab) == (
        '<input type="radio" name="runner-tabs-1" id="runner-tabs-1-0" checked>'
        '<label for="runner-tabs-1-0">CPU runner · this build</label>'
    )
    other = RadioTab("", "CUDA runner", group="g", input_id="g-1", checked=False)
    assert html.write(other) == '<input type="radio" name="g" id="g-1"><label for="g-1">CUDA runner</label>'


def test_other_builders_show_each_node_as_its_docutils_base(text: NodeWriter) -> None:
    written = text.write(
        scoped_table(), mark_details(), lines_list(), RadioTab("", "CUDA runner", group="g", input_id="g-1")
    )
    table = [line for line in written.splitlines() if line.startswith("|")]
    assert [cell.strip() for cell in table[0].strip("|").split("|")] == ["Cell", "2.4"]
    assert [cell.strip() for cell in table[-1].strip("|").split("|")] == ["Cell 1", "✓"]
    lines = [
        line.strip() for line in written.splitlines() if line.strip() and not line.startswith(("|", "+"))
    ]
    assert lines == [
        "✓",
        "torch 2.13.0+cpu, x86_64",
        '"records/cpu/a.json"',
        "* expected error",
        "cell 3",
        "output of AddBackward0Add",
        "CUDA runner",
    ]


def test_a_table_a_theme_wrapped_is_taken_out_of_its_wrapper() -> None:
    document = new_document("<nodes>", get_default_settings())
    wrapper = nodes.container(classes=["table-wrapper", "tl-table"])  # as furo wraps a table
    wrapper += scoped_table()
    document += HtmlBlock("", wrapper, tag="div", classes=["tl-scroll"])
    UnwrapTables(document).run()
    (scroll,) = document.children
    (table,) = scroll.children
    assert isinstance(table, HtmlTable)
    assert table["classes"] == ["tl-table"]


@pytest.mark.parametrize(
    ("items", "language", "text"),
    [
        (["a", "b", "c"], "en", "a, b, and c"),
        (["a", "b", "c"], "ru", "a, b и c"),
        (["第一", "第二", "第三"], "zh_CN", "第一、第二和第三"),
        # Chinese sets a space between its words and Latin text
        (["RuntimeError: x", "UserWarning: y"], "zh_CN", "RuntimeError: x 和 UserWarning: y"),
    ],
)
def test_a_list_reads_as_the_language_writes_it(items: list[str], language: str, text: str) -> None:
    from autograd_notes.site.web.nodes import list_of

    assert "".join(node.astext() for node in list_of(items, language)) == text


def test_compose_sets_no_space_beside_chinese_quotes_only_in_chinese() -> None:
    def text(template: str, label: nodes.Node) -> str:
        return "".join(node.astext() for node in compose(template, label=label))

    assert text("值 {label} 变了。", nodes.Text("“原始条目的范数”")) == "值“原始条目的范数”变了。"
    assert text("值 {label} 变了。", nodes.literal("g", "g")) == "值 g 变了。"  # Latin code keeps its spaces
    assert text("O valor {label} mudou.", nodes.Text("“norma”")) == "O valor “norma” mudou."
    assert text("结果从 {label} 变为 x。", nodes.Text("没有警告")) == "结果从没有警告变为 x。"


def test_no_space_goes_before_chinese_punctuation() -> None:
    assert gap("2.13.0", "（文档版本）") == ""
    assert gap("值", "“原始条目的范数”") == ""
    assert gap("O valor", "“norma”") == " "
    assert gap("value", "g") == " "
