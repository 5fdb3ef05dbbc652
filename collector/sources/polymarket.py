"""Polymarket: a match's three Yes/No markets (home win, draw, away win) as one 1X2 quote.

Endpoints (public, no key; all through :mod:`collector.http`):

- Gamma ``GET /public-search?q=<home> <away>`` answers ``{events: [{slug, title, markets:
  [...]}]}``; ``GET /events?slug=<slug>`` a list of such events (used when the arena's
  configuration names the event's slug). A market carries ``groupItemTitle`` (the team, or
  ``Draw ...``), ``outcomes`` and ``outcomePrices`` (JSON-encoded string lists, ``["Yes",
  "No"]`` and ``["0.52", "0.48"]``), ``clobTokenIds`` (JSON-encoded), ``bestBid``, ``bestAsk``.
- CLOB ``GET /prices-history?market=<token>&startTs=&endTs=&fidelity=<minutes>`` answers
  ``{history: [{t: <unix seconds>, p: <price>}]}``.

Price used: a live quote buys a Yes share at ``bestAsk`` (the outcome's Yes price when the
book has no ask), recorded as decimal odds 1 / ask with the ask and bid beside it. A past
snapshot (``at``) takes the last CLOB history point at or before ``at``; history gives one
price per point, not an ask, so that quote has no ``bid``/``ask`` spread (stated in the record
by ``market = "prices-history"``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import orjson

from collector.errors import Problem
from collector.http import RetryPolicy, ServiceCallFailed, ServiceClient
from collector.records import BookQuote, Competition, Event, OutcomePrice
from collector.sources.odds_base import (
    ODDS_RESPONSE_BYTES,
    EventOdds,
    OddsBatch,
    json_payload,
    match_sides,
    share_price,
)

GAMMA_URL = "https://gamma-api.polymarket.com"
CLOB_URL = "https://clob.polymarket.com"
HISTORY_LOOKBACK = timedelta(hours=12)


POLYMARKET_DRAW = ("draw",)  # a Polymarket draw market's title starts with "Draw"


class PolymarketSource:
    """Polymarket match markets; ``slugs`` maps an event id to its Gamma event slug (else: search)."""

    name = "polymarket"

    def __init__(self, *, gamma_url: str = GAMMA_URL, clob_url: str = CLOB_URL, slugs: dict[str, str] | None = None,
                 transport: httpx.AsyncBaseTransport | None = None, retry: RetryPolicy | None = None,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)):
        retry = retry or RetryPolicy(max_attempts=3, base_delay=1.0)
        self.slugs = dict(slugs or {})
        self._clock = clock
        self.gamma = ServiceClient("polymarket-gamma", gamma_url, transport=transport, retry=retry, clock=clock,
                                   max_response_bytes=ODDS_RESPONSE_BYTES)
        self.clob = ServiceClient("polymarket-clob", clob_url, transport=transport, retry=retry, clock=clock,
                                  max_response_bytes=ODDS_RESPONSE_BYTES)

    @classmethod
    def from_env(cls, **options: Any) -> PolymarketSource:
        return cls(gamma_url=os.environ.get("POLYMARKET_GAMMA_URL") or GAMMA_URL,
                   clob_url=os.environ.get("POLYMARKET_CLOB_URL") or CLOB_URL, **options)

    async def aclose(self) -> None:
        await self.gamma.aclose()
        await self.clob.aclose()

    async def fetch_odds(self, competition: Competition, events: list[Event], at: datetime | None = None) -> OddsBatch:
        batch = OddsBatch(self.name, "/public-search, /events" + (", /prices-history" if at else ""), self._clock())
        for event in events:
            try:
                found = await self._event_odds(competition, event, at)
            except ServiceCallFailed as exc:
                batch.problems.append(Problem(f"{self.name} {event.id}", str(exc)))
                continue
            except ValueError as exc:
                batch.problems.append(Problem(f"{self.name} {event.id}", str(exc)))
                continue
            if found is not None:
                batch.events.append(found)
        batch.retrieved_at = self._clock()
        return batch

    async def _event_odds(self, competition: Competition, event: Event, at: datetime | None) -> EventOdds | None:
        gamma_event = await self._find_event(competition, event)
        if gamma_event is None:
            return None
        odds = EventOdds(event.home_team, event.away_team, event.kickoff_utc, payload=gamma_event)
        sides = match_sides(gamma_event.get("markets") or [], competition, event, "groupItemTitle", POLYMARKET_DRAW)
        missing = {"home", "draw", "away"} - set(sides)
        if missing:
            odds.problems.append(f"event {gamma_event.get('slug')!r}: no market for {sorted(missing)}")
            return odds
        prices, updated = [], None
        for side in ("home", "draw", "away"):
            market = sides[side]
            try:
                price, updated = (await self._history_price(market, at)) if at else (_live_price(market), None)
            except ValueError as exc:
                odds.problems.append(f"market {market.get('slug')!r}: {exc}")
                return odds
            prices.append(_with_outcome(price, side, market))
        odds.quotes.append(BookQuote(bookmaker="polymarket", market="prices-history" if at else "yes-ask",
                                     prices=tuple(prices), last_update=updated))
        return odds

    async def _find_event(self, competition: Competition, event: Event) -> dict | None:
        slug = self.slugs.get(event.id)
        if slug:
            response, _ = await self.gamma.request("GET", "/events", params={"slug": slug})
            found = json_payload(response.content, "/events")
            return found[0] if isinstance(found, list) and found else None
        home = next((t.name for t in competition.teams if t.id == event.home_team), event.home_team)
        away = next((t.name for t in competition.teams if t.id == event.away_team), event.away_team)
        response, _ = await self.gamma.request("GET", "/public-search", params={"q": f"{home} {away}"})
        body = json_payload(response.content, "/public-search")
        for candidate in (body.get("events") or []) if isinstance(body, dict) else []:
            markets = candidate.get("markets") or [] if isinstance(candidate, dict) else []
            if len(match_sides(markets, competition, event, "groupItemTitle", POLYMARKET_DRAW)) == 3:
                return candidate
        return None

    async def _history_price(self, market: dict, at: datetime) -> tuple[OutcomePrice, datetime]:
        token = _yes_token(market)
        params = {"market": token, "startTs": int((at - HISTORY_LOOKBACK).timestamp()), "endTs": int(at.timestamp()),
                  "fidelity": 60}
        response, _ = await self.clob.request("GET", "/prices-history", params=params)
        body = json_payload(response.content, "/prices-history")
        history = body.get("history") if isinstance(body, dict) else None
        if not isinstance(history, list):
            raise ValueError("prices-history: expected {history: [{t, p}]}")
        points = [(int(h["t"]), h["p"]) for h in history if isinstance(h, dict) and "t" in h and "p" in h
                  and int(h["t"]) <= at.timestamp()]
        if not points:
            raise ValueError(f"prices-history: no price at or before {at.isoformat()}")
        t, p = max(points)
        price = share_price(p, "history.p")
        return OutcomePrice(outcome="yes", odds=1.0 / price, ask=price, name=token), datetime.fromtimestamp(t, UTC)


def _listed(market: dict, field_name: str) -> list:
    raw = market.get(field_name)
    value = orjson.loads(raw) if isinstance(raw, str) else raw
    if not isinstance(value, list):
        raise ValueError(f"field {field_name}: expected a JSON list, got {raw!r:.80}")
    return value


def _yes_token(market: dict) -> str:
    outcomes, tokens = _listed(market, "outcomes"), _listed(market, "clobTokenIds")
    if "Yes" not in outcomes or len(tokens) != len(outcomes):
        raise ValueError(f"fields outcomes/clobTokenIds: no Yes token in {outcomes!r}")
    return str(tokens[outcomes.index("Yes")])


def _live_price(market: dict) -> OutcomePrice:
    ask_raw = market.get("bestAsk")
    if ask_raw in (None, "", 0):
        outcomes, prices = _listed(market, "outcomes"), _listed(market, "outcomePrices")
        if "Yes" not in outcomes or len(prices) != len(outcomes):
            raise ValueError(f"fields outcomes/outcomePrices: no Yes price in {outcomes!r}")
        ask_raw = prices[outcomes.index("Yes")]
    ask = share_price(ask_raw, "bestAsk")
    bid = market.get("bestBid")
    bid_value = float(bid) if isinstance(bid, int | float | str) and str(bid).strip() not in ("", "0") else None
    if bid_value is not None and not 0.0 <= bid_value <= ask:
        raise ValueError(f"field bestBid: {bid!r} is not between 0 and the ask {ask}")
    return OutcomePrice(outcome="yes", odds=1.0 / ask, ask=ask, bid=bid_value)


def _with_outcome(price: OutcomePrice, side: str, market: dict) -> OutcomePrice:
    return price.model_copy(update={"outcome": side, "name": str(market.get("groupItemTitle") or price.name)})


async def contract_quote(source: PolymarketSource, slug: str, at: datetime | None = None) -> tuple[OutcomePrice, str, Any]:
    """One binary market's Yes price (Gamma ``GET /markets?slug=``; CLOB history for a past ``at``).

    Returns (price, endpoint, the market's payload); ValueError naming the field otherwise.
    """
    response, _ = await source.gamma.request("GET", "/markets", params={"slug": slug})
    found = json_payload(response.content, "/markets")
    market = found[0] if isinstance(found, list) and found and isinstance(found[0], dict) else None
    if market is None:
        raise ValueError(f"/markets?slug={slug}: no such market")
    if at is not None:
        price, _ = await source._history_price(market, at)
        return price, f"/markets?slug={slug}, /prices-history", market
    return _live_price(market), f"/markets?slug={slug}", market
