"""A local HTTP server on 127.0.0.1 that speaks OpenRouter's chat-completions format.

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

``FakeOpenRouter(latency=seconds)`` (or ``server.latency = ...``) holds every chat-completions
answer that long before sending it, as a provider's generation time does (benchmarks: how much
of the collector's own cost a real provider's latency hides).
"""

from __future__ import annotations

import base64
import itertools
import json
import random
import re
import sys
import threading
import time
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


_PRICE = re.compile(r"^Market price: a Yes share costs ([0-9.]+)", re.MULTILINE)


def binary_answer(prompt: str) -> dict:
    """A binary contract: 0.5 without a price; with one, the price + 0.1 (so the two conditions differ)."""
    price = _PRICE.search(prompt)
    p = 0.5 if price is None else round(min(1.0, float(price.group(1)) + 0.1), 4)
    return {"probability": p, "reason": "Market price nudged up." if price else "No price: even."}


def completion(
    content: str, *, open_book: bool = False, finish_reason: str = "stop", model: str = "x/y",
    metadata: bool = False, gen_id: str = "gen-1234567890", search_usage: bool = True,
) -> dict:  # fmt: skip
    """A chat completion in OpenRouter's documented shape (``openrouter_metadata`` when asked for);
    open book reports its searches in ``usage.server_tool_use_details`` (ChatUsage) unless
    ``search_usage`` is False (a completion that reports no server-tool use at all)."""
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
        if search_usage:
            usage["server_tool_use_details"] = {"web_search_requests": 2, "tool_calls_requested": 2,
                                                "tool_calls_executed": 2}
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


TOP_LEVEL = {"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "reasoning", "provider",
             "response_format", "tools", "max_tool_calls"}  # fmt: skip
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
    if "max_tokens" in body and "max_completion_tokens" in body:
        problems.append("one output limit at most: max_completion_tokens (current) or max_tokens (deprecated)")
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


_NEWS = re.compile(r"Search the web for exactly (\d+) sources published before (\S+) ")


def news_answer(prompt: str) -> dict:
    """The evidence gatherer's answer (collector/evidence/news.py): the items asked for, each dated a day
    before the lock the prompt names, with the URLs also cited as ``url_citation`` annotations."""
    found = _NEWS.search(prompt)
    count, lock = int(found.group(1)), found.group(2)
    day = f"{int(lock[8:10]) - 1:02d}" if int(lock[8:10]) > 1 else "01"
    published = f"{lock[:8]}{day}T09:00:00Z"
    return {"items": [{"url": f"https://news.example.org/{i}", "title": f"Team news {i}", "publisher": "Example News",
                       "published_at": published, "summary": f"Squad update number {i}."} for i in range(count)]}


_SQUAD_LINE = re.compile(r"^.+ \((home|away)\): (.+)$", re.MULTILINE)
_SQUAD_PLAYER = re.compile(r"(.+?) \((GK|DF|MF|FW|\?)\)")


def fine_grained_answer(prompt: str, broken: bool = False) -> dict:
    """A fine-grained answer (``fine_grained`` strategy) picking 4-3-3 elevens from the prompt's squads;
    ``broken``: the home eleven has 10 players and the declared result disagrees (for repairs)."""
    squads = {side: _SQUAD_PLAYER.findall(players) for side, players in _SQUAD_LINE.findall(prompt)}
    fg: dict = {"result": "draw" if broken else "home"}
    for side in ("home", "away"):
        players = [(n.strip(", "), p) for n, p in squads[side]]
        need = {"GK": 1, "DF": 4, "MF": 3, "FW": 3}
        eleven = []
        for pos, k in need.items():
            eleven += [{"name": n, "position": pos} for n, p in players if p == pos][:k]
        fg[f"{side}_lineup"] = {"formation": "4-3-3", "starting": eleven[:10] if broken and side == "home" else eleven}
    home_fw = [p["name"] for p in fg["home_lineup"]["starting"] if p["position"] == "FW"]
    fg.update({
        "scorers": [{"side": "home", "player": home_fw[0], "probability": 0.35}],
        "assisters": [{"side": "home", "player": home_fw[1], "probability": 0.2}],
        "player_of_the_match": [{"side": "home", "player": home_fw[0], "probability": 0.15}],
        "goals": [{"side": "home", "player": home_fw[0], "minute": 30}], "cards": [], "substitutions": [],
        "penalties": [], "own_goals": [],
        "statistics": {k: {"home": h, "away": a} for k, (h, a) in {
            "possession": (55, 45), "shots": (13, 9), "shots_on_target": (5, 3), "corners": (6, 4), "fouls": (11, 12),
            "offsides": (2, 2), "yellow_cards": (2, 2), "red_cards": (0, 0), "xg": (1.5, 0.9)}.items()},
    })
    return {**match_answer("Is knockout match: yes" in prompt), "fine_grained": fg}


