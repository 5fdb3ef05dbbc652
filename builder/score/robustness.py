"""The robustness analyses of LLM-SoccerArena App. C.3 (and B.5 "Robustness checks preserve the
paired design"), for the primary contrast: the T-24h information-access effect on the Brier
score, closed book - open book (positive favours open book), one difference per match
averaged over LLM forecasters and prompt strategies (``inference.factor_specs``).

* **Lead-time window**: the same contrast on forecasts whose realised lead time lies within
  1440 +- 90 minutes of kickoff ("Restricting the analysis to calls made within 1,440 +- 90
  minutes of kickoff gives an effect of 0.0217 ... across 101 matches").
* **Leave one match out**: the estimate with each match deleted in turn (min and max; "range
  from 0.0208 to 0.0253"), and the stability of the forecaster ranking by mean T-24h Brier
  on the complete panel: the share of deletions that leave the ranking unchanged and the
  share that keep the same leader.
* **Observed search** (intention-to-treat vs as-treated): ITT compares the assigned
  conditions; as-treated keeps only open-book forecasts with observed search (closed-book
  forecasts unchanged). As-treated is an association, not a randomised comparison.
* **Access x strategy interaction**: per match, (closed - open | probabilistic) - (closed -
  open | direct score), i.e. the additional probabilistic-forecast advantage under open book
  (App. C.4: "0.0067, with a 95% confidence interval of [0.0001, 0.0138]").
* **Variance decomposition**: the models x conditions (access x strategy) matrix of T-24h cell
  means, split as a two-way layout without replication: SS_condition = M sum_c (mean_c -
  grand)^2, SS_model = C sum_m (mean_m - grand)^2, SS_interaction = the rest; shares of the
  total with percentile intervals over the match bootstrap ("44.8% ... conditions, 40.5% ...
  model version, and 14.7% ... interaction"). Needs a complete matrix with >= 2 of each.

Each estimate carries a studentized interval and a sign-flip p-value; each analysis is its
own family (these are sensitivity checks, not further confirmatory tests).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np

from builder.score.columns import codes
from builder.score.grouped import np_means
from builder.score.inference import (
    LEVEL,
    CellMeans,
    Resampler,
    factor_specs,
    llm_cell_means,
    run_tests,
)
from builder.score.types import ScoredForecast, TestResult

HORIZON = "t_minus_24h"
LEAD_CENTER, LEAD_HALF_WIDTH = 1440.0, 90.0


@dataclass(frozen=True)
class Robustness:
    """The C.3 analyses of one clock."""

    clock: str
    primary: TestResult | None
    lead_time: TestResult | None
    lead_time_excluded: int
    leave_one_out: dict[str, float | int | None]
    ranking: dict[str, object]
    intention_to_treat: TestResult | None
    as_treated: TestResult | None
    interaction: TestResult | None
    variance: dict[str, object] | None
    window: tuple[float, float] = (LEAD_CENTER - LEAD_HALF_WIDTH, LEAD_CENTER + LEAD_HALF_WIDTH)
    notes: list[str] = field(default_factory=list)


def access_diffs(rows: list[ScoredForecast], clock: str, keep=lambda r: True) -> dict[tuple, float]:
    """Per match: closed - open Brier at T-24h, averaged over LLMs and strategies (paired cells)."""
    return _access_effect(llm_cell_means([r for r in rows if r.horizon == HORIZON and r.clock == clock and keep(r)],
                                         "brier"))


def _access_effect(means: CellMeans) -> dict[tuple, float]:
    """:func:`access_diffs` from the T-24h cell means of one clock's chosen rows."""
    specs = factor_specs(means, "access", "closed_book", "open_book", "brier")
    return specs[0][6] if specs else {}


def interaction_diffs(means: CellMeans) -> dict[tuple, float]:
    """Per match: mean over LLMs of (closed - open | probabilistic) - (closed - open | direct),
    from the T-24h cell means of one clock (``llm_cell_means`` of its T-24h rows, Brier)."""
    per_match: dict[tuple, list[float]] = defaultdict(list)
    for (f, access, strategy, horizon, c, event), _ in means.items():
        if access != "closed_book" or strategy != "probabilistic_forecast":
            continue
        cells = [means.get((f, a, s, horizon, c, event)) for a, s in
                 (("closed_book", "probabilistic_forecast"), ("open_book", "probabilistic_forecast"),
                  ("closed_book", "direct_score"), ("open_book", "direct_score"))]
        if all(v is not None for v in cells):
            per_match[event].append((cells[0] - cells[1]) - (cells[2] - cells[3]))
    return {e: float(np.mean(v)) for e, v in per_match.items()}


def _lead_ok(r: ScoredForecast) -> bool:
    return r.lead_time_minutes is not None and abs(r.lead_time_minutes - LEAD_CENTER) <= LEAD_HALF_WIDTH


def leave_one_out(diffs: dict[tuple, float]) -> dict[str, float | int | None]:
    values = np.array(list(diffs.values()), dtype=float)
    if len(values) < 2:
        return {"n": len(values), "min": None, "max": None}
    dropped = (values.sum() - values) / (len(values) - 1)
    return {"n": len(values), "min": float(dropped.min()), "max": float(dropped.max())}


