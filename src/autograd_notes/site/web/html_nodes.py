"""The site's own docutils nodes: HTML that docutils' HTML writer has no node for, or writes otherwise.

The timeline and runners pages are made of document nodes, so that Sphinx
resolves and checks their links and every builder can show them; a few of
their HTML elements have no docutils node (``<details>``, ``<del>``, a
radio tab, a title or ARIA attribute), or docutils writes its node with
classes and attributes of its own that the site's stylesheet does not
expect (``<div class="docutils container">``, ``<code class="docutils
literal">``, a table's ``<colgroup>`` and ``row-odd`` classes, ``<th
class="head">`` without a ``scope``).

Each node here is a subclass of the docutils node that says the same to a
reader (a container, a paragraph, an inline, a literal, a literal block, a
table, a bullet list). Sphinx's translators look for a visitor along the
node's classes, so the text, LaTeX and gettext builders show each as its
docutils base; only HTML gets its own writer (:func:`setup`), which writes
exactly the elements and attributes given, each text escaped by the
translator.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

__all__ = [
    "HTML_ATTRIBUTES",
    "HtmlBlock",
    "HtmlCode",
    "HtmlInline",
    "HtmlLine",
    "HtmlList",
    "HtmlPre",
    "HtmlTable",
    "RadioTab",
    "UnwrapTables",
    "setup",
    "start_tag",
]

HTML_ATTRIBUTES = ("aria_hidden", "aria_label", "scope", "title")
"""The attributes a node here may carry for HTML (``aria_label`` is written ``aria-label``), in the order
they are written, after ``class``."""


class HtmlBlock(nodes.container):  # type: ignore[misc]  # docutils has no types here
    """A block element, ``<tag>`` (``div``, ``details``, ``span``): a container elsewhere.

    ``HtmlBlock("", *children, tag="details", classes=[...])``; a ``div`` has
    only its own classes, not docutils' ``docutils container``.
    """


class HtmlLine(nodes.paragraph):  # type: ignore[misc]
    """Text in an element of its own, ``<tag>`` (``summary``, ``span``): a paragraph elsewhere."""


class HtmlInline(nodes.inline):  # type: ignore[misc]
    """An inline element, ``<tag>`` (``span``, ``del``, ``ins``), with attributes an inline has no place for.

    ``HtmlInline("", text, tag="span", aria_label=...)``.
    """


class HtmlCode(nodes.literal):  # type: ignore[misc]
    """Code in a sentence, a bare ``<code>``.

    Docutils writes a literal with classes of its own and a span per word.
    """


class HtmlPre(nodes.literal_block):  # type: ignore[misc]
    """Preformatted text, ``<pre class=...>``, that may hold inline elements.

    A word diff's ``del`` and ``ins``; other builders show a literal block.
    """


class HtmlTable(nodes.table):  # type: ignore[misc]
    """A table written as ``<table class=...>``, its ``thead`` and ``tbody``, and nothing of docutils' own.

    A header row's cells are ``<th scope="col">``, a stub column's (a
    ``colspec`` with ``stub=1``) ``<th scope="row">``, the others ``<td>``;
    an entry's classes and ``title`` are the cell's. A cell's paragraphs are
    written as their text, a line break between two (a paragraph is what
    other builders need in a cell).
    """


class HtmlList(nodes.bullet_list):  # type: ignore[misc]
    """A bullet list written as ``<ul class=...>`` and ``<li class=...>``.

    Its items' paragraphs are written as in :class:`HtmlTable`.
    """


class RadioTab(nodes.paragraph):  # type: ignore[misc]
    """The label of a tab: ``<input type="radio" name=group id=input_id [checked]><label for=input_id>``.

    Its ``group``, ``input_id`` and ``checked`` attributes make the radio
    button; its text is the label (a paragraph, above the tab's panel,
    elsewhere).
    """


def start_tag(tag: str, node: nodes.Element, attributes: Mapping[str, str] | None = None) -> str:
    """``<tag class=... id=... aria-label=...>``: ``node``'s classes, id and :data:`HTML_ATTRIBUTES`."""
    given = {name: node[name] for name in HTML_ATTRIBUTES if name in node} | dict(attributes or {})
    parts = [tag]
    if node["classes"]:
        parts.append(f'class="{html.escape(" ".join(node["classes"]))}"')
    if node["ids"]:
        parts.append(f'id="{html.escape(node["ids"][0])}"')
    parts += [
        f'{name.replace("_", "-")}="{html.escape(str(given[name]))}"'
        for name in HTML_ATTRIBUTES
        if name in given
    ]
    return f"<{' '.join(parts)}>"


