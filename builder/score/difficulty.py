"""Difficulty-adjusted Brier: a two-way fixed-effects fit (event + forecaster), as ForecastBench
(Karger et al. 2025, cited by seeds/000 and seeds/001) compares forecasters with unequal coverage.

Within one condition (access, strategy, horizon, clock), with y_ef the Brier score of
forecaster f on event e (samples averaged) observed for some (e, f) pairs only, least squares

    y_ef = alpha_e + beta_f + error,    sum_f beta_f = 0,

gives each event a difficulty alpha_e and each forecaster an effect beta_f that no longer
depends on which events it happened to forecast. The adjusted score is

    adjusted_f = beta_f + mean_e alpha_e

(the forecaster's expected Brier on an average event of the panel; on a complete panel it
equals the plain mean). Solved from the normal equations with alpha profiled out:

    A beta = b,  A_fg = [f = g] sum_e w_e M_ef - sum_e w_e M_ef M_eg / n_e,
                 b_f = sum_e w_e M_ef (y_ef - s_e / n_e),

M the observation mask, n_e = sum_f M_ef, s_e = sum_f M_ef y_ef, w_e the event weights (1, or
a bootstrap replicate's counts). A is singular along the constant vector; (A + 1 1^T) beta = b
returns the solution with sum beta = 0. Intervals: percentile 95% over the analysis' match
bootstrap replicates, every replicate solved in one batch. Only the largest connected set
of forecasters (linked through shared events) can be compared; others get no adjusted score.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from builder.score.columns import codes
from builder.score.grouped import np_means
from builder.score.inference import LEVEL, Resampler
from builder.score.memo import memoised
from builder.score.types import ScoredForecast


@dataclass(frozen=True)
class DifficultyRow:
    forecaster: str
    forecaster_type: str
    access: str
    strategy: str
    horizon: str
    clock: str
    n: int
    mean: float
    """Plain mean Brier over the forecaster's own events."""
    adjusted: float | None
    low: float | None
    high: float | None


REPLICATE_BLOCK = 512
"""Bootstrap replicates whose adjusted means are formed at a time (memory, not results)."""


