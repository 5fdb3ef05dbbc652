"""The bootstrap's count matrix is the cluster bootstrap of LLM-SoccerArena §3.4: within each
stratum (group stage, knockout) a replicate resamples the stratum's matches with replacement,
so its counts are multinomial(size, uniform). They are drawn as index matrices and counted
(``resampling.stratified_weights``); these tests check that against hand-worked cases, against
``Generator.multinomial`` (an independent route to the same distribution), and as invariants."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score import resampling

DRAWS = 20_000


def test_a_stratum_of_one_match_draws_it_once_in_every_replicate():
    counts = resampling.stratified_weights(np.array([False, True, True]), 50, np.random.default_rng(0), np.uint8)
    assert (counts[:, 0] == 1).all()
    assert set(map(tuple, counts[:, 1:].tolist())) <= {(0, 2), (1, 1), (2, 0)}


def test_two_matches_are_drawn_twice_each_a_quarter_of_the_time_and_once_each_half():
    # Hand-worked: two draws with replacement from {a, b}: aa, ab, ba, bb, each 1/4.
    counts = resampling.stratified_weights(np.zeros(2, bool), DRAWS, np.random.default_rng(1), np.uint8)
    share = {k: np.mean(counts[:, 0] == k) for k in (0, 1, 2)}
    sigma = np.sqrt(0.25 * 0.75 / DRAWS)
    assert abs(share[0] - 0.25) < 5 * sigma and abs(share[2] - 0.25) < 5 * sigma
    assert abs(share[1] - 0.5) < 5 * np.sqrt(0.25 / DRAWS)


def test_counts_have_the_moments_of_numpys_multinomial():
    size = 40
    counts = resampling.stratified_weights(np.zeros(size, bool), DRAWS, np.random.default_rng(2)).astype(float)
    oracle = np.random.default_rng(3).multinomial(size, np.full(size, 1 / size), size=DRAWS).astype(float)
    # Theory: mean 1, variance (size - 1) / size, covariance -1 / size, P(count = 0) = (1 - 1/size)^size.
    for drawn in (counts, oracle):
        assert abs(drawn.mean() - 1) < 1e-12  # every row sums to size exactly
        assert abs(drawn.var(axis=0).mean() - (size - 1) / size) < 0.02
        assert abs(np.cov(drawn[:, :2].T)[0, 1] + 1 / size) < 0.03
        assert abs(np.mean(drawn == 0) - (1 - 1 / size) ** size) < 0.005
    assert abs(np.mean(counts == 0) - np.mean(oracle == 0)) < 0.006
    assert abs(np.mean(counts >= 3) - np.mean(oracle >= 3)) < 0.006


@settings(max_examples=60, deadline=None)
@given(strata=st.lists(st.booleans(), max_size=40), replicates=st.integers(1, 2 * resampling.BLOCK + 3),
       seed=st.integers(0, 2**32 - 1))
def test_every_replicate_resamples_each_stratum_to_its_size(strata, replicates, seed):
    strata = np.array(strata, dtype=bool)
    counts = resampling.stratified_weights(strata, replicates, np.random.default_rng(seed), np.uint8)
    assert counts.shape == (replicates, len(strata)) and counts.dtype == np.uint8
    for value in (False, True):
        assert (counts[:, strata == value].sum(axis=1, dtype=np.int64) == np.sum(strata == value)).all()
    again = resampling.stratified_weights(strata, replicates, np.random.default_rng(seed), np.uint8)
    assert np.array_equal(counts, again)  # the seed fixes every count
