"""football-data.org API v4 as a :class:`~collector.sources.base.Source`.

``GET /v4/competitions/{code}/matches?season=YYYY`` with the ``X-Auth-Token`` header read
from ``FOOTBALL_DATA_API_KEY`` (never logged or recorded). The documented request throttling
is honoured: after a response whose ``X-Requests-Available-Minute`` is 0 the next request
waits ``X-RequestCounter-Reset`` seconds, and a 429 is retried after ``Retry-After`` or,
lacking it, ``X-RequestCounter-Reset`` (via :mod:`collector.http`).

Scores (docs.football-data.org/general/v4/overtime.html): ``score.regularTime`` is the
90-minute score when the match went beyond 90 minutes (``fullTime`` otherwise);
``extraTime`` and ``penalties`` count only the goals of those periods, so the cumulative
score after extra time is regularTime + extraTime. ``duration`` is REGULAR, EXTRA_TIME or
PENALTY_SHOOTOUT. Every status value is mapped (:data:`STATUS`).

Knockout match numbers: the API gives none, so :mod:`collector.sources.bracket` places each
knockout match in the slot its teams satisfy (``1E``, ``3A/B/C/D/F``, ``W74`` ...), from the
API's own group results; a knockout slot the API has not filled yet (team ``null``) is open.
"""

from __future__ import annotations

import asyncio
import math
import os
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import orjson
from pydantic import ValidationError

from collector.archive.reader import describe_validation_error
from collector.competitions import Definition
from collector.competitions.teams import resolve_team
from collector.datasource import run_blocking
from collector.errors import ConfigError, Problem, ProviderError, SourceError
from collector.http import Exchange, RetryPolicy, ServiceClient
from collector.records import Competition, Goal, Score
from collector.sources.base import MatchStatus, SourceBatch, SourceMatch
from collector.sources.bracket import assign_match_numbers
from collector.sources.legs import pair_legs

BASE_URL = "https://api.football-data.org"
API_KEY_ENV = "FOOTBALL_DATA_API_KEY"
STATUS = {
    "SCHEDULED": MatchStatus.SCHEDULED,
    "TIMED": MatchStatus.SCHEDULED,
    "IN_PLAY": MatchStatus.IN_PLAY,
    "PAUSED": MatchStatus.IN_PLAY,
    "EXTRA_TIME": MatchStatus.IN_PLAY,
    "PENALTY_SHOOTOUT": MatchStatus.IN_PLAY,
    "LIVE": MatchStatus.IN_PLAY,
    "FINISHED": MatchStatus.FINISHED,
    "AWARDED": MatchStatus.AWARDED,
    "SUSPENDED": MatchStatus.SUSPENDED,
    "POSTPONED": MatchStatus.POSTPONED,
    "CANCELLED": MatchStatus.CANCELLED,
}
STAGES = {
    "REGULAR_SEASON": "regular-season",
    "GROUP_STAGE": "group",
    "LAST_32": "round-of-32",
    "LAST_16": "round-of-16",
    "QUARTER_FINALS": "quarter-final",
    "SEMI_FINALS": "semi-final",
    "THIRD_PLACE": "third-place",
    "FINAL": "final",
}


class ThrottledClient(ServiceClient):
    """A ServiceClient that also waits out football-data.org's per-minute request counter."""

    async def request(self, method: str, path: str, **kwargs: Any):
        response, exchanges = await super().request(method, path, **kwargs)
        if response.headers.get("x-requests-available-minute", "").strip() == "0":
            await self._sleep(min(_counter_reset(response.headers.get("x-requestcounter-reset")), self.retry.max_delay))
        return response, exchanges

    def _delay(self, attempt: int, exchange: Exchange) -> float:
        if exchange.status == 429 and "retry-after" not in exchange.headers:
            return min(_counter_reset(exchange.headers.get("x-requestcounter-reset")), self.retry.max_delay)
        return super()._delay(attempt, exchange)


def _counter_reset(value: str | None) -> float:
    """Seconds until the per-minute counter resets; 60 when the header is absent or not a finite number."""
    try:
        seconds = float(value) if value else 60.0
    except ValueError:
        return 60.0
    return max(0.0, seconds) if math.isfinite(seconds) else 60.0


