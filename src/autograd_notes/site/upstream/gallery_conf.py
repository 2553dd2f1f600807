"""Where the gallery is: sphinx-gallery's ``examples_dirs`` and ``gallery_dirs``, read in one place."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["GalleryFolders", "gallery_folders"]


@dataclass(frozen=True)
class GalleryFolders:
    """One gallery: its scripts, the pages sphinx-gallery generates, and their docname prefix."""

    source: Path
    generated: Path
    prefix: str

    def docname(self, example: str) -> str:
        """``examples/05_inplace/plot_x`` for ``05_inplace/plot_x.py``."""
        return f"{self.prefix}/{Path(example).with_suffix('').as_posix()}"


def _as_list(value: str | list[str] | tuple[str, ...]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def gallery_folders(config: Any, srcdir: str | Path) -> list[GalleryFolders]:
    """The galleries of a Sphinx configuration (none without sphinx-gallery)."""
    conf = getattr(config, "sphinx_gallery_conf", None) or {}
    sources = _as_list(conf.get("examples_dirs", []))
    generated = _as_list(conf.get("gallery_dirs", []))
    return [
        GalleryFolders(Path(srcdir, source).resolve(), Path(srcdir, target), Path(target).as_posix())
        for source, target in zip(sources, generated, strict=False)
    ]
