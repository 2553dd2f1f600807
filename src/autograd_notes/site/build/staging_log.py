"""A truthful log: no closing line naming an output folder that will be gone.

With ``autograd_notes_staging`` (set by :mod:`autograd_notes.site.build.sitebuild`,
which builds into a folder it renames once every language is built), Sphinx's
closing line "The HTML pages are in <folder>" is left out. The site build
names the final folder after the swap.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

__all__ = ["setup"]


def _no_staging_epilog(app: Sphinx) -> None:
    if app.config.autograd_notes_staging:
        app.builder.epilog = ""  # type: ignore[misc]  # this builder's, not the class's


def setup(app: Sphinx) -> dict[str, Any]:
    """Register ``autograd_notes_staging`` and drop the closing line when it is set."""
    # the output folder is a staging one that sitebuild renames: no closing line naming it
    app.add_config_value("autograd_notes_staging", False, "", types=frozenset({bool}))
    app.connect("builder-inited", _no_staging_epilog)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
