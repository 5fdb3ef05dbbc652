"""Calibration (ECE, reliability bins, confidence groups) and the market comparison."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score import calibration as cal
from builder.score import market

# ---------- ECE and reliability ----------


def test_ece_hand_worked():
    p = np.array([0.05, 0.15, 0.95, 1.0])
    o = np.array([0, 1, 1, 1])
    # bins 0, 1, 9 (1.0 joins the last bin): 1*0.05 + 1*0.85 + 2*|1 - 0.975| = 0.95, over 4
    assert cal.expected_calibration_error(p, o) == pytest.approx(0.2375)


def test_ece_is_zero_when_every_bin_is_calibrated():
    p = np.array([0.25] * 8 + [0.75] * 4)
    o = np.array([1, 0, 0, 0, 1, 0, 0, 0] + [1, 1, 1, 0])
    assert cal.expected_calibration_error(p, o) == pytest.approx(0.0)


def ece_as_in_the_paper(p, o, bin_count=10):
    """seeds/002 App. B.2 pseudocode, written as a loop."""
    total = 0.0
    for b in range(bin_count):
        members = [j for j in range(len(p)) if (b / bin_count <= p[j] < (b + 1) / bin_count)
                   or (b == bin_count - 1 and p[j] == 1.0)]
        if not members:
            continue
        total += len(members) * abs(np.mean([o[j] for j in members]) - np.mean([p[j] for j in members]))
    return total / len(p)


def test_ece_agrees_with_the_papers_loop():
    rng = np.random.default_rng(11)
    p = np.round(rng.random(500), 2)
    o = (rng.random(500) < p).astype(float)
    assert cal.expected_calibration_error(p, o) == pytest.approx(ece_as_in_the_paper(p.tolist(), o.tolist()))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=60), st.randoms())
def test_ece_is_bounded_and_order_free(items, random):
    p = np.array([i[0] for i in items])
    o = np.array([float(i[1]) for i in items])
    order = list(range(len(items)))
    random.shuffle(order)
    value = cal.expected_calibration_error(p, o)
    assert 0 <= value <= 1
    assert value == pytest.approx(cal.expected_calibration_error(p[order], o[order]))


def test_equal_frequency_bins_split_sorted_forecasts_evenly():
    p = np.linspace(0.01, 0.99, 23)
    o = (p > 0.5).astype(float)
    bins = cal.reliability_equal_frequency(p, o, "home")
    assert [b.n for b in bins] == [5, 5, 5, 4, 4]
    assert sum(b.n for b in bins) == 23
    assert all(a.upper <= b.lower for a, b in zip(bins, bins[1:]))
    assert bins[0].observed_frequency == 0 and bins[-1].observed_frequency == 1


def test_equal_width_bins_report_mean_probability_and_frequency():
    bins = cal.reliability_equal_width(np.array([0.12, 0.18, 0.55]), np.array([0.0, 1.0, 1.0]), "draw")
    assert [(b.lower, b.n) for b in bins] == [(0.1, 2), (0.5, 1)]
    assert bins[0].mean_probability == pytest.approx(0.15) and bins[0].observed_frequency == 0.5


def test_confidence_terciles_rank_within_and_keep_ties_together():
    groups = cal.tercile_of_rank(np.array([0.9, 0.1, 0.5, 0.5, 0.7, 0.2]))
    assert groups.tolist() == [2, 0, 1, 1, 2, 0]
    assert set(cal.tercile_of_rank(np.full(7, 0.8)).tolist()) == {1}


# ---------- market ----------


def test_risk_neutral_bet_hand_worked():
    p = np.array([0.6, 0.6, 0.3, 0.5, 0.7, 0.2])
    q = np.array([0.5, 0.5, 0.5, 0.5, 0.0, 1.0])
    o = np.array([1, 0, 0, 1, 1, 1])
    # buy yes at 0.5 and win: 2; buy yes and lose: 0; buy no at 0.5 and win: 2; tie: abstain (1);
    # degenerate prices: abstain
    assert market.market_return_binary(p, q, o).tolist() == [2.0, 0.0, 2.0, 1.0, 1.0, 1.0]


def paper_market_return(p, q, outcome):
    """seeds/002 §3.1.3 pseudocode with our tie rule (abstain at p == q)."""
    if p == q:
        return 1.0
    if p > q:
        return 1 / q if outcome == 1 else 0.0
    return 1 / (1 - q) if outcome == 0 else 0.0


def test_vectorised_return_agrees_with_the_papers_rule():
    rng = np.random.default_rng(4)
    p, q = np.round(rng.random(400), 2), np.clip(np.round(rng.random(400), 2), 0.01, 0.99)
    o = rng.integers(0, 2, 400)
    expected = [paper_market_return(a, b, c) for a, b, c in zip(p, q, o, strict=True)]
    np.testing.assert_allclose(market.market_return_binary(p, q, o), expected)


@settings(max_examples=60, deadline=None)
@given(p=st.floats(0.0, 1.0), q=st.floats(0.02, 0.98))
def test_fair_prices_give_an_expected_return_of_one(p, q):
    # when the market price is the true probability no betting rule can expect to gain
    expected = q * market.market_return_binary(p, q, 1) + (1 - q) * market.market_return_binary(p, q, 0)
    assert float(expected) == pytest.approx(1.0)


def test_copying_the_market_breaks_even_on_three_way_markets():
    q = np.array([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])
    assert market.market_return_hda(q, q, np.array([0, 2])).tolist() == [1.0, 1.0]


def test_sharpe_ratio_hand_worked():
    assert market.sharpe_ratio(np.array([2.0, 1.0, 1.5])) == pytest.approx(1.0)  # (1.5 - 1) / 0.5
    assert market.sharpe_ratio(np.array([1.5, 0.5, 1.0])) == pytest.approx(0.0)
    assert np.isnan(market.sharpe_ratio(np.array([1.2])))