class FootballDataSource:
    name = "football-data"

    def __init__(self, definition: Definition, *, api_key: str | None = None, base_url: str = BASE_URL,
                 transport: httpx.AsyncBaseTransport | None = None, sleep=asyncio.sleep,
                 retry: RetryPolicy | None = None):
        self.definition = definition
        self.code = definition.source.football_data_code
        self.api_key = api_key if api_key is not None else os.environ.get(API_KEY_ENV, "").strip()
        self.base_url = base_url
        self.transport = transport
        self.sleep = sleep
        self.retry = retry or RetryPolicy(max_attempts=4, max_delay=65.0)

    def fetch(self, competition: Competition) -> SourceBatch:
        batch = SourceBatch(source=f"football-data:{self.code}", retrieved_at=datetime.now(UTC))
        try:
            payload = run_blocking(self._download(competition))
        except (ProviderError, ConfigError, SourceError) as exc:
            batch.problems.append(Problem(batch.source, str(exc)))
            return batch
        parse_matches(payload, competition, self.definition, batch)
        return batch

    async def _download(self, competition: Competition) -> dict[str, Any]:
        if not self.code:
            raise ConfigError(f"{self.definition.path}: [source] has no football_data_code")
        return await download_season(self.code, competition.edition[:4], api_key=self.api_key,
                                     base_url=self.base_url, transport=self.transport, sleep=self.sleep,
                                     retry=self.retry)


async def download_season(code: str, season: str, *, api_key: str, base_url: str = BASE_URL,
                          transport: httpx.AsyncBaseTransport | None = None, sleep=asyncio.sleep,
                          retry: RetryPolicy | None = None) -> dict[str, Any]:
    """``GET /v4/competitions/{code}/matches?season=`` (throttled); the payload, checked to hold a match list."""
    if not api_key:
        raise ConfigError(f"football-data.org needs an API key in the environment variable {API_KEY_ENV}")
    async with ThrottledClient("football-data", base_url, headers={"X-Auth-Token": api_key}, transport=transport,
                               sleep=sleep, retry=retry or RetryPolicy(max_attempts=4, max_delay=65.0)) as client:
        response, _ = await client.request("GET", f"/v4/competitions/{code}/matches", params={"season": season})
    try:
        payload = orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        raise ProviderError(f"football-data.org: response body is not JSON ({exc})") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("matches"), list):
        raise ProviderError("football-data.org: response has no 'matches' list")
    return payload


def parse_matches(payload: dict[str, Any], competition: Competition, definition: Definition, batch: SourceBatch) -> None:
    """Append a SourceMatch per usable match to ``batch``, and a Problem per unusable one."""
    tz = ZoneInfo(competition.time_zone)
    for index, raw in enumerate(payload["matches"]):
        label = _label(raw)
        try:
            batch.matches.append(parse_match(raw, competition, tz, batch.source, label))
        except (SourceError, ValueError, TypeError, KeyError) as exc:
            message = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            if isinstance(exc, ValidationError):  # a Score or Goal the contract refuses: one line
                message = describe_validation_error(exc)
            batch.problems.append(Problem(f"{batch.source} matches[{index}] {label}", message))
    batch.matches = assign_match_numbers(batch.matches, competition)
    batch.matches, legs = pair_legs(batch.matches, competition)  # two-legged ties: marked, checked, decided
    batch.problems += [Problem(f"{batch.source} {match.label}", message) for match, message in legs]


def _label(raw: Any) -> str:
    if not isinstance(raw, dict):
        return "(not an object)"
    home, away = ((raw.get(k) or {}).get("name") if isinstance(raw.get(k), dict) else None for k in ("homeTeam", "awayTeam"))
    return f"id {_short(raw.get('id'))} {_short(raw.get('utcDate'))} {_short(home)} v {_short(away)}"


def _short(value: Any, limit: int = 60) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _node(parent: dict[str, Any], key: str, where: str = "") -> dict[str, Any]:
    """``parent[key]`` as an object (absent or null: empty); anything else is a ValueError naming the field."""
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"field {where}{key}: expected an object, got {_short(repr(value))}")
    return value


def _name(node: dict[str, Any], where: str) -> str | None:
    name = node.get("name")
    if name is not None and not isinstance(name, str):
        raise ValueError(f"field {where}.name: expected a string, got {_short(repr(name))}")
    return name


def _utc(value: Any) -> datetime:
    if not isinstance(value, str):
        raise ValueError(f"field utcDate: missing or not a string ({value!r})")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"field utcDate: unparseable time {value!r}") from None
    if parsed.tzinfo is None:
        raise ValueError(f"field utcDate: {value!r} has no UTC offset")
    return parsed.astimezone(UTC)


def _score(node: Any, where: str) -> Score | None:
    if node is None or (isinstance(node, dict) and node.get("home") is None and node.get("away") is None):
        return None
    if not isinstance(node, dict) or not all(isinstance(node.get(k), int) and node[k] >= 0 for k in ("home", "away")):
        raise ValueError(f"field score.{where}: expected {{home, away}} goal counts, got {node!r}")
    return Score(home=node["home"], away=node["away"])


