"""A traceback on an example page names the reader's download and its lines, in every language."""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path

import pytest
from _site import LANGUAGES, ROOT, Site

from autograd_notes.site.examples.downloads import download_line_map
from autograd_notes.site.examples.script_translation import docstring_end
from autograd_notes.site.examples.traceback_lines import renumber_frames
from autograd_notes.site.i18n.catalogs import translations

EXAMPLES = sorted(p.relative_to(ROOT / "gallery").as_posix() for p in (ROOT / "gallery").glob("*/plot_*.py"))
FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in \S+\n(?P<source>    .*)$', re.M)


def test_a_frame_of_the_example_names_the_download_and_its_line() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "gallery/05_x/plot_a.py", line 12, in <module>\n    y.backward()\n'
        '  File "gallery/05_x/plot_other.py", line 12, in <module>\n'
        '  File "05_x/plot_a.py", line 40, in f\n'
        "RuntimeError: boom\n"
        "gallery/05_x/plot_a.py:12: UserWarning: careful\n"
        "gallery/05_x/plot_other.py:12: UserWarning: elsewhere"
    )
    renumbered = renumber_frames(text, "05_x/plot_a.py", {12: 18, 40: 47})
    assert '  File "plot_a.py", line 18, in <module>\n    y.backward()' in renumbered
    assert 'File "gallery/05_x/plot_other.py", line 12' in renumbered  # another file, as it was
    assert 'File "plot_a.py", line 47, in f' in renumbered
    assert "\nplot_a.py:18: UserWarning: careful" in renumbered  # a warning's place too
    assert "gallery/05_x/plot_other.py:12: UserWarning: elsewhere" in renumbered


def test_the_line_map_follows_the_header_the_guard_and_a_translation() -> None:
    script = ROOT / "gallery" / "05_inplace" / "plot_python_rebinding_inplace.py"
    source = script.read_text(encoding="utf-8").splitlines()
    catalog = ROOT / "docs" / "locale" / "zh_CN" / "LC_MESSAGES" / "examples" / "05_inplace"
    for messages in ({}, translations(catalog / "plot_python_rebinding_inplace.po")):
        lines = download_line_map("\n".join(source) + "\n", messages)
        after = docstring_end(source)  # the docstring is text, translated
        code = [
            n
            for n, text in enumerate(source, 1)
            if n > after and text.strip() and not text.lstrip().startswith("#")
        ]
        assert set(code) <= set(lines)  # every code line is found, in order
        assert all(later > earlier for earlier, later in itertools.pairwise(lines.values()))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_frame_on_a_page_is_the_downloads_line(whole_site: Site, language: str) -> None:
    """Each frame of the example on its page: the download's line there is the source line it quotes."""
    checked = 0
    faults = []
    for example in EXAMPLES:
        name = Path(example).name
        page = (whole_site.html / language / "examples" / Path(example).with_suffix(".html")).read_text(
            "utf-8"
        )
        (download,) = (whole_site.html / language / "_downloads").rglob(name)
        lines = download.read_text(encoding="utf-8").splitlines()
        for block in re.findall(r"<pre\b[^>]*>(.*?)</pre>", page, flags=re.S):
            text = html.unescape(re.sub(r"<[^>]+>", "", block))  # as it shows, its lines kept
            if f'"gallery/{example}"' in text or f"gallery/{example}:" in text:
                faults.append(f"{example}: a frame names the gallery's script")
            for frame in FRAME.finditer(text):
                if frame["file"] != name:
                    continue
                checked += 1
                at = int(frame["line"])
                if at > len(lines) or lines[at - 1].strip() != frame["source"].strip():
                    faults.append(f"{example}: line {at} of {name} is not {frame['source'].strip()!r}")
    assert checked > 20, checked
    assert not faults, "\n".join(faults[:20])