def _visit_element(translator: Any, node: nodes.Element) -> None:
    translator.body.append(start_tag(node["tag"], node))


def _depart_element(translator: Any, node: nodes.Element) -> None:
    translator.body.append(f"</{node['tag']}>")


def _visit_code(translator: Any, node: nodes.Element) -> None:
    translator.body.append(start_tag("code", node))


def _depart_code(translator: Any, node: nodes.Element) -> None:
    translator.body.append("</code>")


def _visit_pre(translator: Any, node: nodes.Element) -> None:
    translator.body.append(start_tag("pre", node))


def _depart_pre(translator: Any, node: nodes.Element) -> None:
    translator.body.append("</pre>")


def _write_content(translator: Any, node: nodes.Element) -> None:
    """A cell's or an item's children; a plain paragraph as its text, a ``<br>`` between two."""
    previous: nodes.Node | None = None
    for child in node.children:
        if type(child) is nodes.paragraph:
            if type(previous) is nodes.paragraph:
                translator.body.append("<br>")
            for part in child.children:
                part.walkabout(translator)
        else:
            child.walkabout(translator)
        previous = child


def _visit_table(translator: Any, node: nodes.Element) -> None:
    translator.body.append(start_tag("table", node))
    for group in node.findall(nodes.tgroup):
        stubs = sum(1 for colspec in group.findall(nodes.colspec) if colspec.get("stub"))
        for part in group.children:
            if not isinstance(part, (nodes.thead, nodes.tbody)):
                continue
            header = isinstance(part, nodes.thead)
            translator.body.append(f"<{part.tagname}>")
            for row in part.children:
                translator.body.append("<tr>")
                for column, entry in enumerate(row.children):
                    tag = "th" if header or column < stubs else "td"
                    scope = {"scope": "col"} if header else {"scope": "row"} if column < stubs else {}
                    translator.body.append(start_tag(tag, entry, scope))
                    _write_content(translator, entry)
                    translator.body.append(f"</{tag}>")
                translator.body.append("</tr>")
            translator.body.append(f"</{part.tagname}>")
    translator.body.append("</table>")
    raise nodes.SkipNode


def _visit_list(translator: Any, node: nodes.Element) -> None:
    translator.body.append(start_tag("ul", node))
    for item in node.children:
        translator.body.append(start_tag("li", item))
        _write_content(translator, item)
        translator.body.append("</li>")
    translator.body.append("</ul>")
    raise nodes.SkipNode


def _visit_radio_tab(translator: Any, node: nodes.Element) -> None:
    group, input_id = html.escape(node["group"]), html.escape(node["input_id"])
    checked = " checked" if node.get("checked") else ""
    translator.body.append(
        f'<input type="radio" name="{group}" id="{input_id}"{checked}><label for="{input_id}">'
    )


def _depart_radio_tab(translator: Any, node: nodes.Element) -> None:
    translator.body.append("</label>")


def _written(translator: Any, node: nodes.Element) -> None:
    """Nothing: the visitor wrote the whole element and skipped its children."""


class UnwrapTables(SphinxPostTransform):
    """Take an :class:`HtmlTable` out of a bare container that a theme wrapped it in.

    furo wraps every table in a ``<div class="table-wrapper">`` that scrolls
    it (a post-transform of priority 500); an :class:`HtmlTable` has its own
    scrolling box, and keeps the markup given.
    """

    formats = ("html",)
    default_priority = 510

    def run(self, **kwargs: Any) -> None:
        """Replace each bare container holding an :class:`HtmlTable` alone by the table."""
        for table in list(self.document.findall(HtmlTable)):
            wrapper = table.parent
            if type(wrapper) is nodes.container and len(wrapper.children) == 1:
                wrapper.remove(table)
                wrapper.parent.replace(wrapper, table)  # not replace_self: it adds the wrapper's classes


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the nodes, with their HTML writers (other builders use their docutils base's)."""
    for node in (HtmlBlock, HtmlLine, HtmlInline):
        app.add_node(node, html=(_visit_element, _depart_element))
    app.add_node(HtmlCode, html=(_visit_code, _depart_code))
    app.add_node(HtmlPre, html=(_visit_pre, _depart_pre))
    app.add_node(HtmlTable, html=(_visit_table, _written))
    app.add_node(HtmlList, html=(_visit_list, _written))
    app.add_node(RadioTab, html=(_visit_radio_tab, _depart_radio_tab))
    app.add_post_transform(UnwrapTables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
