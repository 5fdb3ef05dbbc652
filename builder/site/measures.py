"""Look up the per-forecast scores computed by the scoring stage for display beside each forecast.

Scored rows carry their record's ``Forecast.key()`` (``ScoredForecast.key``,
``QuestionScore.key``), so a record finds its scores by its own key.
"""

from __future__ import annotations

from collections.abc import Callable

from builder.score.definitions import label
from builder.score.types import Scores
from builder.site.fmt import percent
from builder.site.forecast_view import MeasuresFor
from builder.site.models import Measure
from collector.records import Forecast

MATCH_SHOWN = (("brier", 3), ("log_loss", 3), ("rps", 3), ("points", 0), ("scoreline_90", 3), ("exact", 0))
"""The per-forecast match measures shown beside a forecast: (registry id, digits); labels from the registry."""
ADVANCEMENT_SHOWN = (("advancement_brier", 3),)
SHOWN_KEYS = tuple(key for key, _ in MATCH_SHOWN)
ADVANCEMENT_KEYS = tuple(key for key, _ in ADVANCEMENT_SHOWN)


def _fmt(id: str, value: float | None, digits: int) -> Measure:
    return Measure(label(id), "–" if value is None else f"{value:.{digits}f}", id)


def _yes_no(value: float | None) -> str:
    return "–" if value is None else ("yes" if value >= 0.5 else "no")


def question_measures(m: dict[str, float | None], k: int) -> tuple[Measure, ...]:
    """A question forecast's scores in words: "picks right 3 of 4", "whole set right: no", the Brier.

    The probability-sum audit (stated probabilities against k) is shown only when it is off by
    more than 0.005; a clean forecast has nothing to report there.
    """
    shown: list[Measure] = []
    realised = m.get("probability_realised")
    if k == 1:
        shown.append(Measure(label("question_accuracy"), _yes_no(m.get("accuracy")), "question_accuracy"))
        shown.append(_fmt("question_brier", m.get("brier"), 3))
        shown.append(_fmt("question_log_loss", m.get("log_loss"), 3))
        shown.append(Measure(label("question_probability_realised"),
                             "–" if realised is None else percent(realised), "question_probability_realised"))
    else:
        correct = m.get("correct")
        shown.append(Measure(label("question_correct"), "–" if correct is None else f"{correct:.0f} of {k}",
                             "question_correct"))
        shown.append(Measure(label("question_exact_set"), _yes_no(m.get("exact_set")), "question_exact_set"))
        shown.append(_fmt("question_marginal_brier", m.get("marginal_brier"), 3))
        shown.append(Measure(label("question_probability_realised"),
                             "–" if realised is None else f"{realised:.2f} of {k}", "question_probability_realised"))
    audit = m.get("probability_sum_audit")
    if audit is not None and abs(audit) > 0.005:
        shown.append(Measure(label("question_probability_sum_audit"), f"{audit:+.3f}", "question_probability_sum_audit"))
    return tuple(shown)


def _rows(scores: Scores) -> tuple[dict, dict]:
    """The scored rows by record key: match forecasts, question forecasts."""
    return {s.key: s for s in scores.forecasts}, {q.key: q for q in scores.questions}


def measure_inputs(scores: Scores) -> Callable[[Forecast], tuple]:
    """A function from a forecast record to what :func:`measures_lookup` shows of it is made of
    (the row's shown measures and advancement, or its measures and k), unformatted: a page-input fingerprint's part
    (:mod:`builder.site.pageinputs`), cheaper than formatting every measure of every page."""
    match, question = _rows(scores)

    def inputs_for(forecast: Forecast) -> tuple:
        if forecast.target_kind == "match":  # the values measures_for formats, and nothing else
            s = match.get(forecast.key())
            if s is None:
                return ()
            shown = tuple(map(s.measures.get, SHOWN_KEYS))
            return shown + ((tuple(map(s.advancement.get, ADVANCEMENT_KEYS)),) if s.advancement else ())
        q = question.get(forecast.key())
        return () if q is None else (q.measures, q.k)

    return inputs_for


def measures_lookup(scores: Scores) -> MeasuresFor:
    """A function from a forecast record to its displayed scores (empty before resolution)."""
    match, question = _rows(scores)

    def measures_for(forecast: Forecast) -> tuple[Measure, ...]:
        if forecast.target_kind == "match":
            s = match.get(forecast.key())
            if s is None:
                return ()
            shown = [_fmt(key, s.measures.get(key), d) for key, d in MATCH_SHOWN]
            if s.advancement:
                shown += [_fmt(key, s.advancement.get(key), d) for key, d in ADVANCEMENT_SHOWN]
            return tuple(shown)
        q = question.get(forecast.key())
        if q is None:
            return ()
        return question_measures(q.measures, q.k)

    return measures_for
