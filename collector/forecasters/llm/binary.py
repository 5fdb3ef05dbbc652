"""Ask one LLM for P(Yes) of a binary market event, with or without the market price (Prophet Arena).

The prompt states the contract, its resolution rule in words and when it closes; under the
``with_price`` condition it adds the contract's current market price (the Yes ask and the
bid, seeds/002 §2.2: the market price as context). The answer is JSON
``{"probability": p, "reason": "..."}`` with 0 <= p <= 1; anything else is recorded as
invalid with the reason, never guessed at. One call per record (no repair call: a binary
answer has a single field).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from collector.records import (
    Access,
    AttemptRole,
    BinaryEvent,
    BinaryForecast,
    BinaryQuote,
    Clock,
    Event,
    ForecastStatus,
    Horizon,
)

from .protocol import build_body

SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["probability", "reason"],
    "properties": {"probability": {"type": "number", "minimum": 0, "maximum": 1},
                   "reason": {"type": "string"}},
}  # fmt: skip


def rule_text(event: BinaryEvent, names: dict[str, str] | None = None, match: Event | None = None) -> str:
    """The resolution rule in words, with team names (``names``: id -> name) and the match's teams."""
    r, names = event.rule, names or {}
    if match is not None:
        home, away = names.get(match.home_team, match.home_team), names.get(match.away_team, match.away_team)
        game = f"{home} v {away} (kickoff {match.kickoff_utc.isoformat() if match.kickoff_utc else 'to be announced'})"
        side = {"home": f"a {home} win", "draw": "a draw", "away": f"an {away} win"}.get(r.result or "", "")
    else:
        game, side = f"match {r.event_id}", r.result
    team = names.get(r.team, r.team)
    return {
        "champion": f"Resolves Yes if {team} wins the final of the competition.",
        "reaches": f"Resolves Yes if {team} plays a match of the {r.stage}.",
        "match_result": f"Resolves Yes if {game} ends in {side} after 90 minutes plus stoppage time.",
        "total_goals_over": f"Resolves Yes if {game} has more than {r.line} goals after 90 minutes.",
    }[r.kind]


def binary_prompt(event: BinaryEvent, quote: BinaryQuote | None, rule: str | None = None) -> str:
    """The prompt; ``quote`` is given only under the ``with_price`` condition; ``rule`` from :func:`rule_text`."""
    lines = [
        "You are forecasting a binary prediction-market contract.",
        f"Binary contract: {event.label}",
        f"Resolution rule: {rule or rule_text(event)}",
        f"Trading closes: {event.closes_at.isoformat()}",
    ]
    if quote is not None:
        bid = f", best bid {quote.bid:.3f}" if quote.bid is not None else ""
        lines.append(f"Market price: a Yes share costs {quote.ask:.3f} (pays 1 if Yes){bid}, "
                     f"read at {quote.retrieved_at.isoformat()}.")
    lines.append('Answer only with JSON: {"probability": <your probability of Yes, 0 to 1>, "reason": "<one sentence>"}')
    return "\n".join(lines)


def parse_binary(content: str | None) -> tuple[float | None, str | None, list[str]]:
    """(probability, reason, errors) of an answer; the errors name the field and the value."""
    try:
        data = orjson.loads(content or "")
    except orjson.JSONDecodeError:
        return None, None, [f"not JSON: {(content or '')[:80]!r}"]
    if not isinstance(data, dict):
        return None, None, [f"expected a JSON object, got {type(data).__name__}"]
    p = data.get("probability")
    reason = data.get("reason") if isinstance(data.get("reason"), str) else None
    if isinstance(p, bool) or not isinstance(p, int | float):
        return None, reason, [f"field probability: expected a number, got {p!r:.40}"]
    if not 0.0 <= float(p) <= 1.0:
        return None, reason, [f"field probability: {p} is not between 0 and 1"]
    return float(p), (reason or "")[:4000], []


async def ask_binary(forecaster: Any, event: BinaryEvent, condition: str, horizon: Horizon,
                     quote: BinaryQuote | None, now: datetime, clock: Clock, rule: str | None = None) -> BinaryForecast:
    """One LLM forecaster's record for ``event`` (``forecaster``: an :class:`LLMForecaster`)."""
    shown = quote if condition == "with_price" else None
    text = binary_prompt(event, shown, rule)
    body = build_body(forecaster.model, [{"role": "user", "content": text}], forecaster.settings[Access.CLOSED_BOOK],
                      schema=SCHEMA, schema_name="binary_forecast", max_tokens=forecaster.max_tokens,
                      limit_parameter=forecaster.limit_parameter)
    result = await forecaster.client.chat(body, role=AttemptRole.FIRST, deadline=event.closes_at)
    forecaster.budget.add(result.cost)
    probability, reason, errors = None, None, []
    if result.failure:
        status = ForecastStatus.TIMEOUT if result.failure == "timeout" else ForecastStatus.API_ERROR
        errors = [result.error or result.failure]
    else:
        probability, reason, errors = parse_binary(result.content)
        status = ForecastStatus.VALID if not errors else (
            ForecastStatus.INVALID_JSON if errors[0].startswith(("not JSON", "expected a JSON")) else
            ForecastStatus.INVALID_RANGE)
    requested = result.attempts[0].started_at if result.attempts else now
    return BinaryForecast(
        recorded_at=forecaster.clock(), clock=clock, competition_id=event.competition_id, event_id=event.id,
        forecaster=forecaster.id, model=forecaster.model, condition=condition, horizon=horizon,
        closes_at=event.closes_at, requested_at=requested, status=status, probability=probability, reason=reason,
        quote=quote, prompt=text, attempts=tuple(result.attempts), errors=tuple(errors),
    )  # fmt: skip
