"""Columnar scoring (builder/score/columns.py): the views aggregate arrays, not rows, and give the
numbers a row-by-row sum gives, to the last bit (same sums, same order)."""

from __future__ import annotations

import numpy as np
import pytest

from builder.score.columns import NAMES, RowTable
from builder.score.inference import Resampler
from builder.score.scoring import score_archive, score_part
from builder.score.slices import score_slices, slice_filter, slices
from collector.records import Forecast
from tests.factories import (
    archive_from_records,
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    make_payload,
    synthetic_records,
)
from tests.test_inference import stratum_counts

# awkward probabilities (sums of them round differently in different orders)
VECTORS = [(0.137, 0.291, 0.572), (0.611, 0.173, 0.216), (0.333, 0.334, 0.333), (0.071, 0.469, 0.46),
           (0.913, 0.041, 0.046), (0.257, 0.287, 0.456), (0.49, 0.203, 0.307), (0.029, 0.011, 0.96),
           (0.777, 0.111, 0.112)]


def _sampled_archive():
    """Two events; three LLMs, one of them with nine samples of the first event."""
    event, other = make_event(), make_event("esp", "usa")
    records = [make_competition(), event, other, make_outcome(event, 2, 1), make_outcome(other, 0, 0)]
    records += [make_forecast(event, "m.a", make_payload(v), sample=i) for i, v in enumerate(VECTORS)]
    records += [make_forecast(event, "m.b", make_payload(VECTORS[3])),
                make_forecast(event, "m.c", make_payload(VECTORS[7])),
                make_forecast(other, "m.a", make_payload(VECTORS[1])),
                make_forecast(other, "m.b", make_payload(VECTORS[2]))]
    return archive_from_records(records)


def test_a_cells_event_means_sum_its_samples_in_row_order_to_the_last_bit():
    scores = score_archive(_sampled_archive(), inference_tests=False)
    table = RowTable.of(scores.forecasts)
    brier = NAMES.index("brier")
    for cell, index in table.by_cell().items():
        events, means = table.event_means(index)
        rows = [scores.forecasts[i] for i in index]
        for event, mean in zip(events.tolist(), means[:, brier].tolist(), strict=True):
            values = [r.measures["brier"] for r in rows if (r.competition_id, r.event_id) == table.events[event]]
            assert mean == sum(values) / len(values)  # exactly: left to right, as a plain loop sums
        row = next(r for r in scores.leaderboard if (r.forecaster, r.access, r.strategy, r.horizon, r.clock) == cell)
        assert row.n == len(events) and row.measures["brier"] == float(means[:, brier].mean())


def test_the_ensemble_averages_samples_then_members_in_the_order_they_appear():
    scores = score_archive(_sampled_archive(), inference_tests=False)
    [row] = [r for r in scores.ensemble if r.n == 2]
    first = np.mean([np.mean([np.array(v) for v in VECTORS], axis=0), np.array(VECTORS[3]), np.array(VECTORS[7])],
                    axis=0)  # what the row-by-row ensemble computed
    y_first = np.array([1.0, 0.0, 0.0])  # 2-1: home
    brier_first = float(np.sum((first - y_first) ** 2))
    second = np.mean([np.array(VECTORS[1]), np.array(VECTORS[2])], axis=0)
    brier_second = float(np.sum((second - np.array([0.0, 1.0, 0.0])) ** 2))
    assert row.measures["brier"] == float(np.array([brier_first, brier_second]).mean())


@pytest.mark.slow
def test_a_slice_scored_from_the_whole_archives_columns_equals_the_slice_scored_from_its_rows():
    records = synthetic_records(n_events=14, n_models=3, knockout_from=9, seed=11)
    archive = archive_from_records(records)
    scores = score_archive(archive)
    parts = score_slices(archive, scores)
    match_forecasts = sorted((f for f in archive.forecasts if f.target_kind == "match"), key=Forecast.key)
    assert len(parts) > 1
    for current in slices(archive):
        if current.whole:
            continue
        keep = slice_filter(archive, current.competition, current.stage)
        alone = score_part(archive, [f for f in match_forecasts if keep(f.competition_id, f.target_id)],
                           [r for r in scores.forecasts if keep(r.competition_id, r.event_id)],
                           inference_tests=current.stage == "all")
        assert parts[current].to_dict() == alone.to_dict()


def test_bootstrap_counts_per_distinct_column_equal_the_full_product():
    rng = np.random.default_rng(7)
    resampler = Resampler.for_events({("c", f"e{i:02d}"): i >= 30 for i in range(40)}, replicates=500,
                                     permutations=10)
    present = rng.random((40, 9)) < 0.7
    present[:, 3] = present[:, 0]  # shared patterns, as a cell's measures share theirs
    present[:, 5] = present[:, 0]
    counts = resampler.counts(present)
    assert np.array_equal(counts, stratum_counts(resampler, present))  # per stratum from the integer counts
    np.testing.assert_allclose(counts, resampler.weights @ present.astype(float), rtol=1e-13)
    assert resampler.counts(np.zeros((40, 0), dtype=bool)).shape == (500, 0)
