"""The scorer's per-forecast rows and shared intermediate results (builder/score/scoring.py): the
cheap row construction gives the rows the dataclass's own constructor gives, and results the
tests reuse from the leaderboard views are the ones they would compute themselves."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from builder.score import inference, market
from builder.score.columns import sample_mean
from builder.score.scoring import _row_setter, score_archive, score_match_forecasts
from builder.score.types import ScoredForecast
from collector.records import Forecast
from tests.factories import archive_from_records, synthetic_records


@pytest.fixture(scope="module")
def archive():
    return archive_from_records(synthetic_records(n_events=12, n_models=3, seed=7, knockout_from=8))


def test_rows_are_the_rows_the_dataclass_constructor_builds(archive):
    forecasts = sorted((f for f in archive.forecasts if f.target_kind == "match"), key=Forecast.key)
    rows = score_match_forecasts(archive, forecasts)
    assert rows and any(r.forecaster_type == "market" for r in rows)
    names = [f.name for f in dataclasses.fields(ScoredForecast)]
    for row in rows:
        values = {n: getattr(row, n) for n in names}
        rebuilt = ScoredForecast(**values)
        assert rebuilt == row and {n: getattr(rebuilt, n) for n in names} == values
        for name in ("forecaster_type", "access", "strategy", "horizon", "clock", "status"):
            assert type(getattr(row, name)) is str, name  # plain strings, as .value gives, not enum members
        assert dataclasses.replace(row, sample=9).sample == 9
        with pytest.raises(dataclasses.FrozenInstanceError):
            row.sample = 3  # type: ignore[misc]


def test_a_row_missing_or_adding_a_field_is_refused():
    make = _row_setter()
    values = tuple(None for _ in dataclasses.fields(ScoredForecast))
    assert isinstance(make(values), ScoredForecast)
    with pytest.raises(TypeError, match="field values"):
        make(values[:-1])
    with pytest.raises(TypeError, match="field values"):
        make((*values, 1))


def test_each_field_of_a_row_holds_its_own_value(archive):
    """Rows are set from values in field order: every field is checked against its source, so a
    value put in a neighbour's field (the fields' order changed, one value left out) fails here."""
    forecasts = sorted((f for f in archive.forecasts if f.target_kind == "match"), key=Forecast.key)
    rows = score_match_forecasts(archive, forecasts)
    by_key = {f.key(): f for f in forecasts}
    for row in rows:
        f = by_key[row.key]
        event = archive.events[(f.competition_id, f.target_id)]
        outcome = archive.outcomes[(f.competition_id, f.target_id)]
        assert (row.competition_id, row.event_id, row.forecaster, row.model, row.sample) == (
            f.competition_id, f.target_id, f.forecaster, f.model, f.sample)
        assert (row.forecaster_type, row.access, row.strategy, row.horizon, row.clock, row.status) == (
            f.forecaster_type.value, f.access.value, f.strategy.value, f.horizon.value, f.clock.value, f.status.value)
        assert (row.stage, row.knockout) == (event.stage, event.knockout)
        assert (row.p_home, row.p_draw, row.p_away) == (f.payload.home_win_90, f.payload.draw_90, f.payload.away_win_90)
        assert (row.predicted_home, row.predicted_away) == (f.payload.most_likely_score_90.home,
                                                           f.payload.most_likely_score_90.away)
        assert (row.score_home, row.score_away) == (outcome.score_90.home, outcome.score_90.away)
        assert row.confidence == f.payload.confidence and row.lead_time_minutes == f.lead_time_minutes
        assert set(row.measures) >= {"brier", "log_loss", "accuracy"} and row.path.endswith(".json")


def test_tests_given_the_views_market_pairs_equal_tests_pairing_the_rows_themselves(archive):
    scores = score_archive(archive, inference_tests=False)
    resampler = inference.resampler_for(scores.forecasts)
    given = inference.all_tests(scores.forecasts, resampler, market.market_events(scores.forecasts))
    own = inference.all_tests(scores.forecasts, resampler)
    assert any(t.family.startswith("market/") for t in own)
    assert given == own


def test_the_mean_of_one_sample_is_numpy_s_mean_to_the_bit():
    values = [-0.0, 0.0, 0.1, 1e-300, -2.5, float("nan"), float("inf"), 3]
    for x in values:
        assert repr(float(sample_mean([x]))) == repr(float(np.mean([x])))
    vectors = [(-0.0, 0.5, 0.5), (0.137, 0.291, 0.572), (1.0, 0.0, -0.0)]
    for v in vectors:
        assert repr(np.asarray(sample_mean([v]), dtype=float).tolist()) == repr(np.mean([v], axis=0).tolist())
    assert np.array_equal(sample_mean(vectors), np.mean(vectors, axis=0))