def fit(y: np.ndarray, mask: np.ndarray, weights: np.ndarray | None = None,
        solver: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """(alpha, beta) of the two-way fit for one or many weight vectors.

    ``y`` and ``mask`` are events x forecasters (y anything where mask is False); ``weights``
    is replicates x events (default one replicate of ones). Returns alpha (replicates x events,
    NaN for events without weight) and beta (replicates x forecasters, summing to 0). ``solver``
    "auto" solves every replicate's normal equations, or all of them by pseudo-inverse if any
    is singular; "solve" raises ``LinAlgError`` then; "pinv" always takes the pseudo-inverse."""
    alpha, beta, weighted = _fit(y, mask, weights, solver)
    np.copyto(alpha, np.nan, where=~weighted)
    return alpha, beta


def _fit(y: np.ndarray, mask: np.ndarray, weights: np.ndarray | None,
         solver: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`fit`'s (alpha, beta) with alpha also where it is NaN there, and the mask of the
    (replicate, event) entries with weight (where :func:`fit`'s alpha is alpha as computed)."""
    beta, panel, w = _fit_beta(y, mask, weights, solver)
    return _alpha(beta, panel), beta, (w > 0) & (panel[3] > 0)[None, :]


def _alpha(beta: np.ndarray, panel) -> np.ndarray:
    """alpha = (s - beta m^T) / n per replicate and event (0 where n = 0), written into the
    product's array (replicates x events temporaries are the cost here)."""
    m, s, inv_n, _ = panel
    alpha = beta @ m.T
    np.subtract(s[None, :], alpha, out=alpha)
    np.multiply(alpha, inv_n[None, :], out=alpha)
    return alpha


def _fit_beta(y: np.ndarray, mask: np.ndarray, weights: np.ndarray | None, solver: str):
    """beta (replicates x forecasters), the panel's (m, s, 1/n, n) and the weights (2-d)."""
    m = mask.astype(float)
    yv = np.where(mask, y, 0.0)
    w = np.ones((1, len(y))) if weights is None else np.atleast_2d(weights)
    n = m.sum(axis=1)
    s = yv.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        inv_n = np.where(n > 0, 1.0 / n, 0.0)
    f = m.shape[1]
    pair = (m[:, :, None] * m[:, None, :]).reshape(len(m), f * f)
    a = (w * -inv_n) @ pair  # -(w * inv_n) to the bit (rounding is symmetric), one pass over w fewer
    a = a.reshape(len(w), f, f)
    a[:, np.arange(f), np.arange(f)] += w @ m
    b = w @ (m * (yv - (s * inv_n)[:, None]))
    a += 1.0  # the constraint sum beta = 0 (see the module docstring)
    return _solve(a, b, solver), (m, s, inv_n, n), w


def _solve(a: np.ndarray, b: np.ndarray, solver: str) -> np.ndarray:
    """beta of every replicate's system ``a beta = b`` (see :func:`fit`'s ``solver``)."""
    if solver != "pinv":
        try:
            return np.linalg.solve(a, b[..., None])[..., 0]
        except np.linalg.LinAlgError:
            if solver == "solve":
                raise
    return np.einsum("rfg,rg->rf", np.linalg.pinv(a), b)


def adjusted_scores(y: np.ndarray, mask: np.ndarray, weights: np.ndarray | None = None,
                    solver: str = "auto") -> np.ndarray:
    """beta_f + mean_e alpha_e (weighted by ``weights``, counts: never negative), replicates x
    forecasters; the mean is over the events with weight that someone forecast (where
    :func:`fit`'s alpha is not NaN).

    The replicates x events alpha is never formed: with alpha_e = (s_e - sum_f beta_f m_ef) / n_e,
    sum_e w_e alpha_e = w . (s / n) - sum_f beta_f (w . m_f / n), one product of the weights with
    forecasters + 2 columns (the third gives the weight of the forecast events, the mean's
    denominator). The same mean as summing alpha, up to rounding (~1e-16 relative). A replicate whose mean is not finite that
    way (no weighted event, or a non-finite beta) is taken the long way, over its alpha."""
    beta, (m, s, inv_n, n), w = _fit_beta(y, mask, weights, solver)
    columns = np.column_stack([s * inv_n, m * inv_n[:, None], (n > 0).astype(float)])
    sums = w @ columns  # replicates x (1 + forecasters + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_alpha = (sums[:, 0] - np.einsum("rf,rf->r", beta, sums[:, 1:-1])) / sums[:, -1]
    odd = np.flatnonzero(~np.isfinite(mean_alpha))
    if len(odd):
        mean_alpha[odd] = _mean_alpha_of(w[odd], beta[odd], (m, s, inv_n, n))
    return beta + mean_alpha[:, None]


def _mean_alpha_of(w: np.ndarray, beta: np.ndarray, panel) -> np.ndarray:
    """The weighted mean of alpha over the entries where :func:`fit`'s alpha is not NaN, summed
    over alpha itself, a block of :data:`REPLICATE_BLOCK` replicates at a time."""
    n = panel[3]
    mean_alpha = np.empty(len(w))
    for start in range(0, len(w), REPLICATE_BLOCK):
        rows = slice(start, start + REPLICATE_BLOCK)
        part, wp = _alpha(beta[rows], panel), w[rows]
        present = (wp > 0) & (n > 0)[None, :] & ~np.isnan(part)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_alpha[rows] = (np.where(present, part, 0.0) * wp).sum(axis=1) / (wp * present).sum(axis=1)
    return mean_alpha


def connected(mask: np.ndarray) -> np.ndarray:
    """Boolean over forecasters: the largest set linked through shared events."""
    f = mask.shape[1]
    parent = list(range(f))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for row in mask:
        members = np.flatnonzero(row)
        for j in members[1:]:
            parent[root(j)] = root(members[0])
    roots = np.array([root(i) for i in range(f)])
    sizes = {r: (np.sum(roots == r), mask[:, roots == r].sum()) for r in set(roots.tolist())}
    best = max(sizes, key=lambda r: sizes[r])
    return roots == best


_CONDITION = attrgetter("access", "strategy", "horizon", "clock")
_EVENT = attrgetter("competition_id", "event_id")


def difficulty_rows(rows: list[ScoredForecast], resampler: Resampler | None) -> list[DifficultyRow]:
    """Adjusted Brier per forecaster within each condition (non-market forecasters)."""
    chosen = [r for r in rows if r.forecaster_type != "market"]
    kinds = {r.forecaster: r.forecaster_type for r in chosen}
    condition, conditions = codes(map(_CONDITION, chosen))
    forecaster, names = codes(map(attrgetter("forecaster"), chosen))
    event, events = codes(map(_EVENT, chosen))
    brier = np.array([r.measures["brier"] for r in chosen], dtype=float)
    cell = (condition * len(names) + forecaster) * len(events) + event
    cells, first, inverse = np.unique(cell, return_index=True, return_inverse=True)
    means = np_means(brier, inverse.reshape(-1), len(cells))  # a forecaster's samples of an event
    cell_condition, cell_forecaster, cell_event = condition[first], forecaster[first], event[first]
    out = []
    for c in sorted(range(len(conditions)), key=conditions.__getitem__):
        in_condition = np.flatnonzero(cell_condition == c)
        named = sorted({names[f] for f in cell_forecaster[in_condition].tolist()})
        listed = sorted({events[e] for e in cell_event[in_condition].tolist()})
        column = {name: j for j, name in enumerate(named)}
        row = {e: i for i, e in enumerate(listed)}
        y = np.full((len(listed), len(named)), np.nan)
        y[[row[events[e]] for e in cell_event[in_condition].tolist()],
          [column[names[f]] for f in cell_forecaster[in_condition].tolist()]] = means[in_condition]
        out += _condition_rows(conditions[c], named, listed, y, kinds, resampler)
    return out


def _condition_rows(condition, names, events, y, kinds, resampler) -> list[DifficultyRow]:
    mask = ~np.isnan(y)
    keep = connected(mask)
    sub_y, sub_mask = y[:, keep], mask[:, keep]
    adjusted = adjusted_scores(sub_y, sub_mask)[0]
    low = high = np.full(keep.sum(), np.nan)
    if resampler is not None and keep.sum() >= 2:
        low, high = adjusted_intervals(sub_y, sub_mask, resampler, events)
    out, k = [], 0
    for j, name in enumerate(names):
        values = y[mask[:, j], j]
        adj = lo = hi = None
        if keep[j]:
            adj, lo, hi = float(adjusted[k]), _num(low[k]), _num(high[k])
            k += 1
        out.append(DifficultyRow(name, kinds.get(name, "llm"), *condition, n=int(mask[:, j].sum()),
                                 mean=float(values.mean()), adjusted=adj, low=lo, high=hi))
    return out


def adjusted_intervals(y: np.ndarray, mask: np.ndarray, resampler: Resampler,
                       events: list) -> tuple[np.ndarray, np.ndarray]:
    """The bootstrap percentile interval (:data:`LEVEL`) of each forecaster's adjusted score over
    the resampler's replicates (:func:`bootstrap_adjusted`); kept between builds by inputs
    (:mod:`builder.score.memo`)."""
    def compute() -> tuple[np.ndarray, np.ndarray]:
        tail = (1 - LEVEL) / 2 * 100
        low, high = np.nanpercentile(bootstrap_adjusted(y, mask, resampler, events), [tail, 100 - tail], axis=0)
        return low, high

    shape = (y.shape[1],)
    return memoised("difficulty", (resampler, y, mask, events), compute, (shape, shape))


def bootstrap_adjusted(y: np.ndarray, mask: np.ndarray, resampler: Resampler, events: list) -> np.ndarray:
    """``adjusted_scores(y, mask, weights)`` over the resampler's replicates (weights of ``events``),
    a block of replicates at a time: every replicate's fit is its own, so the same floats; as in
    one batch, a singular replicate anywhere sends every replicate to the pseudo-inverse."""
    idx = resampler.index()
    columns = [idx[e] for e in events]
    # every resampled event, in order (the usual case): the weights as they are, no column selection
    columns = None if columns == list(range(len(resampler.events))) else columns
    try:
        blocks = [adjusted_scores(y, mask, w, "solve") for w in resampler.weight_blocks(columns)]
    except np.linalg.LinAlgError:
        blocks = [adjusted_scores(y, mask, w, "pinv") for w in resampler.weight_blocks(columns)]
    return np.concatenate(blocks)


def _num(value) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value
