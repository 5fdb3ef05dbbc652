"""From task scores to layer scores to the composite (WorldCupArena eq. 2 and eq. 3).

Weights are the released project's ``configs/tasks.yaml`` (github wzk1015/WorldCupArena;
the paper's Table 1 is not in its text). T4's statistics differ from the released list
where Prematch's sources differ: the paper's pass accuracy, saves and defensive actions
(0.10, 0.10, 0.15) are replaced by offsides, cards and xG with the same weights.

Aggregation (seeds/001 §4.2, §4.4): per match, a layer is the availability-aware mean
(eq. 2) of its available tasks; across matches, each layer is the mean over the matches
where it is available (its own N); the composite is eq. 2 over the available layer means
with the layer weights; the display transform C (eq. 3) is applied once, to the composite.
Layers are shown as raw means: the paper's "milder transformation" of layers gives no numbers,
and a second transform under a layer's name would make one label mean two numbers.
"""

from __future__ import annotations

import numpy as np

from builder.score.fine_grained_metrics import available_mean
from builder.score.metrics import display_calibration

LAYER_WEIGHTS = {"T1": 0.35, "T2": 0.25, "T3": 0.15, "T4": 0.15, "T5": 0.10}
LAYER_NAMES = {"T1": "Result and score", "T2": "Players and lineups", "T3": "Events and timeline",
               "T4": "Tactics and statistics", "T5": "Competition outcome"}
TASK_WEIGHTS = {
    "T2": {"starting_xi": 0.30, "formation": 0.10, "goalscorers": 0.35, "assist_providers": 0.15,
           "player_of_the_match": 0.10},
    "T3": {"goal_minute": 0.35, "substitution_times": 0.15, "cards": 0.20, "penalty_events": 0.15,
           "own_goals": 0.15},
    "T4": {"tactical_formation": 0.15, "stat_possession": 0.10, "stat_shots": 0.10, "stat_shots_on_target": 0.10,
           "stat_corners": 0.10, "stat_fouls": 0.10, "stat_offsides": 0.10, "stat_cards": 0.10, "stat_xg": 0.15},
}
COMPOSITE_DISPLAY = (50.0, 5.0)
"""Centre and temperature of C for the composite (eq. 3: "this stronger setting only for the overall score")."""


def layer_score(tasks: dict[str, float], layer: str) -> float:
    """One match's layer score: eq. (2) over the layer's available tasks (NaN if none is)."""
    weights = TASK_WEIGHTS[layer]
    return available_mean(np.array([tasks.get(t, np.nan) for t in weights]), np.array(list(weights.values())))


def match_layers(tasks: dict[str, float], t1: float | None = None) -> dict[str, float]:
    """T1 (given, from the result and score) and T2-T4 of one match."""
    out = {"T1": np.nan if t1 is None else float(t1)}
    if not tasks:  # no fine-grained part or no report: every task-based layer is unavailable
        out.update(dict.fromkeys(TASK_WEIGHTS, float("nan")))
        return out
    out.update({layer: layer_score(tasks, layer) for layer in TASK_WEIGHTS})
    return out


def layer_means(per_match: list[dict[str, float]]) -> dict[str, tuple[float, int]]:
    """Per layer, the mean over the matches where it is available and that N."""
    matrix = np.array([[m.get(layer, np.nan) for layer in LAYER_WEIGHTS] for m in per_match], dtype=float)
    return layer_column_means(matrix.reshape(len(per_match), len(LAYER_WEIGHTS)))


def layer_column_means(matrix: np.ndarray) -> dict[str, tuple[float, int]]:
    """:func:`layer_means` of a matches x layers matrix (columns in :data:`LAYER_WEIGHTS` order, NaN =
    unavailable): each column's mean over its available entries, in match order, and that N."""
    out = {}
    for j, layer in enumerate(LAYER_WEIGHTS):
        values = matrix[:, j]
        ok = values[~np.isnan(values)]
        out[layer] = (float(ok.mean()) if ok.size else float("nan"), int(ok.size))
    return out


def composite_raw(means: dict[str, float]) -> float:
    """Eq. (2) over the available layer means with the layer weights (NaN when no layer is)."""
    values = np.array([means.get(k, np.nan) for k in LAYER_WEIGHTS])
    return available_mean(values, np.array(list(LAYER_WEIGHTS.values())))


def composite_display(raw: float) -> float:
    """C_50,5 of the raw composite, applied once to the mean (eq. 3)."""
    return float(display_calibration(np.array(raw), *COMPOSITE_DISPLAY))

