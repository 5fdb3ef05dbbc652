"""A local HTTP server on 127.0.0.1 that speaks OpenRouter's chat-completions format.

It answers each prompt with a valid forecast in the documented response shape (``id``,
``model``, ``provider``, ``choices[0].message`` with ``annotations``, ``finish_reason``,
``usage`` with ``cost``, token details and ``server_tool_use``). Match prompts get a match
answer (with advancement probabilities for knockouts); question prompts get probabilities
over the candidates listed in the prompt. Every request body and Authorization header is
kept in ``server.seen`` for assertions.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

RECORDED = Path(__file__).parent / "recorded" / "openrouter"
_IDS = itertools.count(1)

_CANDIDATES = re.compile(r"^Valid candidates:\n((?:- .+\n?)+)", re.MULTILINE)
_K = re.compile(r"^Required number of final picks: (\d+)", re.MULTILINE)


def match_answer(knockout: bool) -> dict:
    return {
        "home_win_90_prob": 0.5, "draw_90_prob": 0.3, "away_win_90_prob": 0.2,
        "expected_home_goals_90": 1.6, "expected_away_goals_90": 0.9,
        "most_likely_score_90": {"home": 1, "away": 0},
        "home_win_full_prob": 0.6 if knockout else 0.5, "draw_full_prob": 0.0 if knockout else 0.3,
        "away_win_full_prob": 0.4 if knockout else 0.2,
        "most_likely_score_full": {"home": 1, "away": 0},
        "home_advances_prob": 0.6 if knockout else None, "away_advances_prob": 0.4 if knockout else None,
        "confidence": 0.55, "reason": "Home side stronger on paper.",
    }  # fmt: skip


def question_answer(prompt: str) -> dict:
    names = [line[2:].strip() for line in _CANDIDATES.search(prompt).group(1).splitlines() if line.strip()]
    k_match = _K.search(prompt)
    k = int(k_match.group(1)) if k_match else 1
    share = [k / len(names)] * len(names)
    body = {"choices": [{"team": n, "probability": p, "rank": i + 1, "is_final_pick": i < k}
                        for i, (n, p) in enumerate(zip(names, share))],
            "confidence": 0.3, "reasoning_summary": "Even spread."}  # fmt: skip
    if k == 1:
        body["final_pick"] = names[0]
    else:
        body["final_picks"] = names[:k]
    return body


def completion(
    content: str, *, open_book: bool = False, finish_reason: str = "stop", model: str = "x/y",
    metadata: bool = False, gen_id: str = "gen-1234567890",
) -> dict:  # fmt: skip
    """A chat completion in OpenRouter's documented shape (``openrouter_metadata`` when asked for)."""
    message: dict = {"role": "assistant", "content": content}
    usage: dict = {
        "prompt_tokens": 812, "completion_tokens": 164, "total_tokens": 976,
        "completion_tokens_details": {"reasoning_tokens": 40},
        "prompt_tokens_details": {"cached_tokens": 128},
        "cost": 0.00123, "cost_details": {"upstream_inference_cost": 0.00111},
    }  # fmt: skip
    if open_book:
        message["annotations"] = [
            {"type": "url_citation", "url_citation": {"url": "https://example.org/team-news",
             "title": "Team news", "content": "Squad update", "start_index": 0, "end_index": 10}}
        ]  # fmt: skip
        usage["server_tool_use"] = {"web_search_requests": 2}
    out = {
        "id": gen_id, "model": model, "object": "chat.completion", "created": 1781000000,
        "choices": [{"index": 0, "finish_reason": finish_reason, "native_finish_reason": finish_reason,
                     "message": message}],
        "usage": usage,
    }  # fmt: skip
    if metadata:
        out["openrouter_metadata"] = {
            "attempt": 1, "endpoints": {"available": [{"model": model, "provider": "OpenAI", "selected": True}],
                                        "total": 1},
            "is_byok": False, "region": "iad", "requested": model, "strategy": "direct",
            "summary": "available=1, selected=OpenAI",
        }  # fmt: skip
    return out


TOP_LEVEL = {"model", "messages", "max_tokens", "temperature", "reasoning", "provider", "response_format", "tools",
             "max_tool_calls"}  # fmt: skip
SEARCH_PARAMETERS = {"engine", "max_results", "max_total_results", "search_context_size", "max_characters",
                     "allowed_domains", "excluded_domains"}  # fmt: skip
PROVIDER = {"order", "allow_fallbacks", "require_parameters", "data_collection", "zdr", "only", "ignore",
            "quantizations", "sort", "max_price", "enforce_distillable_text"}  # fmt: skip
EFFORTS = {"xhigh", "high", "medium", "low", "minimal", "none"}


