"""The shared forecaster shell of every built-in baseline: data source, per-date fit cache, task dispatch.

A subclass says how to ``fit`` on a :class:`Source` as of a request date and how to
``view`` one pairing with that fit. Match tasks become a full :class:`MatchForecast`;
question tasks go to the Monte Carlo simulation of the remaining competition.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from collector.fixtures.knowable import ALLOWANCE
from collector.forecasters.tasks import ForecastTask
from collector.records import CompetitionFormat, Forecast, ForecasterType

from .common import CONDITIONS, MatchView, event_edge, forecast_record, match_payload
from .results import (
    RESULTS_CSV,
    ResultTable,
    international_results,
    league_table,
    team_index,
)


@dataclass(frozen=True)
class Source:
    """The results a fit may use, and how competition team ids map to table indices."""

    kind: str  # "international" or "league"
    label: str
    table: ResultTable
    index: dict[str, int | None]
    cache_key: tuple

    def team(self, team_id: str) -> int | None:
        return self.index.get(team_id)


def source_for(task: ForecastTask, data_dir: Path | str | None, history_cache: dict) -> Source:
    """Tournaments of national teams read international results; leagues their own earlier results."""
    competition = task.competition
    if competition.format is CompetitionFormat.TOURNAMENT:
        key = ("international", str(data_dir), competition.id)
        if key not in history_cache:
            table = international_results(data_dir)
            index = team_index(competition, table.index())
            history_cache[key] = Source("international", RESULTS_CSV, table, index, key)
        return history_cache[key]
    known = tuple(task.history)
    scores = tuple(sorted(
        (k.event.id, k.outcome.score_90.as_tuple() if k.outcome.score_90 else None) for k in known
    ))
    key = ("league", competition.id, hash(scores))  # a corrected score is another history
    if key not in history_cache:
        table = league_table(known)
        names = table.index()
        index = {team.id: names.get(team.id) for team in competition.teams}
        history_cache[key] = Source("league", f"{competition.id} results so far", table, index, key)
    return history_cache[key]


LOCAL_DATE_SLACK = timedelta(hours=24 + 12) + max(ALLOWANCE.values())
"""A local date's last minute at UTC-12 is 12 h into the next UTC day; the longest match (extra time
and penalties, :data:`collector.fixtures.knowable.ALLOWANCE`) ends after it: 39 h 15 after the date began."""
_FITS: dict = {}  # (class, source key, date) -> fit, shared by every instance (the ensemble's members too)
_FITS_MAX = 2048


def knowledge_date(source: Source, now: datetime) -> date:
    """Fits use rows dated strictly before this date.

    League rows carry the UTC kickoff date: rows before the request's UTC date. Rows of
    ``results.csv`` carry the *local* date of the match; a match dated D may end as late as
    D+1 15:14 UTC (kickoff 23:59 at UTC-12, extra time and penalties), so a row is usable
    only when D <= (now - :data:`LOCAL_DATE_SLACK`).date(). This is conservative: recent results
    are left out rather than risk using one that had not ended at ``now``.
    """
    if source.kind == "league":
        return now.date()
    return (now - LOCAL_DATE_SLACK).date() + timedelta(days=1)


class BaselineForecaster:
    """Base of the built-in baselines (implements :class:`collector.forecasters.tasks.Forecaster`)."""

    name = "baseline"
    revision = "2"  # bump when a change alters this baseline's forecasts (2: the edition's extra-time rule,
    # league tables by the competition's tie-breakers and points, results dated 39 h 15 before the request)
    type = ForecasterType.BASELINE
    conditions = CONDITIONS
    answers_tournament = True  # full-tournament forecasts: modal bracket and reach probabilities (tournament.py)

    def __init__(self, data_dir: Path | str | None = None, *, id: str | None = None, seed: int = 2026,
                 simulations: int = 1000):
        self.id = id or self.name
        self.data_dir = data_dir
        self.seed = seed
        self.simulations = simulations
        self._sources: dict = {}
        self._sims: dict = {}

    @property
    def version(self) -> str:
        """The canonical version recorded in every forecast, e.g. ``elo-1``."""
        return f"{self.name}-{self.revision}"

    # -- what a subclass provides -------------------------------------------------------
    def fit(self, source: Source, when: date) -> Any:
        return None

    def view(self, source: Source, fit: Any, home: str, away: str, edge: int) -> MatchView:
        raise NotImplementedError

    # -- shared machinery ---------------------------------------------------------------
    def prepared(self, task: ForecastTask) -> tuple[Source, Any]:
        """The source and the fit for the task's request time (cached: one fit per knowledge date)."""
        source = source_for(task, self.data_dir, self._sources)
        when = knowledge_date(source, task.now)
        key = (type(self), source.cache_key, when)
        if key not in _FITS:
            if len(_FITS) >= _FITS_MAX:
                _FITS.clear()
            _FITS[key] = self.fit(source, when)
        return source, _FITS[key]

    def pair_view(self, task: ForecastTask):
        """A function (home id, away id, edge) -> MatchView for the task's request date (for simulation)."""
        source, fit = self.prepared(task)
        return lambda home, away, edge: self.view(source, fit, home, away, edge)

    async def forecast(self, task: ForecastTask) -> Forecast:
        return self.forecast_now(task)

    def forecast_now(self, task: ForecastTask) -> Forecast:
        """The synchronous body of :meth:`forecast` (handy for scripts and tests)."""
        if task.full_tournament:
            from .tournament import tournament_forecast

            payload, inputs = tournament_forecast(task, self.pair_view(task), self.seed, self.simulations)
        elif task.event is None:
            from .simulate import question_forecast

            payload, inputs = question_forecast(task, self.pair_view(task), self.seed, self.simulations, self._sims)
            inputs = {"simulations": self.simulations, "seed": self.seed, **inputs}
        else:
            event = task.event
            source, fit = self.prepared(task)
            view = self.view(source, fit, event.home_team, event.away_team, event_edge(task, event))
            payload = match_payload(view, task.competition, event)
            inputs = dict(view.inputs)
            if source is not None:
                inputs["results_dated_before"] = knowledge_date(source, task.now).isoformat()
        return forecast_record(
            task, forecaster=self.id, version=self.version, payload=payload, inputs=inputs,
            forecaster_type=self.type,
        )
