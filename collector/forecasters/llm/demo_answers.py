"""Answers in OpenRouter's chat-completions format to each prompt the collector sends.

Shared by the demo's LLM server (:mod:`collector.forecasters.llm.demo_server`) and the tests' local OpenRouter
server (``tests/fake_openrouter.py``): each prompt kind (match, question, binary contract, news
gathering, fine-grained, full tournament) is recognised by the lines its template writes and
answered with a valid answer in the documented response shape (``id``, ``model``, ``choices[0]
.message`` with ``annotations``, ``finish_reason``, ``usage`` with ``cost``, token details and
``server_tool_use_details``). :func:`answer_for` takes the match answer as a function, so the
demo can put its recipe (:mod:`collector.forecasters.demo_recipe`) there while the tests keep fixed numbers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta

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


Strength = Callable[[str], float]  # a team (id or name) -> its strength in (0, 1) (the demo's recipe)


def question_answer(prompt: str, strength: Strength | None = None) -> dict:
    """Probabilities over the prompt's candidates summing to the number of picks: even, or (``strength``)
    in proportion to strength to the fourth power, none above 1; ranked by probability."""
    names = [line[2:].strip() for line in _CANDIDATES.search(prompt).group(1).splitlines() if line.strip()]
    k_match = _K.search(prompt)
    k = int(k_match.group(1)) if k_match else 1
    share = [k / len(names)] * len(names) if strength is None else _shares([strength(n) ** 4 for n in names], k)
    ranked = sorted(zip(names, share), key=lambda pair: -pair[1]) if strength is not None else list(zip(names, share))
    body = {"choices": [{"team": n, "probability": p, "rank": i + 1, "is_final_pick": i < k}
                        for i, (n, p) in enumerate(ranked)],
            "confidence": 0.3, "reasoning_summary": "Even spread." if strength is None else "Stronger sides first."}
    picks = [n for n, _ in ranked[:k]]
    if k == 1:
        body["final_pick"] = picks[0]
    else:
        body["final_picks"] = picks
    return body


def _shares(weights: list[float], k: int) -> list[float]:
    """Shares of ``k`` in proportion to ``weights``, none above 1 (a capped share's excess goes to the rest)."""
    capped: set[int] = set()
    while True:
        free = [i for i in range(len(weights)) if i not in capped]
        scale = (k - len(capped)) / sum(weights[i] for i in free)
        over = {i for i in free if weights[i] * scale > 1}
        if not over:
            return [1.0 if i in capped else weights[i] * scale for i in range(len(weights))]
        capped |= over


_PRICE = re.compile(r"^Market price: a Yes share costs ([0-9.]+)", re.MULTILINE)


def binary_answer(prompt: str) -> dict:
    """A binary contract: 0.5 without a price; with one, the price + 0.1 (so the two conditions differ)."""
    price = _PRICE.search(prompt)
    p = 0.5 if price is None else round(min(1.0, float(price.group(1)) + 0.1), 4)
    return {"probability": p, "reason": "Market price nudged up." if price else "No price: even."}


def completion(
    content: str, *, open_book: bool = False, finish_reason: str = "stop", model: str = "x/y",
    metadata: bool = False, gen_id: str = "gen-1234567890", search_usage: bool = True,
    citations: list[dict] | None = None, cost: float | None = None, provider: str = "OpenAI",
) -> dict:  # fmt: skip
    """A chat completion in OpenRouter's documented shape (``openrouter_metadata`` when asked for);
    open book reports its searches in ``usage.server_tool_use_details`` (ChatUsage) unless
    ``search_usage`` is False (a completion that reports no server-tool use at all). ``citations``
    (url, title, content) replace the example citation; ``cost`` the example cost in USD."""
    message: dict = {"role": "assistant", "content": content}
    usage: dict = {
        "prompt_tokens": 812, "completion_tokens": 164, "total_tokens": 976,
        "completion_tokens_details": {"reasoning_tokens": 40},
        "prompt_tokens_details": {"cached_tokens": 128},
        "cost": 0.00123 if cost is None else cost,
        "cost_details": {"upstream_inference_cost": 0.00111 if cost is None else round(0.9 * cost, 6)},
    }  # fmt: skip
    if open_book:
        cited = citations or [{"url": "https://example.org/team-news", "title": "Team news", "content": "Squad update"}]
        message["annotations"] = [{"type": "url_citation", "url_citation": {**c, "start_index": 0, "end_index": 10}}
                                  for c in cited]
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
            "attempt": 1, "endpoints": {"available": [{"model": model, "provider": provider, "selected": True}],
                                        "total": 1},
            "is_byok": False, "region": "iad", "requested": model, "strategy": "direct",
            "summary": f"available=1, selected={provider}",
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
    count, lock = int(found.group(1)), datetime.fromisoformat(found.group(2).replace("Z", "+00:00"))
    published = (lock - timedelta(days=1)).replace(hour=9, minute=0, second=0, microsecond=0)
    published = published.strftime("%Y-%m-%dT%H:%M:%SZ")  # the day before the lock's day: always before it
    return {"items": [{"url": f"https://news.example.org/{i}", "title": f"Team news {i}", "publisher": "Example News",
                       "published_at": published, "summary": f"Squad update number {i}."} for i in range(count)]}


_SQUAD_LINE = re.compile(r"^.+ \((home|away)\): (.+)$", re.MULTILINE)
_SQUAD_PLAYER = re.compile(r"(.+?) \((GK|DF|MF|FW|\?)\)")


def fine_grained_answer(prompt: str, broken: bool = False, base: dict | None = None) -> dict:
    """A fine-grained answer (``fine_grained`` strategy) picking 4-3-3 elevens from the prompt's squads,
    around ``base`` (a match answer; default the fixed one): its result and goals follow the base's
    largest 90-minute probability and most likely score. ``broken``: the home eleven has 10 players
    and the declared result disagrees (for repairs)."""
    base = base or match_answer("Is knockout match: yes" in prompt)
    squads = {side: _SQUAD_PLAYER.findall(players) for side, players in _SQUAD_LINE.findall(prompt)}
    probs = {"home": base["home_win_90_prob"], "draw": base["draw_90_prob"], "away": base["away_win_90_prob"]}
    result = max(probs, key=probs.get)
    fg: dict = {"result": ("draw" if result != "draw" else "home") if broken else result}
    forwards = {}
    for side in ("home", "away"):
        players = [(n.strip(", "), p) for n, p in squads[side]]
        need = {"GK": 1, "DF": 4, "MF": 3, "FW": 3}
        eleven = []
        for pos, k in need.items():
            eleven += [{"name": n, "position": pos} for n, p in players if p == pos][:k]
        fg[f"{side}_lineup"] = {"formation": "4-3-3", "starting": eleven[:10] if broken and side == "home" else eleven}
        forwards[side] = [p["name"] for p in fg[f"{side}_lineup"]["starting"] if p["position"] == "FW"]
    lead = "away" if result == "away" else "home"
    score = base["most_likely_score_90"]
    goals = [{"side": side, "player": forwards[side][i % len(forwards[side])], "minute": 20 + 25 * i + (side == "away")}
             for side in ("home", "away") for i in range(score[side])]
    fg.update({
        "scorers": [{"side": lead, "player": forwards[lead][0], "probability": 0.35}],
        "assisters": [{"side": lead, "player": forwards[lead][1], "probability": 0.2}],
        "player_of_the_match": [{"side": lead, "player": forwards[lead][0], "probability": 0.15}],
        "goals": sorted(goals, key=lambda g: g["minute"]), "cards": [], "substitutions": [],
        "penalties": [], "own_goals": [],
        "statistics": {k: {"home": h, "away": a} for k, (h, a) in {
            "possession": (55, 45), "shots": (13, 9), "shots_on_target": (5, 3), "corners": (6, 4), "fouls": (11, 12),
            "offsides": (2, 2), "yellow_cards": (2, 2), "red_cards": (0, 0), "xg": (1.5, 0.9)}.items()},
    })
    return {**base, "fine_grained": fg}


_GROUP_LINE = re.compile(r"^- group (\S+): (\S+) \(.+?\) v (\S+) \(.+\)$", re.MULTILINE)
_KNOCKOUT_LINE = re.compile(r"^- match (\d+) \([^)]+\): (.+)$", re.MULTILINE)
_FIXED = re.compile(r"^(\S+) \(.+?\) v (\S+) \(.+\)$")
_RULES = re.compile(r"^([WL]\d+) v ([WL]\d+)$")
REPAIR_MARK = "Your previous response could not be validated."


def tournament_answer(prompt: str, wrong_pairing: bool = False, strength: Strength | None = None) -> dict | None:
    """Full-tournament answers: every listed group match and knockout match won 1-0 by the home side,
    or (``strength``) by the stronger side, later rounds filled from these answers' own winners (W) and
    losers (L). ``wrong_pairing``: the first knockout match gets the second match's home team as its away side."""
    def home_share(home: str, away: str) -> float:
        return 0.6 if strength is None else strength(home) / (strength(home) + strength(away))

    if "Group matches to forecast:" in prompt:
        rows = []
        for g, h, a in _GROUP_LINE.findall(prompt):
            home_win = 0.5 if strength is None else round(0.75 * home_share(h, a), 4)
            away_win = 0.2 if strength is None else round(0.75 - home_win, 4)
            rows.append({"group": g, "home": h, "away": a, "home_win": home_win, "draw": round(1 - home_win - away_win, 4),
                         "away_win": away_win,
                         "score": {"home": 1, "away": 0} if home_win >= away_win else {"home": 0, "away": 1}})
        return {"group_matches": rows, "reason": "Favourites at home." if strength is None else "Stronger sides win."}
    if "Knockout matches:" not in prompt:
        return None
    decided: dict[int, tuple[str, str]] = {}  # match number -> (winner, loser)
    matches = []
    for number, rest in _KNOCKOUT_LINE.findall(prompt):
        fixed, rules = _FIXED.match(rest), _RULES.match(rest)
        if fixed:
            home, away = fixed.groups()
        else:
            (hr, ar) = rules.groups()
            home, away = (decided[int(r[1:])][0 if r[0] == "W" else 1] for r in (hr, ar))
        share = home_share(home, away)
        winner, loser = (home, away) if share >= 0.5 else (away, home)
        decided[int(number)] = (winner, loser)
        matches.append({"match_number": int(number), "home": home, "away": away,
                        "score": {"home": 1, "away": 0} if winner == home else {"home": 0, "away": 1},
                        "advances": winner, "advance_probability": round(max(share, 1 - share), 4)})
    if wrong_pairing and len(matches) > 1:
        matches[0]["away"] = matches[1]["home"]
    return {"knockout_matches": matches, "reason": "Home sides through." if strength is None else "Stronger sides through."}


MatchAnswer = Callable[[dict], dict]  # the request body -> the match answer (the demo's recipe)


def fixed_match(body: dict) -> dict:
    """The fixed match answer (home 0.5, draw 0.3, away 0.2) the tests assert."""
    return match_answer("Is knockout match: yes" in body["messages"][-1]["content"])


def answer_for(body: dict, metadata: bool = False, gen_id: str = "gen-1234567890", fine_first_bad: bool = False,
               wrong_pairing: bool = False, search_usage: bool = True, match: MatchAnswer = fixed_match,
               citations: list[dict] | None = None, cost: float | None = None, provider: str = "OpenAI",
               strength: Strength | None = None) -> dict:
    """The completion answering ``body``'s prompt (its kind recognised by its template's lines)."""
    prompt = body["messages"][-1]["content"]
    shape = {"open_book": "tools" in body, "model": body["model"], "metadata": metadata, "gen_id": gen_id,
             "citations": citations, "cost": cost, "provider": provider}
    if _NEWS.search(prompt):
        return completion(json.dumps(news_answer(prompt)), **shape)
    tournament = tournament_answer(prompt, wrong_pairing and REPAIR_MARK not in prompt, strength)
    if "Binary contract:" in prompt:
        answer = binary_answer(prompt)
    elif tournament is not None:
        answer = tournament
    elif "Valid candidates:" in prompt:
        answer = question_answer(prompt, strength)
    elif "Prompt strategy: FINE_GRAINED" in prompt or "Failed constraints:" in prompt:
        answer = fine_grained_answer(prompt, broken=fine_first_bad and "Failed constraints:" not in prompt,
                                     base=match(body))
    else:
        answer = match(body)
    return completion(json.dumps(answer), search_usage=search_usage, **shape)
