"""Forecast diversity: how similar two forecasters' probability vectors are on the same match
under the same conditions (seeds/000 Table 5, App. C Figure 5).

Jensen-Shannon divergence in bits (base-2 logarithm, so it lies in [0, 1]), averaged over
matched events; correlation = Pearson correlation of the concatenated H/D/A vectors
("combined probability correlation"). Samples of one forecaster are averaged first.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

import numpy as np

from builder.score.types import DiversityRow, ScoredForecast


def jensen_shannon_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """JSD(p, q) = 1/2 KL(p || m) + 1/2 KL(q || m), m = (p + q)/2, in bits; 0 log 0 = 0. Row-wise."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    m = (p + q) / 2

    def kl(a: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.minimum(a / m, 2.0)  # a <= 2m always; the cap only guards an underflowed m
            terms = np.where(a > 0, a * np.log2(ratio), 0.0)
        return terms.sum(axis=-1)

    return 0.5 * kl(p) + 0.5 * kl(q)


def diversity_rows(rows: list[ScoredForecast]) -> list[DiversityRow]:
    """Every pair of LLM forecasters within each condition, on the events both forecast."""
    conditions: dict[tuple, dict[str, dict[tuple, int]]] = defaultdict(lambda: defaultdict(dict))
    llm = [r for r in rows if r.forecaster_type == "llm"]
    slot = np.empty(len(llm), dtype=np.intp)
    count = 0
    for i, r in enumerate(llm):
        events = conditions[(r.access, r.strategy, r.horizon, r.clock)][r.forecaster]
        key = (r.competition_id, r.event_id)
        if key not in events:
            events[key], count = count, count + 1
        slot[i] = events[key]
    sums, counts = np.zeros((count, 3)), np.zeros(count)
    np.add.at(sums, slot, np.array([(r.p_home, r.p_draw, r.p_away) for r in llm]).reshape(-1, 3))
    np.add.at(counts, slot, 1.0)
    means = sums / np.maximum(counts, 1)[:, None]  # samples of one forecaster averaged first
    out = []
    for (access, strategy, horizon, clock), by_model in sorted(conditions.items()):
        for a, b in combinations(sorted(by_model), 2):
            common = sorted(by_model[a].keys() & by_model[b].keys())
            if not common:
                continue
            pa = means[[by_model[a][e] for e in common]]
            pb = means[[by_model[b][e] for e in common]]
            out.append(DiversityRow(a, b, access, strategy, horizon, clock, len(common),
                                    float(jensen_shannon_divergence(pa, pb).mean()), _correlation(pa, pb)))
    return out


def _correlation(pa: np.ndarray, pb: np.ndarray) -> float | None:
    x, y = pa.ravel(), pb.ravel()
    if x.std() == 0 or y.std() == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])
