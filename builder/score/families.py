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

import numpy as np

from builder.score.columns import sample_mean
from builder.score.inference import Resampler, factor_specs, llm_cell_means, run_tests
from builder.score.metrics import brier_score_hda
from builder.score.types import ScoredForecast, TestResult

ELIGIBLE_STAGE_MATCHES = 4
STAGE_HORIZON = "t_minus_24h"


def _suffix(clock: str) -> str:
    return "/replay" if clock == "replay" else ""


def ensemble_specs(rows: list[ScoredForecast]) -> list[tuple]:
    """Ensemble - member and ensemble - average member Brier, per match (see the module docstring)."""
    vectors: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    results: dict[tuple, int] = {}
    for r in rows:
        if r.forecaster_type == "llm":
            key = (r.horizon, r.clock, r.access, r.strategy, (r.competition_id, r.event_id))
            vectors[key][r.forecaster].append((r.p_home, r.p_draw, r.p_away))
            results[key] = ("home", "draw", "away").index(r.result)
    # per (horizon, clock): member -> event -> list of (ensemble - member) over conditions
    diffs: dict[tuple, dict[str, dict[tuple, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for key, members in vectors.items():
        if len(members) < 2:
            continue
        names = sorted(members)
        p = np.array([sample_mean(members[m]) for m in names], dtype=float)
        y = np.full(len(names) + 1, results[key])
        scores = brier_score_hda(np.vstack([p, p.mean(axis=0)]), y)
        member_scores, ensemble = scores[:-1], scores[-1]
        horizon, clock, _, _, event = key
        for name, score in zip(names, member_scores.tolist(), strict=True):
            diffs[(horizon, clock)][name][event].append(ensemble - score)
        diffs[(horizon, clock)]["average member"][event].append(ensemble - float(member_scores.mean()))
    specs = []
    for (horizon, clock), by_member in sorted(diffs.items()):
        for member, events in sorted(by_member.items()):
            per_match = {e: float(sample_mean(v)) for e, v in events.items()}
            family = ("ensemble_average/" if member == "average member" else "ensemble/") + horizon + _suffix(clock)
            specs.append((family, f"llm-ensemble - {member} ({horizon})", "llm-ensemble", member, "brier", clock,
                          per_match))
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
