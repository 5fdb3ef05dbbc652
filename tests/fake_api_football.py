"""A local HTTP server on 127.0.0.1 speaking API-Football v3 (tests/recorded/api_football/).

It serves ``/fixtures`` and ``/fixtures/{lineups,events,statistics}`` from the recorded
files, counts down a daily quota in ``x-ratelimit-requests-remaining`` (answering the
documented ``errors.requests`` body once it is used up), and can answer with the documented
failures: ``mode="bad_key"`` (``errors.token``), ``mode="rate_limit_once"`` (one HTTP 429
with ``errors.rateLimit``), ``mode="limit_body"`` (``errors.requests`` while the header still
shows requests left), ``mode="malformed"`` (a body that is not JSON). Every request's
path, query and ``x-apisports-key`` header is kept in ``seen``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

RECORDED = Path(__file__).parent / "recorded" / "api_football"


def recorded(name: str) -> dict:
    return json.loads((RECORDED / f"{name}.json").read_text())


class FakeAPIFootball:
    def __init__(self, quota: int = 100, mode: str = "ok"):
        self.quota, self.mode = quota, mode
        self.seen: list[tuple[str, dict, str | None]] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                url = urlsplit(self.path)
                with fake.lock:
                    fake.seen.append((url.path, parse_qs(url.query), self.headers.get("x-apisports-key")))
                    status, body = fake.answer(url.path)
                    remaining = max(fake.quota, 0)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("x-ratelimit-requests-limit", "100")
                self.send_header("x-ratelimit-requests-remaining", str(remaining))
                self.send_header("X-RateLimit-Limit", "10")
                self.send_header("X-RateLimit-Remaining", "9")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str) -> tuple[int, dict | bytes]:
        errors = recorded("errors")
        if self.mode == "bad_key":
            return 200, errors["token"]
        if self.mode == "limit_body" and path != "/fixtures":  # the quota header lags, the body says it
            return 200, errors["requests"]
        if self.mode == "malformed":
            return 200, b"<html>upstream error</html>"
        if self.mode == "rate_limit_once":
            self.mode = "ok"
            return 429, errors["rateLimit"]
        if self.quota <= 0:
            return 200, errors["requests"]
        self.quota -= 1
        name = path.removeprefix("/fixtures").strip("/") or "fixtures"
        return 200, recorded(name)

    def __enter__(self) -> FakeAPIFootball:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
