"""A reference agent for Prematch's endpoint protocol (docs/enter-your-agent.md), standard library only.

It answers every task from a baseline: a match from fixed base rates of international football
(home 0.45, draw 0.26, away 0.29; at a neutral venue the two sides are not told apart by the task,
so the host's side is the listed home side), a tournament question with probabilities that fall
with each candidate's place in the list. It reads the task's ``answer_schema`` only to know the
question's kind. Replace :func:`answer_match` and :func:`answer_question` with your own agent.

    python examples/agent/agent.py --port 8765
    python -m collector endpoint-check http://127.0.0.1:8765/

``--token-env NAME``: refuse (HTTP 401) a request whose bearer token is not ``$NAME``.
``--broken``: answer with one protocol problem per kind of task (for endpoint-check's own test).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NAME, VERSION = "prematch-reference-agent", "1.0.0"
PROTOCOL_VERSION = "1.0"
BASE_RATES = (0.45, 0.26, 0.29)  # home, draw, away: 90 minutes
MAX_REQUEST_BYTES = 8 * 1024 * 1024


def answer_match(task: dict) -> dict:
    """The match answer (the task's answer_schema): base rates; a knockout's draw split for advancing."""
    home, draw, away = BASE_RATES
    knockout = bool(task["match"]["knockout"])
    advances = (home + draw / 2, away + draw / 2) if knockout else (None, None)
    return {
        "home_win_90_prob": home, "draw_90_prob": draw, "away_win_90_prob": away,
        "expected_home_goals_90": 1.4, "expected_away_goals_90": 1.1,
        "most_likely_score_90": {"home": 1, "away": 1 if not knockout else 0},
        "home_win_full_prob": advances[0] if knockout else home, "draw_full_prob": 0.0 if knockout else draw,
        "away_win_full_prob": advances[1] if knockout else away,
        "most_likely_score_full": {"home": 1, "away": 0 if knockout else 1},
        "home_advances_prob": advances[0], "away_advances_prob": advances[1],
        "confidence": 0.3, "reason": "base rates of international football (reference agent)",
    }  # fmt: skip


def answer_question(task: dict) -> dict:
    """A tournament question: weights falling with the candidate's place, summing to k (each at most 1)."""
    question = task["question"]
    names = [c["name"] for c in question["candidates"]]
    n, k = len(names), question["k"]
    linear = [(n - i) for i in range(n)]
    scale = k / sum(linear)
    weights = [w * scale for w in linear] if max(linear) * scale <= 1 else [k / n] * n
    choices = [{"team": name, "probability": w, "rank": i + 1, "is_final_pick": i < k}
               for i, (name, w) in enumerate(zip(names, weights))]
    answer = {"question_id": question["id"], "prediction_type": question["prediction_type"], "stage": "",
              "choices": choices, "confidence": 0.2, "reasoning_summary": "listed order (reference agent)"}
    if question["prediction_type"] == "single_choice":
        answer["final_pick"] = names[0]
    else:
        answer["k"], answer["final_picks"] = k, names[:k]
    return answer


def answer(task: dict) -> dict:
    """The protocol's answer envelope around the forecast."""
    forecast = answer_match(task) if task["target_kind"] == "match" else answer_question(task)
    return {"protocol_version": PROTOCOL_VERSION, "agent": {"name": NAME, "version": VERSION}, "cost_usd": 0.0,
            "answer": forecast}


def broken(task: dict) -> bytes:
    """One protocol problem per kind of task: what endpoint-check must name."""
    good = answer(task)
    if task["role"] == "repair":
        return json.dumps({"protocol_version": PROTOCOL_VERSION, "answer": good["answer"]}).encode()  # no agent
    if task["target_kind"] == "question":
        return b"I think the favourite wins."  # not JSON
    if task["access"] == "evidence_package":
        return json.dumps({**good, "protocol_version": "2.0"}).encode()  # another major version
    if task["match"]["knockout"]:
        good["answer"].pop("home_advances_prob")  # a knockout without advancement probabilities
        return json.dumps(good).encode()
    if task["strategy"] == "direct_score":
        time.sleep(float(os.environ.get("AGENT_BROKEN_DELAY_S", "3")))  # later than the checker waits
    good["answer"]["draw_90_prob"] = 0.5  # the 90-minute probabilities sum to 1.24
    return json.dumps(good).encode()


class Handler(BaseHTTPRequestHandler):
    token: str | None = None
    faulty = False

    def do_POST(self) -> None:
        if self.token is not None and self.headers.get("Authorization") != f"Bearer {self.token}":
            return self._send(401, b'{"error": "bad token"}')
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            return self._send(413, b'{"error": "too large"}')
        try:
            task = json.loads(self.rfile.read(length))
        except ValueError:
            return self._send(400, b'{"error": "not JSON"}')
        body = broken(task) if self.faulty else json.dumps(answer(task)).encode()
        self._send(200, body)

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:
        sys.stderr.write(f"agent: {self.command} {self.path} {args[1] if len(args) > 1 else ''}\n")


def serve(host: str, port: int, token: str | None = None, faulty: bool = False) -> ThreadingHTTPServer:
    """A server bound to (host, port); ``port`` 0 picks a free one (``server.server_address``)."""
    handler = type("AgentHandler", (Handler,), {"token": token, "faulty": faulty})
    return ThreadingHTTPServer((host, port), handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Prematch reference agent (endpoint protocol 1.0)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port to listen on (0: any free port)")
    parser.add_argument("--token-env", default=None, help="environment variable holding the bearer token required")
    parser.add_argument("--broken", action="store_true", help="answer with one protocol problem per kind of task")
    parser.add_argument("--port-file", default=None, help="write the port listened on to this file")
    args = parser.parse_args(argv)
    token = os.environ.get(args.token_env, "") if args.token_env else None
    server = serve(args.host, args.port, token, args.broken)
    if args.port_file:
        with open(args.port_file, "w") as handle:
            handle.write(str(server.server_address[1]))
    print(f"agent listening on http://{args.host}:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
