"""WorldCupArena's T1 layer (result and score) of one scored forecast: issue 14's "composite".

The weights are the released project's ``configs/tasks.yaml`` (github wzk1015/WorldCupArena;
the paper's Table 1 is not in its text). ``builder.score.paper_tables`` keeps exporting both
names; ``builder.score.fine_grained_board`` builds the full composite on this layer.
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