def ranking_stability(rows: list[ScoredForecast], clock: str) -> dict[str, object]:
    """Forecasters ranked by mean T-24h Brier (conditions and samples averaged per match) on the
    matches every one of them scored; the ranking again with each match deleted."""
    chosen = [r for r in rows if r.horizon == HORIZON and r.clock == clock and r.forecaster_type != "market"]
    forecaster, found = codes(map(attrgetter("forecaster"), chosen))
    event, events = codes(map(attrgetter("competition_id", "event_id"), chosen))
    names = sorted(found)
    if len(names) < 2:
        return {"forecasters": names, "n": 0}
    cells, first, inverse = np.unique(forecaster * len(events) + event, return_index=True, return_inverse=True)
    means = np_means(np.array([r.measures["brier"] for r in chosen], dtype=float), inverse.reshape(-1), len(cells))
    table, scored = np.full((len(events), len(found)), np.nan), np.zeros((len(events), len(found)), dtype=bool)
    table[event[first], forecaster[first]] = means  # per match and forecaster: np.mean of its values
    scored[event[first], forecaster[first]] = True
    panel = sorted(np.flatnonzero(scored.all(axis=1)).tolist(), key=events.__getitem__)
    if len(panel) < 2:
        return {"forecasters": names, "n": len(panel)}
    x = table[panel][:, [found.index(name) for name in names]]
    full = np.argsort(x.mean(axis=0), kind="stable")
    dropped = (x.sum(axis=0)[None, :] - x) / (len(panel) - 1)
    orders = np.argsort(dropped, axis=1, kind="stable")
    return {"forecasters": names, "n": len(panel), "ranking": [names[i] for i in full],
            "same_ranking_share": float(np.mean(np.all(orders == full[None, :], axis=1))),
            "same_leader_share": float(np.mean(orders[:, 0] == full[0]))}


def variance_decomposition(means: CellMeans, resampler: Resampler) -> dict[str, object] | None:
    """Two-way decomposition of the LLM x condition matrix of T-24h cell means (see the module
    docstring), from one clock's T-24h cell means (``llm_cell_means`` of its T-24h rows, Brier)."""
    per_event: dict[tuple, dict[tuple, float]] = defaultdict(dict)
    for (f, access, strategy, horizon, c, event), v in means.items():
        per_event[(f, f"{access}/{strategy}")][event] = v
    models = sorted({m for m, _ in per_event})
    conditions = sorted({c for _, c in per_event})
    if len(models) < 2 or len(conditions) < 2 or len(per_event) != len(models) * len(conditions):
        return None
    idx = resampler.index()
    x = np.full((len(resampler.events), len(models) * len(conditions)), np.nan)
    for j, cell in enumerate((m, c) for m in models for c in conditions):
        for e, v in per_event[cell].items():
            x[idx[e], j] = v
    present = ~np.isnan(x)
    cell_means = np.where(present, x, 0).sum(axis=0) / present.sum(axis=0)
    shares = _shares(cell_means[None, :], len(models), len(conditions))[0]
    with np.errstate(invalid="ignore", divide="ignore"):  # a replicate without a cell's events: dropped below
        replicate = resampler.weighted(np.where(present, x, 0.0)) / resampler.weighted(present)
    boot = _shares(replicate[~np.isnan(replicate).any(axis=1)], len(models), len(conditions))
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(boot, [tail, 100 - tail], axis=0)
    keys = ("condition", "model", "interaction")
    return {"models": models, "conditions": conditions,
            "shares": dict(zip(keys, shares.tolist(), strict=True)),
            "intervals": {k: (float(lo), float(hi)) for k, lo, hi in zip(keys, low, high, strict=True)}}


def _shares(means: np.ndarray, n_models: int, n_conditions: int) -> np.ndarray:
    """Rows of (condition, model, interaction) shares of the total sum of squares of each matrix."""
    m = means.reshape(len(means), n_models, n_conditions)
    grand = m.mean(axis=(1, 2), keepdims=True)
    by_model, by_condition = m.mean(axis=2, keepdims=True), m.mean(axis=1, keepdims=True)
    total = ((m - grand) ** 2).sum(axis=(1, 2))
    ss_condition = n_models * ((by_condition - grand) ** 2).sum(axis=(1, 2))
    ss_model = n_conditions * ((by_model - grand) ** 2).sum(axis=(1, 2))
    ss_interaction = ((m - by_model - by_condition + grand) ** 2).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.stack([ss_condition, ss_model, ss_interaction], axis=1) / total[:, None]


def robustness(rows: list[ScoredForecast], resampler: Resampler) -> list[Robustness]:
    """The C.3 analyses for every clock with LLM forecasts at T-24h in both access conditions."""
    out = []
    for clock in sorted({r.clock for r in rows if r.forecaster_type == "llm"}):
        means = llm_cell_means([r for r in rows if r.horizon == HORIZON and r.clock == clock], "brier")
        primary = _access_effect(means)  # these means serve the interaction and the decomposition too
        if not primary:
            continue
        lead = access_diffs(rows, clock, _lead_ok)
        searched = access_diffs(rows, clock, lambda r: r.access == "closed_book" or r.search_observed is True)
        inter = interaction_diffs(means)
        names = [("robustness/access_t24", "closed_book - open_book (T-24h, intention to treat)", primary),
                 ("robustness/lead_time_window", "closed_book - open_book (lead time 1440 +- 90 min)", lead),
                 ("robustness/as_treated", "closed_book - open_book (open book with observed search)", searched),
                 ("robustness/access_x_strategy", "(closed - open | probabilistic) - (closed - open | direct)", inter)]
        specs = [(fam, comp, "closed_book", "open_book", "brier", clock, d) for fam, comp, d in names if d]
        results = {t.family: t for t in run_tests(resampler, specs)}
        out.append(Robustness(
            clock=clock, primary=results.get("robustness/access_t24"),
            lead_time=results.get("robustness/lead_time_window"), lead_time_excluded=len(primary) - len(lead),
            leave_one_out=leave_one_out(primary), ranking=ranking_stability(rows, clock),
            intention_to_treat=results.get("robustness/access_t24"), as_treated=results.get("robustness/as_treated"),
            interaction=results.get("robustness/access_x_strategy"),
            variance=variance_decomposition(means, resampler)))
    return out
