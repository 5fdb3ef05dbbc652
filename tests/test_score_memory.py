"""The scorer's compact representations give the numbers and rows the plain ones give: slotted
rows with shared floats and measures read from one matrix (builder/score/types.py,
scoring._row_setter, builder/score/measurerows.py) and the pooled
reliability's per-match sums instead of replicates x vectors weights (builder/score/reliability.py)."""

from __future__ import annotations

import dataclasses
import math
import pickle

import numpy as np
import orjson
import pytest

from builder.score import difficulty, draws, inference, reliability, resampling
from builder.score.floats import float_sharer
from builder.score.scoring import score_archive, score_match_forecasts
from builder.score.types import ScoredForecast, clean
from collector.records import Forecast
from tests.factories import archive_from_records, synthetic_records
from tests.test_inference import stratum_counts


@pytest.fixture(scope="module")
def archive():
    return archive_from_records(synthetic_records(n_events=16, n_models=3, seed=5, knockout_from=10))


@pytest.fixture(scope="module")
def rows(archive):
    forecasts = sorted((f for f in archive.forecasts if f.target_kind == "match"), key=Forecast.key)
    return score_match_forecasts(archive, forecasts)


def test_rows_round_trip_through_asdict_json_replace_and_pickle(rows):
    names = [f.name for f in dataclasses.fields(ScoredForecast)]
    for row in rows[:200]:
        plain = dataclasses.asdict(row)
        assert list(plain) == names and plain == {n: getattr(row, n) for n in names}
        assert orjson.loads(orjson.dumps(clean(plain))) == clean(plain)
        rebuilt = ScoredForecast(**plain)
        assert rebuilt == row and dataclasses.asdict(rebuilt) == plain
        assert dataclasses.replace(row) == row and dataclasses.replace(row, sample=4).sample == 4
        again = pickle.loads(pickle.dumps(row))
        assert again == row and clean(dataclasses.asdict(again)) == clean(plain)  # NaN: new objects


def test_rows_hold_no_per_row_dict(rows):
    assert rows and not any(hasattr(row, "__dict__") for row in rows)


def test_rows_read_their_measures_from_one_read_only_matrix(rows):
    from builder.score.columns import RowTable

    matrix = rows[0].measures.matrix
    assert all(r.measures.matrix is matrix and r.measures.row == i for i, r in enumerate(rows))
    assert all(r.advancement is None or r.advancement.matrix is matrix for r in rows)
    assert not matrix.flags.writeable and RowTable.of(rows).values is matrix


def test_a_float_sharer_keeps_every_value_sign_and_nan():
    same = float_sharer()
    first, second = float("0.25"), float("0.25")
    assert same(first) is first and same(second) is first
    negative_zero = -0.0
    assert same(0.0) == 0.0 and math.copysign(1.0, same(negative_zero)) == -1.0
    nan = float("nan")
    assert same(nan) is nan and math.isnan(same(float("nan")))
    assert same(float("inf")) == float("inf") and same(1e-300) == 1e-300


def _expanded_bins(events, o, cut, resampler):
    """The reference: every vector weighs as its match, a replicates x vectors matrix of its
    match's counts, summed per stratum and scaled by the stratum's scale in the replicate."""
    idx = resampler.index()
    column = np.array([idx[e] for e in events])
    stratum = np.repeat(np.arange(len(resampler.sizes)), resampler.sizes)[column]
    counts = resampler.draws[:, column].astype(float)
    hits, draws = np.zeros((len(counts), len(cut))), np.zeros((len(counts), len(cut)))
    for h in range(len(resampler.sizes)):
        scale, within = resampler.scales[:, [h]], [(j, m[stratum[m] == h]) for j, m in cut]  # a bin's vectors in h
        hits += scale * np.column_stack([counts[:, m] @ o[m, j] for j, m in within])
        draws += scale * np.column_stack([counts[:, m].sum(axis=1) for _, m in within])
    return hits, draws


def test_pooled_bins_from_match_sums_are_the_expanded_weights_to_the_bit(archive, rows):
    resampler = inference.Resampler.for_events({(r.competition_id, r.event_id): r.knockout for r in rows},
                                               replicates=500, permutations=10)
    events, p, o, _ = reliability.averaged_vectors(rows, "t_minus_24h", "live", "llm")
    assert len(events) > len(set(events))  # several vectors per match
    cut = [(j, m) for j in range(3) for m in reliability.equal_frequency_bins(p[:, j])]
    hits, draws = reliability.bin_replicates(events, o, cut, resampler)
    ref_hits, ref_draws = _expanded_bins(events, o, cut, resampler)
    assert np.array_equal(hits, ref_hits) and np.array_equal(draws, ref_draws)


def test_pooled_reliability_intervals_cover_the_observed_frequency(archive):
    [pooled] = [p for p in score_archive(archive, inference_tests=False).pooled_calibration if p.clock == "live"]
    assert pooled.bins and all(b.low is not None for b in pooled.bins)
    assert all(b.low <= b.observed_frequency <= b.high for b in pooled.bins)


