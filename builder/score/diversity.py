"""Forecast diversity: how similar two forecasters' probability vectors are on the same match
under the same conditions (seeds/000 Table 5, App. C.2 Figure 5).

Defaults follow LLM-SoccerArena (App. C.2: "Mean pairwise Jensen-Shannon divergence is
0.00442 nats"; Figure 5B: "Fisher-z mean across H/D/A"):

* Jensen-Shannon divergence in **nats** (natural logarithm, in [0, ln 2]), averaged over
  matched events; ``unit="bits"`` gives the base-2 value in [0, 1] (JSD_bits = JSD_nats / ln 2).
* correlation ``"fisher_z"``: for each outcome c in (home, draw, away) the Pearson r_c of the
  two forecasters' p_c over matched events, then tanh(mean_c atanh(r_c)) (outcomes with an
  undefined r are left out; |r| = 1 is clipped to 1 - 1e-12 before atanh). ``"pooled"`` is the
  Pearson r of the concatenated H/D/A vectors (Prematch's earlier "combined" correlation).

Samples of one forecaster are averaged first.
"""

from __future__ import annotations

from itertools import combinations
from operator import attrgetter

import numpy as np

from builder.score.columns import codes
from builder.score.options import LSA_DEFAULTS, AnalysisOptions
from builder.score.types import DiversityRow, ScoredForecast

FISHER_CLIP = 1 - 1e-12


def jensen_shannon_divergence(p: np.ndarray, q: np.ndarray, unit: str = "nats") -> np.ndarray:
    """JSD(p, q) = 1/2 KL(p || m) + 1/2 KL(q || m), m = (p + q)/2; 0 log 0 = 0. Row-wise.

    ``unit`` "nats" (natural log, LLM-SoccerArena) or "bits" (base 2)."""
    if unit not in ("nats", "bits"):
        raise ValueError(f"unit must be 'nats' or 'bits', got {unit!r}")
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    m = (p + q) / 2

    def kl(a: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.minimum(a / m, 2.0)  # a <= 2m always; the cap only guards an underflowed m
            terms = np.where(a > 0, a * (np.log2(ratio) if unit == "bits" else np.log(ratio)), 0.0)
        return terms.sum(axis=-1)

    return 0.5 * kl(p) + 0.5 * kl(q)


def fisher_z_mean(correlations: np.ndarray) -> float | None:
    """tanh(mean atanh(r)) over the defined correlations (NaN left out); None when none is defined."""
    r = np.asarray(correlations, dtype=float)
    r = r[~np.isnan(r)]
    if not len(r):
        return None
    return float(np.tanh(np.mean(np.arctanh(np.clip(r, -FISHER_CLIP, FISHER_CLIP)))))


def outcome_correlations(pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """Pearson r of the two forecasters' p_home, p_draw, p_away over events (NaN without spread)."""
    out = np.full(pa.shape[1], np.nan)
    for c in range(pa.shape[1]):
        x, y = pa[:, c], pb[:, c]
        if len(x) >= 2 and x.std() > 0 and y.std() > 0:
            out[c] = float(np.corrcoef(x, y)[0, 1])
    return out


_CONDITION = attrgetter("access", "strategy", "horizon", "clock")
_EVENT = attrgetter("competition_id", "event_id")


def diversity_rows(rows: list[ScoredForecast], options: AnalysisOptions = LSA_DEFAULTS) -> list[DiversityRow]:
    """Every pair of LLM forecasters within each condition, on the events both forecast."""
    llm = [r for r in rows if r.forecaster_type == "llm"]
    condition, conditions = codes(map(_CONDITION, llm))
    forecaster, names = codes(map(attrgetter("forecaster"), llm))
    event, events = codes(map(_EVENT, llm))
    event_rank = np.empty(len(events), dtype=np.intp)  # an event's place among the sorted events
    event_rank[sorted(range(len(events)), key=events.__getitem__)] = np.arange(len(events))
    # one slot per (condition, forecaster, event): its samples' probability vectors averaged
    slot_key = (condition * len(names) + forecaster) * len(events) + event
    slots, first, slot = np.unique(slot_key, return_index=True, return_inverse=True)
    slot = slot.reshape(-1)
    sums, counts = np.zeros((len(slots), 3)), np.zeros(len(slots))
    np.add.at(sums, slot, np.array([(r.p_home, r.p_draw, r.p_away) for r in llm]).reshape(-1, 3))
    np.add.at(counts, slot, 1.0)
    means = sums / np.maximum(counts, 1)[:, None]  # samples of one forecaster averaged first
    out = []
    for c in sorted(range(len(conditions)), key=conditions.__getitem__):
        in_condition = np.flatnonzero(condition[first] == c)
        # events (in sorted order) x forecasters: the slot of each pair, -1 where not forecast
        table = np.full((len(events), len(names)), -1, dtype=np.intp)
        table[event_rank[event[first[in_condition]]], forecaster[first[in_condition]]] = in_condition
        present = sorted({names[f] for f in forecaster[first[in_condition]].tolist()})
        for a, b in combinations(present, 2):
            column_a, column_b = table[:, names.index(a)], table[:, names.index(b)]
            common = np.flatnonzero((column_a >= 0) & (column_b >= 0))
            if len(common):
                out.append(_pair_row(a, b, conditions[c], means[column_a[common]], means[column_b[common]], options))
    return out


def _pair_row(a: str, b: str, condition: tuple, pa: np.ndarray, pb: np.ndarray,
              options: AnalysisOptions) -> DiversityRow:
    """The diversity of forecasters ``a`` and ``b`` from their mean vectors on their common events."""
    by_outcome = outcome_correlations(pa, pb)
    fisher = fisher_z_mean(by_outcome)
    pooled = _correlation(pa, pb)
    return DiversityRow(
        a, b, *condition, len(pa),
        float(jensen_shannon_divergence(pa, pb, options.divergence_unit).mean()),
        fisher if options.correlation == "fisher_z" else pooled,
        unit=options.divergence_unit, correlation_method=options.correlation,
        correlation_by_outcome=tuple(None if np.isnan(r) else float(r) for r in by_outcome),
        correlation_pooled=pooled)


def _correlation(pa: np.ndarray, pb: np.ndarray) -> float | None:
    x, y = pa.ravel(), pb.ravel()
    if x.std() == 0 or y.std() == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])
