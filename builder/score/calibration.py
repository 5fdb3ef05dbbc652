"""Calibration: reliability bins, expected calibration error, and confidence groups.

The three H/D/A probabilities of a forecast are treated as three one-vs-rest probability
statements (like the markets of one Prophet Arena event), pooled for the ECE and kept apart
for the outcome-specific reliability panels of seeds/000 Table 5.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from builder.score.metrics import CLASSES
from builder.score.types import (
    CalibrationRow,
    Cell,
    ConfidenceGroup,
    ReliabilityBin,
    ScoredForecast,
)

ECE_BINS = 10
FREQUENCY_BINS = 5
CONFIDENCE_GROUPS = ("low", "middle", "high")
"""Names of the three groups of the tercile option; with five groups (the default) they are "1".."5"."""


def group_names(groups: int) -> tuple[str, ...]:
    return CONFIDENCE_GROUPS if groups == 3 else tuple(str(g + 1) for g in range(groups))


def equal_width_index(p: np.ndarray, bins: int = ECE_BINS) -> np.ndarray:
    """Bin b covers [b/B, (b+1)/B); the last bin also holds 1.0 (seeds/002 App. B.2)."""
    return np.minimum((np.asarray(p, dtype=float) * bins).astype(int), bins - 1)


def expected_calibration_error(p: np.ndarray, o: np.ndarray, bins: int = ECE_BINS) -> float:
    """Binned ECE = sum_b (n_b / N) |mean(o in b) - mean(p in b)| over B equal-width bins.

    Source: Prophet Arena (seeds/002 App. B.2), B = 10. ``p`` are probabilities, ``o`` 0/1.
    """
    p, o = np.asarray(p, dtype=float), np.asarray(o, dtype=float)
    if len(p) == 0:
        return float("nan")
    idx = equal_width_index(p, bins)
    sum_p = np.bincount(idx, weights=p, minlength=bins)
    sum_o = np.bincount(idx, weights=o, minlength=bins)
    return float(np.sum(np.abs(sum_o - sum_p)) / len(p))


def one_vs_rest(rows: list[ScoredForecast]) -> tuple[np.ndarray, np.ndarray]:
    """(probabilities, outcomes), shape (n, 3): the forecast vectors and the realised indicators."""
    p = np.array([[r.p_home, r.p_draw, r.p_away] for r in rows], dtype=float).reshape(-1, 3)
    o = np.array([[r.result == c for c in CLASSES] for r in rows], dtype=float).reshape(-1, 3)
    return p, o


def ece_of_rows(rows: list[ScoredForecast]) -> float | None:
    """ECE with 10 equal-width bins over the pooled H/D/A probabilities of the rows."""
    if not rows:
        return None
    p, o = one_vs_rest(rows)
    return expected_calibration_error(p.ravel(), o.ravel())


def reliability_equal_width(p: np.ndarray, o: np.ndarray, outcome: str, bins: int = ECE_BINS) -> list[ReliabilityBin]:
    """Non-empty equal-width bins with mean forecast probability and observed frequency."""
    idx = equal_width_index(p, bins)
    out = []
    for b in np.unique(idx):
        mask = idx == b
        out.append(ReliabilityBin(outcome, "equal_width", b / bins, (b + 1) / bins, int(mask.sum()),
                                  float(p[mask].mean()), float(o[mask].mean())))
    return out


def reliability_equal_frequency(p: np.ndarray, o: np.ndarray, outcome: str,
                                bins: int = FREQUENCY_BINS) -> list[ReliabilityBin]:
    """Approximately equal-frequency bins (seeds/000 Table 5: five bins per outcome): forecasts
    sorted by probability and split into ``bins`` groups whose sizes differ by at most one."""
    order = np.argsort(p, kind="stable")
    out = []
    if len(order) == 0:
        return out
    for chunk in np.array_split(order, min(bins, len(order))):
        if len(chunk) == 0:
            continue
        out.append(ReliabilityBin(outcome, "equal_frequency", float(p[chunk].min()), float(p[chunk].max()),
                                  len(chunk), float(p[chunk].mean()), float(o[chunk].mean())))
    return out


def calibration_rows(rows: list[ScoredForecast]) -> list[CalibrationRow]:
    """ECE and reliability bins (both schemes, per outcome) for every forecaster x cell."""
    out = []
    for cell, cell_rows in sorted(_by_cell(rows).items(), key=lambda kv: tuple(vars(kv[0]).values())):
        p, o = one_vs_rest(cell_rows)
        bins: list[ReliabilityBin] = []
        for j, outcome in enumerate(CLASSES):
            bins += reliability_equal_frequency(p[:, j], o[:, j], outcome)
            bins += reliability_equal_width(p[:, j], o[:, j], outcome)
        out.append(CalibrationRow(cell, len(cell_rows), expected_calibration_error(p.ravel(), o.ravel()),
                                  tuple(bins)))
    return out


def confidence_groups(rows: list[ScoredForecast], groups: int = 5) -> list[ConfidenceGroup]:
    """Forecasts with a stated confidence, ranked within their cell and cut into ``groups`` groups
    of relative confidence rank; ties share their average rank (so tied forecasts share a group).
    Reports mean confidence, mean Brier and modal accuracy per group.

    seeds/000 App. C.5 and Figure 10: confidence is ranked "within each model version,
    information-access condition, and prompting strategy", ties preserved, five groups from the
    lowest (1) to the highest (5). We also hold the horizon fixed (a cell). ``groups=3`` gives
    Prematch's earlier terciles (low / middle / high).
    """
    names = group_names(groups)
    out = []
    for cell, cell_rows in _by_cell([r for r in rows if r.confidence is not None]).items():
        if len(cell_rows) < groups:
            continue
        conf = np.array([r.confidence for r in cell_rows])
        group = rank_group(conf, groups)
        brier = np.array([r.measures["brier"] for r in cell_rows])
        acc = np.array([r.measures["accuracy"] for r in cell_rows])
        for g, name in enumerate(names):
            mask = group == g
            if mask.any():
                out.append(ConfidenceGroup(cell, name, int(mask.sum()), float(conf[mask].mean()),
                                           float(brier[mask].mean()), float(acc[mask].mean())))
    return out


def _by_cell(rows: list[ScoredForecast]) -> dict[Cell, list[ScoredForecast]]:
    """The rows of each cell (``ScoredForecast.cell``), in row order, cells by first appearance
    (grouped by plain tuples: one ``Cell`` per cell, not per row)."""
    groups: dict[tuple, list[ScoredForecast]] = defaultdict(list)
    for r in rows:
        groups[(r.forecaster, r.access, r.strategy, r.horizon, r.clock)].append(r)
    return {Cell(*key): found for key, found in groups.items()}


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing their average rank (scipy.stats.rankdata's "average")."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(1, len(values) + 1)
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return sums[inverse] / counts[inverse]


def rank_group(values: np.ndarray, groups: int) -> np.ndarray:
    """Group g in 0..groups-1 by average rank: floor(groups * rank / (n + 1)), so group g holds
    rank/(n+1) in [g/groups, (g+1)/groups)."""
    ranks = average_ranks(values)
    return np.minimum((ranks / (len(ranks) + 1) * groups).astype(int), groups - 1)


def tercile_of_rank(values: np.ndarray) -> np.ndarray:
    """Group 0, 1 or 2 by average rank: rank/(n+1) in (0, 1/3), [1/3, 2/3), [2/3, 1)."""
    return rank_group(values, 3)
