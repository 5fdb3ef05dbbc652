"""The ensemble family's per-match differences from integer codes (``families.ensemble_specs``)
are the loop's per (condition, match) and member to the bit: samples to average (two, three,
nine), ten members (numpy's pairwise mean of the members' Brier), members missing from some
matches, rows in no order; and ``grouped.np_means`` is ``np.mean`` of each group's list."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import numpy as np
import pytest

from builder.score import families
from builder.score.columns import sample_mean
from builder.score.grouped import np_means
from builder.score.metrics import brier_score_hda
from builder.score.scoring import score_archive
from tests.factories import archive_from_records, synthetic_records


def _reference(rows) -> list[tuple]:
    """ensemble_specs as it was: a dict of member vectors per (condition, match)."""
    vectors = defaultdict(lambda: defaultdict(list))
    results = {}
    for r in rows:
        if r.forecaster_type == "llm":
            key = (r.horizon, r.clock, r.access, r.strategy, (r.competition_id, r.event_id))
            vectors[key][r.forecaster].append((r.p_home, r.p_draw, r.p_away))
            results[key] = ("home", "draw", "away").index(r.result)
    diffs = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for key, members in vectors.items():
        if len(members) < 2:
            continue
        names = sorted(members)
        p = np.array([sample_mean(members[m]) for m in names], dtype=float)
        scores = brier_score_hda(np.vstack([p, p.mean(axis=0)]), np.full(len(names) + 1, results[key]))
        member_scores, ensemble = scores[:-1], scores[-1]
        horizon, clock, _, _, event = key
        for name, score in zip(names, member_scores.tolist(), strict=True):
            diffs[(horizon, clock)][name][event].append(ensemble - score)
        diffs[(horizon, clock)]["average member"][event].append(ensemble - float(member_scores.mean()))
    specs = []
    for (horizon, clock), by_member in sorted(diffs.items()):
        for member, events in sorted(by_member.items()):
            family = ("ensemble_average/" if member == "average member" else "ensemble/") + horizon
            family += "/replay" if clock == "replay" else ""
            specs.append((family, f"llm-ensemble - {member} ({horizon})", "llm-ensemble", member, "brier", clock,
                          {e: float(sample_mean(v)) for e, v in events.items()}))
    return specs


@pytest.mark.slow
def test_ensemble_specs_from_codes_are_the_loops_to_the_bit():
    rows = score_archive(archive_from_records(synthetic_records(n_events=8, n_models=10, seed=4)),
                         inference_tests=False).forecasts
    rng = np.random.default_rng(8)
    extra = []
    for i, r in enumerate(rows):
        copies = 8 if i == 3 else (1 + i % 2 if i % 5 == 0 else 0)
        for k in range(copies):
            p = rng.dirichlet([1, 1, 1])
            extra.append(replace(r, sample=r.sample + k + 1, p_home=float(p[0]), p_draw=float(p[1]),
                                 p_away=float(p[2])))
    mixed = [rows[i] for i in rng.permutation(len(rows)) if i % 13] + extra
    got, expected = families.ensemble_specs(mixed), _reference(mixed)
    assert got == expected and len(got) > 10
    assert max(len(s[6]) for s in got) == 8
    assert families.ensemble_specs([]) == []


def test_np_means_is_the_mean_of_each_list():
    rng = np.random.default_rng(1)
    group = rng.integers(0, 40, 900)
    values = rng.random(900)
    got = np_means(values, group, 42)
    for g in range(42):
        alone = values[group == g]
        assert (np.isnan(got[g]) and not len(alone)) or got[g] == np.mean(alone.tolist())
