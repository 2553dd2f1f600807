"""Reading sphinx-gallery's folders from a Sphinx configuration."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from autograd_notes.site.upstream.gallery_conf import gallery_folders


def test_folders_pair_sources_with_generated_pages(tmp_path: Path) -> None:
    config = SimpleNamespace(
        sphinx_gallery_conf={"examples_dirs": ["../gallery"], "gallery_dirs": ["examples"]}
    )
    (gallery,) = gallery_folders(config, tmp_path / "docs")
    assert gallery.source == (tmp_path / "gallery").resolve()
    assert gallery.generated == tmp_path / "docs" / "examples"
    assert gallery.docname("05_inplace/plot_x.py") == "examples/05_inplace/plot_x"


def test_single_strings_and_no_gallery(tmp_path: Path) -> None:
    config = SimpleNamespace(sphinx_gallery_conf={"examples_dirs": "../g", "gallery_dirs": "auto"})
    assert [g.prefix for g in gallery_folders(config, tmp_path)] == ["auto"]
    assert gallery_folders(SimpleNamespace(), tmp_path) == []
