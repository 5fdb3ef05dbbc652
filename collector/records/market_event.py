"""Binary market events (Prophet Arena, seeds/002 §2): a market's Yes/No contract as a question.

A :class:`BinaryEvent` is registered from the arena's configured market list
(``[[markets.binary]]`` in ``prematch.toml``) with its resolution rule; the tick asks each
LLM at the arena's horizons before ``closes_at`` under two conditions, ``with_price`` (the
contract's market price in the prompt) and ``no_price``, and writes one
:class:`BinaryForecast` per event x forecaster x condition x horizon, each carrying the price
quoted at that moment (the price used for its return). A :class:`BinaryResolution` is
written once the outcome that decides the rule is recorded (fail closed: never before).

Paths: ``{competition}/markets/{event}/event.json``, ``.../resolution.json``,
``.../forecasts/{forecaster}/{condition}.{horizon}.json``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from .base import Contract, Probability, Record, Slug, UtcDatetime
from .forecast import Attempt, ForecastStatus, Horizon

RuleKind = Literal["champion", "reaches", "match_result", "total_goals_over"]
Condition = Literal["with_price", "no_price"]


class BinaryRule(Contract):
    """When the contract resolves Yes, in terms of Prematch's own outcome records.

    ``champion``: ``team`` advances from the final. ``reaches``: ``team`` plays a match of
    ``stage`` (No once every match of that stage is registered without it).
    ``match_result``: ``event_id`` ends ``result`` (home/draw/away) after 90 minutes.
    ``total_goals_over``: ``event_id`` has more than ``line`` goals after 90 minutes.
    """

    kind: RuleKind
    team: Slug | None = None
    stage: str | None = None
    event_id: Slug | None = None
    result: Literal["home", "draw", "away"] | None = None
    line: Annotated[float, Field(ge=0, le=20, allow_inf_nan=False)] | None = None

    @model_validator(mode="after")
    def _complete(self) -> BinaryRule:
        need = {"champion": ("team",), "reaches": ("team", "stage"), "match_result": ("event_id", "result"),
                "total_goals_over": ("event_id", "line")}[self.kind]
        missing = [name for name in need if getattr(self, name) is None]
        if missing:
            raise ValueError(f"rule {self.kind} needs {', '.join(missing)}")
        if self.line is not None and float(self.line).is_integer():
            raise ValueError(f"line {self.line}: a total must be a half line (2.5), so no bet is void")
        return self


class BinaryEvent(Record):
    kind: Literal["binary_event"] = "binary_event"
    competition_id: Slug
    id: Slug
    label: str = Field(min_length=1, max_length=300, description="the contract's question, e.g. Will Spain win?")
    source: Literal["polymarket", "kalshi"] = Field(description="where the price is read (only polymarket is read yet)")
    market: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        description="the market's slug (Polymarket) or ticker (Kalshi)")
    contract: Annotated[str, Field(min_length=1, max_length=60)] = Field(default="Yes",
                                                                         description="the side whose price is asked")
    rule: BinaryRule
    closes_at: UtcDatetime = Field(description="no forecast may be requested at or after this time")


class BinaryQuote(Contract):
    """The contract's market price at the moment of the forecast (what the return buys at)."""

    ask: Probability = Field(description="price of a Yes share (the Yes price paid)")
    bid: Probability | None = Field(default=None, description="best bid: a No share costs 1 - bid")
    retrieved_at: UtcDatetime
    endpoint: str
    fee_rate: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = 0.0


class BinaryForecast(Record):
    kind: Literal["binary_forecast"] = "binary_forecast"
    competition_id: Slug
    event_id: Slug = Field(description="the binary event's id")
    forecaster: Slug
    model: str
    condition: Condition
    horizon: Horizon
    closes_at: UtcDatetime
    requested_at: UtcDatetime | None = None
    status: ForecastStatus
    probability: Probability | None = Field(default=None, description="P(Yes) as answered")
    reason: str | None = Field(default=None, max_length=4000)
    quote: BinaryQuote | None = Field(default=None, description="the price at the time (shown only with_price)")
    prompt: str
    attempts: tuple[Attempt, ...] = ()
    errors: tuple[str, ...] = ()


class BinaryResolution(Record):
    kind: Literal["binary_resolution"] = "binary_resolution"
    competition_id: Slug
    event_id: Slug
    value: bool
    resolved_from: tuple[Slug, ...] = Field(min_length=1, description="event ids the value follows from")
    source: str = "prematch:outcomes"
