"""Every source file is in git: none is hidden by a ``.gitignore`` pattern.

A pattern meant for build outputs (``build/``) once matched the package
``autograd_notes/site/build/`` too: its ``__init__.py`` never reached the
repository, and CI, on a clean clone, failed where this checkout passed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("src", "tests", "gallery", "docs", "records", "noxfile.py", "pyproject.toml")
SUFFIXES = {".py", ".md", ".rst", ".json", ".po", ".toml", ".txt", ".css", ".js", ".html"}
GENERATED = ("docs/examples/", "docs/jupyter_execute/")


def _git(*args: str) -> list[str]:
    result = subprocess.run(("git", *args), cwd=ROOT, capture_output=True, text=True, check=True)
    return [line for line in result.stdout.splitlines() if line]


def _source(path: str) -> bool:
    return Path(path).suffix in SUFFIXES and not path.startswith(GENERATED) and "__pycache__" not in path


def test_no_tracked_file_matches_an_ignore_pattern() -> None:
    hidden = _git("ls-files", "--cached", "--ignored", "--exclude-standard", "--", *SOURCES)
    why = "tracked, yet matched by .gitignore (a new file beside them would be lost):\n"
    assert not hidden, why + "\n".join(hidden)


def test_no_source_file_is_ignored() -> None:
    ignored = _git("ls-files", "--others", "--ignored", "--exclude-standard", "--", *SOURCES)
    lost = [path for path in ignored if _source(path) and ".egg-info" not in path]
    assert not lost, "source files git ignores (a clean clone lacks them):\n" + "\n".join(lost)
