"""A page's own catalog, for text a directive takes from another page's source.

Sphinx translates a page's own text as it reads it. A directive that shows
text from another page's source (the timeline shows each example's cell
headings, as written in the gallery script) gets it in English; this looks it
up in that page's catalog (``docs/locale/<lang>/LC_MESSAGES/<docname>.po``),
and the page being read then depends on that catalog.
"""

from __future__ import annotations

import functools
from pathlib import Path

from sphinx.environment import BuildEnvironment

from .catalogs import translations

__all__ = ["translate_from"]


@functools.lru_cache(maxsize=256)
def _catalog(path: str, _mtime_ns: int) -> dict[str, str]:
    return translations(Path(path))


def translate_from(env: BuildEnvironment, docname: str, texts: list[str]) -> list[str]:
    """``texts`` of ``docname``'s source (reST), each as that page's catalog translates it (else as is)."""
    language = env.config.language or "en"
    if language == "en" or not env.config.locale_dirs:
        return texts
    path = Path(env.srcdir, env.config.locale_dirs[0], language, "LC_MESSAGES", f"{docname}.po")
    if not path.exists():
        return texts
    env.note_dependency(str(path))
    catalog = _catalog(str(path), path.stat().st_mtime_ns)
    return [catalog.get(" ".join(text.split()), text) if text else text for text in texts]
