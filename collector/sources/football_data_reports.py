"""football-data.org v4 as a match-report source: the match resource with its unfolded parts.

``GET /v4/matches/{id}`` with the request headers ``X-Unfold-Lineups``, ``X-Unfold-Bookings``,
``X-Unfold-Subs`` and ``X-Unfold-Goals`` set to ``true`` adds, on plans that have them, per
team ``formation``, ``lineup`` and ``bench`` (players with ``id``, ``name``, ``position``,
``shirtNumber``) and per match ``goals`` (``minute``, ``injuryTime``, ``type`` REGULAR, OWN
or PENALTY, ``team``, ``scorer``, ``assist``), ``bookings`` (``minute``, ``team``,
``player``, ``card`` YELLOW, YELLOW_RED or RED) and ``substitutions`` (``minute``, ``team``,
``playerOut``, ``playerIn``). A part the plan leaves out is absent from the response and so
no data here; an empty list under a requested header is "nothing happened". The match ids
come from ``/v4/competitions/{code}/matches?season=`` (:func:`football_data.download_season`);
the key, throttling and retries are the fixture source's (:class:`football_data.ThrottledClient`).
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from typing import Any

import httpx
import orjson

from collector.competitions import Definition
from collector.competitions.teams import find_team
from collector.datasource import run_blocking
from collector.errors import ConfigError, Problem, ProviderError, SourceError
from collector.http import RetryPolicy
from collector.records import Competition, Event
from collector.records.match_report import (
    ReportedAssist,
    ReportedCard,
    ReportedGoal,
    ReportedLineup,
    ReportedPlayer,
    ReportedSubstitution,
)
from collector.sources.football_data import (
    API_KEY_ENV,
    BASE_URL,
    ThrottledClient,
    download_season,
)
from collector.sources.report_source import ReportBatch, ReportParts

UNFOLD = {"X-Unfold-Lineups": "true", "X-Unfold-Bookings": "true", "X-Unfold-Subs": "true", "X-Unfold-Goals": "true"}
CARDS = {"YELLOW": "yellow", "YELLOW_RED": "second_yellow", "RED": "red"}


def position(text: Any) -> str | None:
    """GK/DF/MF/FW from a v4 position ("Goalkeeper", "Centre-Back", "Defence", "Left Winger" ...)."""
    t = str(text or "").lower()
    for keys, pos in ((("goalkeeper",), "GK"), (("back", "defence", "defender"), "DF"),
                      (("midfield",), "MF"), (("wing", "forward", "offence", "striker", "attack"), "FW")):
        if any(k in t for k in keys):
            return pos
    return None


def _name(node: Any, where: str) -> str:
    name = node.get("name") if isinstance(node, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"field {where}.name: missing")
    return name.strip()


def _side(node: Any, event: Event, competition: Competition, where: str) -> str:
    team = find_team(competition, _name(node, where))
    if team not in (event.home_team, event.away_team):
        raise ValueError(f"field {where}.name: {node.get('name')!r} plays in neither side of {event.id}")
    return "home" if team == event.home_team else "away"


def _minute(raw: dict[str, Any], where: str) -> int:
    minute = raw.get("minute")
    if not isinstance(minute, int) or isinstance(minute, bool) or not 0 <= minute <= 130:
        raise ValueError(f"field {where}.minute: expected a minute, got {minute!r}")
    return minute


def parse_match_parts(raw: dict[str, Any], event: Event, competition: Competition) -> dict[str, Any]:
    """The report fields an unfolded v4 match resource holds."""
    out: dict[str, Any] = {}
    for side, key in (("home", "homeTeam"), ("away", "awayTeam")):
        team = raw.get(key) if isinstance(raw.get(key), dict) else {}
        if isinstance(team.get("lineup"), list) and team["lineup"]:
            out[f"{side}_lineup"] = ReportedLineup(starting=tuple(
                ReportedPlayer(name=_name(p, f"{key}.lineup[{i}]"), position=position(p.get("position")),
                               source_id=None if p.get("id") is None else str(p["id"]))
                for i, p in enumerate(team["lineup"])))
        if isinstance(team.get("formation"), str):
            out[f"{side}_formation"] = team["formation"]
    if isinstance(raw.get("goals"), list):
        goals, assists = [], []
        for i, g in enumerate(raw["goals"]):
            where, credited = f"goals[{i}]", _side(g.get("team"), event, competition, f"goals[{i}].team")
            own = g.get("type") == "OWN"
            goals.append(ReportedGoal(side=("away" if credited == "home" else "home") if own else credited,
                                      player=_name(g.get("scorer"), f"{where}.scorer"), minute=_minute(g, where),
                                      stoppage=g.get("injuryTime") or None, penalty=g.get("type") == "PENALTY",
                                      own_goal=own))
            if isinstance(g.get("assist"), dict) and g["assist"].get("name"):
                assists.append(ReportedAssist(side=credited, player=_name(g["assist"], f"{where}.assist"),
                                              minute=g["minute"]))
        out["goals"], out["assists"] = tuple(goals), tuple(assists)
    if isinstance(raw.get("bookings"), list):
        cards = []
        for i, b in enumerate(raw["bookings"]):
            if b.get("card") not in CARDS:
                raise ValueError(f"field bookings[{i}].card: unknown value {b.get('card')!r}")
            cards.append(ReportedCard(side=_side(b.get("team"), event, competition, f"bookings[{i}].team"),
                                      player=_name(b.get("player"), f"bookings[{i}].player"),
                                      minute=_minute(b, f"bookings[{i}]"), colour=CARDS[b["card"]]))
        out["cards"] = tuple(cards)
    if isinstance(raw.get("substitutions"), list):
        out["substitutions"] = tuple(
            ReportedSubstitution(side=_side(s.get("team"), event, competition, f"substitutions[{i}].team"),
                                 player_on=_name(s.get("playerIn"), f"substitutions[{i}].playerIn"),
                                 player_off=_name(s.get("playerOut"), f"substitutions[{i}].playerOut"),
                                 minute=_minute(s, f"substitutions[{i}]"))
            for i, s in enumerate(raw["substitutions"]))
    return out


def match_ids(season: dict[str, Any], competition: Competition, events: list[Event]) -> dict[str, int]:
    """Event id -> v4 match id, by the two teams and the UTC date of finished matches."""
    wanted = {(e.home_team, e.away_team, (e.kickoff_utc or datetime.min.replace(tzinfo=UTC)).date()): e.id
              for e in events}
    out = {}
    for raw in season.get("matches") or []:
        try:
            home = find_team(competition, raw["homeTeam"]["name"])
            away = find_team(competition, raw["awayTeam"]["name"])
            day = datetime.fromisoformat(raw["utcDate"].replace("Z", "+00:00")).astimezone(UTC).date()
        except (KeyError, TypeError, AttributeError, ValueError):
            continue  # the fixture source reports unusable matches; here they are simply not asked for
        event_id = wanted.get((home, away, day))
        if event_id is not None and raw.get("status") in ("FINISHED", "AWARDED") and isinstance(raw.get("id"), int):
            out[event_id] = raw["id"]
    return out


class FootballDataReportSource:
    name = "football-data"
    fields = ("home_lineup", "away_lineup", "home_formation", "away_formation", "goals", "assists", "cards",
              "substitutions")

    def __init__(self, definition: Definition, *, api_key: str | None = None, base_url: str = BASE_URL,
                 transport: httpx.AsyncBaseTransport | None = None, sleep=asyncio.sleep,
                 retry: RetryPolicy | None = None):
        self.code = definition.source.football_data_code
        self.api_key = api_key if api_key is not None else os.environ.get(API_KEY_ENV, "").strip()
        self.base_url, self.transport, self.sleep = base_url, transport, sleep
        self.retry = retry or RetryPolicy(max_attempts=4, max_delay=65.0)

    def fetch_reports(self, competition: Competition, events: list[Event]) -> ReportBatch:
        batch = ReportBatch(source=f"football-data:{self.code}")
        try:
            run_blocking(self._read(competition, events, batch))
        except (ProviderError, ConfigError, SourceError) as exc:
            batch.problems.append(Problem(batch.source, str(exc)))
        return batch

    async def _read(self, competition: Competition, events: list[Event], batch: ReportBatch) -> None:
        season = await download_season(self.code or "", competition.edition[:4], api_key=self.api_key,
                                       base_url=self.base_url, transport=self.transport, sleep=self.sleep,
                                       retry=self.retry)
        ids = match_ids(season, competition, events)
        async with ThrottledClient("football-data", self.base_url, headers={"X-Auth-Token": self.api_key, **UNFOLD},
                                   transport=self.transport, sleep=self.sleep, retry=self.retry) as client:
            for event in events:
                if event.id not in ids:
                    continue
                where = f"{batch.source} match {ids[event.id]} ({event.id})"
                try:
                    response, _ = await client.request("GET", f"/v4/matches/{ids[event.id]}")
                    raw = orjson.loads(response.content)
                    fields = parse_match_parts(raw, event, competition)
                except orjson.JSONDecodeError as exc:
                    batch.problems.append(Problem(where, f"response body is not JSON ({exc})"))
                    continue
                except (ProviderError, SourceError, ValueError, TypeError, AttributeError) as exc:
                    batch.problems.append(Problem(where, str(exc)))
                    continue
                batch.parts[event.id] = ReportParts(source="football-data.org", retrieved_at=datetime.now(UTC),
                                                    fields=fields, payload={"match": raw})
