"""The bootstrap's draws (``builder.score.draws``), both schemes.

The Poisson bootstrap's counts and the sign flips are one column per event, from SHAKE-128 of
the seed and the event's id: checked here against hand-worked thresholds and streams, for
Poisson(1) frequencies against ``Generator.poisson`` (an independent route to the same
distribution), and for the property the scheme exists for: adding an event changes no other
event's counts or signs, so a replicate's per-stratum sums extend by the new event's term.

LLM-SoccerArena's stratified multinomial counts (the paper tables' scheme): within each stratum
(group stage, knockout) a replicate resamples the stratum's matches with replacement, so its
counts are multinomial(size, uniform); checked against hand-worked cases, against
``Generator.multinomial`` and as invariants."""

from __future__ import annotations

import hashlib
from fractions import Fraction
from math import factorial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.score import draws
from builder.score.resampling import Resampler

DRAWS = 20_000
SEED = 20260715


# ---------- the Poisson bootstrap's hashed columns ----------


def _exact_thresholds(n: int) -> list[int]:
    """floor(2**64 P(K <= k)) for K ~ Poisson(1), in exact rational arithmetic: e**-1 from its
    alternating series to 60 terms (error below 1/60!, far below 2**-64)."""
    e_inverse = sum(Fraction((-1) ** j, factorial(j)) for j in range(60))
    return [int(2**64 * e_inverse * sum(Fraction(1, factorial(j)) for j in range(k + 1))) for k in range(n)]


def test_the_thresholds_are_the_poisson_distribution_function_in_64_bits():
    thresholds = [int(t) for t in draws.THRESHOLDS]
    assert thresholds == _exact_thresholds(len(thresholds))
    assert thresholds[0] == 2**64 * 367879441171442321595 // 10**21  # e**-1 = 0.367879441171442321595...
    assert 2**64 - thresholds[-1] < 10  # the last threshold leaves less than 10 / 2**64 above it
    words = np.array([0, thresholds[0] - 1, thresholds[0], thresholds[1] - 1, thresholds[1], thresholds[2],
                      2**64 - 1], dtype=np.uint64)
    assert draws.poisson_of(words).tolist() == [0, 0, 1, 1, 2, 3, len(thresholds)]


def test_the_fast_lookup_gives_the_thresholds_count_for_every_word():
    rng = np.random.default_rng(0)
    near = np.concatenate([draws.THRESHOLDS + np.uint64(d)
                           for d in (0, 1, 2**47)] + [draws.THRESHOLDS - np.uint64(d) for d in (1, 2**47)])
    words = np.concatenate([rng.integers(0, 2**64, size=200_000, dtype=np.uint64, endpoint=False), near])
    assert np.array_equal(draws.poisson_of(words), np.searchsorted(draws.THRESHOLDS, words, side="right"))


