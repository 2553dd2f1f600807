"""An example as the site serves it for download: its page, and the gallery script inside it.

A downloaded ``plot_*.py`` (one page's download, or a member of the
download-all archive ``examples_python.zip``) is the gallery script with two
additions (:mod:`autograd_notes.site.examples.downloads` makes them): a few comment
lines on top, the first naming the page's address
(``https://…/en/examples/02_backward/plot_retain_graph.html``), and a guard
before the first import of a module outside the standard library
(``import importlib.util`` … ``note_early_stop()``; a download of an
earlier site has ``try: import autograd_notes`` … ``raise SystemExit(…) from
None``). Its comments' cross-references are links, each on its line.
:func:`read_download` takes the additions away again: what is left has the
gallery script's lines, the code line for line (for the English downloads; a
translated download's text cells differ in their lines), so that a run of it
records the gallery's line numbers, and the
records it makes are those ``ingest`` checks against the gallery. The address
says which example it is (``02_backward/plot_retain_graph.py``) and in which
language. :func:`Download.download_line` maps a line of the script back to
the downloaded file's, for the reader. This module reads files only: no
Sphinx, no network.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..._download_page import PAGE_ADDRESS

__all__ = [
    "DOWNLOAD_ALL",
    "Download",
    "DownloadError",
    "Found",
    "find_downloads",
    "read_download",
]

DOWNLOAD_ALL = "examples_python.zip"
"""The name of the site's download-all archive of the Python scripts (sphinx-gallery's)."""

# the guard's lines, as patterns: the site's, then earlier sites'
_GUARDS = (
    (
        re.compile(r"import importlib\.util"),
        re.compile(r"if _missing := \[.*importlib\.util\.find_spec\(name\) is None\]:"),
        re.compile(r"    raise SystemExit\(.*\)"),
        re.compile(
            r'getattr\(importlib\.import_module\("autograd_notes"\), "note_early_stop", lambda: None\)\(\)'
        ),
    ),
    (
        re.compile(r"import importlib\.util"),
        re.compile(r"if _missing := \[.*importlib\.util\.find_spec\(name\) is None\]:"),
        re.compile(r"    raise SystemExit\(.*\)"),
    ),
    (
        re.compile(r"try:"),
        re.compile(r"    import autograd_notes  # noqa: F401"),
        re.compile(r"except ModuleNotFoundError:"),
        re.compile(r"    raise SystemExit\(.*\) from None"),
    ),
)
_MAX_SCRIPTS = 1000
"""The most example scripts a zip of the site's may hold (it has one per example)."""
_MAX_TOTAL = 32 * 2**20
"""The most bytes its scripts may hold together."""
_MAX_BYTES = 1 << 20
"""The largest script read (the biggest download is about 20 KiB)."""


class DownloadError(Exception):
    """A file that is not an example downloaded from the site: its name and why."""


@dataclass(frozen=True)
class Download:
    """A downloaded example, its additions taken away."""

    name: str
    """Where it was read, as the reader named it (``plot_x.py``, ``examples_python.zip:05_x/plot_x.py``)."""
    example: str
    """The gallery's name of it, ``section/plot_x.py``."""
    address: str
    """Its page."""
    language: str
    """The language of its page and text (``en``, ``ru``, ...)."""
    script: str
    """The script without the download's additions: the gallery script (English downloads)."""
    header: int
    """How many lines the download adds on top."""
    guard_at: int | None
    """The script's line (1-based) before which the download adds its guard, if it has one."""
    guard_lines: int = 0
    """How many lines that guard has."""

    def download_line(self, line: int) -> int:
        """The downloaded file's line that is the script's ``line``."""
        moved = self.guard_lines if self.guard_at is not None and line >= self.guard_at else 0
        return line + self.header + moved

    @property
    def translated(self) -> bool:
        """Whether its text is a translation, whose lines need not be the gallery script's."""
        return self.language != "en"


def read_download(name: str, text: str) -> Download:
    """Read one downloaded script; :class:`DownloadError` if it is not one of the site's."""
    lines = text.splitlines()
    found = PAGE_ADDRESS.search(lines[0]) if lines else None
    if found is None:
        raise DownloadError(f"{name}: its first line names no page of the site: not a download of an example")
    header = 0
    while header < len(lines) and lines[header].startswith("#"):
        header += 1
    body = lines[header:]
    guard_at, guard_lines = _find_guard(body)
    if guard_at is not None:
        del body[guard_at - 1 : guard_at - 1 + guard_lines]
    return Download(
        name=name,
        example=f"{found['section']}/{found['name']}.py",
        address=found["address"],
        language=found["language"],
        script="\n".join(body) + "\n",
        header=header,
        guard_at=guard_at,
        guard_lines=guard_lines,
    )


