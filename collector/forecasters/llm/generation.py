"""OpenRouter's generation stats (``GET /api/v1/generation?id=``) turned into attempt statistics records.

Documented response: ``{"data": {id, model, provider_name, total_cost, native_tokens_prompt,
native_tokens_completion, native_tokens_reasoning, num_search_results, web_search_engine,
provider_responses: [{status, ...}], cancelled, finish_reason, ...}}``. Stats are queryable a
few seconds after the call; until then the endpoint answers 404 and a later tick asks again.
Every field is read defensively (a provider payload is untrusted): a value of the wrong type
is dropped, never guessed; strings are sanitised as decoded values and the provider and model
kept only in the shape of an identifier (:mod:`collector.redaction`).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from collector.records import AttemptStatistics, Clock, Forecast
from collector.records.statistics import GENERATION_ID_PATTERN
from collector.redaction import identifier, sanitised_value

_ID = re.compile(GENERATION_ID_PATTERN)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _float(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 and value == value
    return float(value) if ok and value != float("inf") else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def pending_generations(forecast: Forecast, known: set[str]) -> list[tuple[int, str]]:
    """(attempt index, generation id) of the forecast's answered or timed-out attempts (the id then from
    the ``X-Generation-Id`` header) without a statistics record."""
    out = []
    for i, attempt in enumerate(forecast.attempts):
        gen = attempt.response_id
        if gen and (attempt.http_status == 200 or attempt.timed_out) and _ID.match(gen) and gen not in known:
            out.append((i, gen))
    return out


def statistics_record(
    payload: Any, *, forecast: Forecast, forecast_path: str, attempt_index: int, generation_id: str,
    recorded_at: datetime, clock: Clock,
) -> AttemptStatistics | None:  # fmt: skip
    """The record for one generation, or None when the payload is not the documented ``{"data": {...}}``."""
    raw = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(raw, dict):
        return None
    data = sanitised_value(raw)  # every string kept is a decoded, sanitised one; identifiers by shape
    if not isinstance(data, dict):
        return None
    responses = data.get("provider_responses")
    fallbacks = len(responses) - 1 if isinstance(responses, list) and responses else None
    return AttemptStatistics(
        recorded_at=recorded_at, clock=clock, competition_id=forecast.competition_id, forecast_path=forecast_path,
        attempt_index=attempt_index, generation_id=generation_id,
        provider=identifier(raw.get("provider_name"), "provider"), model=identifier(raw.get("model"), "model"),
        web_search_engine=_str(data.get("web_search_engine")), search_results=_int(data.get("num_search_results")),
        native_reasoning_tokens=_int(data.get("native_tokens_reasoning")),
        native_prompt_tokens=_int(data.get("native_tokens_prompt")),
        native_completion_tokens=_int(data.get("native_tokens_completion")),
        total_cost_usd=_float(data.get("total_cost")), fallback_attempts=fallbacks,
        cancelled=data.get("cancelled") if isinstance(data.get("cancelled"), bool) else None,
        finish_reason=_str(data.get("finish_reason")), raw=_json(data),
    )  # fmt: skip


def _json(data: dict) -> dict:
    """``data`` kept verbatim where it is plain JSON (it came from orjson, so it is)."""
    return {str(k): v for k, v in data.items()}


def extra_cost(stats: AttemptStatistics, forecast: Forecast) -> float:
    """What the statistics bill beyond what the cap already counted for the attempt: its ``usage.cost``,
    or for a timed-out call its estimate. Never negative (an estimate above the real cost stays counted)."""
    if stats.total_cost_usd is None:
        return 0.0
    attempt = forecast.attempts[stats.attempt_index]
    counted = attempt.usage.cost_usd if attempt.usage.cost_usd is not None else (attempt.estimated_cost_usd or 0.0)
    return max(0.0, stats.total_cost_usd - counted)