def test_a_column_is_the_events_shake_stream_by_hand():
    key = ("wc2026", "m001")
    stream = hashlib.shake_128(b"prematch poisson bootstrap\x0020260715\x00wc2026\x00m001").digest(8 * 5)
    words = [int.from_bytes(stream[8 * b : 8 * b + 8], "little") for b in range(5)]
    thresholds = _exact_thresholds(25)
    by_hand = [sum(t <= w for t in thresholds) for w in words]
    assert draws.poisson_column(SEED, key, 5).tolist() == by_hand
    signs = hashlib.shake_128(b"prematch sign flip\x0020260715\x00wc2026\x00m001").digest(2)
    bits = [(signs[d // 8] >> (d % 8)) & 1 for d in range(12)]
    assert draws.sign_column(SEED, key, 12).tolist() == [1 if b else -1 for b in bits]


def test_the_same_seed_and_id_give_the_same_column_and_a_longer_one_extends_it():
    key = ("c", "e1")
    column = draws.poisson_column(SEED, key, 3000)
    assert column.dtype == np.uint8 and np.array_equal(column, draws.poisson_column(SEED, key, 3000))
    assert np.array_equal(draws.poisson_column(SEED, key, 1000), column[:1000])  # replicate b is b's whatever R
    assert np.array_equal(draws.sign_column(SEED, key, 1000), draws.sign_column(SEED, key, 3000)[:1000])


def test_other_ids_and_seeds_give_independent_columns():
    keys = [("c", "e1"), ("c", "e2"), ("d", "e1"), ("ce", "1"), ("c", "e11")]
    columns = np.array([draws.poisson_column(SEED, k, DRAWS) for k in keys] +
                       [draws.poisson_column(SEED + 1, keys[0], DRAWS)], dtype=float)
    correlation = np.corrcoef(columns)
    bound = 4.5 / np.sqrt(DRAWS)  # |r| of independent columns: sd 1 / sqrt(n); 4.5 sd over 15 pairs
    assert np.abs(correlation[np.triu_indices(len(columns), 1)]).max() < bound
    signs = np.array([draws.sign_column(SEED, k, DRAWS) for k in keys], dtype=float)
    assert np.abs(np.corrcoef(signs)[np.triu_indices(len(keys), 1)]).max() < bound
    assert abs(signs.mean()) < 4.5 / np.sqrt(signs.size)
    # a weight stream and a sign stream of one event are independent too
    assert abs(np.corrcoef(columns[0], signs[0])[0, 1]) < bound


def test_an_id_with_a_nul_byte_is_refused():
    with pytest.raises(ValueError, match="NUL"):
        draws.poisson_column(SEED, ("c", "e\x00"), 10)


def test_counts_have_the_frequencies_of_numpys_poisson():
    counts = draws.poisson_weights([("c", f"e{i}") for i in range(40)], SEED, DRAWS // 10).reshape(-1)
    oracle = np.random.default_rng(3).poisson(1.0, size=counts.size)
    n = counts.size
    for k in range(5):
        p = np.exp(-1) / factorial(k)
        sigma = np.sqrt(p * (1 - p) / n)
        assert abs(np.mean(counts == k) - p) < 5 * sigma and abs(np.mean(oracle == k) - p) < 5 * sigma
    assert abs(counts.mean() - 1) < 5 / np.sqrt(n) and abs(counts.var() - 1) < 5 * np.sqrt(3 / n)


def _events(n: int, knockout_from: int) -> dict[tuple[str, str], bool]:
    return {("wc", f"m{i:03d}"): i >= knockout_from for i in range(n)}


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), share=st.floats(0, 1), new_knockout=st.booleans(), new_name=st.text(
    st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=6))
def test_adding_an_event_leaves_every_other_events_counts_and_signs(n, share, new_knockout, new_name):
    before = Resampler.for_events(_events(n, int(n * share)), replicates=300, permutations=200)
    key = ("new", new_name)
    after = Resampler.for_events(_events(n, int(n * share)) | {key: new_knockout}, replicates=300,
                                 permutations=200)
    index = after.index()
    moved = [index[e] for e in before.events]
    assert np.array_equal(after.draws[:, moved], before.draws)
    assert np.array_equal(after.flips[:, moved], before.flips)
    assert np.array_equal(after.draws[:, index[key]], draws.poisson_column(20260715, key, 300))


def test_a_replicates_weighted_sum_extends_by_the_new_events_term():
    """With one more match, every replicate's weighted sum is the earlier per-stratum sums plus
    the new match's count times its value, scaled by the strata's new scales: nothing else redrawn."""
    events = _events(30, 20)
    values = dict(zip(events, np.random.default_rng(2).random(30), strict=True))
    before = Resampler.for_events(events, replicates=500, permutations=0)
    key, value = ("wc", "m999"), 0.7
    after = Resampler.for_events(events | {key: True}, replicates=500, permutations=0)
    sums = [before.draws[:, cols].astype(float) @ np.array([values[e] for e in before.events[cols]])
            for cols in before.strata]  # per stratum, counts times values: what a tick would keep
    counts = [before.draws[:, cols].sum(axis=1, dtype=np.int64) for cols in before.strata]
    new = draws.poisson_column(SEED, key, 500).astype(float)
    sums[1] += new * value
    counts[1] += new.astype(np.int64)
    extended = sum(np.where(c > 0, size / np.maximum(c, 1), 0.0) * s
                   for size, c, s in zip((20, 11), counts, sums, strict=True))
    x = np.array([values.get(e, value) for e in after.events])
    np.testing.assert_allclose(after.weighted(x[:, None])[:, 0], extended, rtol=1e-12)
    np.testing.assert_array_equal(after.scales, np.column_stack([np.where(c > 0, size / np.maximum(c, 1), 0.0)
                                                                 for size, c in zip((20, 11), counts, strict=True)]))


def test_a_stratum_of_one_match_weighs_one_when_drawn_and_nothing_when_not():
    r = Resampler.for_events(_events(3, 2), replicates=DRAWS, permutations=0)
    knockout = r.weights[:, r.index()[("wc", "m002")]]
    assert set(np.unique(knockout).tolist()) == {0.0, 1.0}
    drawn = r.draws[:, r.index()[("wc", "m002")]] > 0
    assert np.array_equal(knockout == 1.0, drawn)
    sigma = np.sqrt(np.exp(-1) * (1 - np.exp(-1)) / DRAWS)
    assert abs(np.mean(~drawn) - np.exp(-1)) < 5 * sigma  # P(count = 0) = 1/e


# ---------- LLM-SoccerArena's stratified multinomial counts ----------


def test_a_multinomial_stratum_of_one_match_draws_it_once_in_every_replicate():
    counts = draws.stratified_weights(np.array([False, True, True]), 50, np.random.default_rng(0), np.uint8)
    assert (counts[:, 0] == 1).all()
    assert set(map(tuple, counts[:, 1:].tolist())) <= {(0, 2), (1, 1), (2, 0)}


def test_two_matches_are_drawn_twice_each_a_quarter_of_the_time_and_once_each_half():
    # Hand-worked: two draws with replacement from {a, b}: aa, ab, ba, bb, each 1/4.
    counts = draws.stratified_weights(np.zeros(2, bool), DRAWS, np.random.default_rng(1), np.uint8)
    share = {k: np.mean(counts[:, 0] == k) for k in (0, 1, 2)}
    sigma = np.sqrt(0.25 * 0.75 / DRAWS)
    assert abs(share[0] - 0.25) < 5 * sigma and abs(share[2] - 0.25) < 5 * sigma
    assert abs(share[1] - 0.5) < 5 * np.sqrt(0.25 / DRAWS)


def test_counts_have_the_moments_of_numpys_multinomial():
    size = 40
    counts = draws.stratified_weights(np.zeros(size, bool), DRAWS, np.random.default_rng(2)).astype(float)
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
@given(strata=st.lists(st.booleans(), max_size=40), replicates=st.integers(1, 2 * draws.BLOCK + 3),
       seed=st.integers(0, 2**32 - 1))
def test_every_replicate_resamples_each_stratum_to_its_size(strata, replicates, seed):
    strata = np.array(strata, dtype=bool)
    counts = draws.stratified_weights(strata, replicates, np.random.default_rng(seed), np.uint8)
    assert counts.shape == (replicates, len(strata)) and counts.dtype == np.uint8
    for value in (False, True):
        assert (counts[:, strata == value].sum(axis=1, dtype=np.int64) == np.sum(strata == value)).all()
    again = draws.stratified_weights(strata, replicates, np.random.default_rng(seed), np.uint8)
    assert np.array_equal(counts, again)  # the seed fixes every count
