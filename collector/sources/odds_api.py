"""The Odds API v4 (the-odds-api.com): bookmakers' 1X2 prices, live and historical.

Endpoints (all through :mod:`collector.http`):

- ``GET /v4/sports/{sport}/odds?regions=&markets=h2h&oddsFormat=decimal&dateFormat=iso``:
  a list of events ``{id, commence_time, home_team, away_team, bookmakers: [{key, title,
  last_update, markets: [{key: "h2h", last_update, outcomes: [{name, price}]}]}]}``; a
  soccer h2h market has three outcomes named after the two teams and ``Draw``.
- ``GET /v4/historical/sports/{sport}/odds?date=<ISO>``: the snapshot at or before
  ``date``, wrapped as ``{timestamp, previous_timestamp, next_timestamp, data: [events]}``.

The key (``ODDS_API_KEY``) goes in the ``apiKey`` query parameter; it is registered with the
sanitiser (:mod:`collector.redaction`) so no error text, record or log carries it, and the
endpoint recorded names the path and parameters without it.

Credits: every answer carries ``x-requests-remaining``, ``x-requests-used`` and
``x-requests-last`` (this call's cost), read as integers up to :data:`MAX_CREDITS` (another value
is a problem naming the header, and is left out of the record). A live call costs markets x regions, a historical one
10 x markets x regions; the source refuses a call whose cost exceeds the credits the
previous answer said remain (a problem, not a request), and reports the credits of each call.
Errors: 401 (bad key, or ``OUT_OF_USAGE_CREDITS``) and 422 (bad parameter) are not retried
and become a problem quoting the body's ``message``; 429 (``EXCEEDED_FREQ_LIMIT``) and 5xx
are retried by the client (``Retry-After`` honoured).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import orjson

from collector.errors import ConfigError, Problem
from collector.http import RetryPolicy, ServiceCallFailed, ServiceClient, header_int
from collector.records import BookQuote, Competition, Credits, Event, OutcomePrice
from collector.records.odds import MAX_CREDITS
from collector.redaction import redact, register_secret
from collector.sources.odds_base import (
    ODDS_RESPONSE_BYTES,
    EventOdds,
    OddsBatch,
    decimal_odds,
    team_id,
    utc_time,
)

BASE_URL = "https://api.the-odds-api.com"
KEY_ENV = "ODDS_API_KEY"
BASE_URL_ENV = "ODDS_API_BASE_URL"
HISTORICAL_MULTIPLIER = 10


class OddsApiSource:
    """The Odds API for one sport key (e.g. ``soccer_epl``, ``soccer_fifa_world_cup``)."""

    name = "the-odds-api"

    def __init__(self, sport: str, *, key: str, base_url: str = BASE_URL, regions: str = "uk,eu",
                 markets: str = "h2h", transport: httpx.AsyncBaseTransport | None = None,
                 retry: RetryPolicy | None = None, clock: Callable[[], datetime] = lambda: datetime.now(UTC)):
        if not key or not key.strip():
            raise ConfigError(f"{KEY_ENV} is not set: The Odds API needs a key")
        register_secret(key)
        self.sport, self.regions, self.markets = sport, regions, markets
        self._key = key.strip()
        self._clock = clock
        self.remaining: int | None = None  # the credits the last answer reported
        self.client = ServiceClient(self.name, base_url, transport=transport, clock=clock,
                                    retry=retry or RetryPolicy(max_attempts=3, base_delay=1.0),
                                    max_response_bytes=ODDS_RESPONSE_BYTES)

    @classmethod
    def from_env(cls, sport: str, **options: Any) -> OddsApiSource:
        return cls(sport, key=os.environ.get(KEY_ENV, ""), base_url=os.environ.get(BASE_URL_ENV) or BASE_URL, **options)

    async def aclose(self) -> None:
        await self.client.aclose()

    def cost(self, historical: bool) -> int:
        """Credits a call costs: markets x regions (x 10 for a historical snapshot)."""
        n = len([m for m in self.markets.split(",") if m]) * len([r for r in self.regions.split(",") if r])
        return n * (HISTORICAL_MULTIPLIER if historical else 1)

    async def fetch_odds(self, competition: Competition, events: list[Event], at: datetime | None = None) -> OddsBatch:
        """Live odds (``at`` None) or the historical snapshot at or before ``at``."""
        path = f"/v4/historical/sports/{self.sport}/odds" if at is not None else f"/v4/sports/{self.sport}/odds"
        params = {"regions": self.regions, "markets": self.markets, "oddsFormat": "decimal", "dateFormat": "iso"}
        if at is not None:
            params["date"] = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        endpoint = path + "?" + "&".join(f"{k}={v}" for k, v in params.items())
        batch = OddsBatch(self.name, endpoint, self._clock())
        cost = self.cost(at is not None)
        if self.remaining is not None and cost > self.remaining:
            batch.problems.append(Problem(self.name, f"{endpoint}: costs {cost} credits, only {self.remaining} remain; "
                                                     "not requested"))
            return batch
        try:
            response, _ = await self.client.request("GET", path, params={**params, "apiKey": self._key})
        except ServiceCallFailed as exc:
            batch.credits = self._credits(exc.exchanges[-1].headers, batch)
            batch.problems.append(Problem(self.name, f"{endpoint}: {_error_text(exc)}"))
            return batch
        batch.retrieved_at = self._clock()
        batch.credits = self._credits(response.headers, batch)
        parse_odds_api(response.content, competition, batch, historical=at is not None)
        return batch

    def _credits(self, headers, batch: OddsBatch) -> Credits | None:
        """The ``x-requests-*`` headers as bounded integers; one out of range is a problem naming it, left out."""
        values = {}
        for key in ("last", "used", "remaining"):
            values[key], problem = header_int(headers, f"x-requests-{key}", MAX_CREDITS)
            if problem is not None:
                batch.problems.append(Problem(f"{self.name} {batch.endpoint}", problem))
        if values["remaining"] is not None:
            self.remaining = values["remaining"]
        return Credits(**values) if any(v is not None for v in values.values()) else None


def _error_text(exc: ServiceCallFailed) -> str:
    last = exc.exchanges[-1]
    if last.status is not None and last.text:
        try:
            body = orjson.loads(last.text)
        except orjson.JSONDecodeError:
            body = None
        if isinstance(body, dict) and body.get("message"):
            code = f" ({body['error_code']})" if body.get("error_code") else ""
            hint = " - check ODDS_API_KEY and the plan's credits" if last.status == 401 else ""
            return redact(f"HTTP {last.status}{code}: {str(body['message'])[:300]}{hint}")
    return str(exc)


def parse_odds_api(data: bytes, competition: Competition, batch: OddsBatch, *, historical: bool = False) -> None:
    """Fill ``batch`` from a live (list) or historical (``{timestamp, data}``) body; problems collected."""
    where = f"{batch.source} {batch.endpoint}"
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        batch.problems.append(Problem(where, f"not valid JSON: {exc}"))
        return
    if historical:
        if not isinstance(body, dict) or not isinstance(body.get("data"), list):
            batch.problems.append(Problem(where, "expected {timestamp, data: [...]} from the historical endpoint"))
            return
        try:
            batch.snapshot_at = utc_time(body.get("timestamp"), "timestamp")
        except ValueError as exc:
            batch.problems.append(Problem(where, str(exc)))
        body = body["data"]
    if not isinstance(body, list):
        batch.problems.append(Problem(where, f"expected a list of events, got {type(body).__name__}"))
        return
    for i, item in enumerate(body):
        try:
            batch.events.append(_event(item, competition))
        except (ValueError, TypeError, AttributeError) as exc:
            batch.problems.append(Problem(f"{where} [{i}]", str(exc)))


def _event(item: Any, competition: Competition) -> EventOdds:
    if not isinstance(item, dict):
        raise ValueError(f"expected an event object, got {item!r:.80}")
    home_name, away_name = item.get("home_team"), item.get("away_team")
    odds = EventOdds(team_id(competition, home_name, "home_team"), team_id(competition, away_name, "away_team"),
                     utc_time(item.get("commence_time"), "commence_time"), payload=item)
    sides = {home_name: "home", "Draw": "draw", away_name: "away"}
    for book in item.get("bookmakers") or []:
        for market in (book.get("markets") or []) if isinstance(book, dict) else []:
            if not isinstance(market, dict) or market.get("key") != "h2h":
                continue
            label = f"bookmaker {book.get('key')!r} h2h"
            try:
                odds.quotes.append(_quote(book, market, sides, label))
            except (ValueError, TypeError, KeyError) as exc:
                odds.problems.append(f"{label}: {exc}")
    return odds


def _quote(book: dict, market: dict, sides: dict, label: str) -> BookQuote:
    prices = {}
    for outcome in market.get("outcomes") or []:
        side = sides.get(outcome.get("name"))
        if side is None:
            raise ValueError(f"outcome {outcome.get('name')!r} is neither team nor Draw")
        prices[side] = OutcomePrice(outcome=side, odds=decimal_odds(outcome.get("price"), f"{side} price"),
                                    name=str(outcome.get("name")))
    if set(prices) != {"home", "draw", "away"}:
        raise ValueError(f"expected home, draw and away prices, got {sorted(prices)}")
    stamp = market.get("last_update") or book.get("last_update")
    return BookQuote(bookmaker=str(book.get("key")), market="h2h", prices=tuple(prices[s] for s in ("home", "draw", "away")),
                     last_update=utc_time(stamp, "last_update") if stamp else None)