_GROUP_LINE = re.compile(r"^- group (\S+): (\S+) \(.+?\) v (\S+) \(.+\)$", re.MULTILINE)
_KNOCKOUT_LINE = re.compile(r"^- match (\d+) \([^)]+\): (.+)$", re.MULTILINE)
_FIXED = re.compile(r"^(\S+) \(.+?\) v (\S+) \(.+\)$")
_RULES = re.compile(r"^([WL]\d+) v ([WL]\d+)$")
REPAIR_MARK = "Your previous response could not be validated."


def tournament_answer(prompt: str, wrong_pairing: bool = False) -> dict | None:
    """Full-tournament answers: every listed group match won 1-0 by the home side; every knockout
    match too, later rounds filled from these answers' own winners (W) and losers (L).
    ``wrong_pairing``: the first knockout match gets the second match's home team as its away side."""
    if "Group matches to forecast:" in prompt:
        return {"group_matches": [{"group": g, "home": h, "away": a, "home_win": 0.5, "draw": 0.3, "away_win": 0.2,
                                   "score": {"home": 1, "away": 0}} for g, h, a in _GROUP_LINE.findall(prompt)],
                "reason": "Favourites at home."}
    if "Knockout matches:" not in prompt:
        return None
    decided: dict[int, tuple[str, str]] = {}
    matches = []
    for number, rest in _KNOCKOUT_LINE.findall(prompt):
        fixed, rules = _FIXED.match(rest), _RULES.match(rest)
        if fixed:
            home, away = fixed.groups()
        else:
            (hr, ar) = rules.groups()
            home, away = (decided[int(r[1:])][0 if r[0] == "W" else 1] for r in (hr, ar))
        decided[int(number)] = (home, away)
        matches.append({"match_number": int(number), "home": home, "away": away, "score": {"home": 1, "away": 0},
                        "advances": home, "advance_probability": 0.6})
    if wrong_pairing and len(matches) > 1:
        matches[0]["away"] = matches[1]["home"]
    return {"knockout_matches": matches, "reason": "Home sides through."}