def _find_guard(body: list[str]) -> tuple[int | None, int]:
    """Where the download's guard starts in ``body`` (1-based) and its length; (None, 0) without one."""
    for index in range(len(body)):
        for guard in _GUARDS:
            lines = body[index : index + len(guard)]
            if len(lines) == len(guard) and all(
                p.fullmatch(line) for p, line in zip(guard, lines, strict=True)
            ):
                return index + 1, len(guard)
    return None, 0


def _read_zip(archive: Path) -> list[Download]:
    downloads = []
    try:
        opened = zipfile.ZipFile(archive)
    except zipfile.BadZipFile:
        raise DownloadError(f"{archive.name}: not a readable zip archive") from None
    with opened:
        scripts = [
            info
            for info in opened.infolist()
            if not info.is_dir()
            and PurePosixPath(info.filename).name.startswith("plot_")
            and PurePosixPath(info.filename).suffix == ".py"
        ]
        if len(scripts) > _MAX_SCRIPTS:
            raise DownloadError(
                f"{archive.name}: {len(scripts)} scripts, more than {_MAX_SCRIPTS}: not the site's"
            )
        if sum(info.file_size for info in scripts) > _MAX_TOTAL:  # as their headers say, before reading
            raise DownloadError(f"{archive.name}: its scripts hold more than {_MAX_TOTAL // 2**20} MiB")
        for info in scripts:
            if info.file_size > _MAX_BYTES:
                raise DownloadError(f"{archive.name}:{info.filename}: {info.file_size} bytes, not a script")
            try:  # read as its header says (zipfile stops there), one member at a time
                data = opened.read(info)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as error:
                raise DownloadError(f"{archive.name}:{info.filename}: cannot be read: {error}") from None
            downloads.append(read_download(f"{archive.name}:{info.filename}", _text(data, info.filename)))
    return downloads


def _read_file(path: Path, shown: str) -> Download:
    if path.stat().st_size > _MAX_BYTES:
        raise DownloadError(f"{shown}: {path.stat().st_size} bytes, not a script")
    return read_download(shown, _text(path.read_bytes(), shown))


def _text(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise DownloadError(f"{shown}: not UTF-8 text: not a download of an example") from None


@dataclass(frozen=True)
class Found:
    """The downloads to run, and those left out, each with why."""

    downloads: list[Download]
    left_out: list[str]
    """``"plot_x (1).py: the same example and language as plot_x.py"``: a copy is run once."""


def find_downloads(source: Path) -> Found:
    """The downloaded examples in ``source``: every example in every language found, each once.

    ``source`` is a folder (its ``plot_*.py``, in subfolders too, else its
    ``examples_python.zip``), the download-all archive itself, or one script.
    An example downloaded in English and in Russian is run twice, once per
    language; a second copy of the same example in the same language (a browser's
    ``plot_x (1).py``) is left out, and said so. Sorted by example, then
    language; :class:`DownloadError` when there are none, or one is not a download.
    """
    if source.is_file():
        found = _read_zip(source) if source.suffix == ".zip" else [_read_file(source, source.name)]
    elif source.is_dir():
        scripts = sorted(source.rglob("plot_*.py"))
        if scripts:
            found = [_read_file(path, path.relative_to(source).as_posix()) for path in scripts]
        elif (source / DOWNLOAD_ALL).is_file():
            found = _read_zip(source / DOWNLOAD_ALL)
        else:
            found = []
    else:
        raise DownloadError(f"{source.name}: no such file or folder")
    if not found:
        raise DownloadError(
            f"no examples in {source.name or source}: download them from the site (its examples "
            f"page's 'Download all examples in Python source code', {DOWNLOAD_ALL}), then run this "
            "where they are, or name them"
        )
    kept: dict[tuple[str, str], Download] = {}
    left_out: list[str] = []
    for download in found:
        key = (download.example, download.language)
        if key in kept:
            left_out.append(f"{download.name}: the same example and language as {kept[key].name}")
        else:
            kept[key] = download
    return Found([kept[key] for key in sorted(kept)], left_out)
