"""Downloads in the reader's language: the example's narrative translated, its code identical.

sphinx-gallery writes each example's ``.py`` and ``.ipynb`` (and the zips of
all) from the English source, before any translation. For a translated build
the text cells of each script are translated with the page's catalog
(``docs/locale/<lang>/LC_MESSAGES/<gallery>/<section>/<name>.po``), and the
files under ``_downloads`` are rewritten: the ``.py``, the notebook made
from it by sphinx-gallery, and the zips. A message without a translation
stays in English. Code lines are never changed.
"""

from __future__ import annotations

import re
import tempfile
import textwrap
import unicodedata
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["translate_downloads", "translate_rst_lines", "translate_script"]

_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}$")
_MARKER = re.compile(r"^# ?%%")


def _width(text: str) -> int:
    """Display width as docutils counts it: East Asian wide characters count twice."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


_BACKQUOTED = re.compile(r"`+[^`]*`+")


def _wrap(text: str, indent: str = "", first: str = "") -> list[str]:
    """Wrap at 76 columns, never inside backquoted markup; CJK text stays on one line."""
    if " " not in text.strip():
        return [first + text]
    glued = _BACKQUOTED.sub(lambda m: m.group(0).replace(" ", "\x00"), text)
    lines = textwrap.wrap(
        glued, width=76, initial_indent=first, subsequent_indent=indent, break_on_hyphens=False
    )
    return [line.replace("\x00", " ") for line in lines]


def _translated(
    lines: list[str], messages: dict[str, str], indent: str = "", first: str = ""
) -> list[str] | None:
    """The wrapped translation of the text of ``lines``, or None if there is none."""
    found = messages.get(" ".join(" ".join(lines).split()))
    return _wrap(found, indent, first) if found else None


def translate_rst_lines(lines: list[str], messages: dict[str, str]) -> list[str]:
    """Translate the paragraphs, titles and list items of reST ``lines``.

    Text without a translation keeps its lines exactly; a translated title
    gets an underline as wide as its display width.
    """
    out: list[str] = []
    units: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            units[-1].append(line)
        elif units[-1]:
            units.append([])
    blank_runs = iter(line for line in lines if not line.strip())
    for n, unit in enumerate(u for u in units if u):
        if n:
            out.append(next(blank_runs, ""))
        if unit[0].startswith(".. ") or unit[0].startswith(" "):
            out.extend(unit)
            continue
        if len(unit) >= 2 and _UNDERLINE.match(unit[1]):
            title = messages.get(" ".join(unit[0].split()), unit[0])
            out += [title, unit[1][0] * max(_width(title), len(unit[1]))]
            unit = unit[2:]
            if not unit:
                continue
        if unit[0].startswith("- "):
            items: list[list[str]] = []
            for line in unit:
                if line.startswith("- "):
                    items.append([line])
                else:
                    items[-1].append(line)
            for item in items:
                text = [item[0][2:], *(rest.strip() for rest in item[1:])]
                out += _translated(text, messages, indent="  ", first="- ") or item
        else:
            out += _translated(unit, messages) or unit
    return out


def translate_script(source: str, messages: dict[str, str]) -> str:
    """Translate a gallery script's docstring and text cells; keep every code line."""
    lines = source.splitlines()
    out: list[str] = []
    i = 0
    if lines and lines[0].strip() == '"""':
        end = next(j for j in range(1, len(lines)) if lines[j].strip() == '"""')
        out += [lines[0], *translate_rst_lines(lines[1:end], messages), lines[end]]
        i = end + 1
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not _MARKER.match(line):
            continue
        start = i
        while i < len(lines) and lines[i].startswith("#") and not _MARKER.match(lines[i]):
            i += 1
        text = [line[2:] if line.startswith("# ") else line[1:] for line in lines[start:i]]
        out += [f"# {t}" if t else "#" for t in translate_rst_lines(text, messages)]
    return "\n".join(out) + "\n"


def _notebook(script: Path, gallery_conf: dict[str, Any]) -> str:
    import json

    from sphinx_gallery.notebook import jupyter_notebook
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    _, blocks = split_code_and_text_blocks(str(script))
    return json.dumps(jupyter_notebook(blocks, gallery_conf, script.parent), indent=2, ensure_ascii=False)


def translate_downloads(
    outdir: Path,
    gallery_dirs: list[tuple[Path, str]],
    catalog_for: Callable[[str], dict[str, str]],
    gallery_conf: dict[str, Any],
) -> list[str]:
    """Rewrite the example downloads under ``outdir/_downloads`` in the build's language.

    ``gallery_dirs`` pairs each example source folder with its generated
    docname prefix (``examples``); ``catalog_for(docname)`` gives the
    translations of a page. Returns the examples translated.
    """
    done: list[str] = []
    translated: dict[str, tuple[str, str]] = {}  # "section/plot_x.py" -> (py text, ipynb text)
    downloads = outdir / "_downloads"
    with tempfile.TemporaryDirectory() as tmp:
        for source_dir, prefix in gallery_dirs:
            for script in sorted(source_dir.glob("*/plot_*.py")):
                relative = script.relative_to(source_dir).as_posix()
                messages = catalog_for(f"{prefix}/{Path(relative).with_suffix('').as_posix()}")
                text = translate_script(script.read_text(encoding="utf-8"), messages)
                copy = Path(tmp, relative)
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_text(text, encoding="utf-8")
                translated[relative] = (text, _notebook(copy, gallery_conf))
                for target in downloads.rglob(script.name):
                    target.write_text(text, encoding="utf-8")
                for target in downloads.rglob(script.with_suffix(".ipynb").name):
                    target.write_text(translated[relative][1], encoding="utf-8")
                done.append(relative)
    for archive in downloads.rglob("*.zip"):
        _rewrite_zip(archive, translated)
    return done


def _rewrite_zip(archive: Path, translated: dict[str, tuple[str, str]]) -> None:
    with zipfile.ZipFile(archive) as old:
        entries = [(info, old.read(info)) for info in old.infolist()]
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as new:
        for info, data in entries:
            name = Path(info.filename)
            key = name.with_suffix(".py").as_posix()
            matches = [
                k for k in translated if key.endswith(k) or Path(k).name == name.with_suffix(".py").name
            ]
            if matches:
                py, ipynb = translated[matches[0]]
                data = (ipynb if name.suffix == ".ipynb" else py).encode("utf-8")
            new.writestr(info, data)
