"""Look up the per-forecast scores computed by the scoring stage for display beside each forecast.

Scored rows carry their record's ``Forecast.key()`` (``ScoredForecast.key``,
``QuestionScore.key``), so a record finds its scores by its own key.
"""

from __future__ import annotations

from builder.score.types import Scores
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


def measures_lookup(scores: Scores) -> MeasuresFor:
    """A function from a forecast record to its displayed scores (empty before resolution)."""
    match = {s.key: s for s in scores.forecasts}
    question = {q.key: q for q in scores.questions}

    def measures_for(forecast: Forecast) -> tuple[Measure, ...]:
        if forecast.target_kind == "match":
            s = match.get(forecast.key())
            if s is None:
                return ()
            shown = [_fmt(label, s.measures.get(key), d) for key, label, d in MATCH_SHOWN]
            if s.advancement:
                shown += [_fmt(label, s.advancement.get(key), d) for key, label, d in ADVANCEMENT_SHOWN]
            return tuple(shown)
        q = question.get(forecast.key())
        if q is None:
            return ()
        return tuple(_fmt(k.replace("_", " "), v, 3) for k, v in sorted(q.measures.items()))

    return measures_for
