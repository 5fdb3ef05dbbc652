"""The ensemble and stage Holm families of LLM-SoccerArena App. B.5 ("The declared Holm families
cover ... eligible stages, ensemble comparisons, ...").

* ``ensemble/<horizon>``: the same-condition equal-weight ensemble against each LLM member
  (App. C.2: "none of the seven ensemble comparisons remains significant after Holm
  correction"). Per match and condition (access x strategy), the ensemble's probability vector
  is the mean of the members' vectors (each member's samples averaged first; at least two
  members); the difference is Brier(ensemble) - Brier(member), averaged over the conditions
  of the match in which both exist (one difference per match, B.5). Negative favours the
  ensemble. ``ensemble_average/<horizon>``: the ensemble against the average member; under
  Brier loss this difference is minus the members' disagreement (Krogh and Vedelsby 1994), so
  it is never positive.
* ``stage/access/brier``: the T-24h closed - open access effect within each stage with at
  least :data:`ELIGIBLE_STAGE_MATCHES` matches (Figure 6A tests group stage to quarter-finals
  and labels smaller stages "desc."); smaller stages are reported in ``stage_descriptive``.
"""

from __future__ import annotations

from collections import defaultdict
from operator import attrgetter

import numpy as np

from builder.score.columns import codes
from builder.score.grouped import np_means
from builder.score.inference import Resampler, factor_specs, llm_cell_means, run_tests
from builder.score.metrics import brier_score_hda
from builder.score.types import ScoredForecast, TestResult

ELIGIBLE_STAGE_MATCHES = 4
STAGE_HORIZON = "t_minus_24h"


def _suffix(clock: str) -> str:
    return "/replay" if clock == "replay" else ""


_ENSEMBLE_KEY = attrgetter("horizon", "clock", "access", "strategy", "competition_id", "event_id")
_PROBABILITIES = attrgetter("p_home", "p_draw", "p_away")
AVERAGE = "average member"


def ensemble_specs(rows: list[ScoredForecast]) -> list[tuple]:
    """Ensemble - member and ensemble - average member Brier, per match (see the module docstring).

    Numpy over integer codes, the floats of a loop per (condition, match) and member: a member's
    samples and the members' vectors are summed one by one in row and name order (as numpy's
    mean over axis 0 adds rows) and divided by their count; the average member's Brier and the
    per-match mean over conditions are ``np.mean`` of each list (``grouped.np_means``)."""
    llm = [r for r in rows if r.forecaster_type == "llm"]
    key, keys = codes(map(_ENSEMBLE_KEY, llm))
    name, names = codes(map(attrgetter("forecaster"), llm))
    rank = np.argsort(np.argsort(np.array(names, dtype=object), kind="stable"))  # a name's place among sorted names
    results = np.zeros(len(keys), dtype=np.intp)
    results[key] = [("home", "draw", "away").index(r.result) for r in llm]  # every row of a key: one match
    cells, inverse = np.unique(key * len(names) + rank[name], return_inverse=True)  # by key, then sorted name
    sums = np.zeros((len(cells), 3))
    np.add.at(sums, inverse.reshape(-1), np.array(list(map(_PROBABILITIES, llm)), dtype=float).reshape(-1, 3))
    cell_key, cell_rank = cells // max(len(names), 1), cells % max(len(names), 1)
    members = np.bincount(cell_key, minlength=len(keys))
    kept = members[cell_key] >= 2  # an ensemble needs two members
    cell_key, cell_rank = cell_key[kept], cell_rank[kept]
    vectors = sums[kept] / np.bincount(inverse.reshape(-1), minlength=len(cells))[kept][:, None]
    ensembled = np.flatnonzero(members >= 2)
    totals = np.zeros((len(keys), 3))
    np.add.at(totals, cell_key, vectors)
    ensemble = brier_score_hda(totals[ensembled] / members[ensembled][:, None], results[ensembled])
    at = np.searchsorted(ensembled, cell_key)  # each kept cell's key among the ensembled keys
    member_scores = brier_score_hda(vectors, results[cell_key])
    average = np_means(member_scores, at, len(ensembled))
    entry_key = np.concatenate([cell_key, ensembled])
    entry_member = np.concatenate([cell_rank, np.full(len(ensembled), len(names))])  # len(names): the average
    entry_value = np.concatenate([ensemble[at] - member_scores, ensemble - average])
    return _ensemble_rows(keys, sorted(names) + [AVERAGE], entry_key, entry_member, entry_value)


def _ensemble_rows(keys, members, entry_key, entry_member, entry_value) -> list[tuple]:
    """The specs from each (key, member)'s ensemble - member difference: per (horizon, clock) and
    member, the mean over a match's conditions in key order, matches by first appearance."""
    order = np.argsort(entry_key, kind="stable")
    entry_key, entry_member, entry_value = entry_key[order], entry_member[order], entry_value[order]
    clock_code, clocks = codes(k[:2] for k in keys)
    event_code, events = codes(k[4:] for k in keys)
    group = (clock_code[entry_key] * len(members) + entry_member) * max(len(events), 1) + event_code[entry_key]
    groups, first, inverse = np.unique(group, return_index=True, return_inverse=True)
    per_match = np_means(entry_value, inverse.reshape(-1), len(groups)).tolist()
    found: dict[tuple, dict[tuple, float]] = {}
    for g in np.argsort(first, kind="stable").tolist():
        k, m = entry_key[first[g]], entry_member[first[g]]
        found.setdefault((*clocks[clock_code[k]], members[m]), {})[events[event_code[k]]] = per_match[g]
    specs = []
    for (horizon, clock, member), by_event in sorted(found.items()):
        family = ("ensemble_average/" if member == AVERAGE else "ensemble/") + horizon + _suffix(clock)
        specs.append((family, f"llm-ensemble - {member} ({horizon})", "llm-ensemble", member, "brier", clock,
                      by_event))
    return specs


def stage_specs(rows: list[ScoredForecast], measure: str = "brier") -> list[tuple]:
    """Closed - open access effect at T-24h within each stage (eligible stages in one Holm family)."""
    by_stage: dict[str, list[ScoredForecast]] = defaultdict(list)
    for r in rows:
        if r.horizon == STAGE_HORIZON:
            by_stage[r.stage].append(r)
    specs = []
    for stage, stage_rows in sorted(by_stage.items()):
        for family, comparison, a, b, m, clock, per_match in factor_specs(
                llm_cell_means(stage_rows, measure), "access", "closed_book", "open_book", measure):
            eligible = len(per_match) >= ELIGIBLE_STAGE_MATCHES
            name = ("stage/access/" if eligible else "stage_descriptive/access/") + measure + _suffix(clock)
            specs.append((name, f"closed_book - open_book ({stage})", a, b, m, clock, per_match))
    return specs


def family_tests(rows: list[ScoredForecast], resampler: Resampler) -> list[TestResult]:
    """The ensemble and stage families, tested in one vectorised pass (Holm within each family)."""
    return run_tests(resampler, [s for s in ensemble_specs(rows) + stage_specs(rows) if s[6]])
