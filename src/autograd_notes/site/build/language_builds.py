"""Run the Sphinx build of every language: English first, the translations side by side.

English runs the examples; the translated builds reuse what it generated.
They start as soon as English has run the examples and generated their
pages, and run in parallel with each other and with the rest of English;
before reading an executed notebook, each waits until English has put it
in the cache (:mod:`autograd_notes.site.build.build_sync` writes the markers). English's
output is shown as it comes; each translated build's output is kept and
shown whole when it ends, in language order, so logs never interleave.
The first failure, in language order, stops the others.

On Windows the builds run one after the other: side by side, they have
only been run on POSIX systems.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from .build_sync import GALLERY_LOCK, GALLERY_MARKER, NOTEBOOKS_WAIT, READ_MARKER

__all__ = ["run_language_builds"]

_POLL = 0.1  # seconds


def _announce(code: str, languages: dict[str, str]) -> None:
    print(f"autograd_notes: building {code} ({languages.get(code, code)})", flush=True)


def _sequential(commands: dict[str, list[str]], languages: dict[str, str]) -> tuple[str, int] | None:
    for code, command in commands.items():
        _announce(code, languages)
        status = subprocess.run(command, check=False).returncode
        if status:
            return code, status
    return None


def _show(output: bytes) -> None:
    sys.stdout.flush()
    if hasattr(sys.stdout, "buffer"):
        sys.stdout.buffer.write(output)
    else:  # a replaced stdout (a test's capture)
        sys.stdout.write(output.decode("utf-8", errors="replace"))
    sys.stdout.flush()


def _stop(processes: dict[str, subprocess.Popen[bytes]]) -> None:
    for process in processes.values():
        if process.poll() is None:
            process.terminate()
    for process in processes.values():
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def _wait_for(english: subprocess.Popen[bytes], marker: Path) -> None:
    """Return once English has written ``marker``, or has ended."""
    while not marker.exists() and english.poll() is None:
        time.sleep(_POLL)


def run_language_builds(
    commands: dict[str, list[str]], languages: dict[str, str], scratch: Path
) -> tuple[str, int] | None:
    """Run each language's Sphinx ``command``; return ``(code, status)`` of the first failure, or ``None``.

    ``commands`` are in language order, English (``"en"``) first when it is
    built. ``scratch`` is a folder for the marker, the lock and the logs.
    """
    if sys.platform == "win32" or len(commands) == 1:
        return _sequential(commands, languages)
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=scratch, prefix="languages.") as folder:
        work = Path(folder)
        generated, read, lock = work / "english-gallery", work / "english-notebooks", work / "gallery.lock"
        processes: dict[str, subprocess.Popen[bytes]] = {}
        logs: dict[str, IO[bytes]] = {}
        try:
            if "en" in commands:
                _announce("en", languages)
                markers = {GALLERY_MARKER: str(generated), READ_MARKER: str(read)}
                processes["en"] = subprocess.Popen(commands["en"], env={**os.environ, **markers})
                _wait_for(processes["en"], generated)
                if processes["en"].poll():
                    return "en", processes["en"].returncode
            translated = [code for code in commands if code != "en"]
            waits = {NOTEBOOKS_WAIT: str(read)} if "en" in commands else {}
            for code in translated:
                logs[code] = (work / f"{code}.log").open("w+b")
                processes[code] = subprocess.Popen(
                    commands[code],
                    env={**os.environ, GALLERY_LOCK: str(lock), **waits},
                    stdout=logs[code],
                    stderr=subprocess.STDOUT,
                )
            if "en" in processes and processes["en"].wait():
                return "en", processes["en"].returncode
            for code in translated:
                status = processes[code].wait()
                _announce(code, languages)
                logs[code].seek(0)
                _show(logs[code].read())
                if status:
                    return code, status
            return None
        finally:
            _stop(processes)
            for log in logs.values():
                log.close()
