"""What lets the languages of one site build run side by side (:mod:`autograd_notes.site.sitebuild`).

Two environment variables, set by the site build for its Sphinx processes:

* ``AUTOGRAD_NOTES_READ_MARKER`` (the English build): once every page is
  read (examples executed, the notebook executed and cached), this file
  is written. The translated builds start then, while English writes its
  pages: what they read from the source folder is final.
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


def _mark_read(app: Sphinx, env: BuildEnvironment) -> list[str]:
    path = os.environ.get(READ_MARKER)
    if path:
        Path(path).write_text("read\n", encoding="utf-8")
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the hooks: the lock around sphinx-gallery's start-up (priority 500), the marker."""
    app.connect("builder-inited", _lock_gallery, priority=300)
    app.connect("builder-inited", _unlock_gallery, priority=800)
    app.connect("env-updated", _mark_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
