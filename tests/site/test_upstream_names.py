"""Each name the site reads of an upstream package's internals, checked against the installed package."""

from __future__ import annotations

import inspect

import myst_nb.core.render
import sphinx_gallery._doctree_links
import sphinx_gallery.gen_rst
from sphinx.transforms.post_transforms import SphinxPostTransform

from autograd_notes.site.upstream.names import (
    CODE_LINKS_TRANSFORM,
    GALLERY_OUTPUT,
    NOTEBOOK_OUTPUT,
    english_stemmer_scripts,
)


def test_sphinx_gallery_has_the_code_links_post_transform() -> None:
    transform = getattr(sphinx_gallery._doctree_links, CODE_LINKS_TRANSFORM)
    assert issubclass(transform, SphinxPostTransform)


def test_sphinx_gallery_marks_an_output_with_the_class() -> None:
    assert f".. rst-class:: {GALLERY_OUTPUT}" in sphinx_gallery.gen_rst.CODE_OUTPUT


def test_myst_nb_puts_a_cells_outputs_in_a_container_of_the_class() -> None:
    assert f'classes=["{NOTEBOOK_OUTPUT}"]' in inspect.getsource(myst_nb.core.render)


def test_sphinx_ships_the_english_stemmer() -> None:
    base, english = english_stemmer_scripts()
    assert "BaseStemmer" in base.read_text(encoding="utf-8")
    assert "EnglishStemmer" in english.read_text(encoding="utf-8")
