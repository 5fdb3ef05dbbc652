"""Kalshi: a match event's Yes/No markets (home, tie, away) as one 1X2 quote, the trading fee included.

Endpoints (public market data, no key; all through :mod:`collector.http`), under
``/trade-api/v2``:

- ``GET /markets?event_ticker=<ticker>`` answers ``{markets: [{ticker, event_ticker,
  yes_sub_title, yes_bid_dollars, yes_ask_dollars, no_bid_dollars, no_ask_dollars,
  last_price_dollars, status, close_time, ...}], cursor}``. ``yes_sub_title`` names the team, or
  ``Tie``/``Draw``.
- ``GET /series/{series}/markets/{ticker}/candlesticks?start_ts=&end_ts=&period_interval=60``
  answers ``{ticker, candlesticks: [{end_period_ts, yes_ask: {close_dollars, ...}, yes_bid:
  {close_dollars, ...}, price: {...}, volume_fp, open_interest_fp}]}``; a past snapshot takes the
  last candle ending at or before it.

Prices are fixed-point dollar strings (``"0.5600"``) only: Kalshi removed the integer-cent fields
(``yes_ask``, ``close`` as cents) on 12 March 2026, so a price without its ``_dollars`` field is
missing, never read from cents (tests/recorded/kalshi/ holds the documented shapes).

Price used: a Yes share bought at the ask *plus* Kalshi's taker fee, 0.07 x P x (1 - P) per
contract at price P (its fee schedule; the per-order rounding up to the cent is not applied),
recorded as decimal odds 1 / (ask + fee), with the ask and bid beside it and ``fee_rate`` 0.07.
The event ticker of each match comes from the configuration (``[odds] kalshi_events``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import httpx

from collector.errors import Problem
from collector.http import RetryPolicy, ServiceCallFailed, ServiceClient
from collector.records import BookQuote, Competition, Event, OutcomePrice
from collector.sources.odds_base import (
    EventOdds,
    OddsBatch,
    json_payload,
    match_sides,
    share_price,
)

BASE_URL = "https://api.elections.kalshi.com/trade-api/v2"
FEE_RATE = 0.07
HISTORY_LOOKBACK = timedelta(hours=12)


def with_fee(price: float, rate: float = FEE_RATE) -> float:
    """What one Yes contract costs at ``price``, Kalshi's taker fee rate x P x (1 - P) included."""
    return price + rate * price * (1.0 - price)


def dollars(obj: dict, field: str) -> float | None:
    """``obj[field + "_dollars"]``, a fixed-point dollar string, as a number; None when absent or zero
    (no bid); ValueError naming the field and the value when it is anything else."""
    name = f"{field}_dollars"
    raw = obj.get(name)
    if raw in (None, ""):
        return None
    try:
        value = Decimal(raw) if isinstance(raw, str) else None
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or value < 0:
        raise ValueError(f"field {name}: expected a fixed-point dollar string such as \"0.5600\", got {raw!r}")
    return float(value) or None


KALSHI_DRAW = ("tie", "draw")  # the titles of a Kalshi match's draw contract


class KalshiSource:
    """Kalshi match markets; ``events`` maps an event id to its Kalshi event ticker."""

    name = "kalshi"

    def __init__(self, *, base_url: str = BASE_URL, events: dict[str, str] | None = None,
                 transport: httpx.AsyncBaseTransport | None = None, retry: RetryPolicy | None = None,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)):
        self.events = dict(events or {})
        self._clock = clock
        self.client = ServiceClient(self.name, base_url.rstrip("/"), transport=transport, clock=clock,
                                    retry=retry or RetryPolicy(max_attempts=3, base_delay=1.0))

    @classmethod
    def from_env(cls, **options: Any) -> KalshiSource:
        return cls(base_url=os.environ.get("KALSHI_BASE_URL") or BASE_URL, **options)

    async def aclose(self) -> None:
        await self.client.aclose()

    async def fetch_odds(self, competition: Competition, events: list[Event], at: datetime | None = None) -> OddsBatch:
        batch = OddsBatch(self.name, "/markets" + (", /candlesticks" if at else ""), self._clock())
        for event in events:
            ticker = self.events.get(event.id)
            if not ticker:
                continue
            try:
                batch.events.append(await self._event_odds(competition, event, ticker, at))
            except (ServiceCallFailed, ValueError) as exc:
                batch.problems.append(Problem(f"{self.name} {event.id} ({ticker})", str(exc)))
        batch.retrieved_at = self._clock()
        return batch

    async def _event_odds(self, competition: Competition, event: Event, ticker: str, at: datetime | None) -> EventOdds:
        response, _ = await self.client.request("GET", "/markets", params={"event_ticker": ticker})
        body = json_payload(response.content, "/markets")
        markets = body.get("markets") if isinstance(body, dict) else None
        if not isinstance(markets, list):
            raise ValueError("/markets: expected {markets: [...]}")
        odds = EventOdds(event.home_team, event.away_team, event.kickoff_utc, payload=body)
        sides = match_sides(markets, competition, event, "yes_sub_title", KALSHI_DRAW)
        if set(sides) != {"home", "draw", "away"}:
            odds.problems.append(f"event {ticker}: no market for {sorted({'home', 'draw', 'away'} - set(sides))}")
            return odds
        prices = []
        for side in ("home", "draw", "away"):
            market = sides[side]
            try:
                ask, bid = await self._history(market, at) if at else (dollars(market, "yes_ask"), dollars(market, "yes_bid"))
                ask = share_price(ask, "yes_ask_dollars")
            except ValueError as exc:
                odds.problems.append(f"market {market.get('ticker')!r}: {exc}")
                return odds
            prices.append(OutcomePrice(outcome=side, odds=1.0 / with_fee(ask), ask=ask, bid=bid,
                                       name=str(market.get("yes_sub_title") or market.get("ticker"))))
        odds.quotes.append(BookQuote(bookmaker="kalshi", market=ticker, prices=tuple(prices), fee_rate=FEE_RATE))
        return odds

    async def _history(self, market: dict, at: datetime) -> tuple[float | None, float | None]:
        ticker = str(market.get("ticker"))
        series = ticker.split("-", 1)[0]
        params = {"start_ts": int((at - HISTORY_LOOKBACK).timestamp()), "end_ts": int(at.timestamp()),
                  "period_interval": 60}
        response, _ = await self.client.request("GET", f"/series/{series}/markets/{ticker}/candlesticks", params=params)
        body = json_payload(response.content, "candlesticks")
        candles = [c for c in (body.get("candlesticks") or []) if isinstance(c, dict)
                   and isinstance(c.get("end_period_ts"), int) and c["end_period_ts"] <= at.timestamp()]
        if not candles:
            raise ValueError(f"candlesticks: no candle ending at or before {at.isoformat()}")
        last = max(candles, key=lambda c: c["end_period_ts"])
        sides = [last.get(side) if isinstance(last.get(side), dict) else {} for side in ("yes_ask", "yes_bid")]
        return dollars(sides[0], "close"), dollars(sides[1], "close")

