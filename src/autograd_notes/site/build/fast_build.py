"""Fast example runs: the build spends no time on work the site does not need.

Before sphinx-gallery runs the examples, the objects that live as long as the
build are frozen out of the garbage collector's scans (sphinx-gallery
collects before every example). sphinx-gallery's code links are left out:
there is no API page or inventory for them to point to.
"""

from __future__ import annotations

import gc
from typing import Any

from sphinx.application import Sphinx

from ..upstream.names import CODE_LINKS_TRANSFORM

__all__ = ["setup"]


def _freeze_startup_objects(app: Sphinx) -> None:
    """Move what exists now (Sphinx, PyTorch, matplotlib, ...) out of the garbage collector's reach.

    sphinx-gallery runs a full ``gc.collect()`` before every example; with
    PyTorch and Sphinx loaded that scans hundreds of thousands of objects
    that live until the build ends, about a tenth of a second each time.
    Frozen (:func:`gc.freeze`), they are no longer scanned; what the
    examples create is collected as before.
    """
    gc.collect()
    gc.freeze()


def _no_code_links(app: Sphinx) -> None:
    """Drop sphinx-gallery's code-link post-transform: this site has nothing for it to link to.

    It links names in the examples' code to API pages of this project or to
    intersphinx inventories; the site documents no API and has no inventory
    (it builds offline), so the transform would only re-tokenize every code
    block of every page, about a second per language.
    """
    app.registry.post_transforms = [
        transform for transform in app.registry.post_transforms if transform.__name__ != CODE_LINKS_TRANSFORM
    ]


def setup(app: Sphinx) -> dict[str, Any]:
    """Freeze before sphinx-gallery's builder-inited handler (priority 500) runs the examples."""
    app.connect("builder-inited", _freeze_startup_objects, priority=450)
    app.connect("builder-inited", _no_code_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
