"""A quick offline backtest: every finished match of a competition, forecast at fixed leads before kickoff.

This is not the replay (which drives the real scheduler and writes an archive); it builds
the tasks directly from the source file so tuning, tests and benchmarks can score baselines
in seconds. Horizons: ``t_minus_24h`` and ``t_minus_2h`` before kickoff, and
``stage_opening`` = 48 hours before the first kickoff of the match's stage (or league
matchday), but never before the end of the previous stage (knockout pairings are only known
then). A match with a date but no time is forecast as if it kicked off at local midnight. ``history`` holds the competition's matches that ended (kickoff + 2.5 h) before the
request time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from collector.competitions import load_competition, load_definition
from collector.competitions.kickoffs import day_start_utc
from collector.config import OFFSETS
from collector.datasource import DataSource
from collector.fixtures.knowable import finished_at
from collector.forecasters.tasks import ForecastTask, KnownResult
from collector.records import (
    Access,
    Clock,
    Competition,
    Event,
    Horizon,
    Outcome,
    OutcomeStatus,
    ResolutionRule,
    Strategy,
)
from collector.sources.base import SourceMatch
from collector.sources.openfootball import OpenfootballSource


@dataclass(frozen=True)
class Played:
    event: Event
    outcome: Outcome
    ends: datetime  # when its result became knowable (:func:`collector.fixtures.knowable.finished_at`)


def _records(match: SourceMatch, competition: Competition, retrieved: datetime, ends: datetime) -> Played:
    common = dict(clock=Clock.REPLAY, recorded_at=retrieved, competition_id=competition.id,
                  source="openfootball", source_retrieved_at=retrieved)
    event = Event(
        id=match.event_id, stage=match.stage, group=match.group, matchday=match.matchday,
        round_name=match.round_name, match_number=match.match_number, kickoff_utc=match.kickoff_utc,
        kickoff_date=match.kickoff_date, kickoff_source=match.kickoff_source, venue=match.venue,
        home_team=match.home_team, away_team=match.away_team, knockout=match.knockout,
        resolution=ResolutionRule.EXTRA_TIME_AND_PENALTIES if match.knockout else ResolutionRule.REGULATION,
        **common,
    )
    outcome = Outcome(
        event_id=event.id, status=OutcomeStatus.FINISHED, score_90=match.score_90,
        score_extra_time=match.score_extra_time, score_penalties=match.score_penalties,
        source_payload=match.payload, **common,
    )
    if event.knockout:
        from .simulate import advancing_team

        outcome = outcome.model_copy(update={"advancing_team": advancing_team(event, outcome)})
    return Played(event, outcome, ends)


def played_matches(competition_id: str, data_dir) -> tuple[Competition, list[Played]]:
    """The competition and its finished matches with known teams and kickoff, in kickoff order."""
    retrieved = datetime(2026, 7, 31, tzinfo=UTC)
    competition = load_competition(competition_id, retrieved, Clock.REPLAY)
    batch = OpenfootballSource(load_definition(competition_id), DataSource(data_dir), retrieved_at=retrieved).fetch(
        competition
    )
    tz = ZoneInfo(competition.time_zone)
    played = [
        _records(m if m.kickoff_utc is not None else replace(m, kickoff_utc=_day_start(m, tz)), competition, retrieved,
                 finished_at(m, tz))  # a match without a time is knowable from the end of its local day
        for m in batch.matches
        if m.score_90 is not None and m.event_id and m.home_team and m.away_team and finished_at(m, tz) is not None
    ]
    played.sort(key=lambda p: (p.event.kickoff_utc, p.event.id))
    return competition, played


def _day_start(match: SourceMatch, tz: ZoneInfo) -> datetime:
    """A match with a date but no time (World Cup 1990): forecast as if it kicked off at local midnight."""
    return day_start_utc(match.kickoff_date, tz)


def _stage_key(event: Event) -> tuple:
    return (event.stage, event.matchday)


def request_times(played: list[Played]) -> dict[tuple[str, Horizon], datetime]:
    """(event id, horizon) -> request time for every match and horizon."""
    first: dict[tuple, datetime] = {}
    for p in played:
        first.setdefault(_stage_key(p.event), p.event.kickoff_utc)
    times = {}
    for p in played:
        start = first[_stage_key(p.event)]
        earlier = [q.ends for q in played if q.event.kickoff_utc < start]
        opening = max([start - timedelta(hours=48), *earlier])
        times[(p.event.id, Horizon.STAGE_OPENING)] = min(opening, p.event.kickoff_utc - timedelta(minutes=30))
        for horizon, lead in OFFSETS.items():
            times[(p.event.id, horizon)] = p.event.kickoff_utc - lead
    return times


def tasks(competition: Competition, played: list[Played], horizons=tuple(Horizon)[:3]) -> Iterator[ForecastTask]:
    """One task per match and horizon, with the competition's results known at that time."""
    times = request_times(played)
    for p in played:
        for horizon in horizons:
            now = times[(p.event.id, horizon)]
            history = tuple(KnownResult(q.event, q.outcome) for q in played if q.ends < now)
            yield ForecastTask(
                competition=competition, access=Access.CLOSED_BOOK, strategy=Strategy.PROBABILISTIC_FORECAST,
                horizon=horizon, sample=0, scheduled_at=now, now=now, deadline=p.event.kickoff_utc,
                clock=Clock.REPLAY, event=p.event, history=history,
            )
