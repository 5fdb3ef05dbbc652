"""What every built-in baseline shares: the match view, venue edge, and the forecast record it becomes.

A baseline fits a model on what was knowable before ``task.now`` (cached per request date)
and answers a :class:`MatchView` for any pairing; :func:`match_payload` turns the view into
the full LLM-schema :class:`MatchForecast`, and :func:`forecast_record` wraps it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from collector.forecasters.tasks import ForecastTask
from collector.records import (
    Access,
    Competition,
    CompetitionFormat,
    Event,
    Forecast,
    ForecasterType,
    ForecastStatus,
    MatchForecast,
    Score,
    ScoreProbability,
    Strategy,
)

from .scoregrid import expected_goals, knockout_odds, outcome_probabilities, top_scores

CONDITIONS = ((Access.CLOSED_BOOK, Strategy.PROBABILISTIC_FORECAST),)

def venue_edge(competition: Competition, home: str, away: str, venue: str | None) -> int:
    """+1 when the home side plays at home, -1 when the away side does, 0 on neutral ground.

    Leagues: the home side always. Tournaments, from the definition (never a competition id):
    a venue named in ``venue_countries`` is in that host's country; without per-venue data a
    host nation (``host_nations``) plays at home wherever it plays.
    """
    if competition.format is CompetitionFormat.LEAGUE:
        return 1
    if competition.venue_countries:
        country = next((team for prefix, team in competition.venue_countries.items()
                        if venue is not None and venue.startswith(prefix)), None)
        hosts: tuple[str, ...] = (country,) if country else ()
    else:
        hosts = competition.host_nations
    for side, team in ((1, home), (-1, away)):
        if team in hosts:
            return side
    return 0


@dataclass(frozen=True)
class MatchView:
    """A baseline's view of one match: a 90-minute score grid, the rates behind it, optional 1X2 override."""

    grid: np.ndarray
    rate_home: float
    rate_away: float
    probs_90: tuple[float, float, float] | None = None  # None: taken from the grid
    reason: str = ""
    inputs: dict[str, Any] = field(default_factory=dict)

    def outcome(self) -> tuple[float, float, float]:
        return self.probs_90 if self.probs_90 is not None else outcome_probabilities(self.grid)


def _normalised(probs: tuple[float, float, float]) -> tuple[float, float, float]:
    arr = np.clip(np.asarray(probs, dtype=float), 0.0, 1.0)
    arr = arr / arr.sum()
    return float(arr[0]), float(arr[1]), float(1.0 - arr[0] - arr[1])


def match_payload(view: MatchView, competition: Competition, event: Event) -> MatchForecast:
    """The full match schema from one view: 90-minute, full-match, advancement, top scores, confidence
    (a knockout's full match with extra time where its stage plays it)."""
    knockout = event.knockout
    home, draw, away = _normalised(view.outcome())
    xg_home, xg_away = expected_goals(view.grid)
    best = top_scores(view.grid)
    fields: dict[str, Any] = {}
    if knockout:
        ko = knockout_odds(view.grid, view.rate_home, view.rate_away, (home, draw, away),
                           extra_time=competition.plays_extra_time(event.stage))
        full_best = top_scores(ko.full_grid, 1)[0]
        fields = dict(
            home_win_full=ko.home_full,
            draw_full=ko.draw_full,
            away_win_full=max(0.0, 1.0 - ko.home_full - ko.draw_full),
            most_likely_score_full=Score(home=full_best[0], away=full_best[1]),
            home_advances=ko.home_advances,
            away_advances=1.0 - ko.home_advances,
        )
    else:
        fields = dict(
            home_win_full=home,
            draw_full=draw,
            away_win_full=away,
            most_likely_score_full=Score(home=best[0][0], away=best[0][1]),
        )
    return MatchForecast(
        home_win_90=home,
        draw_90=draw,
        away_win_90=away,
        expected_home_goals_90=round(xg_home, 4),
        expected_away_goals_90=round(xg_away, 4),
        most_likely_score_90=Score(home=best[0][0], away=best[0][1]),
        confidence=round(max(home, draw, away), 6),
        reason=view.reason,
        top_scores=tuple(ScoreProbability(home=i, away=j, probability=round(p, 6)) for i, j, p in best),
        **fields,
    )


def forecast_record(
    task: ForecastTask,
    *,
    forecaster: str,
    version: str,
    payload: Any,
    inputs: dict[str, Any],
    forecaster_type: ForecasterType = ForecasterType.BASELINE,
    requested_at: datetime | None = None,
) -> Forecast:
    """A VALID forecast record for ``task`` on the task's clock.

    ``requested_at`` defaults to the task's request time; the market passes its quote's own time.
    """
    deadline = task.deadline
    requested = requested_at or task.now
    return Forecast(
        clock=task.clock,
        recorded_at=max(task.now, requested),
        competition_id=task.competition.id,
        target_kind=task.target_kind,
        target_id=task.target_id,
        forecaster=forecaster,
        forecaster_type=forecaster_type,
        model_version=version,
        access=task.access,
        strategy=task.strategy,
        horizon=task.horizon,
        sample=task.sample,
        kickoff_utc=deadline,
        scheduled_at=task.scheduled_at,
        requested_at=requested,
        lead_time_minutes=round((deadline - requested).total_seconds() / 60.0, 3),
        status=ForecastStatus.VALID,
        payload=payload,
        inputs=inputs,
    )


def event_edge(task: ForecastTask, event: Event) -> int:
    return venue_edge(task.competition, event.home_team, event.away_team, event.venue)