def body_problems(body: dict) -> list[str]:
    """Where a request body departs from OpenRouter's documented request shape (empty: it fits)."""
    problems = [f"unknown field {k!r}" for k in sorted(set(body) - TOP_LEVEL)]
    if not isinstance(body.get("model"), str) or not isinstance(body.get("messages"), list):
        problems.append("model and messages are required")
    for tool in body.get("tools", []):
        params = tool.get("parameters", {})
        if tool.get("type") != "openrouter:web_search" or set(params) - SEARCH_PARAMETERS:
            problems.append(f"tools: not a documented openrouter:web_search tool: {tool}")
        if params.get("engine") not in (None, "auto", "native", "exa", "firecrawl", "parallel"):
            problems.append(f"tools: unknown engine {params.get('engine')!r}")
        if params.get("search_context_size") not in (None, "low", "medium", "high"):
            problems.append("tools: search_context_size is low, medium or high")
    if "max_tool_calls" in body and not 1 <= body["max_tool_calls"] <= 30:
        problems.append("max_tool_calls is 1..30")
    if set(body.get("provider", {})) - PROVIDER:
        problems.append(f"provider: unknown field(s) {sorted(set(body['provider']) - PROVIDER)}")
    reasoning = body.get("reasoning")
    if reasoning is not None and (("effort" in reasoning) == ("max_tokens" in reasoning)
                                  or reasoning.get("effort", "low") not in EFFORTS):  # fmt: skip
        problems.append("reasoning: exactly one of effort (a documented level) or max_tokens")
    fmt = body.get("response_format")
    if fmt is not None:
        schema = fmt.get("json_schema", {})
        if fmt.get("type") not in ("json_object", "json_schema"):
            problems.append("response_format.type is json_object or json_schema")
        elif fmt["type"] == "json_schema" and not (schema.get("name") and isinstance(schema.get("schema"), dict)):
            problems.append("response_format.json_schema needs name and schema")
    return problems


def answer_for(body: dict, metadata: bool = False, gen_id: str = "gen-1234567890") -> dict:
    prompt = body["messages"][-1]["content"]
    if "Valid candidates:" in prompt:
        answer = question_answer(prompt)
    else:
        answer = match_answer("Is knockout match: yes" in prompt)
    return completion(json.dumps(answer), open_book="tools" in body, model=body["model"], metadata=metadata,
                      gen_id=gen_id)  # fmt: skip


def recorded(name: str) -> dict:
    data = json.loads((RECORDED / name).read_text())
    data.pop("_source", None)
    return data


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _metadata(self) -> bool:
        names = ("x-openrouter-metadata", "x-openrouter-experimental-metadata")
        return any((self.headers.get(n) or "").lower() == "enabled" for n in names)

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(length))
        if self.server.record:
            self.server.seen.append({"path": self.path, "auth": self.headers.get("authorization"), "body": body,
                                     "metadata_header": self._metadata()})  # fmt: skip
        problems = body_problems(body)
        if problems:
            self._send(400, {"error": {"code": 400, "message": "; ".join(problems)}})
            return
        gen_id = f"gen-{next(_IDS)}-fake"
        self.server.generations[gen_id] = body
        self._send(200, answer_for(body, self._metadata(), gen_id))

    def do_GET(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        if self.server.record:
            self.server.gets.append({"path": self.path, "auth": self.headers.get("authorization")})
        if url.path.endswith("/models"):
            self._send(200, recorded("models.json"))
            return
        gen_id = (parse_qs(url.query).get("id") or [""])[0]
        if not url.path.endswith("/generation") or gen_id not in self.server.generations:
            self._send(404, {"error": {"code": 404, "message": f"Generation {gen_id} not found"}})
            return
        stats = recorded("generation.json")
        body = self.server.generations[gen_id]
        cost = completion("{}")["usage"]["cost"]  # the stats bill what the completion reported
        stats["data"].update(id=gen_id, model=body["model"], num_search_results=6 if "tools" in body else 0,
                             total_cost=cost, usage=cost,
                             web_search_engine="exa" if "tools" in body else None)  # fmt: skip
        self._send(200, stats)

    def log_message(self, *args) -> None:
        pass


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # a burst of concurrent connections must not be refused
    daemon_threads = True


class FakeOpenRouter:
    """``with FakeOpenRouter() as server: server.base_url ...``"""

    def __init__(self, record: bool = True):
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.seen = []
        self.httpd.generations = {}
        self.httpd.gets = []
        self.httpd.record = record
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/api/v1"

    @property
    def seen(self) -> list[dict]:
        """Every chat-completions request (path, Authorization header, body, metadata opt-in)."""
        return self.httpd.seen

    @property
    def gets(self) -> list[dict]:
        """Every GET (generation stats, models)."""
        return self.httpd.gets

    def __enter__(self) -> FakeOpenRouter:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


if __name__ == "__main__":  # a standalone server for benchmarks: prints its base URL, serves until killed
    import sys

    with FakeOpenRouter(record=False) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()
