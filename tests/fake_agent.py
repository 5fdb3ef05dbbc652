"""Local agents speaking the endpoint protocol (issue 56): the reference agent of examples/agent, served in
a thread, and a hostile one whose mode decides how it misbehaves. Every request is kept (headers too),
so a test can tell what each server received."""

from __future__ import annotations

import functools
import importlib.util
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.fake_openrouter import LEAK_ENCODINGS, encoded_key

AGENT_FILE = Path(__file__).resolve().parent.parent / "examples" / "agent" / "agent.py"
TOKEN = "agent-token-0123456789abcdefXYZ"
ARENA = """
[arena]
competitions = ["worldcup-2026"]
access = ["closed_book"]
strategies = ["probabilistic_forecast"]
questions = false
"""
"""The arena of the endpoint tests: the World Cup, one condition, no questions (more [arena] keys may follow)."""


@functools.cache
def reference_agent():
    """The module examples/agent/agent.py (it is no package: loaded from its file)."""
    spec = importlib.util.spec_from_file_location("prematch_reference_agent", AGENT_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Served:
    """A server on 127.0.0.1 in a daemon thread; ``url`` while inside ``with``."""

    def __init__(self, server: ThreadingHTTPServer):
        self.server = server
        self.url = f"http://127.0.0.1:{server.server_address[1]}/forecast"

    def __enter__(self) -> Served:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def serve_reference(token: str | None = None, broken: bool = False) -> Served:
    return Served(reference_agent().serve("127.0.0.1", 0, token, broken))


def hostile_answer(mode: str, task: dict, token: str, count: int) -> tuple[int, bytes, float, dict]:
    """(status, body, seconds to wait first, headers) of one answer in ``mode``."""
    good = reference_agent().answer(task)
    if mode == "late":
        return 200, json.dumps(good).encode(), 3.0, {}
    if mode == "huge":
        good["answer"]["reason"] = "x" * 200_000
        return 200, json.dumps(good).encode(), 0.0, {}
    if mode == "invalid_json":
        return 200, b'{"protocol_version": "1.0", "agent": {"name": "a", "version": "1"}, "answer": {"home', 0.0, {}
    if mode == "invalid_schema":
        good["answer"].pop("draw_90_prob")
        return 200, json.dumps(good).encode(), 0.0, {}
    if mode == "invalid_then_valid":
        if task["role"] == "first":
            good["answer"]["home_win_90_prob"] = 1.7
        return 200, json.dumps(good).encode(), 0.0, {}
    if mode == "echo_token":  # the token, in every encoding, in each field the arena keeps
        forms = " ".join(encoded_key(token, e) for e in LEAK_ENCODINGS)
        good["agent"] = {"name": f"agent {token}", "version": f"1 {encoded_key(token, 'base64')}"}
        good["answer"]["reason"] = f"my token is {forms}"
        escaped = encoded_key(token, "json")  # written into the JSON text as \\u escapes, decoded to the token
        text = json.dumps(good).replace(json.dumps(escaped)[1:-1], escaped)
        return 200, text.encode(), 0.0, {"X-Echo": token}
    if mode == "redirect":
        return 307, b"", 0.0, {"Location": task.get("_elsewhere", "http://127.0.0.1:9/")}
    return 200, json.dumps(good).encode(), 0.0, {}


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        with self.server.lock:
            self.server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            count = len(self.server.requests)
        if self.server.mode == "none":
            return self._send(200, b"{}", {})
        task = json.loads(body)
        if self.server.elsewhere:
            task["_elsewhere"] = self.server.elsewhere
        status, data, wait, headers = hostile_answer(self.server.mode, task, self.server.token, count)
        time.sleep(wait)
        self._send(status, data, headers)

    def _send(self, status: int, data: bytes, headers: dict) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a late answer)
            pass

    def log_message(self, *args) -> None:
        pass


def serve_hostile(mode: str, token: str = TOKEN, elsewhere: str | None = None) -> Served:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.mode, server.token, server.elsewhere = mode, token, elsewhere
    server.requests, server.lock = [], threading.Lock()
    return Served(server)
