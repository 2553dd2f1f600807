"""Math as MathML written at build time: inline, display, labelled and numbered, and bad LaTeX."""

from __future__ import annotations

from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from autograd_notes.site.web.mathml import to_mathml

CONF = 'extensions = ["autograd_notes.site.web.mathml"]\nhtml_math_renderer = "mathml"\n'


def build(tmp_path: Path, body: str) -> tuple[str, str]:
    """Build a one-page site in this process (``sphinx.testing``): its warnings and its page."""
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    (tmp_path / "index.rst").write_text("Title\n=====\n\n" + body, encoding="utf-8")
    app = SphinxTestApp("html", srcdir=tmp_path, builddir=tmp_path / "_b", freshenv=True)
    try:
        app.build()
    finally:
        app.cleanup()
    page = app.outdir / "index.html"
    return app.warning.getvalue(), page.read_text(encoding="utf-8") if page.exists() else ""


def test_to_mathml_converts_inline_and_block() -> None:
    assert to_mathml("x^3", block=False).startswith(
        '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">'
    )
    assert "<msup><mi>x</mi><mn>3</mn></msup>" in to_mathml("x^3", block=True)
    assert 'display="block"' in to_mathml("x^3", block=True)


def test_inline_display_and_numbered_math_render_without_a_script(tmp_path: Path) -> None:
    warnings, page = build(
        tmp_path,
        ".. math:: x^2 + 1\n   :label: square\n\nSee :eq:`square` and :math:`y^3`.\n\n.. math:: a = b\n",
    )
    assert not warnings, warnings
    assert '<div class="math-block" id="equation-square"><math' in page
    assert '<span class="eqno">(1)</span></div>' in page
    assert 'href="#equation-square"' in page
    assert '<span class="math-inline"><math' in page
    assert "<mi>a</mi><mo>&#x0003D;</mo><mi>b</mi>" in page
    assert "mathjax" not in page.lower()
    assert 'src="http' not in page


def test_latex_that_cannot_be_converted_warns_naming_the_line(tmp_path: Path) -> None:
    """A warning, which the site's ``-W`` build turns into a failure."""
    warnings, _page = build(tmp_path, "Some text.\n\n:math:`\\frac{1}{`\n")
    assert "index.rst:6: WARNING: cannot render math" in warnings
