"""A local HTTP server on 127.0.0.1 that speaks OpenRouter's chat-completions format (the demo's
server, :mod:`collector.forecasters.llm.demo_server`, with fixed answers from :mod:`collector.forecasters.llm.demo_answers`).

It answers each prompt with a valid forecast in the documented response shape (``id``,
``model``, ``provider``, ``choices[0].message`` with ``annotations``, ``finish_reason``,
``usage`` with ``cost``, token details and ``server_tool_use_details``). Match prompts get a match
answer (with advancement probabilities for knockouts); question prompts get probabilities
over the candidates listed in the prompt. Every request body and Authorization header is
kept in ``server.seen`` for assertions. Fine-grained prompts (``fine_grained`` strategy) get a
fine-grained answer built from the prompt's squads; with ``server.httpd.fine_first_bad`` the
first answer breaks two constraints and the repair prompt gets a valid one. Full-tournament
prompts (``llm/full_tournament.py``) get group and knockout answers (``tournament_answer``;
``server.wrong_pairing = True``: one wrong knockout pairing, repairs answered right).

Hostile modes (``FakeOpenRouter(mode=...)``, or ``server.mode = ...`` while it runs) answer as
a provider an attacker controls or an unlucky day would: ``leak`` echoes the caller's key (from
its ``Authorization`` header) in every field a completion can carry, ``leak:<encoding>`` in
one of :data:`ALL_LEAKS` (see :func:`encoded_key`; ``split`` over ``id`` and ``model``,
``header`` as ``X-Generation-Id``), ``leak:all`` in each of them in turn; ``status:<code>`` answers every call with that HTTP error in
OpenRouter's error shape (``status:403`` as a moderation block); ``error200`` an error inside
an HTTP 200; ``hang`` never answers in time; ``malformed`` a body that is not JSON;
``oversized:<bytes>`` a valid answer whose rationale is that long; ``wrong_model`` names
another model than the one asked for; ``control`` puts NUL, ESC, BEL and bidi overrides in
the rationale; ``chaos:<seed>`` a random mix of all of them and valid answers.

``GET /generation?id=`` answers a generation it made with the recorded stats (``server.httpd.search_results``:
an open-book call's ``num_search_results``; ``server.httpd.stats_not_ready = N``: 404 for each generation's
first N asks, as the endpoint answers for a few seconds after a call).

``FakeOpenRouter(latency=seconds)`` (or ``server.latency = ...``) holds every chat-completions
answer that long before sending it, as a provider's generation time does (benchmarks: how much
of the collector's own cost a real provider's latency hides).
"""

from __future__ import annotations

import base64
import itertools
import json
import random
import sys
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from collector.forecasters.llm.demo_answers import (  # noqa: F401 - re-exported: the tests import the answers from here
    REPAIR_MARK,
    answer_for,
    binary_answer,
    body_problems,
    completion,
    fine_grained_answer,
    match_answer,
    news_answer,
    question_answer,
    tournament_answer,
)
from collector.forecasters.llm.demo_server import Handler, LocalOpenRouter

RECORDED = Path(__file__).parent / "recorded" / "openrouter"
_IDS = itertools.count(1)

def recorded(name: str) -> dict:
    data = json.loads((RECORDED / name).read_text())
    data.pop("_source", None)
    return data


ALL_PARAMETERS = ["include_reasoning", "max_completion_tokens", "max_tokens", "reasoning", "response_format", "seed",
                  "structured_outputs", "temperature", "tool_choice", "tools"]  # fmt: skip
# The model ids the tests and benchmarks configure (id -> canonical slug), listed beside the recorded roster.
TEST_MODELS = {"test/model": "test/model@1", "a/m": "a/m-1", **{f"bench/m{i}": f"bench/m{i}@1" for i in range(64)}}


def model_entry(model_id: str, slug: str, parameters: list[str] | None = None, expires: str | None = None) -> dict:
    """One ``GET /api/v1/models`` entry in the recorded (documented) shape, for a test model."""
    entry = json.loads(json.dumps(recorded("models.json")["data"][0]))  # the documented shape of an entry
    entry.update(id=model_id, canonical_slug=slug, name=model_id, expiration_date=expires,
                 supported_parameters=list(ALL_PARAMETERS if parameters is None else parameters))
    return entry


