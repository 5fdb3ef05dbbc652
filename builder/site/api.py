"""The versioned JSON API of the site: ``api/v1/leaderboard.json``, ``api/v1/matches/index.json`` and
``api/v1/matches/{competition}/{event}.json``, with their JSON Schemas at ``api/v1/schemas/``.

The documents are made of what the build already computed (the leaderboard rows and each scored
forecast's measures); the models below are the published contract of version 1: a field may be
added in a minor change, none renamed or removed without a ``v2``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

API = "api/v1"
VERSION = "1"


class _Doc(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LeaderboardEntry(_Doc):
    forecaster: str
    forecaster_type: str = Field(description="llm, baseline, market or endpoint")
    access: str
    strategy: str
    horizon: str
    clock: str = Field(description="live, or replay (a simulated clock: no prospective result)")
    view: str = Field(description="all: every scored forecast; matched: matches every compared forecaster answered")
    n: int = Field(description="scored forecasts the means are over")
    coverage: float | None
    ranked: bool
    measures: dict[str, float | None] = Field(description="mean of each per-forecast measure (brier, log_loss, rps, ...)")


class Leaderboard(_Doc):
    api_version: Literal["1"] = VERSION
    commit: str = Field(description="the archive commit the site was built from")
    rows: list[LeaderboardEntry]


class MatchForecastEntry(_Doc):
    forecaster: str
    forecaster_type: str
    access: str
    strategy: str
    horizon: str
    sample: int
    clock: str
    status: str = Field(description="valid, normalized, repaired, ..., invalid_*, api_error, timeout, missed")
    requested_at: datetime | None
    p_home: float | None
    p_draw: float | None
    p_away: float | None
    brier: float | None = Field(description="the forecast's Brier score once the match is scored, else null")


class MatchOutcome(_Doc):
    status: str
    home_90: int | None
    away_90: int | None
    advancing_team: str | None


class Match(_Doc):
    api_version: Literal["1"] = VERSION
    competition_id: str
    event_id: str
    stage: str
    group: str | None
    home_team: str
    away_team: str
    kickoff_utc: datetime | None
    outcome: MatchOutcome | None
    forecasts: list[MatchForecastEntry]


class MatchLink(_Doc):
    competition_id: str
    event_id: str
    href: str = Field(description="the match document, relative to api/v1/matches/")
    finished: bool


class MatchIndex(_Doc):
    api_version: Literal["1"] = VERSION
    commit: str
    matches: list[MatchLink]


SCHEMAS = {"leaderboard": Leaderboard, "match": Match, "match-index": MatchIndex}


def _json(model: BaseModel) -> bytes:
    return orjson.dumps(model.model_dump(mode="json"), option=orjson.OPT_INDENT_2)


def leaderboard(scores, commit: str) -> Leaderboard:
    rows = []
    for view, board in (("all", scores.leaderboard), ("matched", scores.matched)):
        for r in board:
            rows.append(LeaderboardEntry(
                forecaster=r.forecaster, forecaster_type=r.forecaster_type, access=r.access, strategy=r.strategy,
                horizon=r.horizon, clock=r.clock, view=r.view or view, n=r.n, coverage=r.coverage, ranked=r.ranked,
                measures={k: (float(v) if v is not None and v == v else None) for k, v in r.measures.items()}))
    return Leaderboard(commit=commit, rows=rows)


def _match(archive, key, records: list, briers: dict) -> Match:
    event, outcome = archive.events[key], archive.outcomes.get(key)
    forecasts = []
    for f in sorted(records, key=lambda f: f.key()):
        p = f.payload if f.payload is not None and f.payload.target == "match" else None
        forecasts.append(MatchForecastEntry(
            forecaster=f.forecaster, forecaster_type=f.forecaster_type.value, access=f.access.value,
            strategy=f.strategy.value, horizon=f.horizon.value, sample=f.sample, clock=f.clock.value,
            status=f.status.value, requested_at=f.requested_at, p_home=p.home_win_90 if p else None,
            p_draw=p.draw_90 if p else None, p_away=p.away_win_90 if p else None, brier=briers.get(f.key())))
    result = None if outcome is None else MatchOutcome(
        status=outcome.status.value, home_90=outcome.score_90.home if outcome.score_90 else None,
        away_90=outcome.score_90.away if outcome.score_90 else None, advancing_team=outcome.advancing_team)
    return Match(competition_id=event.competition_id, event_id=event.id, stage=event.stage, group=event.group,
                 home_team=event.home_team, away_team=event.away_team, kickoff_utc=event.kickoff_utc,
                 outcome=result, forecasts=forecasts)


def api_files(archive, scores, commit: str) -> dict[str, bytes]:
    """Every API document and schema, by site path."""
    briers = {row.key: float(row.measures["brier"]) for row in scores.forecasts
              if row.key is not None and row.measures.get("brier") is not None}
    files = {f"{API}/leaderboard.json": _json(leaderboard(scores, commit))}
    by_event: dict[tuple[str, str], list] = {}
    for f in archive.forecasts:
        if f.target_kind == "match":
            by_event.setdefault((f.competition_id, f.target_id), []).append(f)
    links = []
    for key in sorted(archive.events):
        files[f"{API}/matches/{key[0]}/{key[1]}.json"] = _json(_match(archive, key, by_event.get(key, []), briers))
        outcome = archive.outcomes.get(key)
        links.append(MatchLink(competition_id=key[0], event_id=key[1], href=f"{key[0]}/{key[1]}.json",
                               finished=bool(outcome is not None and outcome.status.has_result)))
    files[f"{API}/matches/index.json"] = _json(MatchIndex(commit=commit, matches=links))
    for name, model in SCHEMAS.items():
        files[f"{API}/schemas/{name}.schema.json"] = orjson.dumps(model.model_json_schema(), option=orjson.OPT_INDENT_2)
    return files
