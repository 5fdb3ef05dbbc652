"""Uncertainty and tests: match-level stratified bootstrap, paired sign-flip permutation, Holm.

All resampling is vectorised through two matrices drawn once per analysis from the master
seed 20260715 (seeds/000 App. B.5): ``weights`` (replicates x events: how often each match
appears in a stratified bootstrap resample) and ``signs`` (draws x events: +-1 per match).
Any mean over any subset of matches is then one matrix product, so every interval and test
of an analysis uses the *same* resampled tournaments. Events are ordered by (competition,
event id), which makes every number reproducible from the archive alone.

Choices (the papers leave these open or differ):
- Intervals of leaderboard means and of paired differences are studentized (bootstrap-t) 95%
  intervals, as seeds/000 App. B.5 states ("10,000 studentized bootstrap replicates") and
  Figure 16 shows, with the plug-in standard error sd/sqrt(n) in each replicate. Replicates
  with zero spread (a 0/1 measure such as exact score can resample to all zeros) leave t
  undefined and are dropped; a cell with no spread at all has no interval. Percentile
  intervals (Prematch's earlier choice for means) stay available: ``Resampler(method=
  "percentile")``, ``AnalysisOptions(intervals="percentile")``.
- A cell that lacks some matches is resampled with the whole tournament: its replicate mean
  averages the cell's matches as they occur in the resample (matches drawn within the
  group-stage and knockout strata, seeds/000 App. B.5).
- Permutation p-values are two-sided: (1 + #{|T*| >= |T|}) / (1 + draws).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from builder.score.columns import CELL_FIELDS
from builder.score.market import market_events
from builder.score.types import ScoredForecast, TestResult

SEED = 20260715
REPLICATES = 10_000
PERMUTATIONS = 10_000
LEVEL = 0.95
SPREAD_TOLERANCE = 1e-12
"""A bootstrap replicate's variance below this fraction of its mean square counts as zero spread."""
HORIZON_ORDER = ("stage_opening", "t_minus_24h", "t_minus_2h", "closing")
NOTES = [
    "Intervals: match-level bootstrap, 10,000 replicates stratified by group stage / knockout; "
    "studentized (bootstrap-t) 95% for means and for paired differences, as LLM-SoccerArena App. B.5 "
    "(builder/score/inference.py; percentile intervals are an option).",
    "Tests: paired two-sided sign-flip permutation on per-match differences, 10,000 draws, Holm "
    "within each declared family (model pairs, LLM vs baseline, baseline pairs and market per "
    "condition; access, strategy, horizon "
    "and per-forecaster access effects per measure; ensemble vs each member per horizon; access effect "
    "per eligible stage, builder/score/families.py); master seed 20260715.",
]


