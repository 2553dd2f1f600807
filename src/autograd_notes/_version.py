"""The helper package's version: its release, and after it when the helper last changed.

A reader installs the helper with the site's command, ``pip install --upgrade
autograd-notes --find-links <site>/packages/``
(:func:`autograd_notes.site.examples.install.install_command`), and pip
replaces an installed helper only with a higher version. So every build is
numbered by the helper's last change: ``<RELEASE>.post<YYYYMMDDhhmmss>``, the
UTC commit time of the newest commit that changed ``src/autograd_notes`` or
``pyproject.toml``. A later change gives a higher number; a build of the same
commit, the same number. The commit tagged ``v<RELEASE>`` (the release
workflow, which publishes it on PyPI) is ``RELEASE`` alone.

Hatchling reads it when it builds (``[tool.hatch.version]`` in
``pyproject.toml``: the ``code`` source evaluates :func:`helper_version`).
Nothing runs on import, and this module imports only the standard library.
Where there is no git checkout (a copy of the tree) the version is
``RELEASE``; a wheel built from the sdist takes the sdist's version from its
``PKG-INFO`` (hatchling does).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["RELEASE", "VersionError", "helper_version"]

RELEASE = "0.1.0"
"""The release number, its one place: a tag ``v<RELEASE>`` publishes it (release.yml)."""

# what the wheel is built from: a commit that changes neither changes the helper
HELPER_PATHS = ("src/autograd_notes", "pyproject.toml")


class VersionError(RuntimeError):
    """The project is a git checkout, but git could not say when the helper last changed."""


def _git(root: Path, *args: str) -> str:
    command = ["git", "-C", str(root), *args]
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, check=False, env={**os.environ, "TZ": "UTC"}
        )
    except OSError as error:
        raise VersionError(f"{root}: a git checkout, but git cannot run ({error})") from error
    if result.returncode:
        raise VersionError(f"{root}: `{' '.join(command[3:])}` failed: {result.stderr.strip()}")
    return result.stdout.strip()


def helper_version(root: Path | None = None) -> str:
    """The version of the helper in ``root`` (the project, by default the one holding this file)."""
    root = Path(__file__).resolve().parents[2] if root is None else root
    if not (root / ".git").exists():
        return RELEASE
    if f"v{RELEASE}" in _git(root, "tag", "--points-at", "HEAD").split():
        return RELEASE
    stamp = _git(root, "log", "-1", "--format=%cd", "--date=format-local:%Y%m%d%H%M%S", "--", *HELPER_PATHS)
    if not stamp:  # no commit has the helper yet: the tree is numbered by its release alone
        return RELEASE
    return f"{RELEASE}.post{stamp}"
