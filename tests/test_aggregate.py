"""Aggregation: per-event means, operational rates, diversity, the ensemble, order invariance."""

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon
from scipy.special import rel_entr
from scipy.stats import pearsonr

from builder.score import diversity, operations
from builder.score.scoring import score_archive
from collector.records import ForecastStatus, SearchObserved
from tests.factories import (
    archive_from_records,
    make_attempt,
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    make_payload,
    synthetic_records,
)


def test_leaderboard_means_agree_with_a_plain_loop_over_records():
    records = synthetic_records(n_events=20, n_models=2, knockout_from=14, seed=3)
    scores = score_archive(archive_from_records(records), inference_tests=False)
    per_cell: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for f in scores.forecasts:
        per_cell[(f.forecaster, f.access, f.strategy, f.horizon)][f.event_id].append(f.measures["brier"])
    for row in scores.leaderboard:
        events = per_cell.get((row.forecaster, row.access, row.strategy, row.horizon), {})
        if not events:
            assert row.n == 0 and row.measures["brier"] is None
            continue
        expected = sum(sum(v) / len(v) for v in events.values()) / len(events)
        assert row.n == len(events)
        assert row.measures["brier"] == pytest.approx(expected)


@pytest.mark.slow
def test_record_order_does_not_change_any_score():
    records = synthetic_records(n_events=12, n_models=2, knockout_from=8, seed=5)
    shuffled = list(records)
    random.Random(1).shuffle(shuffled)
    a = score_archive(archive_from_records(records)).to_dict()
    b = score_archive(archive_from_records(shuffled)).to_dict()
    assert a == b


def test_samples_are_averaged_per_event_before_the_mean():
    event = make_event()
    other = make_event("esp", "usa", kickoff=event.kickoff_utc)
    records = [make_competition(), event, other, make_outcome(event, 1, 0), make_outcome(other, 1, 0)]
    records += [make_forecast(event, "elo", make_payload((1.0, 0.0, 0.0)), sample=0),
                make_forecast(event, "elo", make_payload((0.0, 0.0, 1.0)), sample=1),
                make_forecast(other, "elo", make_payload((1.0, 0.0, 0.0)))]
    row = score_archive(archive_from_records(records)).leaderboard[0]
    assert row.n == 2
    assert row.measures["brier"] == pytest.approx((1.0 + 0.0) / 2)  # event 1: (0 + 2) / 2


def test_operational_rates_and_resources():
    event = make_event()
    attempts = (make_attempt(latency_ms=1000, prompt_tokens=100, completion_tokens=10, cost_usd=0.01,
                             search=SearchObserved.SEARCHED),)
    forecasts = [
        make_forecast(event, "m.x", sample=0, attempts=attempts),
        make_forecast(event, "m.x", sample=1, status=ForecastStatus.REPAIRED,
                      attempts=(make_attempt(latency_ms=3000, search=SearchObserved.NONE),)),
        make_forecast(event, "m.x", None, sample=2, status=ForecastStatus.INVALID_JSON),
        make_forecast(event, "m.x", None, sample=3, status=ForecastStatus.MISSED),
    ]
    from collector.records import Access
    forecasts = [f.model_copy(update={"access": Access.OPEN_BOOK}) for f in forecasts]
    row = operations.operational_rows(forecasts)[0]
    assert row.scheduled == 4
    assert row.rates["valid"] == 0.25 and row.rates["repaired"] == 0.25
    assert row.rates["invalid"] == 0.25 and row.rates["missed"] == 0.25 and row.rates["api_error"] == 0
    assert row.open_book_calls == 3  # the missed one made no call
    assert row.search_observed_rate == pytest.approx(1 / 3)  # searched, none, none
    assert row.prompt_tokens == 100 + 900 + 900
    assert row.latency_ms_median == pytest.approx(1200.0)


def test_sum_audit_reports_stated_probability_sums():
    from collector.records import Validation

    event = make_event()
    forecasts = [
        make_forecast(event, "m.x", sample=0, validation=Validation(original_sums={"90": 1.0})),
        make_forecast(event, "m.x", sample=1, status=ForecastStatus.NORMALIZED,
                      validation=Validation(original_sums={"90": 1.04}, normalized=True)),
        make_forecast(event, "m.x", None, sample=2, status=ForecastStatus.INVALID_SUM,
                      validation=Validation(original_sums={"90": 1.3})),
    ]
    audit = operations.operational_rows(forecasts)[0].sum_audit
    assert audit["90_records"] == 3
    assert audit["90_mean_abs_deviation"] == pytest.approx((0 + 0.04 + 0.3) / 3)
    assert audit["90_share_off"] == pytest.approx(2 / 3)


def test_every_status_belongs_to_exactly_one_rate():
    grouped = [s for members in operations.RATE_GROUPS.values() for s in members]
    assert sorted(grouped) == sorted(ForecastStatus)


