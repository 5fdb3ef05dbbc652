"""Look up the per-forecast scores computed by ``builder.score.scoring`` for display beside each forecast."""

from __future__ import annotations

from builder.site.forecast_view import MeasuresFor
from builder.site.models import Measure
from collector.records import Forecast

MATCH_SHOWN = (
    ("brier", "Brier", 3), ("log_loss", "log loss", 3), ("rps", "RPS", 3), ("points", "points", 0),
    ("scoreline", "scoreline", 3), ("exact", "exact", 0),
)
ADVANCEMENT_SHOWN = (("advancement_brier", "adv. Brier", 3),)


def _fmt(label: str, value: float | None, digits: int) -> Measure:
    return Measure(label, "–" if value is None else f"{value:.{digits}f}")


def measures_lookup(scores) -> MeasuresFor:
    """A function from a forecast record to its displayed scores (empty before resolution)."""
    match = {}
    for s in scores.forecasts:
        match[(s.competition_id, s.event_id, s.forecaster, s.access, s.strategy, s.horizon, s.sample)] = s
    question = {}
    for q in scores.questions:
        question[(q.competition_id, q.question_id, q.forecaster, q.access, q.strategy, q.horizon)] = q

    def measures_for(forecast: Forecast) -> tuple[Measure, ...]:
        cell = (forecast.forecaster, forecast.access.value, forecast.strategy.value, forecast.horizon.value)
        if forecast.target_kind == "match":
            s = match.get((forecast.competition_id, forecast.target_id, *cell, forecast.sample))
            if s is None:
                return ()
            shown = [_fmt(label, s.measures.get(key), d) for key, label, d in MATCH_SHOWN]
            if s.advancement:
                shown += [_fmt(label, s.advancement.get(key), d) for key, label, d in ADVANCEMENT_SHOWN]
            return tuple(shown)
        q = question.get((forecast.competition_id, forecast.target_id, *cell))
        if q is None:
            return ()
        return tuple(_fmt(k.replace("_", " "), v, 3) for k, v in sorted(q.measures.items()))

    return measures_for
