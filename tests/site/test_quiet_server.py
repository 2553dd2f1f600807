"""The tests' loopback server: a client that hangs up leaves no traceback in the log, any other error does."""

from __future__ import annotations

import http.client
import http.server
import threading

import pytest
from _browser import QuietServer


class _Failing(http.server.BaseHTTPRequestHandler):
    """``/hang-up``: the client went away mid-answer; ``/bug``: the server's own error."""

    def do_GET(self) -> None:
        if self.path == "/hang-up":
            raise BrokenPipeError(32, "Broken pipe")
        raise ValueError("a bug of the server")

    def log_message(self, format: str, *args: object) -> None:
        pass


def _get(port: int, path: str) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            connection.getresponse()  # the socket is closed only after the error was handled
    finally:
        connection.close()


def test_a_client_that_hangs_up_leaves_no_traceback_and_a_bug_still_does(
    capfd: pytest.CaptureFixture[str],
) -> None:
    server = QuietServer(("127.0.0.1", 0), _Failing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        _get(port, "/hang-up")
        _get(port, "/bug")
    finally:
        server.shutdown()
        server.server_close()
    printed = capfd.readouterr().err
    assert "BrokenPipeError" not in printed
    assert "ValueError: a bug of the server" in printed
