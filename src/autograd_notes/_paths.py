"""Paths as a published page may show them: relative, never absolute."""

from __future__ import annotations

import functools
import sysconfig
from pathlib import Path

__all__ = ["display_path", "notebook_cell", "project_root"]

_ROOT_MARKERS = ("pyproject.toml", ".git")


@functools.lru_cache(maxsize=256)
def project_root(start: str) -> Path | None:
    """Return the nearest ancestor of ``start`` that holds a project marker."""
    for parent in Path(start).resolve().parents:
        if any((parent / marker).exists() for marker in _ROOT_MARKERS):
            return parent
    return None


def display_path(filename: str) -> str:
    """Return ``filename`` as it may appear on a page or in a terminal.

    * a file inside a project (a folder with ``pyproject.toml`` or ``.git``)
      becomes its project-relative POSIX path, e.g.
      ``gallery/05_inplace/plot_detach_inplace.py``;
    * an installed file (under ``site-packages``) becomes its import path,
      e.g. ``torch/_tensor.py``, and so does a file of Python's standard
      library, e.g. ``copy.py``, wherever and however Python is installed;
    * a Jupyter cell (``/tmp/ipykernel_123/456.py``) becomes ``<cell>``;
    * any other file becomes its base name, so that a downloaded script run
      from a reader's folder never prints the reader's home directory;
    * pseudo-files such as ``<string>`` are kept as they are.
    """
    if filename.startswith("<") and filename.endswith(">"):
        return filename
    path = Path(filename)
    if any(part.startswith("ipykernel_") for part in path.parts):
        return "<cell>"
    if "site-packages" in path.parts:
        parts = path.parts
        return Path(*parts[len(parts) - parts[::-1].index("site-packages") :]).as_posix()
    if not path.is_absolute():
        return path.as_posix()
    library = _inside(path, _standard_library())
    if library is not None:
        return library
    root = project_root(str(path))
    if root is not None:
        return path.resolve().relative_to(root).as_posix()
    return path.name


@functools.lru_cache(maxsize=1)
def _standard_library() -> tuple[Path, ...]:
    """The folders of Python's standard library, as this interpreter resolves them."""
    paths = sysconfig.get_paths()
    return tuple(dict.fromkeys(Path(paths[key]).resolve() for key in ("stdlib", "platstdlib")))


def _inside(path: Path, folders: tuple[Path, ...]) -> str | None:
    """``path`` relative to the first of ``folders`` that holds it, as a POSIX path; None if none does."""
    resolved = path.resolve()
    for folder in folders:
        if resolved.is_relative_to(folder):
            return resolved.relative_to(folder).as_posix()
    return None


def notebook_cell(filename: str) -> str | None:
    """The notebook cell a Jupyter kernel ran ``filename`` from, as IPython names it: ``In[5]``.

    ``None`` for a file that is no cell, or a cell of a kernel that does not
    say which it was (``display_path`` then names it ``<cell>``).
    """
    if not any(part.startswith("ipykernel_") for part in Path(filename).parts):
        return None
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    names = getattr(getattr(shell, "compile", None), "_filename_map", None)
    count = names.get(filename) if isinstance(names, dict) else None
    return f"In[{count}]" if isinstance(count, int) else None
