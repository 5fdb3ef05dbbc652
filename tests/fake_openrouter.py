"""A local HTTP server on 127.0.0.1 that speaks OpenRouter's chat-completions format.

It answers each prompt with a valid forecast in the documented response shape (``id``,
``model``, ``provider``, ``choices[0].message`` with ``annotations``, ``finish_reason``,
``usage`` with ``cost``, token details and ``server_tool_use``). Match prompts get a match
answer (with advancement probabilities for knockouts); question prompts get probabilities
over the candidates listed in the prompt. Every request body and Authorization header is
kept in ``server.seen`` for assertions.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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


def completion(content: str, *, open_book: bool = False, finish_reason: str = "stop", model: str = "x/y") -> dict:
    """A chat completion in OpenRouter's documented shape."""
    message: dict = {"role": "assistant", "content": content}
    usage: dict = {
        "prompt_tokens": 812, "completion_tokens": 164, "total_tokens": 976,
        "completion_tokens_details": {"reasoning_tokens": 40},
        "prompt_tokens_details": {"cached_tokens": 128},
        "cost": 0.00123,
    }  # fmt: skip
    if open_book:
        message["annotations"] = [
            {"type": "url_citation", "url_citation": {"url": "https://example.org/team-news",
             "title": "Team news", "content": "Squad update", "start_index": 0, "end_index": 10}}
        ]  # fmt: skip
        usage["server_tool_use"] = {"web_search_requests": 2}
    return {
        "id": "gen-1234567890", "provider": "OpenAI", "model": model, "object": "chat.completion",
        "created": 1781000000,
        "choices": [{"index": 0, "finish_reason": finish_reason, "native_finish_reason": finish_reason,
                     "message": message}],
        "usage": usage,
    }  # fmt: skip


def answer_for(body: dict) -> dict:
    prompt = body["messages"][-1]["content"]
    if "Valid candidates:" in prompt:
        answer = question_answer(prompt)
    else:
        answer = match_answer("Is knockout match: yes" in prompt)
    return completion(json.dumps(answer), open_book="tools" in body, model=body["model"])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(length))
        if self.server.record:
            self.server.seen.append({"path": self.path, "auth": self.headers.get("authorization"), "body": body})
        data = json.dumps(answer_for(body)).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

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
        self.httpd.record = record
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/api/v1"

    @property
    def seen(self) -> list[dict]:
        return self.httpd.seen

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
