"""Find what must never reach a published page: machine paths, user names, memory addresses."""

from __future__ import annotations

import getpass
import re
import sys
from collections.abc import Iterable
from pathlib import Path

__all__ = ["find_leaks", "leak_patterns"]

_ADDRESS = r"\b0x[0-9a-fA-F]{8,}\b"
_GENERIC = (
    r"/home/[\w.-]+",
    r"/Users/[\w.-]+",
    r"/root/",
    r"site-packages",
    r"/tmp/",
    r"\.nox/",
    r"ipykernel_\d+",
)


def leak_patterns(extra_paths: Iterable[str | Path] = ()) -> list[re.Pattern[str]]:
    """Patterns of text that leak the build machine into a page.

    The generic ones (home folders, ``site-packages``, ``/tmp/``, memory
    addresses), this machine's own paths (home, Python prefix, current
    directory and ``extra_paths``, e.g. the project root) and the user name
    when it is not a plain word that prose could contain.
    """
    paths = {str(Path.home()), sys.prefix, str(Path.cwd()), *(str(p) for p in extra_paths)}
    patterns = [re.escape(p) for p in sorted(paths) if len(p) > 1]
    patterns += [*_GENERIC, _ADDRESS]
    user = getpass.getuser()
    if user not in {"root", "user", "runner", "docs", "build"}:
        patterns.append(rf"\b{re.escape(user)}\b")
    return [re.compile(p) for p in patterns]


def find_leaks(text: str, patterns: list[re.Pattern[str]]) -> list[str]:
    """Return each leaking match in ``text`` with a little context, at most five."""
    found: list[str] = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            start, end = max(match.start() - 30, 0), min(match.end() + 30, len(text))
            found.append(" ".join(text[start:end].split()))
            if len(found) >= 5:
                return found
    return found
