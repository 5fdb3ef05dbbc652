"""What the browser tests share: Debian's chromium, a quiet local HTTP server, one launched browser."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_chromium() -> None:
    """Skip without Debian's chromium, except on CI, where its absence is a failure."""
    if CHROMIUM.exists():
        return
    if os.environ.get("CI"):
        pytest.fail("/usr/bin/chromium is missing on CI (apt-get install chromium)")
    pytest.skip("/usr/bin/chromium is not installed (Debian package chromium); browser tests skipped")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep test output clean
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """A static server for ``folder`` on 127.0.0.1 (a free port): the server, and its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """:func:`serve` for the length of a ``with``: the base URL; the server is shut down afterwards."""
    server, base = serve(folder)
    try:
        yield base
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def launched_chromium() -> Iterator:
    """Playwright driving Debian's chromium, headless, closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
