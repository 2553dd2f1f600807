"""Math rendered to MathML when the page is written: no script, no CDN.

Sphinx's default renderer, MathJax, loads its script from a CDN, and the
site must work offline. Browsers render MathML Core natively, so the LaTeX
of ``:math:`` and ``.. math::`` is converted at build time by
``latex2mathml``. A formula it cannot convert is an error naming the
document and line (under ``-W``), shown as its LaTeX source.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.writers.html5 import HTML5Translator

__all__ = ["setup", "to_mathml"]

logger = logging.getLogger(__name__)


def to_mathml(latex: str, *, block: bool) -> str:
    """The ``<math>`` element for ``latex`` (``display="block"`` when ``block``)."""
    from latex2mathml.converter import convert

    return str(convert(latex.strip(), display="block" if block else "inline"))


def _render(translator: HTML5Translator, node: nodes.Element, *, block: bool) -> None:
    latex = node.astext()
    try:
        markup = to_mathml(latex, block=block)
    except Exception as error:  # latex2mathml raises many kinds
        logger.warning(
            "cannot render math %r: %s", latex, error, location=node, type="autograd_notes", subtype="math"
        )
        markup = f'<code class="math-source">{translator.encode(latex)}</code>'
    if not block:
        translator.body.append(f'<span class="math-inline">{markup}</span>')
        raise nodes.SkipNode
    # a numbered, labelled equation keeps its anchor and number, for :eq: references
    ids = " ".join(node.get("ids", []))
    anchor = f' id="{ids}"' if ids else ""
    number = node.get("number")
    suffix = f'<span class="eqno">({number})</span>' if number else ""
    translator.body.append(f'<div class="math-block"{anchor}>{markup}{suffix}</div>\n')
    raise nodes.SkipNode


def _visit_inline(translator: HTML5Translator, node: nodes.math) -> None:
    _render(translator, node, block=False)


def _visit_block(translator: HTML5Translator, node: nodes.math_block) -> None:
    _render(translator, node, block=True)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the ``mathml`` renderer; ``html_math_renderer = "mathml"`` selects it."""
    app.add_html_math_renderer("mathml", (_visit_inline, None), (_visit_block, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
