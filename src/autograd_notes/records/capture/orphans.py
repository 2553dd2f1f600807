"""Processes an example left behind with nothing to trace them by: adopted, then ended.

An example's process, and what it starts, carry a mark in their environment
(:mod:`.isolated` ends every process that holds it). A process that clears its
environment and leaves its parent (a daemon's double fork with ``env={}``)
escapes that mark. On Linux, the run asks to become a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``): such an orphan is then re-parented to the
run instead of to ``init``, and :func:`end_orphans` ends every child of the run
that is neither an example's process it started itself nor a child it had
before the run began. Elsewhere both do nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Collection
from pathlib import Path

__all__ = ["adopt_orphans", "end_orphans"]

_PR_SET_CHILD_SUBREAPER = 36
_ROUNDS = 20
"""How many times the children are looked for again: an orphan ended leaves its own children to us."""
_BEFORE: set[int] = set()
"""This process's children when the run began: not the examples' (a test's browser, a server)."""


def adopt_orphans() -> bool:
    """Make this process the parent of every orphan its descendants leave (Linux); whether it is.

    The children it already has are its own, never taken for an example's orphans.
    """
    if not sys.platform.startswith("linux"):  # pragma: no cover - other systems have no subreaper
        return False
    _BEFORE.clear()
    _BEFORE.update(_children())
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # pragma: no cover - no libc to ask
        return False


def _children() -> list[int]:
    """The processes whose parent is this one, from ``/proc`` (none where there is no ``/proc``)."""
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii", errors="replace")
        except OSError:  # gone
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ")"
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[1] == str(me):
            found.append(int(entry.name))
    return found


def end_orphans(keep: Collection[int]) -> None:
    """Kill every child of this process but ``keep`` (the examples running) and those it had before."""
    for _round in range(_ROUNDS):
        strays = [pid for pid in _children() if pid not in keep and pid not in _BEFORE]
        if not strays:
            return
        for pid in strays:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in strays:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
