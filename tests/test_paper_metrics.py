"""Measures as each paper defines them: hand-worked values, independent oracles, invariants.

Oracles (test-only dependencies): ``scoringrules`` for Brier, log and ranked probability
scores, ``scipy`` for rank groups, correlations and bootstrap-t, ``statsmodels`` in
test_paper_inference.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import scoringrules as sr
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata

from builder.score import calibration, metrics
from builder.score.definitions import describe
from builder.score.options import PREMATCH_V1, AnalysisOptions
from builder.score.scoring import score_archive
from collector.records import Horizon, Score
from tests.factories import (
    archive_from_records,
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    make_payload,
    synthetic_records,
)

probability_vectors = (
    st.lists(st.floats(0.001, 1.0, allow_subnormal=False), min_size=3, max_size=3)
    .map(lambda v: np.array(v) / sum(v))
)


# ---------- hand-worked values ----------


def test_extra_time_changes_only_the_wca_measures():
    """Knockout, 1-1 after 90 minutes, 2-1 after extra time; the forecast says 2-1, home 0.5."""
    event = make_event("arg", "fra", knockout=True, stage="final")
    outcome = make_outcome(event, 1, 1, score_extra_time=Score(home=2, away=1), score_penalties=None,
                           advancing_team="arg")
    records = [make_competition(), event, outcome,
               make_forecast(event, "elo", make_payload((0.5, 0.3, 0.2), (2, 1)))]
    [row] = score_archive(archive_from_records(records), inference_tests=False).forecasts
    m = row.measures
    assert m["exact_wca"] == 1.0 and m["scoreline_wca"] == 100.0  # 2-1 is the published score
    assert m["result_wca"] == 1.0  # home is modal and won after extra time
    assert m["exact"] == 0.0 and m["accuracy"] == 0.0  # the 90-minute result was a draw
    # 2-1 against 1-1: wrong result; e_d = 1, e_t = 1, e_team = |2-1| + |1-1| = 1
    by_hand = 0 + 25 * (1 - 1 / 5) + 20 * (1 - 1 / 6) + 10 * (1 - 1 / 8)
    assert m["scoreline_90"] == pytest.approx(by_hand) and m["scoreline"] == m["scoreline_90"]
    assert m["brier_pa"] == pytest.approx((0.25 + 0.49 + 0.04) / 3)  # drawn after 90: (p - o)^2 / 3


def test_without_extra_time_both_bases_agree():
    event = make_event()
    records = [make_competition(), event, make_outcome(event, 2, 0),
               make_forecast(event, "elo", make_payload((0.6, 0.25, 0.15), (1, 0)))]
    [row] = score_archive(archive_from_records(records), inference_tests=False).forecasts
    m = row.measures
    assert m["scoreline_wca"] == m["scoreline_90"] and m["exact_wca"] == m["exact"] == 0.0
    assert m["result_wca"] == m["accuracy"] == 1.0


def test_shootout_goals_never_count():
    event = make_event("arg", "fra", knockout=True, stage="final")
    outcome = make_outcome(event, 0, 0)  # 0-0 after extra time, home wins 5-4 on penalties
    records = [make_competition(), event, outcome, make_forecast(event, "elo", make_payload((0.3, 0.4, 0.3), (0, 0)))]
    [row] = score_archive(archive_from_records(records), inference_tests=False).forecasts
    assert row.measures["exact_wca"] == 1.0 and row.measures["result_wca"] == 1.0


def test_every_measure_states_its_paper():  # every measure's entry: tests/test_measure_registry.py
    assert describe("scoreline_wca").startswith("WorldCupArena")
    assert describe("brier_pa").startswith("Prophet Arena")
    assert "Prematch reading" in metrics.partial_credit_scoreline.__doc__


def test_five_confidence_groups_by_hand():
    # ten forecasts, confidence 0.1..1.0: ranks 1..10, rank/11*5 -> groups 0,0,1,1,2,2,3,3,4,4
    groups = calibration.rank_group(np.linspace(0.1, 1.0, 10), 5)
    assert groups.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    # ties share a group
    assert len(set(calibration.rank_group(np.array([0.5, 0.5, 0.5, 0.9, 0.1]), 5)[:3])) == 1


@pytest.mark.slow
def test_confidence_groups_default_to_five_and_terciles_stay_an_option():
    records = synthetic_records(n_events=30, n_models=2, knockout_from=30, seed=3)
    archive = archive_from_records(records)
    five = score_archive(archive, inference_tests=False).confidence_groups
    three = score_archive(archive, inference_tests=False, options=PREMATCH_V1).confidence_groups
    assert {g.group for g in five} == {"1", "2", "3", "4", "5"}
    assert {g.group for g in three} == {"low", "middle", "high"}
    cell = five[0].cell
    assert sum(g.n for g in five if g.cell == cell) == sum(g.n for g in three if g.cell == cell)


def test_unknown_option_is_refused():
    with pytest.raises(ValueError, match="divergence_unit"):
        AnalysisOptions(divergence_unit="hartleys")


# ---------- independent oracles ----------


@settings(max_examples=80, deadline=None)
@given(p=probability_vectors, y=st.integers(0, 2))
def test_scores_agree_with_scoringrules(p, y):
    onehot = np.eye(3)[y]
    brier = float(np.sum(sr.brier_score(onehot, p)))
    assert metrics.brier_score_hda(p[None], np.array([y]))[0] == pytest.approx(brier, abs=1e-12)
    assert metrics.brier_score_pa(p[None], np.array([y]))[0] == pytest.approx(brier / 3, abs=1e-12)
    log = float(sr.log_score(1, p[y]))
    assert metrics.log_loss_hda(p[None], np.array([y]))[0] == pytest.approx(log, rel=1e-9)
    # scoringrules sums over all K cumulative terms (the last is 0); LLM-SoccerArena divides by K - 1
    rps = float(sr.rps_score(onehot, p, onehot=True))
    assert metrics.rps_hda(p[None], np.array([y]))[0] == pytest.approx(rps / 2, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.floats(0, 1, allow_subnormal=False), min_size=5, max_size=40),
       groups=st.sampled_from([3, 5]))
def test_rank_groups_agree_with_scipy_average_ranks(values, groups):
    values = np.round(np.array(values), 2)  # rounding makes ties
    ranks = rankdata(values, method="average")
    expected = np.minimum((ranks / (len(values) + 1) * groups).astype(int), groups - 1)
    assert calibration.rank_group(values, groups).tolist() == expected.tolist()
    np.testing.assert_allclose(calibration.average_ranks(values), ranks)


# ---------- invariants ----------


@settings(max_examples=60, deadline=None)
@given(ph=st.integers(0, 6), pa=st.integers(0, 6), h=st.integers(0, 6), a=st.integers(0, 6),
       eh=st.integers(0, 3), ea=st.integers(0, 3))
def test_wca_measures_are_the_90_minute_ones_on_the_published_score(ph, pa, h, a, eh, ea):
    """Invariant: scoreline_wca(pred, 90' + extra) == scoreline_90(pred, that score); extra time
    never lowers an exact hit to below a miss, and partial credit stays in [0, 100]."""
    arr = [np.array([v]) for v in (ph, pa, h, a)]
    hw, aw = metrics.published_score(arr[2], arr[3], arr[2] + eh, arr[3] + ea, np.array([True]))
    assert (hw[0], aw[0]) == (h + eh, a + ea)
    wca = metrics.partial_credit_scoreline(arr[0], arr[1], hw, aw)[0]
    assert wca == metrics.partial_credit_scoreline(arr[0], arr[1], np.array([h + eh]), np.array([a + ea]))[0]
    assert 0.0 <= wca <= 100.0
    assert (wca == 100.0) == bool(metrics.exact_wca(arr[0], arr[1], hw, aw)[0])
    hw90, aw90 = metrics.published_score(arr[2], arr[3], arr[2] + eh, arr[3] + ea, np.array([False]))
    assert (hw90[0], aw90[0]) == (h, a)


@settings(max_examples=60, deadline=None)
@given(p=probability_vectors, y=st.integers(0, 2))
def test_prophet_arena_brier_keeps_the_ranking_and_its_bounds(p, y):
    bs = metrics.brier_score_pa(p[None], np.array([y]))[0]
    assert 0.0 <= bs <= 2 / 3 + 1e-12
    uniform = metrics.brier_score_pa(np.full((1, 3), 1 / 3), np.array([y]))[0]
    assert uniform == pytest.approx(2 / 9)


@pytest.mark.slow
def test_studentized_intervals_are_the_default_for_leaderboard_means():
    records = synthetic_records(n_events=24, n_models=2, knockout_from=18, seed=5)
    archive = archive_from_records(records)
    default = score_archive(archive, inference_tests=False)
    earlier = score_archive(archive, inference_tests=False, options=PREMATCH_V1)
    row, old = default.matched[0], earlier.matched[0]
    assert row.measures["brier"] == old.measures["brier"]  # same point estimate
    assert row.intervals["brier"] != old.intervals["brier"]  # different interval construction
    low, high = row.intervals["brier"]
    assert low < row.measures["brier"] < high
    assert any("studentized" in n for n in default.notes)


@pytest.mark.slow
def test_pooled_reliability_averages_members_and_bins_by_frequency():
    records = synthetic_records(n_events=40, n_models=3, knockout_from=30, seed=11, failure_rate=0.0)
    scores = score_archive(archive_from_records(records), inference_tests=False)
    [pooled] = [p for p in scores.pooled_calibration if p.clock == "live"]
    assert pooled.members == "llm" and pooled.n_members == 3 and pooled.horizon == Horizon.T_MINUS_24H.value
    # one vector per event x access x strategy (2 x 2 cells in the synthetic archive)
    assert pooled.n_vectors == 40 * 4 and pooled.n_events == 40
    draws = [b for b in pooled.bins if b.outcome == "draw"]
    assert len(draws) == 5 and sum(b.n for b in draws) == pooled.n_vectors
    assert max(b.n for b in draws) - min(b.n for b in draws) <= 1
    for b in pooled.bins:
        assert b.low is None or b.low <= b.observed_frequency <= b.high
    # the mean gap equals the overall mean predicted minus observed frequency (equal vectors per match)
    gap = pooled.gaps["draw"]
    assert gap["gap"] == pytest.approx(gap["mean_probability"] - gap["observed_frequency"])


def test_sum_audit_of_a_repaired_answer_uses_the_repaired_answers_stated_sum():
    from collector.records import ForecastStatus, Validation
    from tests.factories import make_question, make_question_forecast, make_resolution

    semis = make_question("semifinalists", ("mex", "rsa", "esp", "usa", "cze"), k=2)
    scored = {"esp": 0.9, "mex": 0.6, "usa": 0.4, "rsa": 0.2}  # the repaired answer, as stated: 2.1
    first_and_repaired = Validation(original_sums={"choices": 6.0}, repaired=True,
                                    diagnostics={"repaired_sums": {"choices": 2.1}})
    records = [make_competition(teams=["mex", "rsa", "esp", "usa", "cze"]), semis, make_resolution(semis, ["esp", "usa"]),
               make_question_forecast(semis, scored, status=ForecastStatus.REPAIRED, validation=first_and_repaired)]
    [q] = score_archive(archive_from_records(records)).questions
    assert q.measures["probability_sum_audit"] == pytest.approx(0.1)  # 2.1 - k, not the first answer's 6 - k
