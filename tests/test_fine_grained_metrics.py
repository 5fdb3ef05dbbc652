"""The T2-T4 metrics and their aggregation: hand-worked values, an independent route, invariants."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score import fine_grained_layers as fl
from builder.score import fine_grained_metrics as fm
from builder.score.fine_grained import task_scores
from tests.fine_grained_helpers import forecast, report

# ---- hand-worked values -------------------------------------------------------------------


def test_ndcg_f1_by_hand():
    # ranks 1 and 3 are real scorers, 2 real scorers: g = 1, 1/log2 3, 1/2
    g2 = 1 / math.log2(3)
    dcg = 1 + 0.5
    precision, recall = dcg / (1 + g2 + 0.5), dcg / (1 + g2)
    assert fm.ndcg_f1_players(np.array([1, 0, 1]), 2) == pytest.approx(100 * 2 * precision * recall
                                                                       / (precision + recall))
    assert fm.ndcg_f1_players(np.array([1, 0, 1]), 2) == pytest.approx(79.748, abs=1e-3)
    # the same two hits ranked first score more than ranked last
    assert fm.ndcg_f1_players(np.array([1, 1, 0]), 2) > fm.ndcg_f1_players(np.array([0, 1, 1]), 2)
    assert fm.ndcg_f1_players(np.array([]), 0) == 100.0  # no scorer predicted, none scored (0-0)
    assert fm.ndcg_f1_players(np.array([1.0]), 0) == 0.0
    assert fm.ndcg_f1_players(np.array([]), 1) == 0.0


def test_jaccard_with_positions_by_hand():
    same = np.zeros((11, 11), dtype=bool)
    same[np.arange(9), np.arange(9)] = True  # 9 of 11 right
    positions = np.zeros((11, 11), dtype=bool)
    positions[np.arange(8), np.arange(8)] = True  # 8 of them in the right position
    assert fm.jaccard_positions_lineup(same, positions) == pytest.approx(100 * (0.7 * 9 / 13 + 0.3 * 8 / 11))
    assert fm.jaccard_positions_lineup(same, None) == pytest.approx(100 * 9 / 13)  # no positions: left out


def test_hungarian_with_a_deliberate_tie():
    # two predicted goals by X at 20' and 40'; the real goals are A's and B's, both at 30':
    # every pairing costs 10 minutes + 30 for the wrong player, so both assignments tie at 80
    costs = fm.event_costs(np.array([20.0, 40.0]), np.array([30.0, 30.0]), np.ones((2, 2)))
    assert costs.tolist() == [[40.0, 40.0], [40.0, 40.0]]
    assert fm.hungarian_events(costs) == pytest.approx(100 - 80 / 2)
    # the right player at 25' and 35' for two real goals at 30': tie again, 5 minutes each
    costs = fm.event_costs(np.array([25.0, 35.0]), np.array([30.0, 30.0]), np.zeros((2, 2)))
    assert fm.hungarian_events(costs) == pytest.approx(95.0)


def test_hungarian_prefers_the_cheaper_assignment_and_charges_left_over_events():
    # predicted A 10', B 80'; real B 75', A 12': crossing the pairs costs 2 + 5 = 7
    same = np.array([[False, True], [True, False]])
    costs = fm.event_costs(np.array([10.0, 80.0]), np.array([75.0, 12.0]), (~same).astype(float))
    assert fm.hungarian_events(costs) == pytest.approx(100 - 7 / 2)
    # one predicted goal, right player and minute, but two were scored: 100 for the missing one
    assert fm.hungarian_events(np.array([[0.0, 100.0]])) == pytest.approx(100 - 100 / 2)
    assert fm.hungarian_events(np.zeros((0, 0))) == 100.0  # predicted no red card, none shown
    assert fm.hungarian_events(np.zeros((1, 0))) == 0.0
    # far minute and wrong player cost at most 100 (70 + 30), never more than leaving it out
    assert fm.event_costs(np.array([1.0]), np.array([120.0]), np.ones((1, 1)))[0, 0] == 100.0


def test_smape_counts_by_hand():
    assert fm.smape_counts(np.array([6.0, 0.0, 0.0, 55.0]), np.array([4.0, 0.0, 3.0, 45.0])).tolist() == \
        pytest.approx([60.0, 100.0, 0.0, 80.0])


def test_formation_and_player_of_the_match():
    assert fm.exact_formation("4-3-3", "4-3-3") == 100.0 and fm.exact_formation("4-3-3", "4-2-3-1") == 0.0
    assert fm.top1_player_of_the_match(np.array([0.3, 0.2]), np.array([True, False])) == 100.0
    assert fm.top1_player_of_the_match(np.array([0.3, 0.2]), np.array([False, True])) == 0.0
    assert fm.top1_player_of_the_match(np.array([0.3, 0.3]), np.array([False, True])) == 50.0  # a tie at the top
    assert fm.top1_player_of_the_match(np.array([]), np.array([], dtype=bool)) == 0.0


def test_the_availability_rule_by_hand():
    # three tasks weighted 0.5, 0.3, 0.2; the second has no truth: (0.5*80 + 0.2*50) / 0.7
    assert fm.available_mean(np.array([80.0, np.nan, 50.0]), np.array([0.5, 0.3, 0.2])) == pytest.approx(50 / 0.7)
    assert math.isnan(fm.available_mean(np.array([np.nan]), np.array([1.0])))
    # a layer with no truth drops out of the composite: T1 60, T2 40, T3/T4 unavailable
    raw = fl.composite_raw({"T1": 60.0, "T2": 40.0, "T3": np.nan, "T4": np.nan, "T5": np.nan})
    assert raw == pytest.approx((0.35 * 60 + 0.25 * 40) / 0.60)
    assert fl.composite_display(50.0) == pytest.approx(50.0)
    assert fl.composite_display(44.0) == pytest.approx(23.15, abs=0.01)  # eq. 3's worked value


def test_task_scores_of_a_worked_match():
    fc = forecast(
        scorers=[{"side": "away", "player": "Away Player10", "probability": 0.5},
                 {"side": "home", "player": "H. Player5", "probability": 0.2}],
        cards=[], goals=[{"side": "home", "player": "Home Player9", "minute": 40.0},
                         {"side": "away", "player": "Away Player10", "minute": 70.0}])
    r = report(cards=[], assists=None, statistics=None)
    scores = task_scores(fc, r, goal_total=2)
    g2 = 1 / math.log2(3)
    p, rec = 1 / (1 + g2), 1 / (1 + g2)
    assert scores["goalscorers"] == pytest.approx(100 * 2 * p * rec / (p + rec))
    assert scores["goal_minute"] == pytest.approx(100 - 10 / 2)  # 40' for a 30' goal
    assert scores["cards"] == 100.0  # none predicted, none shown
    assert math.isnan(scores["assist_providers"]) and math.isnan(scores["stat_shots"])  # no data, not 0
    assert scores["starting_xi"] == 100.0 and scores["formation"] == 100.0
    layers = fl.match_layers(scores, t1=70.0)
    t3 = (0.35 * 95 + 0.15 * 100 + 0.20 * 100 + 0.15 * 100 + 0.15 * 100) / 1.0
    assert layers["T3"] == pytest.approx(t3)
    assert layers["T4"] == pytest.approx(100.0)  # only the formation is known


def test_goals_that_do_not_add_up_to_the_published_score_are_left_out():
    scores = task_scores(forecast(), report(), goal_total=3)
    assert math.isnan(scores["goalscorers"]) and math.isnan(scores["goal_minute"])
    assert scores["cards"] == 100.0


def test_a_penalty_miss_nobody_reported_is_not_scored():
    r = report(penalties=None, goals=[{"side": "home", "player": "Home Player9", "minute": 30, "penalty": True},
                                      {"side": "away", "player": "Away Player10", "minute": 70}])
    missed = forecast(penalties=[{"side": "away", "taker": "Away Player10", "minute": 60.0, "outcome": "missed"},
                                 {"side": "home", "taker": "Home Player9", "minute": 31.0, "outcome": "scored"}])
    assert task_scores(missed, r)["penalty_events"] == pytest.approx(99.0)


# ---- an independent route -------------------------------------------------------------------


def brute_force_events(costs: np.ndarray) -> float:
    n_pred, n_truth = costs.shape
    if n_pred == 0 and n_truth == 0:
        return 100.0
    if n_pred == 0 or n_truth == 0:
        return 0.0
    small, large = (n_pred, n_truth) if n_pred <= n_truth else (n_truth, n_pred)
    best = math.inf
    for chosen in itertools.permutations(range(large), small):
        pairs = zip(range(small), chosen, strict=True)
        total = sum(costs[i, j] if n_pred <= n_truth else costs[j, i] for i, j in pairs)
        best = min(best, total)
    return max(0.0, 100.0 - (best + 100.0 * (large - small)) / large)


def loop_ndcg_f1(hits: list[int], n_truth: int) -> float:
    if not hits and n_truth == 0:
        return 100.0
    if not hits or n_truth == 0 or not any(hits):
        return 0.0
    dcg = sum(h / math.log2(i + 2) for i, h in enumerate(hits))
    p = dcg / sum(1 / math.log2(i + 2) for i in range(len(hits)))
    r = dcg / sum(1 / math.log2(i + 2) for i in range(n_truth))
    return 100 * 2 * p * r / (p + r)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 4), st.integers(0, 4), st.data())
def test_hungarian_agrees_with_brute_force(n_pred, n_truth, data):
    minutes = st.floats(0, 130, allow_nan=False)
    tp = np.array(data.draw(st.lists(minutes, min_size=n_pred, max_size=n_pred)))
    tt = np.array(data.draw(st.lists(minutes, min_size=n_truth, max_size=n_truth)))
    wrong = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n_pred * n_truth, max_size=n_pred * n_truth)),
                     dtype=float).reshape(n_pred, n_truth)
    costs = fm.event_costs(tp, tt, wrong).reshape(n_pred, n_truth)
    assert fm.hungarian_events(costs) == pytest.approx(brute_force_events(costs))


@given(st.lists(st.integers(0, 1), max_size=8), st.integers(0, 8))
def test_ndcg_f1_agrees_with_a_loop(hits, n_truth):
    n_truth = max(n_truth, sum(hits))
    assert fm.ndcg_f1_players(np.array(hits), n_truth) == pytest.approx(loop_ndcg_f1(hits, n_truth))
