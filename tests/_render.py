"""Write document nodes as a Sphinx builder writes them into a page, without building a site.

A Sphinx application on an empty project, with the site's own nodes
(:mod:`autograd_notes.site.web.html_nodes`) registered, and its builder's
translator walking the nodes given: what the HTML page or the text file
would hold for them. Links cannot be resolved without a site: a
``pending_xref`` is written as its content, as Sphinx writes a link it could
not resolve.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.utils import new_document
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace
from sphinx.util.docutils import new_document as sphinx_document


class NodeWriter:
    """Writes nodes as the ``html`` or ``text`` builder would."""

    def __init__(self, folder: Path, builder: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "conf.py").write_text(
            'extensions = ["autograd_notes.site.web.html_nodes"]\n', encoding="utf-8"
        )
        (folder / "index.rst").write_text("Title\n=====\n", encoding="utf-8")
        self.builder = builder
        # in a namespace of its own: the nodes Sphinx registers with docutils are unregistered after,
        # so that a later Sphinx application in this process (sphinx.testing's) starts clean
        with docutils_namespace():
            self.app = Sphinx(
                folder, folder, folder / "out", folder / "doctrees", builder, status=None, warning=None
            )
            self.app.builder.prepare_writing(set())

    def write(self, *content: nodes.Node) -> str:
        """The builder's output for ``content``: the HTML of a page's body, or the text of a file."""
        if self.builder == "html":
            settings = self.app.builder.docsettings
            settings.env = self.app.env
            document = new_document("<nodes>", settings)
        else:
            document = sphinx_document("<nodes>")
            document.settings.env = self.app.env
        document.extend(node.deepcopy() for node in content)
        for ref in list(document.findall(pending_xref)):
            ref.replace_self(ref.children)
        translator = self.app.builder.create_translator(document, self.app.builder)
        document.walkabout(translator)
        body = translator.body
        return "".join(body) if isinstance(body, list) else str(body)
