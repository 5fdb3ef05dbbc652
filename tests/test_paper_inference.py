"""Holm families (ensemble, stage), robustness analyses of LLM-SoccerArena C.3: by hand, against
statsmodels and scipy, and invariants."""

from __future__ import annotations

import itertools
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import permutation_test
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.multitest import multipletests

from builder.score import families, robustness
from builder.score.inference import Resampler, holm, resampler_for
from builder.score.metrics import brier_score_hda
from builder.score.scoring import score_archive
from collector.records import Access, SearchObserved, Strategy
from tests.factories import (
    archive_from_records,
    make_attempt,
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    make_payload,
    synthetic_records,
)

# ---------- oracles for the shared machinery ----------


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0, allow_subnormal=False), min_size=1, max_size=25))
def test_holm_agrees_with_statsmodels(p):
    _, expected, _, _ = multipletests(p, method="holm")
    np.testing.assert_allclose(holm(p), expected, atol=1e-12)


def test_sign_flip_p_agrees_with_scipy_permutation_test():
    rng = np.random.default_rng(4)
    diffs = rng.normal(0.05, 0.1, size=12)
    events = {("c", f"e{i:02d}"): False for i in range(12)}
    resampler = Resampler.for_events(events, permutations=20_000)
    ours = resampler.sign_flip_p(diffs[:, None])[0]
    # 12 matches: 4096 sign patterns, scipy enumerates them all (the exact p-value)
    exact = permutation_test((diffs,), np.mean, permutation_type="samples", alternative="two-sided",
                             n_resamples=10_000).pvalue
    assert ours == pytest.approx(exact, abs=0.01)


# ---------- a small LLM panel built by hand ----------


def panel(lead_minutes=None, searched=None):
    """Three matches, two LLMs, both access conditions and both strategies at T-24h.

    Brier is fixed per cell: open book is better by 0.1 for m.a and 0.2 for m.b under the
    probabilistic strategy and by 0.0 under direct score, except on the third match."""
    records = [make_competition()]
    events = [make_event("mex", "rsa", kickoff=make_event().kickoff_utc + timedelta(days=i), event_id=f"e{i}")
              for i in range(3)]
    for i, e in enumerate(events):
        records += [e, make_outcome(e, 1, 0)]
        for model, gain in (("m.a", 0.1), ("m.b", 0.2)):
            for access, strategy in itertools.product(Access, (Strategy.DIRECT_SCORE, Strategy.PROBABILISTIC_FORECAST)):
                advantage = gain if strategy is Strategy.PROBABILISTIC_FORECAST else 0.0
                p_home = 0.5 + (advantage if access is Access.OPEN_BOOK else 0.0) + 0.05 * i
                rest = (1 - p_home) / 2
                lead = (lead_minutes or {}).get((i, access), 1440.0)
                seen = (searched or {}).get((i, model), True)
                attempt = make_attempt(search=SearchObserved.SEARCHED if seen else SearchObserved.NONE,
                                       started_at=e.kickoff_utc - timedelta(minutes=lead))
                records.append(make_forecast(e, model, make_payload((p_home, rest, rest)), access=access,
                                             strategy=strategy, lead_time_minutes=lead,
                                             requested_at=e.kickoff_utc - timedelta(minutes=lead),
                                             attempts=(attempt,)))
    return score_archive(archive_from_records(records))


def brier(p_home):
    rest = (1 - p_home) / 2
    return (1 - p_home) ** 2 + 2 * rest ** 2


def test_primary_access_effect_and_leave_one_out_by_hand():
    [rob] = panel().robustness
    per_match = []
    for i in range(3):
        base = 0.5 + 0.05 * i
        # mean over models and strategies of closed - open
        diffs = [brier(base) - brier(base + g) for g in (0.1, 0.2)] + [0.0, 0.0]
        per_match.append(np.mean(diffs))
    assert rob.primary.estimate == pytest.approx(np.mean(per_match))
    dropped = [np.mean(per_match[:i] + per_match[i + 1:]) for i in range(3)]
    assert rob.leave_one_out["min"] == pytest.approx(min(dropped))
    assert rob.leave_one_out["max"] == pytest.approx(max(dropped))
    # interaction: (closed - open | prob) - (closed - open | direct) = the probabilistic gain
    inter = [np.mean([brier(0.5 + 0.05 * i) - brier(0.5 + 0.05 * i + g) for g in (0.1, 0.2)]) for i in range(3)]
    assert rob.interaction.estimate == pytest.approx(np.mean(inter))


def test_lead_time_window_drops_matches_outside_1440_plus_minus_90():
    [rob] = panel(lead_minutes={(0, Access.OPEN_BOOK): 1600.0}).robustness
    assert rob.lead_time_excluded == 1 and rob.lead_time.n == 2
    [edge] = panel(lead_minutes={(0, Access.OPEN_BOOK): 1350.0}).robustness  # exactly on the edge: kept
    assert edge.lead_time_excluded == 0


