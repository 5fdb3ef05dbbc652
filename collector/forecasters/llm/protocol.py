"""The request protocol: what every chat-completions request of the arena sends, and its hash.

One protocol per arena (``[protocol]`` in ``prematch.toml``, :class:`collector.config.ProtocolSettings`)
and a small per-model part (provider routing, the reasoning setting, whether the model takes
``reasoning`` and honours ``temperature``, the structured-output mode). :func:`resolve` turns
them into the *settings* of one forecaster under one access condition: a JSON object that is
recorded in every forecast with its SHA-256 (:func:`settings_sha256`), so two forecasts were
asked under the same condition exactly when their hashes are equal.

The body follows OpenRouter's documented request: ``tools`` = one ``openrouter:web_search``
server tool with explicit ``engine``, ``max_results``, ``max_total_results`` and
``search_context_size`` (open book only) and the top-level ``max_tool_calls``; ``provider``
(``order``, ``allow_fallbacks``, ``require_parameters``, ``quantizations``); ``reasoning``
(``effort`` or ``max_tokens``, ``exclude``); ``response_format`` (``json_schema`` with
``strict: true``, or ``json_object``); the output limit as ``max_completion_tokens`` for a model
whose ``supported_parameters`` list it (OpenRouter's current name; ``max_tokens`` is deprecated)
and as ``max_tokens`` otherwise; ``temperature`` where honoured.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from collector.config import ArenaConfig, ForecasterConfig
from collector.records import Access

PROTOCOL_VERSION = 1
LIMIT_PARAMETERS = ("max_tokens", "max_completion_tokens")


def resolve(arena: ArenaConfig, cfg: ForecasterConfig, access: Access) -> dict[str, Any]:
    """The settings of ``cfg`` under ``access`` (JSON-ready; recorded in every forecast)."""
    p = arena.protocol
    routing = cfg.routing or p.routing
    reasoning = (cfg.reasoning or p.reasoning) if cfg.reasoning_supported else None
    search = None
    if access is Access.OPEN_BOOK:
        search = p.search.model_dump(mode="json", exclude={"price_per_search_usd"})
    return {
        "protocol_version": PROTOCOL_VERSION,
        "access": access.value,
        "max_tokens": p.max_tokens,
        "temperature": p.temperature if cfg.honours_temperature else None,
        "structured_outputs": cfg.structured_outputs or p.structured_outputs,
        "search": search,
        "reasoning": reasoning.model_dump(mode="json", exclude_none=True) if reasoning is not None else None,
        "provider": _provider(routing),
        "router_metadata": p.router_metadata,
    }


def _provider(routing) -> dict[str, Any]:
    out: dict[str, Any] = {"allow_fallbacks": routing.allow_fallbacks, "require_parameters": routing.require_parameters}
    if routing.order:
        out["order"] = list(routing.order)
    if routing.quantizations:
        out["quantizations"] = list(routing.quantizations)
    return out


def settings_sha256(settings: dict[str, Any]) -> str:
    """SHA-256 of the settings' canonical JSON (sorted keys): equal exactly when every setting is equal."""
    return hashlib.sha256(orjson.dumps(settings, option=orjson.OPT_SORT_KEYS)).hexdigest()


def arena_protocol_sha256(arena: ArenaConfig) -> str | None:
    """One hash of every enabled LLM's settings under every access condition (for the tick manifest)."""
    llms = [f for f in arena.enabled_forecasters() if f.type == "llm"]
    if not llms:
        return None
    every = {f.id: {a.value: resolve(arena, f, a) for a in (f.access or arena.access)} for f in llms}
    return settings_sha256(every)


def build_body(
    model: str, messages: list[dict[str, str]], settings: dict[str, Any], *, schema: dict[str, Any] | None = None,
    schema_name: str = "forecast", mode: str | None = None, max_tokens: int | None = None,
    limit_parameter: str = "max_tokens",
) -> dict[str, Any]:  # fmt: skip
    """The chat-completions request body for ``settings`` (never any credential).

    ``mode`` overrides the structured-output mode (the JSON-mode fallback steps down from
    ``json_schema`` to ``json_object`` to ``none``); ``max_tokens`` the output limit (the
    truncation retry doubles it), sent as ``limit_parameter`` (``max_tokens`` or
    ``max_completion_tokens``, as the model takes it: :mod:`collector.schedule.model_check`).
    """
    if limit_parameter not in LIMIT_PARAMETERS:
        raise ValueError(f"limit_parameter is one of {LIMIT_PARAMETERS}, not {limit_parameter!r}")
    body: dict[str, Any] = {"model": model, "messages": messages, limit_parameter: max_tokens or settings["max_tokens"]}
    if settings["temperature"] is not None:
        body["temperature"] = settings["temperature"]
    if settings["reasoning"] is not None:
        body["reasoning"] = dict(settings["reasoning"])
    body["provider"] = dict(settings["provider"])
    mode = mode or settings["structured_outputs"]
    if mode == "json_schema" and schema is not None:
        body["response_format"] = {
            "type": "json_schema", "json_schema": {"name": schema_name, "strict": True, "schema": schema},
        }  # fmt: skip
    elif mode in ("json_schema", "json_object"):
        body["response_format"] = {"type": "json_object"}
    search = settings["search"]
    if search is not None:
        parameters = {k: search[k] for k in ("engine", "max_results", "max_total_results", "search_context_size")}
        body["tools"] = [{"type": "openrouter:web_search", "parameters": parameters}]
        body["max_tool_calls"] = search["max_tool_calls"]
    return body


def mode_of(body: dict[str, Any]) -> str:
    """The structured-output mode a request body asked for: json_schema, json_object or none."""
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") in ("json_schema", "json_object"):
        return str(fmt["type"])
    return "none"


def step_down(mode: str) -> str | None:
    """The next structured-output mode after a provider rejected ``mode``, or None."""
    return {"json_schema": "json_object", "json_object": "none"}.get(mode)


def required_parameters(settings: dict[str, Any]) -> set[str]:
    """The models API ``supported_parameters`` a request with ``settings`` needs."""
    needed = {"max_tokens", "response_format"} if settings["structured_outputs"] != "none" else {"max_tokens"}
    if settings["structured_outputs"] == "json_schema":
        needed.add("structured_outputs")
    if settings["search"] is not None:
        needed.add("tools")
    if settings["reasoning"] is not None:
        needed.add("reasoning")
    if settings["temperature"] is not None:
        needed.add("temperature")
    return needed
