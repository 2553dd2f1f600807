"""The names the site reads of its upstream packages' internals, each in one place.

None of these is a documented interface; ``tests/site/test_upstream_names.py``
checks each against the installed package and fails, naming it here, when it
moves:

* sphinx-gallery's post-transform that links names in code to API pages
  (:data:`CODE_LINKS_TRANSFORM`, in ``sphinx_gallery._doctree_links``);
* the classes of an executed block's output: sphinx-gallery's
  ``sphx-glr-script-out`` (its generated reST) and myst-nb's ``cell_output``
  (a notebook cell's output container) (:data:`GALLERY_OUTPUT`,
  :data:`NOTEBOOK_OUTPUT`);
* the stemmer scripts Sphinx ships, minified, for its search
  (:func:`english_stemmer_scripts`).
"""

from __future__ import annotations

from pathlib import Path

import sphinx.search

__all__ = ["CODE_LINKS_TRANSFORM", "GALLERY_OUTPUT", "NOTEBOOK_OUTPUT", "english_stemmer_scripts"]

CODE_LINKS_TRANSFORM = "CodeLinksTransform"
"""The class name of sphinx-gallery's code-links post-transform."""
GALLERY_OUTPUT = "sphx-glr-script-out"
"""The class of what an example's block printed, in sphinx-gallery's generated reST."""
NOTEBOOK_OUTPUT = "cell_output"
"""The class of myst-nb's container of a notebook cell's outputs."""


def english_stemmer_scripts() -> list[Path]:
    """Sphinx's minified Snowball scripts that make ``EnglishStemmer``: the base, then the English."""
    minified = Path(sphinx.search.__file__).parent / "minified-js"
    return [minified / "base-stemmer.js", minified / "english-stemmer.js"]
