"""What lets the languages of one site build run side by side (:mod:`autograd_notes.site.sitebuild`).

Two environment variables, set by the site build for its Sphinx processes:

* ``AUTOGRAD_NOTES_READ_MARKER`` (the English build): once what the other
  languages reuse is ready, this file is written: the examples executed
  (sphinx-gallery does that before any page is read) and every executed
  notebook in the cache. The notebooks are read first, so the translated
  builds start while English reads and writes its other pages.
* ``AUTOGRAD_NOTES_GALLERY_LOCK`` (the translated builds): sphinx-gallery
  rewrites the gallery's index files in the source folder at start-up
  (the same content, through temporary files of fixed names); one build
  at a time does so, holding a lock on this file from before
  sphinx-gallery starts until it is done.

A plain ``sphinx-build`` sets neither and is unaffected.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

__all__ = ["GALLERY_LOCK", "READ_MARKER", "setup"]

READ_MARKER = "AUTOGRAD_NOTES_READ_MARKER"
GALLERY_LOCK = "AUTOGRAD_NOTES_GALLERY_LOCK"

_held: list[IO[bytes]] = []


def _lock_gallery(app: Sphinx) -> None:
    path = os.environ.get(GALLERY_LOCK)
    if not path:
        return
    import fcntl

    handle = Path(path).open("ab")  # noqa: SIM115  # held until _unlock_gallery
    fcntl.flock(handle, fcntl.LOCK_EX)
    _held.append(handle)


def _unlock_gallery(app: Sphinx) -> None:
    while _held:
        handle = _held.pop()
        import fcntl

        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


def _mark_read(app: Sphinx, env: BuildEnvironment | None = None) -> list[str]:
    path = os.environ.get(READ_MARKER)
    if path and not Path(path).exists():
        Path(path).write_text("read\n", encoding="utf-8")
    return []


def _is_notebook(env: BuildEnvironment, docname: str) -> bool:
    """Whether myst-nb executes this page: a ``.ipynb``, or MyST with ``file_format: mystnb``."""
    source = env.doc2path(docname)
    if source.suffix == ".ipynb":
        return True
    with source.open(encoding="utf-8") as handle:
        head = handle.read(400)
    return head.startswith("---") and "file_format: mystnb" in head


def _notebooks_first(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """Read the executed notebooks first; once they are read (or if none is to be), write the marker."""
    if not os.environ.get(READ_MARKER):
        return
    notebooks = [name for name in docnames if _is_notebook(env, name)]
    docnames[:] = notebooks + [name for name in docnames if name not in notebooks]
    _waiting.clear()
    _waiting.update(notebooks)
    if not _waiting:
        _mark_read(app)


def _notebook_read(app: Sphinx, doctree: object) -> None:
    if _waiting and app.env.docname in _waiting:
        _waiting.discard(app.env.docname)
        if not _waiting:
            _mark_read(app)


_waiting: set[str] = set()


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the hooks: the lock around sphinx-gallery's start-up (priority 500), the marker."""
    app.connect("builder-inited", _lock_gallery, priority=300)
    app.connect("builder-inited", _unlock_gallery, priority=800)
    app.connect("env-before-read-docs", _notebooks_first)
    app.connect("doctree-read", _notebook_read)
    app.connect("env-updated", _mark_read)  # nothing to read, or a notebook that failed
    return {"parallel_read_safe": True, "parallel_write_safe": True}
