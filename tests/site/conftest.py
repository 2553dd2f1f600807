"""Fixtures of the browser tests (test_browser.py, test_accessibility.py): the served site, Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _browser import Server, launch, serve
from _site import Site


@pytest.fixture(scope="module")
def server(whole_site: Site) -> Iterator[Server]:
    """The whole site on loopback, under the path it is published at."""
    with serve(whole_site.html) as served:
        yield served


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, through Playwright."""
    with launch() as chromium:
        yield chromium
