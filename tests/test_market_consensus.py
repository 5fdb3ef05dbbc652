"""Margin removal and bookmaker consensus (LLM-SoccerArena App. E), and the return at quoted prices
(Prophet Arena §3.1.3, App. B.5, C.2): hand-worked values, golden values from an established
implementation, an independent route, and invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from builder.score.market import market_return_binary
from builder.score.returns import (
    quoted_odds,
    return_crra,
    return_hda,
    return_risk_neutral,
    sharpe_ratio,
    yes_share_crra,
)
from collector.forecasters.baselines.consensus import buy_odds, consensus_probabilities
from collector.forecasters.baselines.margin import remove_margin

# Golden values computed once with penaltyblog 1.13.1 (pip install penaltyblog):
#   from penaltyblog.implied import calculate_implied
#   calculate_implied(odds, method=m).probabilities   for m in multiplicative, power, shin
# penaltyblog is not a dev dependency: it pulls in plotly, ipywidgets, lxml, cython and more for
# three numbers per case, so its answers are stored here. "multiplicative" is its name for
# the proportional (basic normalisation) method.
PENALTYBLOG = {
    (2.7, 2.3, 4.4): {
        "proportional": (0.35873803615739097, 0.4211272598369373, 0.22013470400567173),
        "power": (0.3591710998526432, 0.4237307529942109, 0.21709814715211412),
        "shin": (0.35934391959159157, 0.42324384818283234, 0.21741223222458853),
    },
    (1.5, 4.2, 6.8): {
        "proportional": (0.6338215712383489, 0.2263648468708389, 0.13981358189081228),
        "power": (0.6505874385930311, 0.2183849481876221, 0.131027613218518),
        "shin": (0.6453944188863457, 0.2221611710230617, 0.1324444100915509),
    },
    (3.1, 3.3, 2.45): {
        "proportional": (0.3120416827479738, 0.29313006561173294, 0.39482825164029334),
        "power": (0.31130819162796114, 0.29186678359034124, 0.39682502478169746),
        "shin": (0.311505496868385, 0.29212011172605246, 0.3963743914045731),
    },
}


@pytest.mark.parametrize("odds", list(PENALTYBLOG))
@pytest.mark.parametrize("method", ["proportional", "power", "shin"])
def test_margin_removal_matches_penaltyblog(odds, method):
    np.testing.assert_allclose(remove_margin(odds, method), PENALTYBLOG[odds][method], rtol=0, atol=1e-9)


def test_margin_removal_hand_worked():
    # 1/1.8 + 1/3.6 + 1/3.6 = 0.5556 + 0.2778 + 0.2778 = 1.1111 (11.1% overround)
    np.testing.assert_allclose(remove_margin((1.8, 3.6, 3.6), "proportional"), (0.5, 0.25, 0.25))
    # power: q_i ** k with k = 2 would give 0.3086 + 2 * 0.0772 = 0.463 < 1, so 1 < k < 2; the
    # favourite keeps more than its proportional share
    power = remove_margin((1.8, 3.6, 3.6), "power")
    assert power.sum() == pytest.approx(1.0) and power[0] > 0.5 and power[1] == pytest.approx(power[2])


# Three bookmakers, margins 11.1%, 11.1% and 4.2% (inverse odds sum to 10/9, 10/9, 25/24):
#   A 1.80 3.60 3.60 -> fair 0.5000 0.2500 0.2500
#   B 1.80 2.70 5.40 -> fair 0.5000 0.3333 0.1667
#   C 2.40 2.40 4.80 -> fair 0.4000 0.4000 0.2000
# medians per outcome 0.5, 1/3, 0.2 (sum 31/30) -> renormalised 15/31, 10/31, 6/31.
BOOKS = [(1.8, 3.6, 3.6), (1.8, 2.7, 5.4), (2.4, 2.4, 4.8)]


def test_lsa_per_bookmaker_median_on_three_bookmakers():
    np.testing.assert_allclose(consensus_probabilities(BOOKS), (15 / 31, 10 / 31, 6 / 31))
    # not the same as removing the margin from the median odds (1.8, 2.7, 4.8): 0.490, 0.327, 0.184
    np.testing.assert_allclose(buy_odds(BOOKS), (1.8, 2.7, 4.8))
    assert not np.allclose(remove_margin(buy_odds(BOOKS), "proportional"), (15 / 31, 10 / 31, 6 / 31))
    # one bookmaker: its own margin-free probabilities
    np.testing.assert_allclose(consensus_probabilities(BOOKS[:1]), (0.5, 0.25, 0.25))


def test_consensus_with_other_methods_and_bad_odds():
    shin = consensus_probabilities(BOOKS, "shin")
    assert shin.sum() == pytest.approx(1.0)
    per_book = np.vstack([remove_margin(b, "shin") for b in BOOKS])
    np.testing.assert_allclose(shin, np.median(per_book, axis=0) / np.median(per_book, axis=0).sum())
    with pytest.raises(ValueError, match="decimal odds must be > 1"):
        consensus_probabilities([(1.0, 3.0, 3.0)])
    with pytest.raises(ValueError, match="unknown margin-removal method"):
        consensus_probabilities(BOOKS, "additive")


# A binary market whose Yes costs 0.55 and No 0.50: 5 cents of fee/spread over a fair 1.00.
YES, NO = 0.55, 0.50


def test_risk_neutral_return_buys_at_the_quoted_price_with_the_fee():
    p = np.array([0.60, 0.60, 0.47, 0.47, 0.52])
    o = np.array([1, 0, 0, 1, 0])
    got = return_risk_neutral(p, YES, NO, o)
    # 0.60 > 0.55: Yes at 0.55 pays 1/0.55 if Yes; 1 - 0.47 = 0.53 > 0.50: No at 0.50 pays 2;
    # 0.52: below the Yes price and 0.48 below the No price: no edge after the fee, stake kept
    np.testing.assert_allclose(got, [1 / 0.55, 0.0, 2.0, 0.0, 1.0])
    # the margin-free rule (mid price 0.525) would have bought No at 0.475 on the last one: 1/0.475
    assert market_return_binary(0.52, 0.525, 0) == pytest.approx(1 / 0.475)


def test_crra_return_hand_worked_with_the_fee():
    # gamma = 1 (proportional betting): a = p = 0.6; R = 0.6 / 0.55 if Yes, 0.4 / 0.50 if No
    assert yes_share_crra(0.6, YES, NO, 1.0) == pytest.approx(0.6)
    np.testing.assert_allclose(return_crra(0.6, YES, NO, np.array([1, 0]), 1.0), [0.6 / 0.55, 0.8])
    # gamma = 0.5: e = 2; yes term 0.36 / 0.55, no term 0.16 / 0.50; a = 0.654545 / 0.974545
    a = (0.36 / 0.55) / (0.36 / 0.55 + 0.16 / 0.5)
    assert yes_share_crra(0.6, YES, NO, 0.5) == pytest.approx(a) == pytest.approx(0.671642, abs=1e-6)
    assert return_crra(0.6, YES, NO, 1, 0.5) == pytest.approx(a / 0.55)
    # gamma -> 0 approaches the all-in risk-neutral bet
    assert return_crra(0.6, YES, NO, 1, 0.02) == pytest.approx(1 / 0.55, rel=1e-3)
    with pytest.raises(ValueError, match="gamma must be in"):
        yes_share_crra(0.6, YES, NO, 0.0)


def test_hda_return_backs_at_the_bookmakers_odds_and_sharpe():
    # forecaster 0.6/0.25/0.15 against quoted odds 1.8/3.6/3.6 (prices 0.556, 0.278, 0.278):
    # home is backed (0.6 > 0.556), draw and away are dearer than the forecast: stakes kept.
    p = np.array([[0.6, 0.25, 0.15], [0.6, 0.25, 0.15]])
    odds = np.array([[1.8, 3.6, 3.6], [1.8, 3.6, 3.6]])
    got = return_hda(p, odds, np.array([0, 2]))
    np.testing.assert_allclose(got, [(1.8 + 1 + 1) / 3, (0 + 1 + 1) / 3])
    assert sharpe_ratio(np.array([2.0, 1.0, 1.5])) == pytest.approx(1.0)  # (1.5 - 1) / 0.5
    assert np.isnan(sharpe_ratio(np.array([1.2])))
    assert quoted_odds({"buy_odds": [1.8, 2.7, 4.5]}) == (1.8, 2.7, 4.5)
    assert quoted_odds({"odds": [1.8, 0.9, 4.5]}) is None and quoted_odds(None) is None


def _oracle(p: float, y: float, n: float, o: int) -> float:
    """The risk-neutral rule written out case by case (an independent route)."""
    if p > y:
        return 1 / y if o == 1 else 0.0
    if n == n and (1 - p) > n:  # n == n: not NaN
        return 1 / n if o == 0 else 0.0
    return 1.0


prob = st.floats(0.01, 0.99)
fee = st.floats(0.0, 0.1)


@given(p=prob, q=st.floats(0.05, 0.95), f=fee, o=st.integers(0, 1))
def test_risk_neutral_matches_the_oracle_and_never_expects_a_loss(p, q, f, o):
    y, n = min(q + f / 2, 0.99), min(1 - q + f / 2, 0.99)
    assert return_risk_neutral(p, y, n, o) == pytest.approx(_oracle(p, y, n, o))
    # a risk-neutral bettor only bets with an edge at the price paid: by its own p, E[R] >= 1
    expected = p * return_risk_neutral(p, y, n, 1) + (1 - p) * return_risk_neutral(p, y, n, 0)
    assert expected >= 1 - 1e-12


@given(p=prob, q=st.floats(0.05, 0.95), f=fee, gamma=st.floats(0.05, 1.0))
def test_crra_share_is_a_share_and_more_fee_never_buys_more(p, q, f, gamma):
    y, n = min(q + f / 2, 0.99), min(1 - q + f / 2, 0.99)
    a = float(yes_share_crra(p, y, n, gamma))
    assert 0.0 <= a <= 1.0
    # a dearer Yes never raises the share on Yes
    assert float(yes_share_crra(p, min(y + 0.005, 0.995), n, gamma)) <= a + 1e-12