probability_vectors = (
    st.lists(st.floats(0.0, 1.0, allow_subnormal=False), min_size=3, max_size=3)
    .filter(lambda v: sum(v) > 0.01)
    .map(lambda v: np.array(v) / sum(v))
)


def _scipy_js(p, q, base=None):
    """scipy's divergence, the square of its distance; scipy takes the square root of a sum that rounding
    can leave a hair below zero (identical vectors with a zero entry), giving NaN, so the sum is taken
    from scipy's own ``rel_entr`` there."""
    distance = jensenshannon(p, q, base=base)
    if np.isfinite(distance):
        return distance**2
    m = (p + q) / 2
    return max(0.0, (rel_entr(p, m).sum() + rel_entr(q, m).sum()) / 2) / (np.log(base) if base else 1.0)


@settings(max_examples=60, deadline=None)
@given(p=probability_vectors, q=probability_vectors)
def test_jensen_shannon_agrees_with_scipy_and_is_bounded(p, q):
    ours = diversity.jensen_shannon_divergence(p[None], q[None])[0]  # nats, LLM-SoccerArena's unit
    assert ours == pytest.approx(_scipy_js(p, q), abs=1e-9)
    assert -1e-12 <= ours <= np.log(2) + 1e-12
    bits = diversity.jensen_shannon_divergence(p[None], q[None], unit="bits")[0]
    assert bits == pytest.approx(_scipy_js(p, q, base=2), abs=1e-9)
    assert bits == pytest.approx(ours / np.log(2), abs=1e-12)
    assert diversity.jensen_shannon_divergence(p[None], p[None])[0] == pytest.approx(0.0, abs=1e-12)


def test_jensen_shannon_survives_subnormal_probabilities():
    # scipy returns inf here; the divergence of (0, 0, 1) and (0, 5e-324, 1) is 0 to double precision
    value = diversity.jensen_shannon_divergence(np.array([[0.0, 0.0, 1.0]]), np.array([[0.0, 5e-324, 1.0]]))[0]
    assert value == pytest.approx(0.0, abs=1e-300)


def test_ensemble_averages_llm_vectors_within_a_condition():
    event = make_event()
    records = [make_competition(), event, make_outcome(event, 0, 0),
               make_forecast(event, "m.a", make_payload((0.6, 0.2, 0.2))),
               make_forecast(event, "m.b", make_payload((0.2, 0.4, 0.4))),
               make_forecast(event, "elo", make_payload((0.1, 0.1, 0.8)))]  # not an LLM: not averaged
    scores = score_archive(archive_from_records(records))
    [row] = scores.ensemble
    # mean vector (0.4, 0.3, 0.3), draw: 0.16 + 0.49 + 0.09
    assert row.forecaster == "llm-ensemble" and row.n == 1
    assert row.measures["brier"] == pytest.approx(0.74)
    assert row.measures["exact"] is None  # the ensemble has no scoreline
    [pair] = scores.diversity
    assert (pair.a, pair.b, pair.n) == ("m.a", "m.b", 1)


def test_diversity_rows_agree_with_a_per_event_loop():
    records = synthetic_records(n_events=10, n_models=3, knockout_from=10, seed=8)
    scores = score_archive(archive_from_records(records), inference_tests=False)
    vectors: dict[tuple, np.ndarray] = {}
    for f in scores.forecasts:
        if f.forecaster_type == "llm":
            key = (f.forecaster, f.access, f.strategy, f.horizon, f.event_id)
            vectors[key] = np.array([f.p_home, f.p_draw, f.p_away])
    assert scores.diversity
    for row in scores.diversity:
        cond = (row.access, row.strategy, row.horizon)
        events = [k[4] for k in vectors if k[0] == row.a and k[1:4] == cond and (row.b, *cond, k[4]) in vectors]
        js = [jensenshannon(vectors[(row.a, *cond, e)], vectors[(row.b, *cond, e)]) ** 2 for e in events]
        assert row.n == len(events) and row.unit == "nats" and row.correlation_method == "fisher_z"
        assert row.jensen_shannon == pytest.approx(np.mean(js))
        a = np.concatenate([vectors[(row.a, *cond, e)] for e in events])
        b = np.concatenate([vectors[(row.b, *cond, e)] for e in events])
        assert row.correlation_pooled == pytest.approx(np.corrcoef(a, b)[0, 1])
        # Fisher-z mean of the three per-outcome correlations, each from scipy.stats.pearsonr
        per_outcome = [pearsonr([vectors[(row.a, *cond, e)][c] for e in events],
                                [vectors[(row.b, *cond, e)][c] for e in events]).statistic for c in range(3)]
        assert row.correlation_by_outcome == pytest.approx(tuple(per_outcome))
        assert row.correlation == pytest.approx(np.tanh(np.mean(np.arctanh(per_outcome))))
