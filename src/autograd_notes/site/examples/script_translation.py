"""A gallery script in the reader's language: its docstring and text cells translated, its code kept.

Each paragraph, title and list item of the reST text is looked up in the
page's catalog and wrapped again at 76 columns (East Asian characters count
twice, as docutils counts them; a title's underline is as wide as the title
looks). A message without a translation stays in English.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata

from ...records.format.script_cells import is_cell_marker, text_end

__all__ = ["docstring_end", "translate_rst_lines", "translate_script"]


_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}$")


def _width(text: str) -> int:
    """Display width as docutils counts it: East Asian wide characters count twice."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


_BACKQUOTED = re.compile(r"`+[^`]*`+")


def _wrap(text: str, indent: str = "", first: str = "") -> list[str]:
    """Wrap at 76 columns, at spaces only: never inside backquoted markup or a word.

    A run of CJK text without spaces stays on its line: a line break inside
    it would read as a space once the notebook's Markdown shows it.
    """
    if " " not in text.strip():
        return [first + text]
    glued = _BACKQUOTED.sub(lambda m: m.group(0).replace(" ", "\x00"), text)
    lines = textwrap.wrap(
        glued,
        width=76,
        initial_indent=first,
        subsequent_indent=indent,
        break_on_hyphens=False,
        break_long_words=False,
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
        pad = unit[0][: len(unit[0]) - len(unit[0].lstrip())]
        if pad and unit[0].lstrip().startswith("- ") and all(line.startswith(pad) for line in unit):
            # a directive's list (``.. questions::``): its items, translated, at the directive's indent
            out += [pad + line for line in translate_rst_lines([line[len(pad) :] for line in unit], messages)]
            continue
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


def docstring_end(lines: list[str]) -> int:
    """The line that closes a script's opening docstring (triple quotes on lines of their own); 0 if none."""
    if not lines or lines[0].strip() != '"""':
        return 0
    return next((j for j in range(1, len(lines)) if lines[j].strip() == '"""'), 0)


def translate_script(source: str, messages: dict[str, str]) -> str:
    """Translate a gallery script's docstring and text cells; keep every code line."""
    lines = source.splitlines()
    out: list[str] = []
    i = 0
    if end := docstring_end(lines):
        out += [lines[0], *translate_rst_lines(lines[1:end], messages), lines[end]]
        i = end + 1
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not is_cell_marker(line):
            continue
        start, i = i, text_end(lines, i - 1)
        text = [line[2:] if line.startswith("# ") else line[1:] for line in lines[start:i]]
        out += [f"# {t}" if t else "#" for t in translate_rst_lines(text, messages)]
    return "\n".join(out) + "\n"
