"""A local HTTP server on 127.0.0.1 that speaks OpenRouter's API: the demo's LLM provider.

It answers ``POST /chat/completions`` (a request body that departs from the documented shape
gets OpenRouter's 400 error body), ``GET /models`` (its models in the documented entry shape)
and ``GET /generation?id=`` (the generation's statistics), so the real client
(:mod:`collector.forecasters.llm.openrouter`) talks to it exactly as to OpenRouter: no key, no
network. What it answers comes from a :class:`Answerer` (the demo's recipe,
:mod:`collector.forecasters.demo_recipe`); ``tests/fake_openrouter.py`` builds its hostile modes on this
server's handler.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol
from urllib.parse import parse_qs, urlsplit

from collector.forecasters.llm.demo_answers import body_problems

PARAMETERS = ["include_reasoning", "max_completion_tokens", "max_tokens", "reasoning", "response_format", "seed",
              "structured_outputs", "temperature", "tool_choice", "tools"]  # fmt: skip
_IDS = itertools.count(1)


class Answerer(Protocol):
    """What the server answers: a completion per request body, and the models it lists."""

    def completion(self, body: dict, gen_id: str, metadata: bool) -> dict: ...

    def models(self) -> list[dict]: ...


def model_entry(model_id: str, slug: str, name: str, prompt_usd_per_token: float = 0.0,
                completion_usd_per_token: float = 0.0) -> dict:  # fmt: skip
    """One ``GET /api/v1/models`` entry in the documented shape."""
    return {
        "id": model_id, "canonical_slug": slug, "name": name, "created": 1781000000, "description": name,
        "context_length": 200000,
        "architecture": {"modality": "text->text", "input_modalities": ["text"], "output_modalities": ["text"],
                         "tokenizer": "Other", "instruct_type": None},
        "pricing": {"prompt": f"{prompt_usd_per_token:.10f}", "completion": f"{completion_usd_per_token:.10f}",
                    "request": "0", "image": "0", "web_search": "0", "internal_reasoning": "0"},
        "top_provider": {"context_length": 200000, "max_completion_tokens": 16000, "is_moderated": False},
        "per_request_limits": None, "supported_parameters": list(PARAMETERS), "default_parameters": None,
        "expiration_date": None,
    }  # fmt: skip


def generation_stats(gen_id: str, body: dict, cost: float, provider: str) -> dict:
    """``GET /api/v1/generation``'s answer for a completion this server made (documented field names)."""
    searched = "tools" in body
    return {"data": {
        "id": gen_id, "model": body["model"], "provider_name": provider, "total_cost": cost, "usage": cost,
        "created_at": "2026-01-01T00:00:00+00:00", "finish_reason": "stop", "native_finish_reason": "stop",
        "tokens_prompt": 812, "tokens_completion": 164, "native_tokens_prompt": 812, "native_tokens_completion": 164,
        "native_tokens_reasoning": 40, "native_tokens_cached": 128, "num_search_results": 6 if searched else 0,
        "web_search_engine": "exa" if searched else None, "is_byok": False, "streamed": False, "cancelled": False,
        "latency": 0, "generation_time": 0, "api_type": "completions",
    }}  # fmt: skip


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: dict | bytes,
              headers: dict[str, str] | None = None) -> None:
    """One JSON answer (``payload`` as bytes when already encoded); a client that gave up gets nothing."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    try:
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
    except OSError:
        pass


class Handler(BaseHTTPRequestHandler):
    """Serves the server's :class:`Answerer`; subclasses (the tests' fake) add hostile answers."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle's algorithm on, the body would wait for the
    # client's delayed ACK of the headers, and every client would be measured against a TCP stall.
    disable_nagle_algorithm = True

    def send(self, status: int, payload: dict | bytes, headers: dict[str, str] | None = None) -> None:
        send_json(self, status, payload, headers)

    def metadata_asked(self) -> bool:
        names = ("x-openrouter-metadata", "x-openrouter-experimental-metadata")
        return any((self.headers.get(n) or "").lower() == "enabled" for n in names)

    def read_body(self) -> dict | None:
        length = int(self.headers.get("content-length", 0))
        try:
            body = json.loads(self.rfile.read(length))
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def do_POST(self) -> None:  # noqa: N802
        body = self.read_body()
        problems = ["the body is not a JSON object"] if body is None else body_problems(body)
        if problems:
            self.send(400, {"error": {"code": 400, "message": "; ".join(problems)}})
            return
        gen_id = f"gen-demo-{next(_IDS)}"
        answer = self.server.answerer.completion(body, gen_id, self.metadata_asked())
        with self.server.lock:
            self.server.generations[gen_id] = (body, answer["usage"]["cost"])
        self.send(200, answer)

    def do_GET(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        if url.path.endswith("/models"):
            self.send(200, {"data": self.server.answerer.models()})
            return
        gen_id = (parse_qs(url.query).get("id") or [""])[0]
        with self.server.lock:
            made = self.server.generations.get(gen_id)
        if not url.path.endswith("/generation") or made is None:
            self.send(404, {"error": {"code": 404, "message": f"Generation {gen_id} not found"}})
            return
        self.send(200, generation_stats(gen_id, made[0], made[1], self.server.provider))

    def log_message(self, *args) -> None:
        pass


class Server(ThreadingHTTPServer):
    request_queue_size = 256  # a burst of concurrent connections must not be refused
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], OSError):  # a client that gave up or was killed: nothing to report
            super().handle_error(request, client_address)


class LocalOpenRouter:
    """``with LocalOpenRouter(answerer) as server: server.base_url ...`` (127.0.0.1, a free port)."""

    def __init__(self, answerer: Answerer | None, handler: type[Handler] = Handler,
                 provider: str = "Prematch demo server"):
        self.httpd = Server(("127.0.0.1", 0), handler)
        self.httpd.answerer = answerer
        self.httpd.provider = provider
        self.httpd.generations = {}
        self.httpd.lock = threading.Lock()
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/api/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