# ---------- the resampler's compact matrices, a block of replicates at a time ----------
# Integer products (counts) are exact whatever the blocks. Float products are the whole matrix's
# wherever BLAS computes a row alike in any number of rows (single-threaded OpenBLAS does; with
# threads a row's kernel can depend on how the rows were split among them, so these tests allow
# rounding; benchmarks/scoring.py --digest is the bit-level check on a machine).
ROUNDING = {"rtol": 1e-12, "atol": 1e-15, "equal_nan": True}

EVENTS = {("c", f"e{i:03d}"): i >= 45 for i in range(60)}
MANY = 2 * resampling.BLOCK + 300  # three blocks, the last one partial


@pytest.fixture(scope="module")
def big():
    return inference.Resampler.for_events(EVENTS, replicates=MANY, permutations=MANY)


def test_compact_matrices_are_the_hashed_draws_of_the_master_seed(big):
    """Recomputed by another route: each event's SHAKE-128 words through scipy's Poisson quantile
    function, its sign bits, and each stratum's scale n_h / N*_h."""
    import hashlib

    from scipy import stats

    keys = sorted(EVENTS, key=lambda k: (EVENTS[k], k))
    assert big.events == keys and big.sizes == (45, 15)
    counts = np.zeros((MANY, len(keys)))
    signs = np.zeros((MANY, len(keys)))
    for j, (competition, event) in enumerate(keys):
        def stream(tag: str, size: int) -> bytes:
            return hashlib.shake_128(f"{tag}\0{inference.SEED}\0{competition}\0{event}".encode()).digest(size)

        words = np.frombuffer(stream("prematch poisson bootstrap", 8 * MANY), dtype="<u8")
        counts[:, j] = stats.poisson.ppf(words / 2.0**64, 1.0)
        bits = stream("prematch sign flip", MANY // 8 + 1)
        signs[:, j] = [1.0 if bits[d // 8] >> (d % 8) & 1 else -1.0 for d in range(MANY)]
    scale = np.column_stack([15 / counts[:, 45:].sum(axis=1) if h else 45 / counts[:, :45].sum(axis=1)
                             for h in (0, 1)])
    weights = counts * np.repeat(scale, [45, 15], axis=1)
    assert big.draws.dtype == np.uint8 and big.flips.dtype == np.int8
    assert np.array_equal(big.draws, counts) and big.signs.tobytes() == signs.tobytes()
    assert np.array_equal(big.scales, scale) and big.weights.tobytes() == weights.tobytes()
    assert np.array_equal(big.weight_columns([7, 2, 50]), weights[:, [7, 2, 50]])
    assert np.array_equal(np.concatenate(list(big.weight_blocks([7, 2, 50]))), weights[:, [7, 2, 50]])
    assert np.array_equal(np.concatenate(list(big.weight_blocks())), weights)


def _counted(rng: np.random.Generator, rows: int, size: int) -> np.ndarray:
    """An independent route to the multinomial bootstrap counts: draw each block's index matrix,
    count each row's indices one row at a time with ``np.add.at``."""
    counts = np.zeros((rows, size), dtype=np.int64)
    for start in range(0, rows, resampling.BLOCK):
        drawn = rng.integers(0, size, size=(min(resampling.BLOCK, rows - start), size))
        for b, row in enumerate(drawn):
            np.add.at(counts[start + b], row, 1)
    return counts


def test_multinomial_matrices_are_the_single_draws_of_the_master_seed():
    multinomial = inference.Resampler.for_events(EVENTS, replicates=MANY, permutations=0,
                                                 scheme=resampling.MULTINOMIAL)
    boot_seq = np.random.SeedSequence(inference.SEED).spawn(2)[0]
    rng = np.random.default_rng(boot_seq)
    weights = np.zeros((MANY, len(EVENTS)))
    for columns in (slice(0, 45), slice(45, 60)):  # each stratum's index matrix, counted row by row
        weights[:, columns] = _counted(rng, MANY, columns.stop - columns.start)
    assert multinomial.draws.dtype == np.uint8 and multinomial.unit
    assert multinomial.weights.tobytes() == weights.tobytes()


def test_bootstrap_counts_are_held_in_the_smallest_type_that_holds_the_largest_drawn():
    strata = np.array([False] * 300 + [True] * 40)  # a stratum over 255 matches: uint16 by its size
    rng = np.random.default_rng(3)
    reference = np.zeros((MANY, len(strata)), dtype=np.int64)
    for value in (False, True):
        columns = np.flatnonzero(strata == value)
        reference[:, columns] = _counted(rng, MANY, len(columns))
    drawn = draws.stratified_weights(strata, MANY, np.random.default_rng(3), np.uint8)
    assert drawn.dtype == np.uint8 and np.array_equal(drawn, reference)

    class Heavy:  # a generator whose second block draws match 0 for every index: a count of 300
        calls = 0

        def integers(self, low, high, size):
            Heavy.calls += 1
            return np.zeros(size, dtype=np.int64) if Heavy.calls == 2 else np.tile(np.arange(high), (size[0], 1))

    widened = draws.stratified_weights(np.zeros(300, dtype=bool), MANY, Heavy(), np.uint8)
    assert widened.dtype == np.uint16 and widened[0, 0] == 1 and widened[resampling.BLOCK, 0] == 300
    assert widened[resampling.BLOCK, 1:].sum() == 0 and (widened.sum(axis=1) == 300).all()


def _values(seed: int, columns: int = 9) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.normal(0.2, 0.3, size=(len(EVENTS), columns))
    values[rng.random(values.shape) < 0.25] = np.nan
    values[:, 2] = (np.arange(len(EVENTS)) % 3 == 0).astype(float)  # a 0/1 measure
    return values


def test_blocked_intervals_and_p_values_are_the_whole_matrix_products(big):
    values = _values(3)
    present = ~np.isnan(values)
    filled = np.where(present, values, 0.0)
    weights, signs, n = big.weights, big.signs, present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (weights @ filled) / (weights @ present.astype(float))
        extreme = np.abs((signs @ filled) / n) >= np.abs(filled.sum(axis=0) / n) - 1e-9 * np.abs(filled).max(axis=0)
    assert np.array_equal(big.counts(present), stratum_counts(big, present))
    assert np.allclose(big.counts(present), weights @ present.astype(float), **ROUNDING)
    assert np.allclose(big.weighted(filled), weights @ filled, **ROUNDING)
    assert np.array_equal(big.sign_flip_p(values), (1 + extreme.sum(axis=0)) / (1 + MANY))  # counts
    low, high = big.intervals(values)
    assert np.allclose(low, np.percentile(means, 2.5, axis=0), **ROUNDING)
    assert np.allclose(high, np.percentile(means, 97.5, axis=0), **ROUNDING)


def test_blocked_studentized_intervals_are_the_step_by_step_formula(big):
    from tests.test_inference import _reference_studentized

    values = _values(4)
    low, high = big.studentized_intervals(values)
    ref_low, ref_high = _reference_studentized(big, values)
    assert np.isfinite(low).any() and np.array_equal(np.isnan(low), np.isnan(ref_low))
    assert np.allclose(low, ref_low, **ROUNDING) and np.allclose(high, ref_high, **ROUNDING)


def test_blocked_difficulty_replicates_are_the_one_batch_fit(big):
    y = _values(5, columns=5)
    y[:, 1] = np.where(np.arange(len(EVENTS)) < 20, np.nan, y[:, 1])  # unequal coverage
    mask = ~np.isnan(y)
    events = big.events[5:]  # a condition without every event: the weights of its events
    rows = [big.index()[e] for e in events]
    blocked = difficulty.bootstrap_adjusted(y[rows], mask[rows], big, events)
    batch = difficulty.adjusted_scores(y[rows], mask[rows], big.weights[:, rows])
    assert blocked.shape == (MANY, 5) and np.allclose(blocked, batch, **ROUNDING)


def test_tests_of_streamed_specs_are_the_tests_of_a_list(archive, rows):
    resampler = inference.Resampler.for_events({(r.competition_id, r.event_id): r.knockout for r in rows},
                                               replicates=300, permutations=300)
    specs = [s for s in inference._all_specs(rows, None) if s[6]]
    assert len(specs) > 10 and any(s[0].startswith("access_by_forecaster") for s in specs)
    assert inference.run_tests(resampler, iter(specs)) == inference.run_tests(resampler, specs)
    assert inference.all_tests(rows, resampler) == inference.run_tests(resampler, specs)
    assert inference.run_tests(resampler, iter([])) == []


def test_a_singular_replicate_in_one_block_sends_every_block_to_the_pseudo_inverse():
    # forecasters 0-1 and 2 linked through matches 0 and 5 only: a replicate drawing neither cannot compare them
    events = [("c", f"e{i}") for i in range(6)]
    y = np.random.default_rng(8).random((6, 3))
    y[[1, 2], 2] = y[[3, 4], 0] = y[[3, 4], 1] = np.nan
    mask = ~np.isnan(y)
    draws = np.random.default_rng(9).integers(1, 4, size=(MANY, 6)).astype(np.uint8)
    draws[-1, [0, 5]] = 0  # the last block's last replicate
    resampler = inference.Resampler(events, draws, np.ones((3, 6), dtype=np.int8))
    with pytest.raises(np.linalg.LinAlgError):
        difficulty.adjusted_scores(y, mask, resampler.weights, "solve")
    blocked = difficulty.bootstrap_adjusted(y, mask, resampler, events)
    assert np.array_equal(blocked, difficulty.adjusted_scores(y, mask, resampler.weights))
    per_block = np.concatenate([difficulty.adjusted_scores(y, mask, w) for w in resampler.weight_blocks()])
    assert not np.array_equal(per_block, blocked)  # the first blocks alone would have been solved
