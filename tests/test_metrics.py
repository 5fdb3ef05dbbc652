"""Per-forecast match measures: hand-worked values, a plain-loop route, and invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score import metrics as m

UNIFORM = np.full((1, 3), 1 / 3)


# ---------- hand-worked values ----------


def test_uniform_forecast_brier_is_two_thirds_whatever_happens():
    for y in (0, 1, 2):
        assert m.brier_score_hda(UNIFORM, np.array([y]))[0] == pytest.approx(2 / 3)


def test_brier_log_loss_rps_hand_worked():
    p = np.array([[0.5, 0.3, 0.2]])
    # home win: (0.5-1)^2 + 0.3^2 + 0.2^2 = 0.25 + 0.09 + 0.04
    assert m.brier_score_hda(p, np.array([0]))[0] == pytest.approx(0.38)
    # away win: 0.25 + 0.09 + 0.64
    assert m.brier_score_hda(p, np.array([2]))[0] == pytest.approx(0.98)
    assert m.log_loss_hda(p, np.array([1]))[0] == pytest.approx(-math.log(0.3))
    # RPS away win: cum p = (0.5, 0.8), cum o = (0, 0) -> (0.25 + 0.64) / 2
    assert m.rps_hda(p, np.array([2]))[0] == pytest.approx(0.445)
    # RPS draw: cum o = (0, 1) -> (0.25 + 0.04) / 2
    assert m.rps_hda(p, np.array([1]))[0] == pytest.approx(0.145)


def test_worst_forecast_brier_is_two_and_log_loss_is_clipped():
    p = np.array([[0.0, 0.0, 1.0]])
    assert m.brier_score_hda(p, np.array([0]))[0] == pytest.approx(2.0)
    assert m.log_loss_hda(p, np.array([0]))[0] == pytest.approx(-math.log(m.LOG_LOSS_FLOOR))


def test_modal_accuracy_gives_one_over_k_for_ties():
    p = np.array([[0.4, 0.4, 0.2], [0.4, 0.4, 0.2], [1 / 3, 1 / 3, 1 / 3], [0.6, 0.3, 0.1], [0.6, 0.3, 0.1]])
    y = np.array([0, 2, 1, 0, 1])
    assert m.accuracy_hda(p, y).tolist() == pytest.approx([0.5, 0.0, 1 / 3, 1.0, 0.0])


def test_scoreline_measures_hand_worked():
    ph, pa = np.array([2, 2, 1, 0, 3]), np.array([1, 1, 1, 2, 0])
    h, a = np.array([2, 3, 0, 1, 0]), np.array([1, 2, 0, 0, 1])
    assert m.exact_scoreline(ph, pa, h, a).tolist() == [1, 0, 0, 0, 0]
    assert m.goal_difference_scoreline(ph, pa, h, a).tolist() == [1, 1, 1, 0, 0]
    assert m.tendency_scoreline(ph, pa, h, a).tolist() == [1, 1, 1, 0, 0]
    assert m.points_scoreline(ph, pa, h, a).tolist() == [5, 2, 2, 0, 0]
    err = m.absolute_errors_scoreline(ph, pa, h, a)
    assert err["abs_home_goals"].tolist() == [0, 1, 1, 1, 3]
    assert err["abs_away_goals"].tolist() == [0, 1, 1, 2, 1]
    assert err["abs_total_goals"].tolist() == [0, 2, 2, 1, 2]
    assert err["abs_goal_difference"].tolist() == [0, 0, 0, 3, 4]


def test_points_one_for_tendency_only():
    assert m.points_scoreline(np.array([3]), np.array([0]), np.array([1]), np.array([0]))[0] == 1


def test_scoreline_partial_credit_hand_worked():
    # exact -> 100
    assert m.partial_credit_scoreline([2], [1], [2], [1])[0] == 100
    # 2-1 predicted, 3-1 real: right result, e_d = 1, e_t = 1, e_team = 1
    expected = 45 + 25 * (1 - 1 / 5) + 20 * (1 - 1 / 6) + 10 * (1 - 1 / 8)
    assert m.partial_credit_scoreline([2], [1], [3], [1])[0] == pytest.approx(expected)
    # 0-5 predicted, 5-0 real: wrong result, e_d = 10, e_t = 0, e_team = 10 -> only total goals
    assert m.partial_credit_scoreline([0], [5], [5], [0])[0] == pytest.approx(20.0)


def test_display_calibration_matches_worldcuparena():
    values = m.display_calibration(np.array([0.0, 44.0, 47.0, 50.0, 100.0]))
    assert values[1] == pytest.approx(23.15, abs=0.005)
    assert values[2] == pytest.approx(35.43, abs=0.005)
    assert values[0] == pytest.approx(0.0, abs=1e-9)
    assert values[3] == pytest.approx(50.0, abs=1e-6)
    assert values[4] == pytest.approx(100.0, abs=1e-9)
    shown = m.scoreline_display(np.array([0.0, 70.0, 100.0]))
    assert shown[0] == pytest.approx(0.0, abs=1e-9) and shown[2] == pytest.approx(100.0)
    assert 0 < shown[1] < 100


def test_advancement_measures():
    p = np.array([0.7, 0.7, 0.5])
    adv = np.array([True, False, False])
    assert m.brier_score_advancement(p, adv).tolist() == pytest.approx([2 * 0.09, 2 * 0.49, 2 * 0.25])
    assert m.log_loss_advancement(p, adv).tolist() == pytest.approx([-math.log(0.7), -math.log(0.3), -math.log(0.5)])
    assert m.accuracy_advancement(p, adv).tolist() == [1.0, 0.0, 0.5]


def test_score_probability_agreement_and_goal_distance():
    p = np.array([[0.5, 0.3, 0.2], [0.5, 0.3, 0.2], [0.4, 0.4, 0.2]])
    ph, pa = np.array([2, 1, 1]), np.array([1, 1, 1])
    assert m.agreement_scoreline(p, ph, pa).tolist() == [1.0, 0.0, 1.0]
    assert m.mean_goal_distance_scoreline([1.6, 1.0], [0.9, 1.0], [2, 1], [1, 1]).tolist() == pytest.approx([0.5, 0.0])


# ---------- an independent route: a plain loop, one forecast at a time ----------


def loop_scores(p, y, score, real):
    out = []
    for pi, yi, (ph, pa), (h, a) in zip(p.tolist(), y.tolist(), score.tolist(), real.tolist(), strict=True):
        brier = sum((pi[c] - (1.0 if c == yi else 0.0)) ** 2 for c in range(3))
        log_loss = -math.log(max(pi[yi], 1e-6))
        cum_p, cum_o, rps = 0.0, 0.0, 0.0
        for c in range(2):
            cum_p += pi[c]
            cum_o += 1.0 if c == yi else 0.0
            rps += (cum_p - cum_o) ** 2
        best = max(pi)
        modal = [c for c in range(3) if pi[c] >= best - 1e-9]
        accuracy = (1 / len(modal)) if yi in modal else 0.0
        sign = lambda d: (d > 0) - (d < 0)  # noqa: E731
        if (ph, pa) == (h, a):
            points = 5
        elif ph - pa == h - a:
            points = 2
        elif sign(ph - pa) == sign(h - a):
            points = 1
        else:
            points = 0
        out.append((brier, log_loss, rps / 2, accuracy, points))
    return np.array(out)


def test_vectorised_measures_agree_with_a_plain_loop():
    rng = np.random.default_rng(7)
    p = rng.dirichlet([1, 1, 1], size=300)
    p[:20] = [0.4, 0.4, 0.2]
    real = rng.integers(0, 5, size=(300, 2))
    score = rng.integers(0, 5, size=(300, 2))
    y = m.result_class(real[:, 0], real[:, 1])
    expected = loop_scores(p, y, score, real)
    got = np.column_stack([
        m.brier_score_hda(p, y), m.log_loss_hda(p, y), m.rps_hda(p, y), m.accuracy_hda(p, y),
        m.points_scoreline(score[:, 0], score[:, 1], real[:, 0], real[:, 1]),
    ])
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_rps_agrees_with_scipy_free_definition_via_cdf_difference():
    # RPS of 3 ordered classes = mean over the 2 thresholds of the Brier score of "outcome <= k"
    rng = np.random.default_rng(3)
    p = rng.dirichlet([2, 1, 2], size=50)
    y = rng.integers(0, 3, size=50)
    thresholds = [(p[:, : k + 1].sum(axis=1) - (y <= k)) ** 2 for k in range(2)]
    np.testing.assert_allclose(m.rps_hda(p, y), np.mean(thresholds, axis=0))


# ---------- invariants ----------

probability_vectors = st.lists(st.floats(0.01, 1.0), min_size=3, max_size=3).map(
    lambda v: np.array(v) / sum(v)
)


@settings(max_examples=60, deadline=None)
@given(truth=probability_vectors, other=probability_vectors)
def test_proper_scores_expectation_is_minimised_by_the_true_distribution(truth, other):
    forecasts = np.vstack([truth, other])
    for score in (m.brier_score_hda, m.log_loss_hda, m.rps_hda):
        expected = [
            sum(truth[y] * score(forecasts[i : i + 1], np.array([y]))[0] for y in range(3)) for i in range(2)
        ]
        assert expected[0] <= expected[1] + 1e-12


@settings(max_examples=40, deadline=None)
@given(y=st.integers(0, 2), h=st.integers(0, 9), a=st.integers(0, 9))
def test_a_perfect_forecast_scores_zero_loss_and_full_credit(y, h, a):
    p = np.eye(3)[[y]]
    assert m.brier_score_hda(p, np.array([y]))[0] == 0
    assert m.log_loss_hda(p, np.array([y]))[0] == 0
    assert m.rps_hda(p, np.array([y]))[0] == 0
    assert m.accuracy_hda(p, np.array([y]))[0] == 1
    args = [np.array([v]) for v in (h, a, h, a)]
    assert m.points_scoreline(*args)[0] == 5
    assert m.partial_credit_scoreline(*args)[0] == 100
    assert all(v[0] == 0 for v in m.absolute_errors_scoreline(*args).values())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(probability_vectors, st.integers(0, 2)), min_size=2, max_size=30), st.randoms())
def test_permuting_forecasts_does_not_change_mean_scores(items, random):
    p = np.array([i[0] for i in items])
    y = np.array([i[1] for i in items])
    order = list(range(len(items)))
    random.shuffle(order)
    for score in (m.brier_score_hda, m.log_loss_hda, m.rps_hda, m.accuracy_hda):
        assert score(p, y).mean() == pytest.approx(score(p[order], y[order]).mean())


@settings(max_examples=60, deadline=None)
@given(ph=st.integers(0, 9), pa=st.integers(0, 9), h=st.integers(0, 9), a=st.integers(0, 9))
def test_scoreline_bounds_and_consistency(ph, pa, h, a):
    args = [np.array([v]) for v in (ph, pa, h, a)]
    s = m.partial_credit_scoreline(*args)[0]
    assert 0 <= s <= 100
    assert (s == 100) == ((ph, pa) == (h, a))
    assert m.points_scoreline(*args)[0] in (0, 1, 2, 5)
    # points never reward more than the tendency when the tendency is wrong
    if m.tendency_scoreline(*args)[0] == 0:
        assert m.points_scoreline(*args)[0] == 0 and s <= 55


@settings(max_examples=60, deadline=None)
@given(r1=st.floats(0, 100), r2=st.floats(0, 100))
def test_display_calibration_is_monotone_and_bounded(r1, r2):
    c1, c2 = m.display_calibration(np.array([r1, r2]))
    assert -1e-9 <= c1 <= 100 + 1e-9
    if r1 < r2:
        assert c1 <= c2


@settings(max_examples=60, deadline=None)
@given(truth=st.floats(0.001, 0.999), other=st.floats(0.0, 1.0))
def test_advancement_scores_are_proper(truth, other):
    # (the 1e-6 log-loss floor makes forecasts below 1e-6 as cheap as 1e-6, so truths stay above it)
    def expected(score, p):
        won, lost = score(np.array([p, p]), np.array([True, False]))
        return truth * won + (1 - truth) * lost

    for score in (m.brier_score_advancement, m.log_loss_advancement):
        assert expected(score, truth) <= expected(score, other) + 1e-12
