"""What lets the languages of one site build run side by side (:mod:`autograd_notes.site.build.sitebuild`).

Environment variables, set by the site build for its Sphinx processes:

* ``AUTOGRAD_NOTES_GALLERY_MARKER`` (the English build): written once
  sphinx-gallery has run the examples and generated their pages, before
  any page is read. The translated builds start then.
* ``AUTOGRAD_NOTES_READ_MARKER`` (the English build): written once every
  executed notebook is in myst-nb's cache. English reads its notebooks
  first.
* ``AUTOGRAD_NOTES_NOTEBOOKS_WAIT`` (the translated builds): the path of
  that marker. A translated build reads its notebooks last, and waits for
  the marker before reading one, so it takes the notebook's outputs from
  the cache instead of running it again.
* ``AUTOGRAD_NOTES_GALLERY_LOCK`` (the translated builds): sphinx-gallery
  rewrites the gallery's index files in the source folder at start-up
  (the same content, through temporary files of fixed names); one build
  at a time does so, holding a lock on this file from before
  sphinx-gallery starts until it is done (a :class:`filelock.FileLock`).

A plain ``sphinx-build`` sets none of them and is unaffected.

The markers are files that appear, and the side that waits for one polls
for it: a lock cannot stand for them, since the side that waits may look
before the English build has started and could have taken the lock.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

__all__ = ["GALLERY_LOCK", "GALLERY_MARKER", "NOTEBOOKS_WAIT", "READ_MARKER", "setup"]

GALLERY_MARKER = "AUTOGRAD_NOTES_GALLERY_MARKER"
READ_MARKER = "AUTOGRAD_NOTES_READ_MARKER"
NOTEBOOKS_WAIT = "AUTOGRAD_NOTES_NOTEBOOKS_WAIT"
GALLERY_LOCK = "AUTOGRAD_NOTES_GALLERY_LOCK"
WAIT_LIMIT = 900.0  # seconds: the site build stops a translation whose English build failed long before


@dataclass
class _Sync:
    """What the hooks of one build share: kept on its Sphinx application, not in this module."""

    held: list[FileLock] = field(default_factory=list)
    waiting: set[str] = field(default_factory=set)  # English: the notebooks still to read before the marker
    notebooks: set[str] = field(default_factory=set)  # the notebooks among the pages this build reads


def _sync(app: Sphinx) -> _Sync:
    """The :class:`_Sync` of ``app``'s build (made on first use)."""
    state: _Sync = app.__dict__.setdefault("_autograd_notes_build_sync", _Sync())
    return state


def _write(variable: str) -> None:
    path = os.environ.get(variable)
    if path and not Path(path).exists():
        Path(path).write_text("ready\n", encoding="utf-8")


def _lock_gallery(app: Sphinx) -> None:
    path = os.environ.get(GALLERY_LOCK)
    if not path:
        return
    lock = FileLock(path)
    lock.acquire()  # held until _unlock_gallery
    _sync(app).held.append(lock)


def _unlock_gallery(app: Sphinx) -> None:
    while _sync(app).held:
        _sync(app).held.pop().release()


def _gallery_generated(app: Sphinx) -> None:
    _write(GALLERY_MARKER)


def _mark_read(app: Sphinx, env: BuildEnvironment | None = None) -> list[str]:
    _write(READ_MARKER)
    return []


def _is_notebook(env: BuildEnvironment, docname: str) -> bool:
    """Whether myst-nb executes this page: a ``.ipynb``, or MyST with ``file_format: mystnb``."""
    source = env.doc2path(docname)
    if source.suffix == ".ipynb":
        return True
    with source.open(encoding="utf-8") as handle:
        head = handle.read(400)
    return head.startswith("---") and "file_format: mystnb" in head


def _order_notebooks(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """English reads its notebooks first (then writes the marker); a translation reads them last."""
    if not (os.environ.get(READ_MARKER) or os.environ.get(NOTEBOOKS_WAIT)):
        return
    state = _sync(app)
    notebooks = [name for name in docnames if _is_notebook(env, name)]
    state.notebooks.clear()
    state.notebooks.update(notebooks)
    others = [name for name in docnames if name not in state.notebooks]
    if os.environ.get(READ_MARKER):
        docnames[:] = notebooks + others
        state.waiting.clear()
        state.waiting.update(notebooks)
        if not state.waiting:
            _mark_read(app)
    elif os.environ.get(NOTEBOOKS_WAIT):
        docnames[:] = others + notebooks


def _notebook_read(app: Sphinx, doctree: object) -> None:
    waiting = _sync(app).waiting
    if waiting and app.env.docname in waiting:
        waiting.discard(app.env.docname)
        if not waiting:
            _mark_read(app)


def _wait_for_english_notebooks(app: Sphinx, docname: str, source: list[str]) -> None:
    """Before a translation reads a notebook: wait until English has executed it into the cache."""
    marker = os.environ.get(NOTEBOOKS_WAIT)
    if not marker or docname not in _sync(app).notebooks:
        return
    deadline = time.monotonic() + WAIT_LIMIT
    while not Path(marker).exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the hooks: the lock around sphinx-gallery's start-up (priority 500), the markers."""
    app.connect("builder-inited", _lock_gallery, priority=300)
    app.connect("builder-inited", _unlock_gallery, priority=800)
    app.connect("builder-inited", _gallery_generated, priority=900)
    app.connect("env-before-read-docs", _order_notebooks)
    app.connect("source-read", _wait_for_english_notebooks)
    app.connect("doctree-read", _notebook_read)
    app.connect("env-updated", _mark_read)  # nothing to read, or a notebook that failed
    return {"parallel_read_safe": True, "parallel_write_safe": True}