def models_list() -> dict:
    """The models API's answer: the recorded roster and every test model."""
    data = recorded("models.json")
    data["data"] += [model_entry(m, slug) for m, slug in TEST_MODELS.items()]
    return data


LEAK_ENCODINGS = ("plain", "json", "url", "base64", "base64_offset")
# issue 53's second round: the forms a normalising search must find, and one that breaks JSON text
HIDDEN_ENCODINGS = ("base64_lines", "base64_utf16", "entities", "hex", "upper", "zero_width", "space", "reversed",
                    "fullwidth", "percent2", "escaped_backslash")  # fmt: skip
_SLOT = "@@KEY@@"


def _wrapped(text: str, width: int = 8) -> str:
    return "\\n".join(text[i : i + width] for i in range(0, len(text), width))  # JSON's escaped newline


def encoded_key(key: str, encoding: str) -> str:
    """``key`` as it may come back in a body, written into JSON text (so JSON escapes are escapes):
    :data:`LEAK_ENCODINGS` (plain, JSON \\u-escaped, %-encoded, base64 of ``Bearer key``) and
    :data:`HIDDEN_ENCODINGS` (base64 wrapped in lines, base64 of UTF-16LE, HTML numeric entities,
    hex, upper case, zero-width characters between letters, a space inserted, reversed,
    full-width, percent-encoding applied twice, and ``\\\\u0073...``: an escaped backslash
    before a \\u escape, which cutting JSON text turns into an invalid escape)."""
    forms = {
        "json": lambda: "".join(f"\\u{ord(c):04x}" for c in key),
        "url": lambda: "".join(f"%{ord(c):02X}" for c in key),
        "base64": lambda: base64.b64encode(f"Bearer {key}".encode()).decode(),
        "base64_offset": lambda: base64.urlsafe_b64encode(f"x:{key}".encode()).decode(),
        "base64_lines": lambda: _wrapped(base64.b64encode(f"Bearer {key}".encode()).decode()),
        "base64_utf16": lambda: base64.b64encode(key.encode("utf-16-le")).decode(),
        "entities": lambda: "".join(f"&#{ord(c)};" for c in key),
        "hex": lambda: key.encode().hex(),
        "upper": lambda: key.upper(),
        "zero_width": lambda: "\u200b".join(key),
        "space": lambda: f"{key[: len(key) // 2]} {key[len(key) // 2 :]}",
        "reversed": lambda: key[::-1],
        "fullwidth": lambda: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in key),
        "percent2": lambda: "".join(f"%25{ord(c):02X}" for c in key),
        "escaped_backslash": lambda: "\\\\u0073" + key[1:] if key.startswith("s") else "\\\\" + key,
    }
    return forms[encoding]() if encoding in forms else key


def leaking_answer(body: dict, key: str, encoding: str = "plain") -> str:
    """A valid answer (as JSON text) whose every field the client parses carries ``key`` in ``encoding``.

    The fields: ``id``, ``model``, the served provider (``openrouter_metadata``'s selected
    endpoint, and an undocumented top-level ``provider``), the content's rationale, a
    ``url_citation``'s url, title and content, a tool call's id and arguments, and ``search_results``.
    """
    answer = json.loads(answer_for(body)["choices"][0]["message"]["content"])
    field = "reason" if "reason" in answer else "reasoning_summary"
    answer[field] = f"{answer[field]} {_SLOT}"
    data = completion(json.dumps(answer), open_book=True, model=body["model"], metadata=True)
    data["id"], data["provider"], data["model"] = f"gen-{_SLOT}", f"Prov {_SLOT}", f"{body['model']}-{_SLOT}"
    data["openrouter_metadata"]["endpoints"]["available"][0]["provider"] = f"Prov {_SLOT}"
    message = data["choices"][0]["message"]
    message["annotations"] = [{"type": "url_citation", "url_citation": {
        "url": f"https://example.org/?k={_SLOT}", "title": f"title {_SLOT}", "content": _SLOT}}]
    message["tool_calls"] = [{"id": f"call-{_SLOT}", "type": "function", "function": {
        "name": "web_search", "arguments": json.dumps({"query": _SLOT, "auth": f"Bearer {_SLOT}"})}}]
    data["search_results"] = [{"url": f"https://example.org/{_SLOT}", "title": _SLOT, "snippet": _SLOT}]
    return json.dumps(data).replace(_SLOT, encoded_key(key, encoding))


