"""``.. questions::``: the questions a page answers, as readers ask them, shown on the page.

Readers search with a question ("Why is .grad None?", "detach() or no_grad()?"),
in words a page's title and text may not use. Each page lists, under its opening paragraph, the
questions it answers, as a bullet list in this directive::

    .. questions::

       - Why is ``.grad`` None after ``backward()``?
       - What does ``retain_grad()`` do?

The list is the page's own text: the catalogs translate each question with the
page's other messages, and :mod:`.documents` gives the questions the highest
weight in the site search. The directive shows them under a heading in the
reader's language, in a box of class :data:`QUESTIONS_CLASS`.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

__all__ = ["QUESTIONS_CLASS", "QuestionsDirective", "page_questions", "setup"]

QUESTIONS_CLASS = "page-questions"
"""The class of the box that holds a page's questions."""


class QuestionsDirective(SphinxDirective):
    """``.. questions::`` with a bullet list of questions as its content."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        """The questions under their heading; an error naming the file and line if they are no list."""
        parsed = self.parse_content_to_nodes()
        if len(parsed) != 1 or not isinstance(parsed[0], nodes.bullet_list) or not len(parsed[0]):
            raise self.error("questions: the content must be one bullet list of questions (- Why ...?)")
        box = nodes.container(classes=[QUESTIONS_CLASS])
        box += nodes.rubric("", _("Questions this page answers"))
        box += parsed[0]
        return [box]


def page_questions(doctree: nodes.Node) -> list[str]:
    """The text of each question of the page's ``.. questions::`` boxes, in page order."""
    found: list[str] = []
    for box in doctree.findall(nodes.container):
        if QUESTIONS_CLASS in box["classes"]:
            for item in box.findall(nodes.list_item):
                found.append(" ".join(item.astext().split()))
    return found


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directive."""
    app.add_directive("questions", QuestionsDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
