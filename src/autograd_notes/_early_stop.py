"""A download that the reader's PyTorch is recorded to stop early says so before it runs.

The site records every example under a range of PyTorch releases. Where a
release lacks what an example uses (``FSDPModule`` before 2.6, an attribute
added later), the example stops at that line with a bare ``ImportError`` or
``AttributeError``. A download's guard calls :func:`note_early_stop` first:
the reader then reads, in the page's language, that the site saw this
release stop there, why, and from which release the example runs to its end.
"""

from __future__ import annotations

import sys
from importlib import metadata

from ._download_page import PAGE_ADDRESS, running_page
from ._release_notes import early_stop_note

__all__ = ["note_early_stop"]


def note_early_stop() -> None:
    """Print (to stderr) where the site records this PyTorch release stopping the running download early.

    Nothing outside a download (a gallery script, a record's capture, a
    reader's own code), when PyTorch's version is unknown, or where the site
    records this release running the example to its end. PyTorch is not
    imported: its installed version is read.
    """
    page = running_page()
    found = PAGE_ADDRESS.search(page.address) if page else None
    if page is None or found is None:
        return
    try:
        version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        return
    note = early_stop_note(f"{found['section']}/{found['name']}.py", version, page)
    if note:
        print(note, file=sys.stderr)
