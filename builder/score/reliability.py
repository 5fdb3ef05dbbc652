"""Probability calibration as LLM-SoccerArena App. C.5 computes it: on model-averaged forecasts.

For each match, information-access condition and prompting strategy at one horizon (T-24h
by default), the members' probability vectors are averaged (each member's samples first):
one vector per matched condition (104 x 2 x 2 = 416 in the paper). For home, draw and away
separately the predicted probabilities are cut into five approximately equal-frequency bins
(sorted, split into sizes differing by at most one), and each bin's mean predicted
probability is set against its observed frequency. Pointwise 95% intervals of the observed
frequency resample complete matches (the analysis' stratified bootstrap weights, percentile
intervals; bins stay as cut on the full sample). Per outcome, the mean predicted-minus-observed
gap gets a studentized interval and a sign-flip p-value over per-match gaps (C.5: "The
predicted-minus-observed difference is -3.2 percentage points, with a 95% confidence interval
of [-12.5, 4.9] and p = 0.461").

Members are the LLMs; an archive without LLM forecasts at the horizon (a baselines-only
replay) uses its baselines instead, and says so in ``members``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from builder.score.columns import sample_mean
from builder.score.inference import LEVEL, Resampler
from builder.score.metrics import CLASSES
from builder.score.types import ScoredForecast

BINS = 5
HORIZON = "t_minus_24h"


@dataclass(frozen=True)
class PooledBin:
    outcome: str
    lower: float
    upper: float
    n: int
    mean_probability: float
    observed_frequency: float
    low: float | None
    high: float | None


@dataclass(frozen=True)
class PooledReliability:
    """Reliability of the model-averaged forecasts of one horizon and clock."""

    horizon: str
    clock: str
    members: str  # "llm" or "baseline"
    n_members: int
    n_vectors: int
    n_events: int
    bins: tuple[PooledBin, ...]
    gaps: dict[str, dict[str, float | None]]
    """Per outcome: mean_probability, observed_frequency, gap (predicted - observed), low, high, p."""


def averaged_vectors(rows: list[ScoredForecast], horizon: str, clock: str, kind: str):
    """(events, vectors, outcomes, members): one averaged vector per (event, access, strategy)."""
    per_member: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    result: dict[tuple, str] = {}
    for r in rows:
        if r.forecaster_type == kind and r.horizon == horizon and r.clock == clock:
            key = (r.competition_id, r.event_id, r.access, r.strategy)
            per_member[key][r.forecaster].append((r.p_home, r.p_draw, r.p_away))
            result[key] = r.result
    keys = sorted(per_member)
    members = {m for k in keys for m in per_member[k]}
    vectors = np.array([np.mean([sample_mean(v) for v in per_member[k].values()], axis=0) for k in keys])
    outcomes = np.array([[result[k] == c for c in CLASSES] for k in keys], dtype=float)
    return [k[:2] for k in keys], vectors.reshape(-1, 3), outcomes.reshape(-1, 3), len(members)


def equal_frequency_bins(p: np.ndarray, bins: int = BINS) -> list[np.ndarray]:
    """Indices of ``p`` sorted by value and split into ``bins`` groups whose sizes differ by <= 1."""
    order = np.argsort(p, kind="stable")
    return [c for c in np.array_split(order, min(bins, len(order))) if len(c)]


def pooled_reliability(rows: list[ScoredForecast], resampler: Resampler, horizon: str = HORIZON,
                       bins: int = BINS) -> list[PooledReliability]:
    """C.5 reliability per clock at ``horizon`` (see the module docstring)."""
    out = []
    for clock in sorted({r.clock for r in rows if r.horizon == horizon}):
        kind = "llm" if any(r.forecaster_type == "llm" and r.horizon == horizon and r.clock == clock
                            for r in rows) else "baseline"
        events, p, o, n_members = averaged_vectors(rows, horizon, clock, kind)
        if not len(events):
            continue
        out.append(_reliability(events, p, o, resampler, horizon, clock, kind, n_members, bins))
    return out


def _reliability(events, p, o, resampler: Resampler, horizon, clock, kind, n_members, bins) -> PooledReliability:
    tail = (1 - LEVEL) / 2 * 100
    cut = [(j, members) for j, _ in enumerate(CLASSES) for members in equal_frequency_bins(p[:, j], bins)]
    hits, draws = bin_replicates(events, o, cut, resampler)
    found: list[PooledBin] = []
    for k, (j, members) in enumerate(cut):
        with np.errstate(invalid="ignore", divide="ignore"):
            replicate = hits[:, k] / draws[:, k]
        replicate = replicate[~np.isnan(replicate)]
        low, high = (np.percentile(replicate, [tail, 100 - tail]) if len(replicate) else (np.nan, np.nan))
        found.append(PooledBin(CLASSES[j], float(p[members, j].min()), float(p[members, j].max()), len(members),
                               float(p[members, j].mean()), float(o[members, j].mean()),
                               _num(low), _num(high)))
    return PooledReliability(horizon, clock, kind, n_members, len(p), len(set(events)), tuple(found),
                             _gaps(events, p, o, resampler))


def bin_replicates(events, o: np.ndarray, cut: list[tuple[int, np.ndarray]],
                   resampler: Resampler) -> tuple[np.ndarray, np.ndarray]:
    """Per replicate and bin (replicates x bins): the bin's observed outcomes and its vectors
    counted as often as the replicate draws their match (each vector weighs as its match).

    Summed per match first (events x bins), so one product per matrix, never replicates x
    vectors: integer counts times integer sums per stratum, exact in floats far below 2**53,
    then scaled (``Resampler.exact_weighted``), hence the very floats of the same formula over
    the vectors, each with its match's counts."""
    idx = resampler.index()
    column = np.array([idx[e] for e in events], dtype=np.intp)
    size = len(resampler.events)
    hit_sums = np.column_stack([np.bincount(column[m], weights=o[m, j], minlength=size) for j, m in cut])
    member_counts = np.column_stack([np.bincount(column[m], minlength=size).astype(float) for _, m in cut])
    return resampler.exact_weighted(hit_sums), resampler.exact_weighted(member_counts)


def _gaps(events, p, o, resampler: Resampler) -> dict[str, dict[str, float | None]]:
    """Per outcome, the per-match mean of (p - o) over the match's vectors; mean, interval and p."""
    idx = resampler.index()
    matrix = np.full((len(resampler.events), 3), np.nan)
    rows_of: dict[tuple, list[int]] = defaultdict(list)
    for i, e in enumerate(events):
        rows_of[e].append(i)
    for e, members in rows_of.items():
        matrix[idx[e]] = (p[members] - o[members]).mean(axis=0)
    low, high = resampler.studentized_intervals(matrix)
    p_values = resampler.sign_flip_p(matrix)
    return {
        outcome: {"mean_probability": float(p[:, j].mean()), "observed_frequency": float(o[:, j].mean()),
                  "gap": float(np.nanmean(matrix[:, j])), "low": _num(low[j]), "high": _num(high[j]),
                  "p": _num(p_values[j])}
        for j, outcome in enumerate(CLASSES)
    }


def _num(value) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value