def _add(a: Score, b: Score | None) -> Score:
    return a if b is None else Score(home=a.home + b.home, away=a.away + b.away)


def parse_scores(score: dict[str, Any]) -> dict[str, Score | None]:
    """90-minute, half-time, cumulative extra-time and shoot-out scores from a v4 ``score`` node."""
    duration = score.get("duration") or "REGULAR"
    if duration not in ("REGULAR", "EXTRA_TIME", "PENALTY_SHOOTOUT"):
        raise ValueError(f"field score.duration: unknown value {duration!r}")
    regular = _score(score.get("regularTime"), "regularTime")
    full = _score(score.get("fullTime"), "fullTime")
    ninety = regular if regular is not None else (full if duration == "REGULAR" else None)
    if ninety is None:
        raise ValueError(f"field score: no 90-minute score (duration {duration}, regularTime missing)")
    extra = penalties = None
    if duration != "REGULAR":
        extra = _add(ninety, _score(score.get("extraTime"), "extraTime"))
    if duration == "PENALTY_SHOOTOUT":
        penalties = _score(score.get("penalties"), "penalties")
        if penalties is None:
            raise ValueError("field score.penalties: missing for a PENALTY_SHOOTOUT match")
    return {"score_90": ninety, "score_half_time": _score(score.get("halfTime"), "halfTime"),
            "score_extra_time": extra, "score_penalties": penalties}


def _goals(raw: dict[str, Any], competition: Competition, source: str, label: str) -> tuple[Goal, ...] | None:
    if not isinstance(raw.get("goals"), list):
        return None
    goals = []
    for i, g in enumerate(raw["goals"]):
        if not isinstance(g, dict):
            raise ValueError(f"field goals[{i}]: expected an object, got {_short(repr(g))}")
        team_name = _name(_node(g, "team", f"goals[{i}]."), f"goals[{i}].team") or ""
        team = resolve_team(competition, team_name, source=source, match=label)
        minute = g.get("minute")
        scorer = _name(_node(g, "scorer", f"goals[{i}]."), f"goals[{i}].scorer")
        goals.append(Goal(team=team, scorer=scorer, minute=minute,
                          stoppage=g.get("injuryTime") or None, penalty=g.get("type") == "PENALTY",
                          own_goal=g.get("type") == "OWN",
                          period="extra_time" if isinstance(minute, int) and minute > 90 else "regulation"))
    return tuple(goals)


def _team(raw: dict[str, Any], side: str, competition: Competition, knockout: bool, source: str,
          label: str) -> str | None:
    """The team id; None for a knockout slot the API has not filled yet (``{"id": null, ...}``)."""
    name = _name(_node(raw, side), side)
    if name is None and knockout:
        return None
    return resolve_team(competition, name or "", source=source, match=label)


def parse_match(raw: Any, competition: Competition, tz: ZoneInfo, source: str, label: str) -> SourceMatch:
    if not isinstance(raw, dict):
        raise ValueError("a match must be an object")
    if not isinstance(raw.get("status"), str) or raw["status"] not in STATUS:
        raise ValueError(f"field status: unknown value {_short(repr(raw.get('status')))}")
    status = STATUS[raw["status"]]
    stage = STAGES.get(raw["stage"]) if isinstance(raw.get("stage"), str) else None
    if stage is None or stage not in {s.id for s in competition.stages}:
        raise ValueError(f"field stage: {_short(repr(raw.get('stage')))} maps to no stage of {competition.id}")
    kickoff = _utc(raw.get("utcDate"))
    knockout = competition.stage(stage).knockout
    home = _team(raw, "homeTeam", competition, knockout, source, label)
    away = _team(raw, "awayTeam", competition, knockout, source, label)
    scored = status.has_result
    group = raw.get("group")
    return SourceMatch(
        label=label, stage=stage, round_name=str(raw.get("stage")), kickoff_date=kickoff.astimezone(tz).date(),
        kickoff_source=raw["utcDate"], kickoff_utc=kickoff, home_team=home, away_team=away, status=status,
        payload=raw, knockout=knockout,
        group=group.removeprefix("GROUP_").replace("Group ", "") if isinstance(group, str) else None,
        matchday=raw.get("matchday") if not knockout else None, venue=raw.get("venue") or None,
        goals=_goals(raw, competition, source, label) if scored else None,
        **(parse_scores(_node(raw, "score")) if scored else {}),
    )
