"""Scoring's inputs from record facts: effective match forecasts joined with their event and outcome.

The columns are named like the inputs of ``builder.score.scoring.score_match_forecasts``
(``p[n, 3], ph, pa, h, a, eh, ea, h_et, a_et, et``) and hold the same forecasts in the same
order: effective forecasts sorted by forecast key, match target, scorable status with a
match payload, an effective event, and an effective outcome with a result and a 90-minute
score (``scorable_pairs``). Suspected leaks are not filtered here: that is the builder's rule.
"""

from __future__ import annotations

import numpy as np

from collector.archive.facts_columns import FactsRows
from collector.records import SCORABLE_STATUSES, OutcomeStatus

FORECAST_KEY = ("competition_id", "target_kind", "target_id", "forecaster", "access", "strategy", "horizon")
CELL_TEXT = ("competition_id", "target_id", "forecaster", "forecaster_type", "model", "access", "strategy",
             "horizon", "clock", "status")


def effective_forecast_rows(facts: FactsRows) -> np.ndarray:
    """Rows of the effective forecasts, sorted by ``Forecast.key`` (the order every score sums in)."""
    rows = facts.rows("forecast")
    if not len(rows):
        return rows
    rank = np.empty(len(facts.strings) + 1, dtype=np.int64)
    rank[sorted(range(len(facts.strings)), key=facts.strings.__getitem__)] = np.arange(len(facts.strings))
    rank[-1] = -1  # None sorts first (never part of a forecast key)
    columns = [rank[facts.columns[name][rows]] for name in FORECAST_KEY] + [facts.columns["sample"][rows]]
    return rows[np.lexsort(columns[::-1])]  # lexsort's primary key is the last


def match_scoring_columns(facts: FactsRows) -> dict[str, np.ndarray]:
    """The scorable match forecasts' measures inputs and cell keys as numpy columns (see the module)."""
    c = facts.columns
    rows = effective_forecast_rows(facts)
    rows = rows[c["target_kind"][rows] == facts.code("match")]
    event = joined_rows(facts, "event", rows)
    outcome = joined_rows(facts, "outcome", rows)
    scorable = np.isin(c["status"][rows], [facts.code(s.value) for s in SCORABLE_STATUSES])
    result = np.isin(c["status"][np.maximum(outcome, 0)], [facts.code(s.value) for s in OutcomeStatus if s.has_result])
    keep = scorable & (c["payload"][rows] == facts.code("match")) & (event >= 0) & (outcome >= 0) & result
    keep &= c["h"][np.maximum(outcome, 0)] >= 0
    rows, event, outcome = rows[keep], event[keep], outcome[keep]
    out = {"row": rows, "event_row": event, "outcome_row": outcome,
           "p": np.stack([c["p_home"][rows], c["p_draw"][rows], c["p_away"][rows]], axis=1).reshape(-1, 3),
           "ph": c["ml_home"][rows], "pa": c["ml_away"][rows], "h": c["h"][outcome], "a": c["a"][outcome],
           "eh": c["eh"][rows], "ea": c["ea"][rows], "et": c["h_et"][outcome] >= 0}
    out["h_et"] = np.where(out["et"], c["h_et"][outcome], 0)
    out["a_et"] = np.where(out["et"], c["a_et"][outcome], 0)
    for name in CELL_TEXT:
        out[name] = facts.text(name, rows)
    out["event_id"] = out.pop("target_id")
    out["path"] = np.array([facts.paths[i] for i in rows.tolist()], dtype=object)
    out.update(sample=c["sample"][rows], stage=facts.text("stage", event), knockout=c["knockout"][event],
               confidence=c["confidence"][rows], lead_time_minutes=c["lead_time_minutes"][rows],
               home_advances=c["home_advances"][rows])
    out.update(_advancement(c, rows, event, outcome))
    return out


def _advancement(c: dict[str, np.ndarray], rows, event, outcome) -> dict[str, np.ndarray]:
    """Which rows get advancement scores (a knockout, an advancement forecast, an outcome naming one of
    the two teams) and whether the home team advanced (``scoring.advancement_measures``)."""
    team = c["advancing_team"][outcome]
    home = team == c["home_team"][event]
    scored = c["knockout"][event] & ~np.isnan(c["home_advances"][rows]) & (team >= 0)
    return {"advancement": scored & (home | (team == c["away_team"][event])), "home_advanced": home}


def joined_rows(facts: FactsRows, kind: str, rows: np.ndarray) -> np.ndarray:
    """For each forecast row, the effective ``kind`` row of its (competition, event), or -1."""
    c, width = facts.columns, len(facts.strings) + 1
    targets = facts.rows(kind)
    keys = c["competition_id"][targets].astype(np.int64) * width + c["event_id"][targets]
    order = np.argsort(keys, kind="stable")
    keys, targets = keys[order], targets[order]
    wanted = c["competition_id"][rows].astype(np.int64) * width + c["target_id"][rows]
    if not len(keys):
        return np.full(len(rows), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return np.where(keys[at] == wanted, targets[at], -1)
