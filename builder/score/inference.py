"""Uncertainty and tests: match-level stratified Poisson bootstrap, paired sign-flip permutation, Holm.

All resampling is vectorised through two matrices drawn once per analysis, one column per
match from a hash of the master seed 20260715 and the match's id (:mod:`builder.score.draws`):
``weights`` (replicates x events: each match's Poisson(1) count in a replicate, each stratum's
scaled to its share, :mod:`builder.score.resampling`) and ``signs`` (draws x events: +-1 per
match). Any mean over any subset of matches is then one matrix product, so every interval and
test of an analysis uses the *same* resampled tournaments, and a new match changes no other
match's weights or signs. Events are ordered by stratum, then (competition, event id), which
makes every number reproducible from the archive alone.

Choices (the papers leave these open or differ):
- The bootstrap is the Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et al. 2012), kept
  stratified by group stage / knockout as LLM-SoccerArena's match bootstrap (seeds/000 §3.4,
  App. B.5) is: each stratum's weights in a replicate are scaled to the stratum's number of
  matches. Its replicates extend with new matches, where the paper's multinomial resample of
  each stratum redraws every count (``paper-tables`` keeps the paper's:
  :data:`~builder.score.resampling.MULTINOMIAL`). ``tests/test_resampling_coverage.py`` holds
  the coverage of both to the nominal rate.
- Intervals of leaderboard means and of paired differences are studentized (bootstrap-t) 95%
  intervals, as seeds/000 App. B.5 states ("10,000 studentized bootstrap replicates") and
  Figure 16 shows, with the plug-in standard error sd/sqrt(n) in each replicate. Replicates
  with zero spread (a 0/1 measure such as exact score can resample to all zeros) leave t
  undefined and are dropped; a cell with no spread at all has no interval. Percentile
  intervals (Prematch's earlier choice for means) stay available: ``Resampler(method=
  "percentile")``, ``AnalysisOptions(intervals="percentile")``.
- A cell that lacks some matches is resampled with the whole tournament: its replicate mean
  averages the cell's matches with their weights in the replicate (the strata's scales are
  those of all the analysis's matches, as the paper draws matches within strata, App. B.5).
- Permutation p-values are two-sided: (1 + #{|T*| >= |T|}) / (1 + draws).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import combinations

import numpy as np

from builder.score.cellmeans import CellMeans as CellMeans
from builder.score.cellmeans import (
    condition_event_means,
    contrast_means,
    llm_cell_means_of,
)
from builder.score.cellmeans import llm_cell_means as llm_cell_means
from builder.score.columns import CELL_FIELDS
from builder.score.definitions import INTERVALS
from builder.score.market import market_events
from builder.score.resampling import LEVEL as LEVEL
from builder.score.resampling import PERMUTATIONS as PERMUTATIONS
from builder.score.resampling import REPLICATES as REPLICATES
from builder.score.resampling import SEED as SEED
from builder.score.resampling import SPREAD_TOLERANCE as SPREAD_TOLERANCE
from builder.score.resampling import Resampler as Resampler
from builder.score.resampling import _percentiles as _percentiles
from builder.score.types import ScoredForecast, TestResult

HORIZON_ORDER = ("stage_opening", "t_minus_24h", "t_minus_2h", "closing")
NOTES = [
    f"Intervals: {INTERVALS.sentence()[:-1]} (builder/score/resampling.py; percentile intervals are an option).",
    "Tests: paired two-sided sign-flip permutation on per-match differences, 10,000 draws, Holm "
    "within each declared family (model pairs, LLM vs baseline, baseline pairs and market per "
    "condition; access, strategy, horizon "
    "and per-forecaster access effects per measure; ensemble vs each member per horizon; access effect "
    "per eligible stage, builder/score/families.py); master seed 20260715.",
]


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


def run_tests(resampler: Resampler, specs: Iterable[tuple[str, str, str, str, str, str, dict]]) -> list[TestResult]:
    """Evaluate paired comparisons in one vectorised pass.

    Each spec is (family, comparison, a, b, measure, clock, differences per event). ``specs``
    may be any iterable (a generator: each spec's differences become a matrix column as it
    comes, so the per-event dicts of all the specs are never held at once).
    """
    idx = resampler.index()
    labels, columns = [], []
    for spec in specs:
        column = np.full(len(resampler.events), np.nan)
        for key, diff in spec[6].items():
            column[idx[key]] = diff
        labels.append(spec[:6])
        columns.append(column)
    if not labels:
        return []
    matrix = np.column_stack(columns)
    del columns
    low, high = resampler.studentized_intervals(matrix)
    p_values = resampler.sign_flip_p(matrix)
    n = (~np.isnan(matrix)).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimates = np.where(np.isnan(matrix), 0.0, matrix).sum(axis=0) / n
    results = []
    for j, (family, comparison, a, b, measure, clock) in enumerate(labels):
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
    kinds = {row.forecaster: row.forecaster_type for row in rows if row.forecaster_type in ("llm", "baseline")}
    specs = []
    for (access, strategy, horizon, clock), means in sorted(condition_event_means(rows, measure, ("llm", "baseline")).items()):
        suffix = f"/{access}/{strategy}/{horizon}" + ("/replay" if clock == "replay" else "")
        llms = sorted(m for m in means if kinds[m] == "llm")
        baselines = sorted(m for m in means if kinds[m] == "baseline")
        pairs = [("model_pairs", a, b) for a, b in combinations(llms, 2)]
        pairs += [("llm_vs_baseline", a, b) for a in llms for b in baselines]
        pairs += [("baseline_pairs", a, b) for a, b in combinations(baselines, 2)]
        for family, a, b in pairs:
            specs.append((family + suffix, f"{a} - {b}", a, b, measure, clock, paired_differences(means[a], means[b])))
    return specs




def factor_specs(rows: list[ScoredForecast] | dict[tuple, float], factor: str, a_level: str, b_level: str,
                 measure: str = "brier", *, by_forecaster: bool = False) -> list[tuple]:
    """Factorial contrast a_level - b_level of one factor (access, strategy or horizon), per level
    of the horizon (or, for the horizon factor, pooled). Per match, the difference is averaged over
    every LLM forecaster and other condition for which both levels were scored (paired design).
    With ``by_forecaster`` each LLM gets its own contrast (family ``<factor>_by_forecaster``).
    ``rows`` may be the scored rows or their :func:`llm_cell_means` for ``measure``."""
    means = llm_cell_means(rows, measure) if isinstance(rows, list) else rows
    means = means if isinstance(means, CellMeans) else CellMeans(means)
    per_match = contrast_means(means, CELL_FIELDS.index(factor), a_level, b_level, factor, by_forecaster)
    specs = []
    name = f"{factor}_by_forecaster" if by_forecaster else factor
    for (stratum, clock), diffs in sorted(per_match.items()):
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
    return run_tests(resampler, (s for s in _all_specs(rows, market) if s[6]))


def _all_specs(rows: list[ScoredForecast], market: dict | None) -> Iterator[tuple]:
    """The specs of :func:`all_tests` in its order, one group at a time (each group's per-event
    dicts and cell means are dropped once ``run_tests`` has taken them)."""
    yield from model_pair_specs(rows, "brier")
    yield from market_specs(rows, market)
    present = sorted({r.horizon for r in rows}, key=HORIZON_ORDER.index)
    by_forecaster: list[tuple] = []
    for measure, means in zip(("brier", "log_loss"), llm_cell_means_of(rows, ("brier", "log_loss")), strict=True):
        yield from factor_specs(means, "access", "closed_book", "open_book", measure)
        for other in ("closed_book", "open_book"):  # the third access level (evidence package), in the same family
            yield from factor_specs(means, "access", "evidence_package", other, measure)
        yield from factor_specs(means, "strategy", "direct_score", "probabilistic_forecast", measure)
        for early, late in combinations(present, 2):
            yield from factor_specs(means, "horizon", early, late, measure)
        if measure == "brier":  # asked last, formed while the Brier means are at hand
            by_forecaster = factor_specs(means, "access", "closed_book", "open_book", "brier", by_forecaster=True)
        del means
    yield from by_forecaster


def resampler_for(rows: list[ScoredForecast], method: str = "studentized") -> Resampler:
    return Resampler.for_events({(r.competition_id, r.event_id): r.knockout for r in rows}, method=method)
