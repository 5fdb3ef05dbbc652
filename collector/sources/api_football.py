"""API-Football v3 as a match-report source (:class:`~collector.sources.report_source.ReportSource`).

``GET /fixtures?league=L&season=S`` finds the provider's fixture id of each registered event
(by the two teams, resolved through the competition's team names, and the date); then, for
each finished event, ``/fixtures/lineups``, ``/fixtures/events`` and ``/fixtures/statistics``
with ``?fixture=ID`` (:mod:`collector.sources.api_football_parse`). The key is read from
``API_FOOTBALL_KEY`` and sent as the ``x-apisports-key`` header (scrubbed from every error
text and record by :mod:`collector.http`).

Limits (api-football.com, "How ratelimit works"): every response carries the daily quota in
``x-ratelimit-requests-remaining`` and the per-minute one in ``X-RateLimit-Remaining``. When the
daily count reaches 0 (or a body says ``errors.requests``), no further request is made in this
run: the matches not yet read are a problem ("daily request limit reached"), retried by a
later run. A 429 (the per-minute limit, ``errors.rateLimit``) is retried after a minute at most.
API-Football answers errors with HTTP 200 and a non-empty ``errors`` object; those are
failures too, never parsed as data.
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from typing import Any

import httpx
import orjson

from collector.competitions.teams import find_team
from collector.datasource import run_blocking
from collector.errors import ConfigError, Problem, ProviderError, SourceError
from collector.http import Exchange, RetryPolicy, ServiceClient, header_int
from collector.records import Competition, Event
from collector.sources.api_football_parse import (
    parse_events,
    parse_lineups,
    parse_statistics,
)
from collector.sources.report_source import ReportBatch, ReportParts

BASE_URL = "https://v3.football.api-sports.io"
API_KEY_ENV = "API_FOOTBALL_KEY"
FINISHED = {"FT", "AET", "PEN", "AWD", "WO"}
ENDPOINTS = (("lineups", parse_lineups), ("events", parse_events), ("statistics", parse_statistics))


class DailyLimitReached(ProviderError):
    """The provider's daily request quota is used up: no request until a later run."""


def body_error(response: httpx.Response) -> str | None:
    """The text of a 200 answer's non-empty ``errors`` (API-Football's way of failing)."""
    try:
        payload = orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        return f"response body is not JSON ({exc})"
    errors = payload.get("errors") if isinstance(payload, dict) else None
    if errors:
        items = errors.items() if isinstance(errors, dict) else enumerate(errors)
        return "; ".join(f"{k}: {v}" for k, v in items)
    return None


