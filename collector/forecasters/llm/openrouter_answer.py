"""What an OpenRouter chat-completions answer holds, read defensively (a provider payload is untrusted).

An error reported inside an HTTP 200 body (:func:`body_error`), the message text, the usage and
its cost (also of a body otherwise unusable: the money is counted all the same), the router's
metadata (provider, fallbacks) and the tool trace that says whether the call searched. A field of
the wrong shape is dropped, never guessed. The client (:mod:`collector.forecasters.llm.openrouter`)
turns these into the attempt records.
"""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from collector.records import Citation, SearchObserved, ToolTrace, Usage


def body_error(response: httpx.Response) -> str | None:
    """An error OpenRouter reports inside an HTTP 200 body, or None when the body is a completion."""
    try:
        data = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        return "HTTP 200 body is not JSON"
    if not isinstance(data, dict):
        return "HTTP 200 body is not a JSON object"
    if data.get("error"):
        err = data["error"]
        if isinstance(err, dict):
            return f"error inside HTTP 200: code {err.get('code')}: {err.get('message')}"
        return f"error inside HTTP 200: {err}"
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return "HTTP 200 body has no choices"
    first = choices[0]
    if not isinstance(first.get("message"), dict):
        return "HTTP 200 choice has no message object"
    if first.get("error"):
        return f"error inside HTTP 200 choice: {first['error']}"
    if first.get("finish_reason") == "error":
        return "finish_reason 'error' inside HTTP 200"
    return None


def message_content(message: dict) -> str | None:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return content if isinstance(content, str) else None


def _list(value: Any) -> list:
    """``value`` when it is a JSON array, else empty (provider fields of the wrong shape are ignored)."""
    return value if isinstance(value, list) else []


def count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def parse_usage(usage: Any) -> Usage:
    if not isinstance(usage, dict):
        return Usage()
    details = usage.get("completion_tokens_details") or {}
    prompt_details = usage.get("prompt_tokens_details") or {}
    cost_details, server = usage.get("cost_details"), server_tool_use(usage)
    return Usage(
        prompt_tokens=count(usage.get("prompt_tokens")),
        completion_tokens=count(usage.get("completion_tokens")),
        reasoning_tokens=count(details.get("reasoning_tokens")) if isinstance(details, dict) else None,
        cached_tokens=count(prompt_details.get("cached_tokens")) if isinstance(prompt_details, dict) else None,
        cost_usd=_cost(usage.get("cost")),
        upstream_cost_usd=_cost(cost_details.get("upstream_inference_cost")) if isinstance(cost_details, dict) else None,
        web_search_requests=count(server.get("web_search_requests")) if isinstance(server, dict) else None,
    )


def server_tool_use(usage: dict) -> dict | None:
    """The server-tool counts of a completion: ``usage.server_tool_use_details`` (OpenRouter's ChatUsage
    schema), else ``usage.server_tool_use`` (the older shape); None when it reports neither."""
    for key in ("server_tool_use_details", "server_tool_use"):
        if isinstance(usage.get(key), dict):
            return usage[key]
    return None


def _server_source(usage: dict) -> str:
    return "usage.server_tool_use_details" if isinstance(usage.get("server_tool_use_details"), dict) else "usage.server_tool_use"


def _cost(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 and value == value
    return float(value) if ok and value != float("inf") else None


def parse_router_metadata(meta: Any) -> tuple[str | None, int | None]:
    """(served provider, fallback attempts) from ``openrouter_metadata``: the selected endpoint's
    provider, and the router's attempt number minus one (the attempts before the one that answered)."""
    if not isinstance(meta, dict):
        return None, None
    provider = None
    endpoints = meta.get("endpoints")
    if isinstance(endpoints, dict):
        for endpoint in _list(endpoints.get("available")):
            chosen = isinstance(endpoint, dict) and endpoint.get("selected") is True
            if chosen and isinstance(endpoint.get("provider"), str):
                provider = endpoint["provider"]
                break
    attempt = count(meta.get("attempt"))
    return provider, (attempt - 1 if attempt else None)


def parse_tool_trace(data: dict, message: dict) -> ToolTrace:
    """Search calls, search results and url_citation annotations; searched vs only cited told apart."""
    calls: list[dict] = []
    for call in _list(message.get("tool_calls")):
        function = call.get("function") if isinstance(call, dict) else None
        name = str(function.get("name", "")) if isinstance(function, dict) else ""
        if isinstance(call, dict) and ("search" in name or "search" in str(call.get("type", ""))):
            calls.append(call)
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    server = server_tool_use(usage)
    if server is not None and (count(server.get("web_search_requests")) or 0) > 0:
        calls.append({"source": _server_source(usage), **server})
    results = [r for r in _list(data.get("search_results")) if isinstance(r, dict)]
    citations = []
    for note in _list(message.get("annotations")):
        if isinstance(note, dict) and note.get("type") == "url_citation":
            cite = note.get("url_citation") or {}
            if isinstance(cite, dict) and isinstance(cite.get("url"), str):
                title = cite.get("title") if isinstance(cite.get("title"), str) else None
                citations.append(Citation(url=cite["url"], title=title))
    if calls or results:
        observed = SearchObserved.SEARCHED
    elif citations:
        observed = SearchObserved.CITED_ONLY
    else:
        observed = SearchObserved.NONE
    return ToolTrace(
        search_calls=tuple(calls), search_results=tuple(results), citations=tuple(citations), search_observed=observed
    )


def usage_of(text: str | None) -> Usage:
    """The usage (and so the cost) of a body otherwise unusable: the money it cost is counted all the same."""
    try:
        data = orjson.loads(text) if text else None
        return parse_usage(data.get("usage")) if isinstance(data, dict) else Usage()
    except (orjson.JSONDecodeError, ValueError, TypeError):
        return Usage()


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
