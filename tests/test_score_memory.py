"""The scorer's compact representations give the numbers and rows the plain ones give: slotted
rows with shared floats (builder/score/types.py, scoring._row_maker) and the pooled
reliability's per-match sums instead of replicates x vectors weights (builder/score/reliability.py)."""

from __future__ import annotations

import dataclasses
import math
import pickle

import numpy as np
import orjson
import pytest

from builder.score import inference, reliability
from builder.score.scoring import score_archive, score_match_forecasts
from builder.score.types import ScoredForecast, clean, float_sharer
from collector.records import Forecast
from tests.factories import archive_from_records, synthetic_records


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


def test_rows_share_equal_measure_values(rows):
    zeros = [r.measures["exact"] for r in rows if r.measures["exact"] == 0.0]
    assert len(zeros) > 1 and len({id(z) for z in zeros}) == 1


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
    """The reference: every vector weighs as its match, a replicates x vectors weight matrix."""
    idx = resampler.index()
    unit_weights = resampler.weights[:, np.array([idx[e] for e in events])]
    hits = np.column_stack([unit_weights[:, m] @ o[m, j] for j, m in cut])
    draws = np.column_stack([unit_weights[:, m].sum(axis=1) for _, m in cut])
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
