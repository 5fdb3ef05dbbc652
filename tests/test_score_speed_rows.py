"""Scoring's faster paths give the numbers and rows the plain ones give (builder/score/scoring.py,
floats.float_sharer, difficulty.adjusted_scores): floats shared a column at a time keep every
value, sign and NaN; the difficulty means skip NaN-filling without changing a bit."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score import difficulty
from builder.score.floats import float_sharer
from builder.score.scoring import _row_numbers, _shared_columns


def test_a_sharer_shares_a_whole_list_as_it_shares_each_value():
    same = float_sharer()
    first = float("0.25")
    assert same(first) is first
    plain = same.many([float("0.25"), 1.5, float("1.5")], plain=True)
    assert plain[0] is first and plain[1] is plain[2]
    nan, negative_zero = float("nan"), -0.0
    mixed = same.many([nan, negative_zero, 0.0, float("0.25")])
    assert mixed[0] is nan and math.copysign(1.0, mixed[1]) == -1.0 and mixed[2] == 0.0 and mixed[3] is first


def test_columns_with_nan_or_negative_zero_keep_them_and_the_rest_is_shared():
    same = float_sharer()
    block = np.array([[0.5, -0.0, 0.5], [np.nan, 2.0, np.nan], [1.0, 1.0, 0.0]])
    shared = _shared_columns(block, same)
    assert repr(shared) == repr(block.tolist())  # every value and sign as tolist gives them
    assert shared[0][0] is shared[0][2] and shared[2][0] is shared[2][1]
    assert shared[1][0] is not shared[1][2]  # NaN is never shared (containers compare it by identity)
    assert shared[0][0] is same(0.5) and same(0.0) is shared[2][2]  # one sharer across columns


def test_row_numbers_are_the_plain_numbers_of_every_row():
    rng = np.random.default_rng(4)
    n = 9
    p = rng.dirichlet(np.ones(3), n)
    ints = rng.integers(0, 4, (5, n))
    rows = list(_row_numbers(p, ints, float_sharer()))
    assert len(rows) == n
    for i, (probs, *numbers) in enumerate(rows):
        assert probs == tuple(p[i].tolist()) and numbers == ints[:, i].tolist()
    assert all(type(x) is int for _, *numbers in rows for x in numbers)


def _adjusted_with_nan_filled_alpha(y, mask, weights, solver="solve"):
    """The reference: fit's alpha (NaN without weight), then its weighted mean over the non-NaN entries."""
    alpha, beta = difficulty.fit(y, mask, weights, solver)
    present = ~np.isnan(alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (np.where(present, alpha, 0.0) * weights).sum(axis=1) / np.where(present, weights, 0.0).sum(axis=1)
    return beta + mean[:, None]


def _same_up_to_rounding(got, want):
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.allclose(got, want, rtol=1e-12, atol=1e-13, equal_nan=True)


def test_adjusted_scores_are_the_nan_filled_reference_up_to_rounding():
    rng = np.random.default_rng(11)
    events, forecasters = 40, 4
    mask = rng.random((events, forecasters)) < 0.8
    mask[:, 0] = True  # connected through forecaster 0
    mask[5] = False  # an event nobody forecast (n = 0)
    y = np.where(mask, rng.random((events, forecasters)), np.nan)
    weights = rng.multinomial(events, np.full(events, 1 / events), size=700).astype(float)  # zeros included
    assert (weights == 0).any()
    got = difficulty.adjusted_scores(y, mask, weights, "solve")
    want = _adjusted_with_nan_filled_alpha(y, mask, weights)
    _same_up_to_rounding(got, want)
    assert not np.array_equal(got, want)  # another sum (this is not the reference route itself)
    alpha, _ = difficulty.fit(y, mask, weights, "solve")
    assert np.isnan(alpha[:, 5]).all() and np.isnan(alpha[weights == 0]).all()


def test_a_replicate_without_a_forecast_event_is_nan_as_in_the_reference():
    """Weight only on the event nobody forecast: no event to average (0/0), in both routes."""
    y = np.array([[0.2, 0.4], [0.3, 0.1], [np.nan, np.nan]])
    mask = ~np.isnan(y)
    weights = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    got = difficulty.adjusted_scores(y, mask, weights, "pinv")
    want = _adjusted_with_nan_filled_alpha(y, mask, weights, "pinv")
    assert np.isnan(got[1]).all() and np.isnan(want[1]).all()
    _same_up_to_rounding(got, want)
    # hand-worked: events 0 and 1 weighted 1 and 2; beta = (+0.05, -0.05) from the event
    # differences (-0.2 and +0.2, weighted 1:2 -> mean difference a-b = (1*-0.2 + 2*0.2)/3)
    diff = (1 * (0.2 - 0.4) + 2 * (0.3 - 0.1)) / 3
    mean_alpha = (1 * 0.3 + 2 * 0.2) / 3  # each event's mean; beta sums to 0
    assert np.allclose(got[0], [mean_alpha + diff / 2, mean_alpha - diff / 2])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), events=st.integers(2, 30), forecasters=st.integers(2, 6),
       coverage=st.floats(0.3, 1.0), scale=st.sampled_from([1e-3, 1.0, 1e3]))
def test_adjusted_scores_match_the_alpha_route_on_any_panel(seed, events, forecasters, coverage, scale):
    rng = np.random.default_rng(seed)
    mask = rng.random((events, forecasters)) < coverage
    mask[:, 0] = True  # connected through forecaster 0
    y = np.where(mask, rng.random((events, forecasters)) * scale, np.nan)
    weights = rng.multinomial(events, np.full(events, 1 / events), size=50).astype(float)
    got = difficulty.adjusted_scores(y, mask, weights, "pinv")
    want = _adjusted_with_nan_filled_alpha(y, mask, weights, "pinv")
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.allclose(got, want, rtol=1e-9, atol=1e-12 * scale, equal_nan=True)
    # the constraint: each replicate's betas sum to 0, so its mean adjusted score is its mean alpha
    finite = np.isfinite(got).all(axis=1)
    beta = difficulty.fit(y, mask, weights, "pinv")[1]
    assert np.allclose(beta[finite].sum(axis=1), 0.0, atol=1e-9 * scale)


def test_a_sharer_is_freed_as_soon_as_it_is_dropped():
    """No reference cycle: with the collector paused (as scoring pauses it), a dropped sharer and
    every float it kept go at once, not at the next collection."""
    import gc
    import weakref

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        same = float_sharer()
        same.many([0.5, 1.5], plain=True)
        gone = weakref.ref(same)
        del same
        assert gone() is None
    finally:
        if was_enabled:
            gc.enable()
