"""Which page of the site a running download comes from, and so the language its reader reads.

A script downloaded from the site starts with a comment naming its page
(``# …: https://…/ru/examples/02_backward/plot_retain_graph.html``, written
by :mod:`autograd_notes.site.examples.downloads`); a downloaded notebook's first cell
names it too. The helpers read that line to speak to the reader in the
page's language and to link the page itself. A gallery script, a record's
capture or a reader's own code names no page: the helpers then say what
they always said, in English.
"""

from __future__ import annotations

import linecache
import re
import sys
from dataclasses import dataclass

__all__ = ["PAGE_ADDRESS", "DownloadPage", "page_in", "running_page"]

PAGE_ADDRESS = re.compile(
    r"(?P<address>https?://\S+?/(?P<language>[A-Za-z_-]+)/examples/"
    r"(?P<section>\w+)/(?P<name>plot_\w+)\.html)\b"
)
"""An example page's address, as a download's first comment line names it."""


@dataclass(frozen=True)
class DownloadPage:
    """The page a download comes from."""

    address: str
    """``https://…/ru/examples/02_backward/plot_retain_graph.html``."""
    language: str
    """The language of the page and of the download's text (``en``, ``ru``, ``zh_CN``, ``pt_BR``)."""


def page_in(line: str) -> DownloadPage | None:
    """The page a download's comment ``line`` names, or None for any other line."""
    found = PAGE_ADDRESS.search(line) if line.startswith("#") else None
    return DownloadPage(found["address"], found["language"]) if found else None


def _first_cell_lines() -> list[str]:
    """The lines of the first cell a Jupyter kernel ran (a download's install cell names its page)."""
    inputs = getattr(sys.modules.get("__main__"), "In", None)
    if not isinstance(inputs, list) or len(inputs) < 2 or not isinstance(inputs[1], str):
        return []
    return inputs[1].splitlines()


def running_page(filename: str | None = None) -> DownloadPage | None:
    """The page of the download running here, or None when no download runs.

    The first line of ``filename`` (the file of a check), else of the main
    script, else the first cell a notebook ran.
    """
    files = [filename, getattr(sys.modules.get("__main__"), "__file__", None)]
    for file in files:
        if isinstance(file, str) and file:
            linecache.checkcache(file)
            page = page_in(linecache.getline(file, 1))
            if page is not None:
                return page
    return next((page for line in _first_cell_lines() if (page := page_in(line)) is not None), None)