class QuotaClient(ServiceClient):
    """A ServiceClient that stops before a request the daily quota no longer allows."""

    remaining: int | None = None

    async def get(self, path: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.remaining is not None and self.remaining <= 0:
            raise DailyLimitReached(f"{self.service}: daily request limit reached (x-ratelimit-requests-remaining 0)")
        try:
            response, exchanges = await self.request("GET", path, params=params, body_error=body_error,
                                                     retry_body_errors=False, retryable=_retryable)
        except ProviderError as exc:
            if "requests:" in str(exc):
                self.remaining = 0
                raise DailyLimitReached(str(exc)) from None
            raise
        self._count(response.headers)
        return orjson.loads(response.content)

    def _count(self, headers) -> None:
        """The daily requests left, from ``x-ratelimit-requests-remaining`` (a value out of range is ignored)."""
        remaining, _ = header_int(headers, "x-ratelimit-requests-remaining", 10**9)
        self.remaining = remaining if remaining is not None else self.remaining

    def _delay(self, attempt: int, exchange: Exchange) -> float:
        if exchange.status == 429:
            return min(60.0, self.retry.max_delay)
        return super()._delay(attempt, exchange)


def _retryable(exchange: Exchange) -> bool | None:
    """A body error (bad key, daily quota, bad parameter) is never retried."""
    return False if exchange.error_kind == "body" else None


class APIFootballSource:
    name = "api-football"
    fields = ("home_lineup", "away_lineup", "home_formation", "away_formation", "goals", "assists", "cards",
              "substitutions", "penalties", "statistics")

    def __init__(self, league: int, season: int, *, api_key: str | None = None, base_url: str = BASE_URL,
                 transport: httpx.AsyncBaseTransport | None = None, sleep=asyncio.sleep,
                 retry: RetryPolicy | None = None):
        self.league, self.season = league, season
        self.api_key = api_key if api_key is not None else os.environ.get(API_KEY_ENV, "").strip()
        self.base_url, self.transport, self.sleep = base_url, transport, sleep
        self.retry = retry or RetryPolicy(max_attempts=3, max_delay=60.0)
        self.remaining: int | None = None

    def fetch_reports(self, competition: Competition, events: list[Event]) -> ReportBatch:
        batch = ReportBatch(source=f"api-football:league={self.league}:season={self.season}")
        if not self.api_key:
            batch.problems.append(Problem(batch.source, f"API-Football needs a key in the environment variable "
                                                        f"{API_KEY_ENV}"))
            return batch
        try:
            run_blocking(self._read(competition, events, batch))
        except (ProviderError, ConfigError) as exc:
            batch.problems.append(Problem(batch.source, str(exc)))
        return batch

    async def _read(self, competition: Competition, events: list[Event], batch: ReportBatch) -> None:
        async with QuotaClient("api-football", self.base_url, headers={"x-apisports-key": self.api_key},
                               transport=self.transport, sleep=self.sleep, retry=self.retry) as client:
            fixtures = await client.get("/fixtures", {"league": self.league, "season": self.season})
            ids, problems = fixture_ids(fixtures, competition, events)
            batch.problems += [Problem(batch.source, p) for p in problems]
            pending = [e for e in events if e.id in ids]
            for n, event in enumerate(pending):
                try:
                    batch.parts[event.id] = await self._match(client, competition, event, ids[event.id])
                except DailyLimitReached as exc:
                    left = ", ".join(e.id for e in pending[n:])
                    batch.problems.append(Problem(batch.source, f"{exc}; not read yet: {left}"))
                    break
                except (ProviderError, SourceError, ValueError, TypeError) as exc:
                    batch.problems.append(Problem(f"{batch.source} fixture {ids[event.id]} ({event.id})", str(exc)))
            self.remaining = client.remaining

    async def _match(self, client: QuotaClient, competition: Competition, event: Event, fixture: int) -> ReportParts:
        parts = ReportParts(source="api-football", retrieved_at=datetime.now(UTC))
        for name, parse in ENDPOINTS:
            payload = await client.get(f"/fixtures/{name}", {"fixture": fixture})
            parts.payload[name] = payload
            parts.fields.update(parse(payload, event, competition))
        return parts


def fixture_ids(payload: Any, competition: Competition, events: list[Event]) -> tuple[dict[str, int], list[str]]:
    """Event id -> API-Football fixture id, for finished fixtures whose two teams and date match an event."""
    by_teams = {(e.home_team, e.away_team, (e.kickoff_utc.date() if e.kickoff_utc else e.kickoff_date).isoformat()): e.id
                for e in events}
    out, problems = {}, []
    for i, raw in enumerate(payload.get("response") or [] if isinstance(payload, dict) else []):
        try:
            fixture, teams = raw["fixture"], raw["teams"]
            status = (fixture.get("status") or {}).get("short")
            home, away = (find_team(competition, teams[s]["name"]) for s in ("home", "away"))
            day = datetime.fromisoformat(str(fixture["date"])).astimezone(UTC).date().isoformat()
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            problems.append(f"fixtures.response[{i}]: missing or bad field {exc}")
            continue
        event_id = by_teams.get((home, away, day))
        if event_id is not None and status in FINISHED and isinstance(fixture.get("id"), int):
            out[event_id] = fixture["id"]
    return out, problems
