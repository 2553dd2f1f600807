"""No stale example output: what sphinx-gallery generated goes when its script or runner did.

sphinx-gallery's own cache hashes the script alone, and it never deletes.
Before it runs (its ``builder-inited`` handler has priority 500; this
extension's runs at 400), the files it generated for examples that were moved
or deleted are removed, and when the runner key
(:mod:`autograd_notes.site.build.runner_key`) differs from the one stored beside the
generated gallery, every example runs again (sphinx-gallery's
``run_stale_examples``, :func:`~autograd_notes.site.upstream.outputs.rerun_if_runner_changed`).
An unchanged rebuild executes nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

from ..upstream.gallery_conf import gallery_folders
from ..upstream.outputs import remember_runner, rerun_if_runner_changed

__all__ = ["remove_stale_pages", "setup"]

logger = logging.getLogger(__name__)


def remove_stale_pages(examples_dir: Path, gallery_dir: Path) -> list[str]:
    """Remove what sphinx-gallery generated for examples that no longer exist.

    sphinx-gallery never deletes: a moved or deleted example would keep its
    page (a duplicate label, a page outside every toctree). Returns the
    example names whose files were removed.
    """
    removed = []
    # every generated file of an example (page, script copy, notebook, zip, md5, pickles), even
    # one whose page was never written (a build killed while the example ran)
    stems = sorted(
        {(p.parent, p.name.split(".")[0].removesuffix("_codeobj")) for p in gallery_dir.glob("*/plot_*")}
    )
    for folder, stem in stems:
        section = folder.relative_to(gallery_dir)
        if (examples_dir / section / f"{stem}.py").exists():
            continue
        for leftover in folder.glob(f"{stem}.*"):
            leftover.unlink()
        for leftover in folder.glob(f"{stem}_codeobj.*"):
            leftover.unlink()
        for image in (folder / "images").rglob(f"sphx_glr_{stem}_*"):
            image.unlink()
        removed.append(f"{section.as_posix()}/{stem}.py")
    for folder in sorted(p for p in gallery_dir.iterdir() if p.is_dir()) if gallery_dir.exists() else []:
        if folder.name != "images" and not (examples_dir / folder.name).exists():
            shutil.rmtree(folder)
    return removed


def _invalidate(app: Sphinx) -> None:
    key = app.config.autograd_notes_runner
    galleries = gallery_folders(app.config, app.srcdir)
    for gallery in galleries:
        for example in remove_stale_pages(gallery.source, gallery.generated):
            logger.info("autograd_notes: %s no longer exists; its generated page was removed", example)
    if galleries and rerun_if_runner_changed(
        app.config.sphinx_gallery_conf, [gallery.generated for gallery in galleries], key
    ):
        logger.info("autograd_notes: runner changed (%s); every example will run again", key)


def _remember_runner(app: Sphinx) -> None:
    galleries = [gallery.generated for gallery in gallery_folders(app.config, app.srcdir)]
    if galleries:
        remember_runner(app.config.sphinx_gallery_conf, galleries, app.config.autograd_notes_runner)


def setup(app: Sphinx) -> dict[str, Any]:
    """Clean sphinx-gallery's output before it runs the examples, remember the runner after."""
    app.setup_extension("autograd_notes.site.build.runner_key")
    # Before sphinx-gallery's own builder-inited handler (priority 500) runs examples.
    app.connect("builder-inited", _invalidate, priority=400)
    app.connect("builder-inited", _remember_runner, priority=600)  # after the examples ran
    return {"parallel_read_safe": True, "parallel_write_safe": True}
