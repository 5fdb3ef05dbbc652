"""collector.http's body cap against a real local server: a body is kept whole only when it is
uncompressed and declares a length within the cap; every other body (chunked, declared too long,
compressed so that it inflates past the cap) is cut, with its full length and SHA-256."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from collector.http import RetryPolicy, ServiceCallFailed, ServiceClient

LIMIT = 4096
PLAIN = b"a" * 3000  # within the cap
LONG = b"b" * 50_000  # past it
BOMB = b"c" * 200_000  # inflates past the cap from a few hundred compressed bytes


class _Bodies(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        if self.path == "/plain":
            self._whole(PLAIN)
        elif self.path == "/long":
            self._whole(LONG)
        elif self.path == "/gzip":
            self.send_header("Content-Encoding", "gzip")
            self._whole(gzip.compress(BOMB))
        elif self.path == "/chunked":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for start in range(0, len(LONG), 8192):
                chunk = LONG[start:start + 8192]
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")

    def _whole(self, body: bytes) -> None:
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Bodies)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _get(base: str, path: str):
    async def go():
        async with ServiceClient("svc", base, max_response_bytes=LIMIT, retry=RetryPolicy(max_attempts=1)) as client:
            try:
                response, exchanges = await client.request("GET", path, retry_body_errors=False)
                return response.content, exchanges[-1]
            except ServiceCallFailed as failed:
                return None, failed.exchanges[-1]

    return asyncio.run(go())


def test_a_declared_body_within_the_cap_is_kept_whole(base):
    content, exchange = _get(base, "/plain")
    assert content == PLAIN and exchange.ok and exchange.body_bytes is None


@pytest.mark.parametrize(("path", "full"), [("/long", LONG), ("/chunked", LONG), ("/gzip", BOMB)])
def test_a_body_past_the_cap_is_cut_with_its_length_and_hash(base, path, full):
    content, exchange = _get(base, path)
    assert content is None and exchange.error_kind == "body"
    assert exchange.body_bytes == len(full) and exchange.body_sha256 == hashlib.sha256(full).hexdigest()
    assert len(exchange.text.encode()) <= LIMIT
