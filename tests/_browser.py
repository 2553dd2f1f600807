"""A built site served on loopback, and Debian's Chromium: what the browser tests share.

``tests/site/test_browser.py`` and ``tests/site/test_accessibility.py`` each
declare their fixtures on these helpers: :func:`serve` (the site under the
path it is published at, a missing page answered with its ``404.html`` as
GitHub Pages does), :func:`launch` (Chromium driven by Playwright with
``executable_path``: Playwright cannot download a browser here, and
``.ci/run`` installs Debian's ``chromium``) and :func:`watch` (a page whose
errors, and every request that leaves loopback, are collected: the site
must work offline).
"""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from _site import ROOT

from autograd_notes.site.build.sitebuild import site_url_of

CHROMIUM = os.environ.get("AUTOGRAD_NOTES_CHROMIUM", "/usr/bin/chromium")
# Flags for a root user on a machine without a network: no sandbox (root), none of
# Chromium's own background connections (they fail and log errors), and every request
# that would leave loopback sent to a proxy that is not there: refused, whatever its
# address. (watch() counts each one; refusing them in Playwright's route handler instead
# made every request of every page wait for a round trip to Python: twice the load time.)
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=127.0.0.1",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
]


# -- the server ----------------------------------------------------------------


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serve ``directory`` under ``prefix``; anything else, or missing, is the site's 404 page."""

    prefix = "/"

    def translate_path(self, path: str) -> str:
        route = urlsplit(path).path
        if not route.startswith(self.prefix):
            return str(Path(self.directory) / "-outside-the-site-")  # no such file: the 404 page
        return super().translate_path("/" + route[len(self.prefix) :])

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.exists():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def list_directory(self, path: str | os.PathLike[str]) -> None:  # type: ignore[override]
        """No listings: a folder without index.html is not found, as on GitHub Pages."""
        self.send_error(404)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class QuietServer(http.server.ThreadingHTTPServer):
    """A loopback server that stays quiet when a client hangs up mid-answer.

    A browser that leaves a page, or pip once it has what it needs, closes the
    connection while a file is still being sent; Python's server then prints
    the ``BrokenPipeError`` with its traceback into the test log, which reads
    as a failure. Any other error is still printed.
    """

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@dataclass
class Server:
    """The site on loopback: ``url(language, page)`` gives a page's address."""

    base: str

    def url(self, language: str, page: str = "index.html") -> str:
        return f"{self.base}{language}/{page}"


@contextmanager
def serve(html: Path) -> Iterator[Server]:
    """Serve a built site (``build/html``) on loopback, under the path the site is published at."""
    prefix = urlsplit(site_url_of(ROOT / "docs")).path or "/"
    handler = functools.partial(type("Handler", (_SiteHandler,), {"prefix": prefix}), directory=str(html))
    httpd = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}{prefix}")
    finally:
        httpd.shutdown()
        httpd.server_close()


# -- the browser ---------------------------------------------------------------


@contextmanager
def launch() -> Iterator[Any]:
    """Debian's Chromium (``AUTOGRAD_NOTES_CHROMIUM``), headless; the test fails where there is none."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: install Debian's chromium (`apt-get install chromium`, as .ci/run "
            "does) or point AUTOGRAD_NOTES_CHROMIUM at one"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


@dataclass
class Problems:
    """What went wrong while pages loaded: console errors, page errors, failed or refused requests."""

    items: list[str] = field(default_factory=list)

    def clear(self) -> list[str]:
        found, self.items = self.items, []
        return found


def watch(context: Any) -> tuple[Any, Problems]:
    """A new page of ``context`` whose console errors, page errors, failed requests and off-loopback
    requests are collected (Chromium refuses a request that leaves the machine: ``CHROMIUM_FLAGS``)."""
    problems = Problems()
    page = context.new_page()

    def request(request: Any) -> None:
        url = request.url
        if not url.startswith(("data:", "blob:", "about:")) and urlsplit(url).hostname != "127.0.0.1":
            problems.items.append(f"request off the machine: {url}")

    page.on("request", request)
    page.on("console", lambda m: m.type == "error" and problems.items.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.items.append(f"page error: {e}"))

    def failed(request: Any) -> None:
        # a request still in flight when the next page is opened is cancelled: not a fault
        if request.failure != "net::ERR_ABORTED":
            problems.items.append(f"failed: {request.url} ({request.failure})")

    page.on("requestfailed", failed)

    def response(r: Any) -> None:
        if r.status >= 400 and not r.url.endswith("/no-such-page.html"):
            problems.items.append(f"HTTP {r.status}: {r.url}")

    page.on("response", response)
    return page, problems
