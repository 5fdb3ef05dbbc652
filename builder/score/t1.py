"""WorldCupArena's T1 layer (result and score) of one scored forecast.

The paper's Table 1 weights are not in its text; these are Prematch's, and they differ from
WorldCupArena's public ``configs/tasks.yaml`` (github wzk1015/WorldCupArena, commit 1a415bd:
0.45 three-way Brier, 0.25 RPS of a score distribution, 0.15 MAE of an expected goal
difference, 0.15 qualification). A Prematch forecast states one scoreline, not a score
distribution, so its score task is eq. (1)'s partial credit: the registry's ``t1`` entry
(:mod:`builder.score.definitions`) says so wherever T1 is printed.
``builder.score.fine_grained_board`` builds the composite on this layer.
"""

from __future__ import annotations

from builder.score.types import ScoredForecast

T1_WEIGHTS = {"result": 0.55, "score": 0.35, "goal_difference": 0.05, "qualification": 0.05}


def t1_score(row: ScoredForecast) -> float:
    """WorldCupArena T1 (result and score) of one forecast, availability-aware (eq. 2)."""
    return t1_of(row.measures, row.advancement)


def t1_of(m: dict[str, float], advancement: dict[str, float] | None) -> float:
    """:func:`t1_score` from a row's measures and advancement measures (before the row exists)."""
    parts = {"result": 100.0 * (1.0 - m["brier"] / 2.0), "score": m["scoreline_wca"],
             "goal_difference": 100.0 * max(0.0, 1.0 - m["goal_difference_error_wca"] / 5.0)}
    if advancement:
        parts["qualification"] = 100.0 * (1.0 - advancement["advancement_brier"] / 2.0)
    return sum(T1_WEIGHTS[k] * v for k, v in parts.items()) / sum(T1_WEIGHTS[k] for k in parts)
