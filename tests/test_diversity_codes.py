"""Diversity rows from integer codes (``diversity.diversity_rows``) are the per-row dict loop's
rows to the bit: samples to average, forecasters missing from some matches, rows in no order."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from itertools import combinations

import numpy as np

from builder.score import diversity
from builder.score.options import LSA_DEFAULTS, AnalysisOptions
from builder.score.scoring import score_archive
from builder.score.types import DiversityRow
from tests.factories import archive_from_records, synthetic_records


def _reference(rows, options):
    """diversity_rows as it was: a slot per (condition, forecaster, event) from nested dicts."""
    conditions = defaultdict(lambda: defaultdict(dict))
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
    means = sums / np.maximum(counts, 1)[:, None]
    out = []
    for (access, strategy, horizon, clock), by_model in sorted(conditions.items()):
        for a, b in combinations(sorted(by_model), 2):
            common = sorted(by_model[a].keys() & by_model[b].keys())
            if not common:
                continue
            pa, pb = means[[by_model[a][e] for e in common]], means[[by_model[b][e] for e in common]]
            by_outcome = diversity.outcome_correlations(pa, pb)
            fisher, pooled = diversity.fisher_z_mean(by_outcome), diversity._correlation(pa, pb)
            out.append(DiversityRow(
                a, b, access, strategy, horizon, clock, len(common),
                float(diversity.jensen_shannon_divergence(pa, pb, options.divergence_unit).mean()),
                fisher if options.correlation == "fisher_z" else pooled,
                unit=options.divergence_unit, correlation_method=options.correlation,
                correlation_by_outcome=tuple(None if np.isnan(r) else float(r) for r in by_outcome),
                correlation_pooled=pooled))
    return out


def test_diversity_rows_from_codes_are_the_loops_to_the_bit():
    rows = score_archive(archive_from_records(synthetic_records(n_events=12, n_models=5, seed=6)),
                         inference_tests=False).forecasts
    rng = np.random.default_rng(4)
    extra = []
    for i, r in enumerate(rows[::6]):
        p = rng.dirichlet([1, 1, 1])
        extra += [replace(r, sample=r.sample + k + 1, p_home=float(p[0]), p_draw=float(p[1]), p_away=float(p[2]))
                  for k in range(1 + i % 3)]
    mixed = [rows[i] for i in rng.permutation(len(rows)) if i % 9] + extra
    for options in (LSA_DEFAULTS, AnalysisOptions(divergence_unit="bits", correlation="pooled")):
        got = diversity.diversity_rows(mixed, options)
        assert got == _reference(mixed, options) and len(got) > 20
    assert diversity.diversity_rows([]) == []
