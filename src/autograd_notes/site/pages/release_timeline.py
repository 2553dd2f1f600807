"""Behaviour across PyTorch releases, on the pages: computed from the release records.

Four directives, registered by this module's :func:`setup` (an extension of its own):

* ``release-timeline:: <section>/plot_x.py`` (inserted into every example page
  by :func:`~autograd_notes.site.upstream.gallery_rst.timeline_directive`): a section
  "Across PyTorch releases" with a one-sentence summary, a table with one row
  per code cell that checks something and one column per release (a mark:
  same as today, message differs, different outcome, not available, no
  record), and, on demand, every difference: the word diff of a message, the
  old and the new value, the exception of an API that is missing.
* ``timeline-matrix`` (the timeline page): every example × every release.
* ``timeline-changelog`` (the timeline page): what changed for autograd users
  in each release, derived from the records, each entry a sentence linked to
  its cells.
* ``release-changed:: <section>/plot_x.py`` (inserted near the top of every
  example page by :func:`~autograd_notes.site.upstream.gallery_rst.changed_directive`):
  a note where the newest recorded release does otherwise than the page
  documents, linking the section.

Every word diff runs in the order of the releases: the older release's words
struck, the newer's inserted, whichever of the two is today.

The computation is :mod:`autograd_notes.records.history.timeline`; the modules below
put it in words, in the build's language (the ``sphinx`` catalog), as document
nodes: paragraphs, lists, tables and the elements of
:mod:`autograd_notes.site.web.html_nodes`, with links that Sphinx resolves and
checks (:mod:`autograd_notes.site.web.links`).

This module is the extension: :func:`setup` and the ``doctree-read`` hook
that gives the section its place. The directives are
:mod:`.timeline_directives`; the section's body and the "Changed in" note
:mod:`.timeline_section`; the sentences :mod:`.timeline_sentences`; the
tables :mod:`.timeline_tables`; the marks and legends :mod:`.timeline_legends`.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from .timeline_directives import DIRECTIVES

__all__ = ["setup"]


def _lift_sections(app: Sphinx, doctree: nodes.document) -> None:
    """Make each "Across PyTorch releases" section a section of the page, not of the one above it.

    The directive closes the page, so the reST parser places it inside the
    page's last section ("Sources"); moved up beside it, with what followed it
    (the install line, the downloads), it gets its own entry in the page's
    contents. Before Sphinx collects the contents (priority 500).
    """
    for section in list(doctree.findall(nodes.section)):
        if "release-timeline-section" not in section["classes"]:
            continue
        parent = section.parent
        while (
            parent is not None and parent.parent is not None and not isinstance(parent.parent, nodes.document)
        ):
            parent = parent.parent
        if parent is None or parent is section.parent:
            continue
        # what followed the directive (the install line, the downloads) still follows the section
        above = section.parent
        trailing = above.children[above.index(section) + 1 :]
        for node in [section, *trailing]:
            above.remove(node)
        parent.extend([section, *trailing])


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives and the section's place (and the nodes and links they use)."""
    app.setup_extension("autograd_notes.site.web.html_nodes")
    app.setup_extension("autograd_notes.site.web.links")
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.connect("doctree-read", _lift_sections, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