def split_answer(body: dict, key: str) -> str:
    """A valid answer whose ``id`` ends with the first half of ``key`` and whose ``model`` (next to it)
    starts with the second: neither field holds the key, the two together do."""
    half = len(key) // 2
    data = answer_for(body, metadata=True)
    data["id"], data["model"] = f"gen-{key[:half]}", f"{key[half:]}/{body['model']}"
    return json.dumps(data)


ALL_LEAKS = (*LEAK_ENCODINGS, *HIDDEN_ENCODINGS, "split", "header")


def leak(encoding: str, body: dict, key: str, count: int) -> tuple[bytes, dict[str, str]]:
    """(body, headers) of one answer leaking ``key`` in ``encoding`` (one of :data:`ALL_LEAKS`; ``all``:
    each call the next of them in turn). ``header``: a body without ``id`` and the key as the
    ``X-Generation-Id`` header (which the client reads when the body has no id)."""
    if encoding == "all":
        encoding = ALL_LEAKS[count % len(ALL_LEAKS)]
    if encoding == "split":
        return split_answer(body, key).encode(), {}
    if encoding == "header":
        data = answer_for(body)
        del data["id"]
        return json.dumps(data).encode(), {"X-Generation-Id": key}
    return leaking_answer(body, key, encoding or "plain").encode(), {}


def error_body(code: int, message: str, **metadata) -> dict:
    return {"error": {"code": code, "message": message, **({"metadata": metadata} if metadata else {})}}


def hostile(mode: str, body: dict, key: str, count: int) -> tuple[int, bytes, float, dict[str, str]]:
    """(status, body bytes, seconds to wait first, extra headers) for one call in ``mode``."""
    if mode.startswith("leak"):
        data, headers = leak(mode.partition(":")[2], body, key, count)
        return 200, data, 0.0, headers
    return (*_hostile(mode, body, count), {})


def _hostile(mode: str, body: dict, count: int) -> tuple[int, bytes, float]:
    name, _, arg = mode.partition(":")
    if name == "chaos":
        rng = random.Random(f"{arg}:{count}")
        name, arg = rng.choices(
            ["ok", "status", "status", "hang", "error200", "malformed", "oversized", "wrong_model", "control"],
            weights=[50, 8, 6, 3, 6, 5, 3, 4, 5])[0], ""
        if name == "status":
            arg = str(rng.choice([429, 500, 502, 503]))
        if name == "oversized":
            arg = "400000"
    if name == "status":
        code = int(arg)
        meta = {"reasons": ["violence"], "flagged_input": "...", "provider_name": "X", "model_slug": body["model"]}
        extra = meta if code == 403 else {}
        return code, json.dumps(error_body(code, f"HTTP {code} from the fake", **extra)).encode(), 0.0
    if name == "hang":
        return 200, json.dumps(answer_for(body)).encode(), 30.0
    if name == "error200":
        data = error_body(502, "Provider returned error", error_type="provider_unavailable",
                          availability={"retryable": True})
        return 200, json.dumps(data).encode(), 0.0
    if name == "malformed":
        return 200, b'{"id": "gen-1", "choices": [{"message": ', 0.0
    data = answer_for(body)
    if name in ("oversized", "control"):
        answer = json.loads(data["choices"][0]["message"]["content"])
        field = "reason" if "reason" in answer else "reasoning_summary"
        answer[field] = "x" * int(arg) if name == "oversized" else "A\x00B\x1b[31mC\x07D\u202eE\u2066F"
        data["choices"][0]["message"]["content"] = json.dumps(answer)
    if name == "wrong_model":
        data["model"] = "other/cheaper-model"
    return 200, json.dumps(data).encode(), 0.0


