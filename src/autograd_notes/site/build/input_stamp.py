"""Nothing to build when nothing changed: a digest of every input of the last whole-site build.

A whole-site build (every language, no extra Sphinx options) writes, beside
its output (``build/html.inputs``, outside what is published), a digest of
what it was built from (:func:`inputs_digest`):
every file of the project's ``docs/`` (the files sphinx-gallery and the
catalogs generate there included), ``gallery/``, ``records/``, ``src/``,
``pyproject.toml`` and ``constraints/``; the Python and every installed
distribution with its version; the ``AUTOGRAD_NOTES_*`` and ``CUDA_*``
variables and the GPU device files (what decides the runner). When the next
whole-site build finds the same digest beside the pages, it builds nothing:
the pages are what that build would write. Every build removes the digest
before it starts, and only a whole-site build that succeeded writes it.
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib import metadata
from pathlib import Path

__all__ = ["forget_stamp", "inputs_digest", "is_current", "stamp_of", "write_stamp"]

_FOLDERS = ("docs", "gallery", "records", "src", "constraints")
_FILES = ("pyproject.toml",)
_SKIPPED = {"__pycache__", ".ipynb_checkpoints"}


def _files(project: Path) -> list[Path]:
    found = [project / name for name in _FILES if (project / name).is_file()]
    for folder in _FOLDERS:
        for path in (project / folder).rglob("*"):
            if path.is_file() and not _SKIPPED & set(path.relative_to(project).parts):
                found.append(path)
    return sorted(found)


def _environment() -> list[str]:
    """What decides the runner and the tools, besides the files."""
    distributions = sorted(
        f"{dist.metadata['Name']}=={dist.version}".lower() for dist in metadata.distributions()
    )
    variables = sorted(
        f"{name}={value}"
        for name, value in os.environ.items()
        if name.startswith(("AUTOGRAD_NOTES_", "CUDA_"))
    )
    devices = sorted(path.name for path in Path("/dev").glob("nvidia*"))
    return [sys.version, *distributions, *variables, *devices]


def inputs_digest(project: Path) -> str:
    """The digest of everything a whole-site build of ``project`` reads (see the module docstring)."""
    digest = hashlib.sha256()
    for line in _environment():
        digest.update(line.encode() + b"\n")
    for path in _files(project):
        digest.update(path.relative_to(project).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def stamp_of(out: Path) -> Path:
    """The file beside the output folder ``out`` that holds the digest of its build's inputs."""
    return out.with_name(out.name + ".inputs")


def is_current(out: Path, project: Path) -> bool:
    """Whether ``out`` holds a whole-site build of exactly ``project``'s inputs as they are now."""
    stamp = stamp_of(out)
    return (
        out.is_dir()
        and stamp.is_file()
        and stamp.read_text(encoding="utf-8").strip() == inputs_digest(project)
    )


def forget_stamp(out: Path) -> None:
    """Before a build changes ``out``: what it was built from is no longer known."""
    stamp_of(out).unlink(missing_ok=True)


def write_stamp(out: Path, project: Path) -> None:
    """Record, beside ``out``, the inputs the whole-site build in it was built from."""
    stamp_of(out).write_text(inputs_digest(project) + "\n", encoding="utf-8")
