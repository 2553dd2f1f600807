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

from sphinx.config import Config
from sphinx.environment import BuildEnvironment

from .catalogs import translations

__all__ = ["page_catalog", "translate_from"]


@functools.lru_cache(maxsize=256)
def _catalog(path: str, _mtime_ns: int) -> dict[str, str]:
    return translations(Path(path))


def page_catalog(srcdir: str | Path, config: Config, docname: str) -> tuple[Path | None, dict[str, str]]:
    """``docname``'s catalog in the build's language: its file (None: English, or none) and translations."""
    language = config.language or "en"
    if language == "en" or not config.locale_dirs:
        return None, {}
    path = Path(srcdir, config.locale_dirs[0], language, "LC_MESSAGES", f"{docname}.po")
    if not path.exists():
        return None, {}
    return path, _catalog(str(path), path.stat().st_mtime_ns)


def translate_from(env: BuildEnvironment, docname: str, texts: list[str]) -> list[str]:
    """``texts`` of ``docname``'s source (reST), each as that page's catalog translates it (else as is)."""
    path, catalog = page_catalog(env.srcdir, env.config, docname)
    if path is None:
        return texts
    env.note_dependency(str(path))
    return [catalog.get(" ".join(text.split()), text) if text else text for text in texts]