class _Handler(Handler):
    def do_POST(self) -> None:  # noqa: N802
        body = self.read_body()
        auth = self.headers.get("authorization") or ""
        with self.server.count_lock:
            self.server.count += 1
            count = self.server.count
        if self.server.latency:
            time.sleep(self.server.latency)  # the provider's generation time (each request in its own thread)
        if self.server.record:
            self.server.seen.append({"path": self.path, "auth": auth, "body": body,
                                     "metadata_header": self.metadata_asked()})  # fmt: skip
        if self.server.mode:  # hostile answers (see hostile())
            status, data, wait, headers = hostile(self.server.mode, body, auth.removeprefix("Bearer "), count)
            if wait:
                time.sleep(wait)
            self.send(status, data, headers)
            return
        problems = body_problems(body)
        if problems:
            self.send(400, {"error": {"code": 400, "message": "; ".join(problems)}})
            return
        gen_id = f"gen-{next(_IDS)}-fake"
        self.server.generations[gen_id] = body
        self.send(200, answer_for(body, self.metadata_asked(), gen_id, self.server.fine_first_bad,
                                  self.server.wrong_pairing, self.server.search_usage))

    def do_GET(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        if self.server.record:
            self.server.gets.append({"path": self.path, "auth": self.headers.get("authorization")})
        if url.path.endswith("/models"):
            status, body = self.server.models if self.server.models is not None else (200, models_list())
            self.send(status, body)
            return
        gen_id = (parse_qs(url.query).get("id") or [""])[0]
        with self.server.count_lock:
            asked = self.server.stats_asked[gen_id] = self.server.stats_asked.get(gen_id, 0) + 1
        ready = asked > self.server.stats_not_ready
        if not url.path.endswith("/generation") or gen_id not in self.server.generations or not ready:
            self.send(404, {"error": {"code": 404, "message": f"Generation {gen_id} not found"}})
            return
        stats = recorded("generation.json")
        body = self.server.generations[gen_id]
        cost = completion("{}")["usage"]["cost"]  # the stats bill what the completion reported
        results = self.server.search_results if self.server.search_results is not None else 6
        stats["data"].update(id=gen_id, model=body["model"], num_search_results=results if "tools" in body else 0,
                             provider_name="OpenAI",  # the provider its completions' openrouter_metadata selects
                             total_cost=cost, usage=cost,
                             web_search_engine="exa" if "tools" in body else None)  # fmt: skip
        self.send(200, stats)


class FakeOpenRouter(LocalOpenRouter):
    """``with FakeOpenRouter() as server: server.base_url ...``"""

    def __init__(self, record: bool = True, mode: str = "", latency: float = 0.0):
        super().__init__(None, _Handler)
        self.httpd.seen = []
        self.httpd.gets = []
        self.httpd.record = record
        self.httpd.mode = mode
        self.httpd.fine_first_bad = False  # True: a fine-grained answer is broken until a repair prompt asks
        self.httpd.wrong_pairing = False  # full-tournament knockout answers with one wrong pairing (not repairs)
        self.httpd.latency = latency  # seconds each chat-completions answer is held (0: at once)
        self.httpd.models = None  # (status, body) the models API answers instead of models_list()
        self.httpd.search_usage = True  # False: open-book completions report no server-tool use (usage)
        self.httpd.search_results = None  # num_search_results of an open-book call's generation stats (None: 6)
        self.httpd.stats_not_ready = 0  # the first N asks of each generation's stats answer 404 (not queryable yet)
        self.httpd.stats_asked = {}  # generation id -> how many times its stats were asked
        self.httpd.count = 0
        self.httpd.count_lock = threading.Lock()

    @property
    def mode(self) -> str:
        return self.httpd.mode

    @mode.setter
    def mode(self, value: str) -> None:
        self.httpd.mode = value

    @property
    def seen(self) -> list[dict]:
        """Every chat-completions request (path, Authorization header, body, metadata opt-in)."""
        return self.httpd.seen

    @property
    def gets(self) -> list[dict]:
        """Every GET (generation stats, models)."""
        return self.httpd.gets

    def __enter__(self) -> FakeOpenRouter:
        return super().__enter__()


def main(argv: list[str] | None = None) -> None:
    """A standalone server for benchmarks: prints its base URL, serves until its standard input closes."""
    import argparse

    parser = argparse.ArgumentParser(description="A local OpenRouter-format server on 127.0.0.1 (for benchmarks).")
    parser.add_argument("mode", nargs="?", default="", help="a hostile mode (see the module docstring); none: valid answers")
    parser.add_argument("--latency-ms", type=float, default=0.0,
                        help="milliseconds each chat-completions answer is held before it is sent (default 0)")
    args = parser.parse_args(argv)
    if args.latency_ms < 0:
        parser.error(f"--latency-ms must be 0 or more, not {args.latency_ms:g}")
    with FakeOpenRouter(record=False, mode=args.mode, latency=args.latency_ms / 1000) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
