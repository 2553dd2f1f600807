"""No leaks: every page of an HTML build is searched for what would expose the build machine.

Absolute paths, the user name and memory addresses
(:func:`~autograd_notes.site.build.leaks.find_leaks`); each finding is a warning,
an error under ``-W``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

from .leaks import find_leaks, leak_patterns

__all__ = ["setup"]

logger = logging.getLogger(__name__)


def _check_leaks(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    patterns = leak_patterns([Path(app.srcdir).parent, app.srcdir, app.outdir])
    for page in sorted(Path(app.outdir).rglob("*.html")):
        leaks = find_leaks(page.read_text(encoding="utf-8"), patterns)
        for leak in leaks:
            logger.warning(
                "%s leaks the build machine: %s",
                page.relative_to(app.outdir).as_posix(),
                leak,
                type="autograd_notes",
                subtype="leak",
            )


def setup(app: Sphinx) -> dict[str, Any]:
    """Search the pages when an HTML build finished."""
    app.connect("build-finished", _check_leaks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
