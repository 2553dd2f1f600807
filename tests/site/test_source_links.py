"""A source document cited in a sentence is named by its number, not by its whole title."""

from __future__ import annotations

from pathlib import Path

from sphinx.testing.util import SphinxTestApp

CONF = 'extensions = ["autograd_notes.site.pages.source_links"]\nhtml_theme = "basic"\n'
SOURCES = """Sources
=======

.. _source_003:

003 · Portuguese Q&A: what the gradient argument of backward() means
--------------------------------------------------------------------

It says things.
"""
PAGE = """Example
=======

.. toctree::

   sources

- :ref:`source_003` creates leaves with ``torch.empty``.
- The same claim, as :ref:`source_003` puts it, does not hold.
- :ref:`The Portuguese answer <source_003>` keeps its own words.
"""


def test_a_source_link_says_document_and_its_number(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    (tmp_path / "index.rst").write_text(PAGE, encoding="utf-8")
    (tmp_path / "sources.rst").write_text(SOURCES, encoding="utf-8")
    app = SphinxTestApp("html", srcdir=tmp_path, builddir=tmp_path / "_b", freshenv=True)
    try:
        app.build()
    finally:
        app.cleanup()
    assert not app.warning.getvalue()
    page = (Path(app.outdir) / "index.html").read_text(encoding="utf-8")
    assert '<span class="std std-ref">Document 003</span></a> creates leaves' in page
    assert 'as <a class="reference internal" href="sources.html#source-003">' in page
    assert '<span class="std std-ref">document 003</span></a> puts it' in page
    assert "The Portuguese answer</span>" in page  # a link with words of its own keeps them