@pytest.mark.slow
def test_as_treated_keeps_only_open_book_forecasts_with_observed_search():
    [rob] = panel(searched={(0, "m.b"): False, (1, "m.b"): False, (2, "m.b"): False}).robustness
    assert rob.intention_to_treat.estimate == pytest.approx(panel().robustness[0].primary.estimate)
    # without m.b's open-book rows only m.a pairs remain: its mean closed - open over strategies
    expected = np.mean([np.mean([brier(0.5 + 0.05 * i) - brier(0.6 + 0.05 * i), 0.0]) for i in range(3)])
    assert rob.as_treated.estimate == pytest.approx(expected)


def test_ranking_stability_by_hand():
    [rob] = panel().robustness
    assert rob.ranking["ranking"] == ["m.b", "m.a"] and rob.ranking["same_ranking_share"] == 1.0


@pytest.mark.slow
def test_variance_decomposition_agrees_with_statsmodels_anova():
    records = synthetic_records(n_events=30, n_models=4, knockout_from=24, seed=2, failure_rate=0.0)
    scores = score_archive(archive_from_records(records))
    [rob] = scores.robustness
    shares = rob.variance["shares"]
    cells = {}
    for r in scores.forecasts:
        if r.forecaster_type == "llm" and r.horizon == "t_minus_24h":
            cells.setdefault((r.forecaster, f"{r.access}/{r.strategy}"), []).append(r.measures["brier"])
    frame = pd.DataFrame([{"model": m, "condition": c, "y": np.mean(v)} for (m, c), v in cells.items()])
    table = anova_lm(smf.ols("y ~ C(model) + C(condition)", data=frame).fit())
    total = table["sum_sq"].sum()
    assert shares["model"] == pytest.approx(table.loc["C(model)", "sum_sq"] / total)
    assert shares["condition"] == pytest.approx(table.loc["C(condition)", "sum_sq"] / total)
    assert shares["interaction"] == pytest.approx(table.loc["Residual", "sum_sq"] / total)
    assert sum(shares.values()) == pytest.approx(1.0)
    for name, (low, high) in rob.variance["intervals"].items():
        assert 0.0 <= low <= high <= 1.0, name


# ---------- ensemble and stage families ----------


def test_ensemble_family_by_hand_and_average_member_never_positive():
    event = make_event()
    records = [make_competition(), event, make_outcome(event, 1, 0),
               make_forecast(event, "m.a", make_payload((0.8, 0.1, 0.1))),
               make_forecast(event, "m.b", make_payload((0.2, 0.4, 0.4)))]
    rows = score_archive(archive_from_records(records), inference_tests=False).forecasts
    specs = {s[3]: s for s in families.ensemble_specs(rows)}
    ens = brier(0.5)  # mean vector (0.5, 0.25, 0.25)
    assert specs["m.a"][6][("worldcup-2026", event.id)] == pytest.approx(ens - (0.04 + 0.01 + 0.01))
    assert specs["m.b"][6][("worldcup-2026", event.id)] == pytest.approx(ens - (0.64 + 0.16 + 0.16))
    assert specs["m.a"][0] == "ensemble/t_minus_24h" and specs["average member"][0] == "ensemble_average/t_minus_24h"
    assert specs["average member"][6][("worldcup-2026", event.id)] <= 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 1), st.floats(0.01, 1), st.floats(0.01, 1)), min_size=2, max_size=6),
       st.integers(0, 2))
def test_ensemble_never_worse_than_the_average_member(vectors, y):
    """Invariant (Krogh and Vedelsby): Brier(mean vector) <= mean Brier of the members."""
    p = np.array(vectors) / np.sum(vectors, axis=1, keepdims=True)
    members = brier_score_hda(p, np.full(len(p), y))
    assert brier_score_hda(p.mean(axis=0, keepdims=True), np.array([y]))[0] <= members.mean() + 1e-12


@pytest.mark.slow
def test_stage_family_holds_eligible_stages_and_is_holm_adjusted_within():
    records = synthetic_records(n_events=30, n_models=2, knockout_from=27, seed=6, failure_rate=0.0)
    scores = score_archive(archive_from_records(records))
    stage = [t for t in scores.tests if t.family == "stage/access/brier"]
    small = [t for t in scores.tests if t.family == "stage_descriptive/access/brier"]
    assert [t.comparison for t in stage] == ["closed_book - open_book (group)"]  # 27 group matches
    assert [t.comparison for t in small] == ["closed_book - open_book (round-of-32)"]  # 3 knockouts
    assert stage[0].p_holm == stage[0].p_value  # a family of one
    ensemble = [t for t in scores.tests if t.family == "ensemble/t_minus_24h"]
    _, expected, _, _ = multipletests([t.p_value for t in ensemble], method="holm")
    np.testing.assert_allclose([t.p_holm for t in ensemble], expected)


def test_no_llms_no_robustness():
    event = make_event()
    records = [make_competition(), event, make_outcome(event, 1, 0), make_forecast(event, "elo")]
    assert score_archive(archive_from_records(records)).robustness == []


def test_resampler_for_uses_studentized_by_default():
    rows = panel().forecasts
    assert resampler_for(rows).method == "studentized"
    with pytest.raises(ValueError):
        resampler_for(rows, "basic")
    assert robustness.leave_one_out({("c", "e"): 1.0}) == {"n": 1, "min": None, "max": None}
