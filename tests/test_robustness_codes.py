"""The ranking stability from integer codes (``robustness.ranking_stability``) is the nested-dict
loop's to the bit: samples to average (nine of one match: numpy's pairwise mean), forecasters
missing from some matches (the complete panel shrinks), rows in no order, too few forecasters."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import numpy as np

from builder.score import robustness
from builder.score.scoring import score_archive
from tests.factories import archive_from_records, synthetic_records


def _reference(rows, clock):
    """ranking_stability as it was, up to the matrix of per-match means (the rest is shared)."""
    per = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r.horizon == robustness.HORIZON and r.clock == clock and r.forecaster_type != "market":
            per[r.forecaster][(r.competition_id, r.event_id)].append(r.measures["brier"])
    if len(per) < 2:
        return {"forecasters": sorted(per), "n": 0}
    names = sorted(per)
    panel = sorted(set.intersection(*(set(v) for v in per.values())))
    if len(panel) < 2:
        return {"forecasters": names, "n": len(panel)}
    x = np.array([[np.mean(per[f][e]) for f in names] for e in panel])
    full = np.argsort(x.mean(axis=0), kind="stable")
    orders = np.argsort((x.sum(axis=0)[None, :] - x) / (len(panel) - 1), axis=1, kind="stable")
    return {"forecasters": names, "n": len(panel), "ranking": [names[i] for i in full],
            "same_ranking_share": float(np.mean(np.all(orders == full[None, :], axis=1))),
            "same_leader_share": float(np.mean(orders[:, 0] == full[0]))}


def test_ranking_stability_from_codes_is_the_loops():
    rows = score_archive(archive_from_records(synthetic_records(n_events=16, n_models=4, seed=7)),
                         inference_tests=False).forecasts
    rng = np.random.default_rng(3)
    many = next(i for i, r in enumerate(rows) if r.horizon == robustness.HORIZON and r.forecaster_type == "llm")
    extra = []
    for i, r in enumerate(rows):
        copies = 8 if i == many else (1 + i % 2 if i % 4 == 0 else 0)
        extra += [replace(r, sample=r.sample + k + 1, measures={**r.measures, "brier": float(rng.random())})
                  for k in range(copies)]
    mixed = [rows[i] for i in rng.permutation(len(rows)) if i % 17 or i == many] + extra
    got = robustness.ranking_stability(mixed, "live")
    assert got == _reference(mixed, "live") and got["n"] >= 2
    assert robustness.ranking_stability(mixed, "replay") == _reference(mixed, "replay") == {"forecasters": [], "n": 0}
    one = [r for r in mixed if r.forecaster == mixed[0].forecaster]
    assert robustness.ranking_stability(one, "live") == _reference(one, "live")
