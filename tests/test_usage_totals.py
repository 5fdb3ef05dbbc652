"""Attempt usage is summed in one place (Forecast.usage / AttemptTotals); scored rows name their record."""

from __future__ import annotations

from builder.score.scoring import score_archive
from collector.archive.layout import path_for
from collector.records import Attempt, AttemptRole, Usage
from collector.records.attempt import NO_ATTEMPTS, AttemptTotals
from tests.factories import (
    T0,
    make_attempt,
    make_event,
    make_forecast,
    synthetic_archive,
)


def test_totals_sum_what_the_attempts_report_and_leave_unreported_quantities_unknown():
    bare = Attempt(role=AttemptRole.RETRY, started_at=T0, request_body={}, usage=Usage())
    totals = AttemptTotals.of([make_attempt(cost_usd=0.25, prompt_tokens=10), bare,
                               make_attempt(cost_usd=0.5, prompt_tokens=5, latency_ms=300.0)])
    assert totals.attempts == 3
    assert (totals.prompt_tokens, totals.cost_usd, totals.latency_ms) == (15, 0.75, 1500.0)
    assert totals.reasoning_tokens is None and totals.cached_tokens is None  # nobody reported them
    assert AttemptTotals.of([bare]).cost_usd is None  # unknown, not zero
    assert AttemptTotals.of([]) is NO_ATTEMPTS and NO_ATTEMPTS.attempts == 0


def test_a_forecast_usage_is_the_totals_of_its_attempts():
    forecast = make_forecast(make_event(), attempts=(make_attempt(cost_usd=0.125), make_attempt(cost_usd=0.125)))
    assert forecast.usage == AttemptTotals.of(forecast.attempts)
    assert forecast.usage.cost_usd == 0.25 and forecast.usage.attempts == 2
    assert "usage" not in forecast.model_dump()  # derived, never stored


def test_scored_rows_carry_their_record_key_and_path():
    archive = synthetic_archive(n_events=6, n_models=2, knockout_from=4)
    records = {f.key(): f for f in archive.forecasts}
    scores = score_archive(archive, inference_tests=False)
    assert scores.forecasts
    for row in scores.forecasts:
        record = records[row.key]
        assert row.path == path_for(record) and archive.records[row.path] is record
        assert (row.competition_id, row.event_id, row.forecaster, row.sample) == (
            record.competition_id, record.target_id, record.forecaster, record.sample)