def stratified_weights(strata: np.ndarray, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap count matrix (replicates x events): each stratum's matches resampled with
    replacement to the stratum's size; entry (b, i) is how often match i appears in replicate b."""
    strata = np.asarray(strata)
    weights = np.zeros((replicates, len(strata)))
    for value in np.unique(strata):
        columns = np.flatnonzero(strata == value)
        weights[:, columns] = rng.multinomial(len(columns), np.full(len(columns), 1 / len(columns)), size=replicates)
    return weights


@dataclass
class Resampler:
    """The bootstrap weights and sign-flip matrix of one analysis, over a fixed list of events."""

    events: list[tuple[str, str]]
    weights: np.ndarray
    signs: np.ndarray
    method: str = "studentized"
    """How :meth:`mean_intervals` forms intervals of means: "studentized" or "percentile"."""

    @classmethod
    def for_events(cls, events: dict[tuple[str, str], bool], seed: int = SEED,
                   replicates: int = REPLICATES, permutations: int = PERMUTATIONS,
                   method: str = "studentized") -> Resampler:
        """``events`` maps (competition, event) to whether it is a knockout match (its stratum)."""
        if method not in ("studentized", "percentile"):
            raise ValueError(f"interval method must be 'studentized' or 'percentile', got {method!r}")
        keys = sorted(events)
        boot_seq, sign_seq = np.random.SeedSequence(seed).spawn(2)
        strata = np.array([events[k] for k in keys], dtype=bool)
        weights = stratified_weights(strata, replicates, np.random.default_rng(boot_seq))
        signs = np.random.default_rng(sign_seq).integers(0, 2, size=(permutations, len(keys))) * 2.0 - 1.0
        return cls(keys, weights, signs, method)

    def index(self) -> dict[tuple[str, str], int]:
        return {key: i for i, key in enumerate(self.events)}

    def counts(self, present: np.ndarray) -> np.ndarray:
        """``weights @ present`` (replicates x columns: how many of each column's events a replicate
        draws), one product per distinct column of ``present`` (the measures of a cell share one).
        Exact whatever the grouping: integer counts summed in floats far below 2**53."""
        if not present.size:
            return self.weights @ present.astype(float)
        patterns, inverse = np.unique(present, axis=1, return_inverse=True)
        return (self.weights @ patterns.astype(float))[:, inverse.reshape(-1)]

    def mean_intervals(self, values: np.ndarray, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
        """Intervals of column means by this resampler's method (studentized by default)."""
        if self.method == "percentile":
            return self.intervals(values, level)
        return self.studentized_intervals(values, level)

    def intervals(self, values: np.ndarray, level: float = LEVEL, chunk: int = 128) -> tuple[np.ndarray, np.ndarray]:
        """Percentile intervals of the mean of each column of ``values`` (events x columns, NaN = absent).

        Columns are processed ``chunk`` at a time so memory stays at replicates x chunk floats.
        """
        tail = (1 - level) / 2 * 100
        low, high = np.full(values.shape[1], np.nan), np.full(values.shape[1], np.nan)
        for start in range(0, values.shape[1], chunk):
            part = values[:, start : start + chunk]
            present = ~np.isnan(part)
            totals = self.weights @ np.where(present, part, 0.0)
            counts = self.counts(present)
            with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: cells without events
                low[start : start + chunk], high[start : start + chunk] = _percentiles(totals / counts,
                                                                                     [tail, 100 - tail])
        too_few = (~np.isnan(values)).sum(axis=0) < 2
        return np.where(too_few, np.nan, low), np.where(too_few, np.nan, high)

    def studentized_intervals(self, values: np.ndarray, level: float = LEVEL,
                              chunk: int = 128) -> tuple[np.ndarray, np.ndarray]:
        """Bootstrap-t intervals of the mean of each column (NaN = absent):
        [m - t*_(1-a/2) se, m - t*_(a/2) se] with t* = (m* - m) / se* over the replicates."""
        present = ~np.isnan(values)
        n = present.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(present, values, 0.0).sum(axis=0) / n
            centred = np.where(present, values - mean, 0.0)  # centring avoids cancellation in the variance
            se = np.sqrt((centred**2).sum(axis=0) / n / n)
        tail = (1 - level) / 2 * 100
        t_low, t_high = np.full(len(n), np.nan), np.full(len(n), np.nan)
        for start in range(0, values.shape[1], chunk):
            cols = slice(start, start + chunk)
            counts = self.counts(present[:, cols])
            with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                # the same ufuncs in the same order, written into the products' own arrays
                # (replicates x chunk temporaries cost more than the arithmetic)
                shift = self.weights @ centred[:, cols]
                np.divide(shift, counts, out=shift)  # m* - m
                second = self.weights @ centred[:, cols] ** 2
                np.divide(second, counts, out=second)
                # a replicate drawing one value only has spread 0, but second - shift^2 leaves
                # rounding noise (~1e-17) that would make t astronomically large: treat it as 0
                spread = shift**2
                np.subtract(second, spread, out=spread)
                np.multiply(second, SPREAD_TOLERANCE, out=second)
                spread[~(spread > second)] = 0.0
                np.divide(spread, counts, out=spread)
                np.sqrt(spread, out=spread)
                t = np.divide(shift, spread, out=shift)
                t[~np.isfinite(t)] = np.nan
                t_low[cols], t_high[cols] = _percentiles(t, [tail, 100 - tail])
        low, high = mean - t_high * se, mean - t_low * se
        unusable = (n < 2) | (se == 0)
        return np.where(unusable, np.nan, low), np.where(unusable, np.nan, high)

    def sign_flip_p(self, differences: np.ndarray, chunk: int = 128) -> np.ndarray:
        """Two-sided sign-flip permutation p-value of the mean of each column (NaN = absent).

        A permuted mean counts as extreme if |T*| >= |T| up to rounding: 1e-9 of the column's
        largest |difference| (relative, so the p-value does not depend on the measure's scale)."""
        present = ~np.isnan(differences)
        filled = np.where(present, differences, 0.0)
        n = present.sum(axis=0)
        tolerance = 1e-9 * np.abs(filled).max(axis=0, initial=0.0)
        p = np.full(differences.shape[1], np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            observed = filled.sum(axis=0) / n
            for start in range(0, differences.shape[1], chunk):
                cols = slice(start, start + chunk)
                permuted = (self.signs @ filled[:, cols]) / n[cols]
                extreme = np.abs(permuted) >= np.abs(observed[cols]) - tolerance[cols]
                p[cols] = (1 + extreme.sum(axis=0)) / (1 + len(self.signs))
        return np.where(n >= 1, p, np.nan)


def _percentiles(means: np.ndarray, q: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Column percentiles (numpy's default linear interpolation), by partial sort of complete
    columns; NaN-aware only for columns with gaps."""
    out = np.full((2, means.shape[1]), np.nan)
    gaps = np.isnan(means).any(axis=0)
    if (~gaps).any():
        out[:, ~gaps] = _linear_percentiles(np.ascontiguousarray(means[:, ~gaps].T), q).T
    if gaps.any():
        out[:, gaps] = np.nanpercentile(means[:, gaps], q, axis=0)
    return out[0], out[1]


def _linear_percentiles(rows: np.ndarray, q: list[float]) -> np.ndarray:
    """Percentiles of each row: value at position q/100 * (n - 1), interpolating neighbours."""
    n = rows.shape[1]
    positions = np.asarray(q, dtype=float) / 100 * (n - 1)
    below = np.floor(positions).astype(int)
    above = np.minimum(below + 1, n - 1)
    kth = np.unique(np.concatenate([below, above]))
    part = np.partition(rows, kth, axis=1)
    frac = positions - below
    return part[:, below] * (1 - frac) + part[:, above] * frac


def holm(p_values: list[float]) -> list[float]:
    """Holm (1979) step-down adjusted p-values: sort ascending, p_(i) * (m - i + 1) for i = 1..m,
    running maximum, capped at 1; returned in the input order. NaN stays NaN."""
    p = np.asarray(p_values, dtype=float)
    valid = np.flatnonzero(~np.isnan(p))
    adjusted = np.full(len(p), np.nan)
    order = valid[np.argsort(p[valid], kind="stable")]
    m = len(order)
    scaled = p[order] * (m - np.arange(m))
    adjusted[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return adjusted.tolist()


def apply_holm(results: list[TestResult]) -> list[TestResult]:
    """Adjust p-values within each declared family."""
    families: dict[str, list[int]] = defaultdict(list)
    for i, result in enumerate(results):
        families[result.family].append(i)
    adjusted = list(results)
    for members in families.values():
        holm_p = holm([results[i].p_value if results[i].p_value is not None else np.nan for i in members])
        for i, p in zip(members, holm_p, strict=True):
            adjusted[i] = replace(results[i], p_holm=None if np.isnan(p) else float(p))
    return adjusted


def per_event(rows: list[ScoredForecast], measure: str) -> dict[tuple[str, str], float]:
    """Mean of a measure per event (averaging samples) for a set of rows."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in rows:
        sums[(row.competition_id, row.event_id)].append(row.measures[measure])
    return {k: _avg(v) for k, v in sums.items()}


def run_tests(resampler: Resampler, specs: list[tuple[str, str, str, str, str, str, dict]]) -> list[TestResult]:
    """Evaluate paired comparisons in one vectorised pass.

    Each spec is (family, comparison, a, b, measure, clock, differences per event).
    """
    if not specs:
        return []
    idx = resampler.index()
    matrix = np.full((len(resampler.events), len(specs)), np.nan)
    for j, spec in enumerate(specs):
        for key, diff in spec[6].items():
            matrix[idx[key], j] = diff
    low, high = resampler.studentized_intervals(matrix)
    p_values = resampler.sign_flip_p(matrix)
    n = (~np.isnan(matrix)).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimates = np.where(np.isnan(matrix), 0.0, matrix).sum(axis=0) / n
    results = []
    for j, (family, comparison, a, b, measure, clock, _) in enumerate(specs):
        results.append(TestResult(
            family=family, comparison=comparison, a=a, b=b, measure=measure, n=int(n[j]),
            estimate=float(estimates[j]) if n[j] else float("nan"), low=_num(low[j]), high=_num(high[j]),
            p_value=_num(p_values[j]), clock=clock,
        ))
    return apply_holm(results)


def _avg(values: list[float]) -> float:
    return float(sum(values) / len(values))


def _num(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def paired_differences(a: dict, b: dict) -> dict:
    return {k: a[k] - b[k] for k in a.keys() & b.keys()}


def model_pair_specs(rows: list[ScoredForecast], measure: str = "brier") -> list[tuple]:
    """Paired comparisons within each condition cell, one Holm family per cell and kind:
    ``model_pairs`` (every pair of LLMs, seeds/000 App. C), ``llm_vs_baseline`` (every LLM against
    every built-in baseline) and ``baseline_pairs`` (every pair of baselines)."""
    cells: dict[tuple, dict[str, list[ScoredForecast]]] = defaultdict(lambda: defaultdict(list))
    kinds: dict[str, str] = {}
    for row in rows:
        if row.forecaster_type in ("llm", "baseline"):
            cells[(row.access, row.strategy, row.horizon, row.clock)][row.forecaster].append(row)
            kinds[row.forecaster] = row.forecaster_type
    specs = []
    for (access, strategy, horizon, clock), by_model in sorted(cells.items()):
        suffix = f"/{access}/{strategy}/{horizon}" + ("/replay" if clock == "replay" else "")
        means = {m: per_event(r, measure) for m, r in by_model.items()}
        llms = sorted(m for m in means if kinds[m] == "llm")
        baselines = sorted(m for m in means if kinds[m] == "baseline")
        pairs = [("model_pairs", a, b) for a, b in combinations(llms, 2)]
        pairs += [("llm_vs_baseline", a, b) for a in llms for b in baselines]
        pairs += [("baseline_pairs", a, b) for a, b in combinations(baselines, 2)]
        for family, a, b in pairs:
            specs.append((family + suffix, f"{a} - {b}", a, b, measure, clock, paired_differences(means[a], means[b])))
    return specs




def llm_cell_means(rows: list[ScoredForecast], measure: str) -> dict[tuple, float]:
    """Per LLM cell and match, the measure averaged over samples:
    (forecaster, access, strategy, horizon, clock, (competition, event)) -> mean."""
    values: dict[tuple, list[float]] = defaultdict(list)
    for r in rows:
        if r.forecaster_type == "llm":
            values[(r.forecaster, r.access, r.strategy, r.horizon, r.clock, (r.competition_id, r.event_id))].append(
                r.measures[measure])
    return {k: _avg(v) for k, v in values.items()}


def factor_specs(rows: list[ScoredForecast] | dict[tuple, float], factor: str, a_level: str, b_level: str,
                 measure: str = "brier", *, by_forecaster: bool = False) -> list[tuple]:
    """Factorial contrast a_level - b_level of one factor (access, strategy or horizon), per level
    of the horizon (or, for the horizon factor, pooled). Per match, the difference is averaged over
    every LLM forecaster and other condition for which both levels were scored (paired design).
    With ``by_forecaster`` each LLM gets its own contrast (family ``<factor>_by_forecaster``).
    ``rows`` may be the scored rows or their :func:`llm_cell_means` for ``measure``."""
    means = llm_cell_means(rows, measure) if isinstance(rows, list) else rows
    at = CELL_FIELDS.index(factor)
    per_match: dict[tuple, dict[tuple, list[float]]] = defaultdict(lambda: defaultdict(list))
    for key, value in means.items():
        if key[at] != a_level:
            continue
        partner = means.get(key[:at] + (b_level,) + key[at + 1 :])
        if partner is not None:
            stratum = "all horizons" if factor == "horizon" else key[3]
            if by_forecaster:
                stratum = f"{key[0]}, {stratum}"
            per_match[(stratum, key[4])][key[5]].append(value - partner)
    specs = []
    name = f"{factor}_by_forecaster" if by_forecaster else factor
    for (stratum, clock), events in sorted(per_match.items()):
        diffs = {e: _avg(v) for e, v in events.items()}
        family = f"{name}/{measure}" + ("/replay" if clock == "replay" else "")
        specs.append((family, f"{a_level} - {b_level} ({stratum})", a_level, b_level, measure, clock, diffs))
    return specs


def market_specs(rows: list[ScoredForecast], market: dict | None = None) -> list[tuple]:
    """Forecaster Brier - market Brier on the events with a market price (seeds/000 App. D,
    seeds/002); one Holm family per condition. ``market`` is ``market_events(rows)`` when the
    caller has it (the leaderboard views computed it from the same rows)."""
    specs = []
    market = market_events(rows) if market is None else market
    for cell, events in sorted(market.items(), key=lambda kv: tuple(vars(kv[0]).values())):
        family = f"market/{cell.access}/{cell.strategy}/{cell.horizon}" + ("/replay" if cell.clock == "replay" else "")
        diffs = {e: v[1] for e, v in events.items()}
        specs.append((family, f"{cell.forecaster} - market", cell.forecaster, "market", "brier", cell.clock, diffs))
    return specs


def all_tests(rows: list[ScoredForecast], resampler: Resampler | None = None,
              market: dict | None = None) -> list[TestResult]:
    """Model pairs, forecasters against the market, and the factorial contrasts of seeds/000:
    closed - open (and evidence package - closed, evidence package - open where the third access level
    was asked), score-first - probabilistic, and every pair of horizons (earlier - later),
    for Brier score and log loss; plus the model-specific access effect (Brier) of each LLM."""
    if not rows:
        return []
    resampler = resampler or resampler_for(rows)
    specs = model_pair_specs(rows, "brier") + market_specs(rows, market)
    present = sorted({r.horizon for r in rows}, key=HORIZON_ORDER.index)
    cell_means = {}
    for measure in ("brier", "log_loss"):
        means = cell_means[measure] = llm_cell_means(rows, measure)
        specs += factor_specs(means, "access", "closed_book", "open_book", measure)
        for other in ("closed_book", "open_book"):  # the third access level (issue 17), in the same family
            specs += factor_specs(means, "access", "evidence_package", other, measure)
        specs += factor_specs(means, "strategy", "direct_score", "probabilistic_forecast", measure)
        for early, late in combinations(present, 2):
            specs += factor_specs(means, "horizon", early, late, measure)
    specs += factor_specs(cell_means["brier"], "access", "closed_book", "open_book", "brier", by_forecaster=True)
    return run_tests(resampler, [s for s in specs if s[6]])


def resampler_for(rows: list[ScoredForecast], method: str = "studentized") -> Resampler:
    return Resampler.for_events({(r.competition_id, r.event_id): r.knockout for r in rows}, method=method)
