"""The site's Sphinx extensions: one per job, each loaded by sphinxext, each able to stand alone."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

import autograd_notes.site
from autograd_notes.site.sphinxext import EXTENSIONS


def extension_modules() -> list[str]:
    """Every module of the site layer with a Sphinx ``setup``, but sphinxext itself."""
    names = [
        module.name
        for module in pkgutil.walk_packages(autograd_notes.site.__path__, "autograd_notes.site.")
        if not module.ispkg
    ]
    return sorted(
        name
        for name in names
        if name != "autograd_notes.site.sphinxext" and hasattr(importlib.import_module(name), "setup")
    )


def test_sphinxext_loads_every_extension_of_the_site_once() -> None:
    assert len(set(EXTENSIONS)) == len(EXTENSIONS)
    assert sorted(EXTENSIONS) == extension_modules()


@pytest.mark.parametrize("extension", extension_modules())
def test_each_extension_alone_sets_up_and_says_it_is_parallel_safe(tmp_path: Path, extension: str) -> None:
    (tmp_path / "conf.py").write_text(f"extensions = [{extension!r}]\n", encoding="utf-8")
    (tmp_path / "index.rst").write_text("Title\n=====\n", encoding="utf-8")
    with docutils_namespace():  # what it registers with docutils goes after, as sphinx-build does
        app = Sphinx(
            tmp_path, tmp_path, tmp_path / "out", tmp_path / "doctrees", "html", status=None, warning=None
        )
    loaded = app.extensions[extension]
    assert loaded.parallel_read_safe is True
    assert loaded.parallel_write_safe is True