def answer_for(body: dict, metadata: bool = False, gen_id: str = "gen-1234567890", fine_first_bad: bool = False,
               wrong_pairing: bool = False, search_usage: bool = True) -> dict:
    prompt = body["messages"][-1]["content"]
    if _NEWS.search(prompt):
        return completion(json.dumps(news_answer(prompt)), open_book="tools" in body, model=body["model"],
                          metadata=metadata, gen_id=gen_id)
    tournament = tournament_answer(prompt, wrong_pairing and REPAIR_MARK not in prompt)
    if "Binary contract:" in prompt:
        answer = binary_answer(prompt)
    elif tournament is not None:
        answer = tournament
    elif "Valid candidates:" in prompt:
        answer = question_answer(prompt)
    elif "Prompt strategy: FINE_GRAINED" in prompt or "Failed constraints:" in prompt:
        answer = fine_grained_answer(prompt, broken=fine_first_bad and "Failed constraints:" not in prompt)
    else:
        answer = match_answer("Is knockout match: yes" in prompt)
    return completion(json.dumps(answer), open_book="tools" in body, model=body["model"], metadata=metadata,
                      gen_id=gen_id, search_usage=search_usage)  # fmt: skip


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


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle's algorithm on, the body waited for the
    # client's delayed ACK of the headers (~40 ms a response), so every client, bare httpx
    # included, was measured against a TCP stall rather than against its own cost (issue 21).
    disable_nagle_algorithm = True

    def _send(self, status: int, payload: dict | bytes, headers: dict[str, str] | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (a hang): nothing to answer
            pass

    def _metadata(self) -> bool:
        names = ("x-openrouter-metadata", "x-openrouter-experimental-metadata")
        return any((self.headers.get(n) or "").lower() == "enabled" for n in names)

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(length))
        auth = self.headers.get("authorization") or ""
        with self.server.count_lock:
            self.server.count += 1
            count = self.server.count
        if self.server.latency:
            time.sleep(self.server.latency)  # the provider's generation time (each request in its own thread)
        if self.server.record:
            self.server.seen.append({"path": self.path, "auth": auth, "body": body,
                                     "metadata_header": self._metadata()})  # fmt: skip
        if self.server.mode:  # hostile answers (see hostile())
            status, data, wait, headers = hostile(self.server.mode, body, auth.removeprefix("Bearer "), count)
            if wait:
                time.sleep(wait)
            self._send(status, data, headers)
            return
        problems = body_problems(body)
        if problems:
            self._send(400, {"error": {"code": 400, "message": "; ".join(problems)}})
            return
        gen_id = f"gen-{next(_IDS)}-fake"
        self.server.generations[gen_id] = body
        self._send(200, answer_for(body, self._metadata(), gen_id, getattr(self.server, "fine_first_bad", False),
                                   self.server.wrong_pairing, self.server.search_usage))

    def do_GET(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        if self.server.record:
            self.server.gets.append({"path": self.path, "auth": self.headers.get("authorization")})
        if url.path.endswith("/models"):
            status, body = self.server.models if self.server.models is not None else (200, models_list())
            self._send(status, body)
            return
        gen_id = (parse_qs(url.query).get("id") or [""])[0]
        if not url.path.endswith("/generation") or gen_id not in self.server.generations:
            self._send(404, {"error": {"code": 404, "message": f"Generation {gen_id} not found"}})
            return
        stats = recorded("generation.json")
        body = self.server.generations[gen_id]
        cost = completion("{}")["usage"]["cost"]  # the stats bill what the completion reported
        results = self.server.search_results if self.server.search_results is not None else 6
        stats["data"].update(id=gen_id, model=body["model"], num_search_results=results if "tools" in body else 0,
                             provider_name="OpenAI",  # the provider its completions' openrouter_metadata selects
                             total_cost=cost, usage=cost,
                             web_search_engine="exa" if "tools" in body else None)  # fmt: skip
        self._send(200, stats)

    def log_message(self, *args) -> None:
        pass


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # a burst of concurrent connections must not be refused
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], OSError):  # a client that gave up or was killed: nothing to report
            super().handle_error(request, client_address)


class FakeOpenRouter:
    """``with FakeOpenRouter() as server: server.base_url ...``"""

    def __init__(self, record: bool = True, mode: str = "", latency: float = 0.0):
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.seen = []
        self.httpd.generations = {}
        self.httpd.gets = []
        self.httpd.record = record
        self.httpd.mode = mode
        self.httpd.fine_first_bad = False  # True: a fine-grained answer is broken until a repair prompt asks
        self.httpd.wrong_pairing = False  # full-tournament knockout answers with one wrong pairing (not repairs)
        self.httpd.latency = latency  # seconds each chat-completions answer is held (0: at once)
        self.httpd.models = None  # (status, body) the models API answers instead of models_list()
        self.httpd.search_usage = True  # False: open-book completions report no server-tool use (usage)
        self.httpd.search_results = None  # num_search_results of an open-book call's generation stats (None: 6)
        self.httpd.count = 0
        self.httpd.count_lock = threading.Lock()
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/api/v1"

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
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


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
