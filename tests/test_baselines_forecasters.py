"""The built-in baselines as forecasters: full records, no leakage from later results, determinism."""

from __future__ import annotations

import asyncio
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from collector.errors import ConfigError
from collector.forecasters.baselines import BASELINES, build_baseline
from collector.forecasters.baselines.backtest import played_matches, tasks
from collector.forecasters.tasks import Forecaster, KnownResult
from collector.records import Clock, ForecasterType, ForecastStatus, Horizon, Score
from collector.records.byteform import record_bytes

RESULTS = "international-results/results.csv"


@pytest.fixture(scope="module")
def world_cup(data_dir):
    competition, played = played_matches("worldcup-2026", data_dir)
    by_id = {p.event.id: p for p in played}
    all_tasks = list(tasks(competition, played, horizons=(Horizon.T_MINUS_24H,)))
    return competition, by_id, {t.event.id: t for t in all_tasks}


def _copy_data(data_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "data"
    (target / "international-results").mkdir(parents=True)
    shutil.copy(data_dir / RESULTS, target / RESULTS)
    return target


@pytest.mark.parametrize("name", BASELINES)
def test_every_baseline_writes_a_full_valid_match_record(name, data_dir, world_cup):
    _, _, by_task = world_cup
    forecaster = build_baseline(name, data_dir)
    assert isinstance(forecaster, Forecaster)
    for event_id in ("mex-v-rsa", "m104"):
        task = by_task[event_id]
        record = asyncio.run(forecaster.forecast(task))
        payload = record.payload
        assert record.status is ForecastStatus.VALID and record.forecaster == name
        assert record.model_version == forecaster.version == f"{name}-2"
        assert record.forecaster_type is ForecasterType.BASELINE and record.clock is Clock.REPLAY
        assert record.requested_at == task.now and record.kickoff_utc == task.event.kickoff_utc
        assert sum(payload.probabilities_90()) == pytest.approx(1.0)
        assert payload.home_win_full + payload.draw_full + payload.away_win_full == pytest.approx(1.0)
        assert payload.top_scores and payload.top_scores[0].probability >= payload.top_scores[-1].probability
        assert (payload.top_scores[0].home, payload.top_scores[0].away) == payload.most_likely_score_90.as_tuple()
        assert payload.reason and payload.confidence is not None
        if task.event.knockout:
            assert payload.home_advances + payload.away_advances == pytest.approx(1.0)
            assert payload.home_advances >= payload.home_win_90
        else:
            assert payload.home_advances is None
        through = record.inputs.get("fitted_through")
        if through is not None:  # a local date D ends by D+1 14:30 UTC at the latest
            assert through <= (task.now - timedelta(hours=39)).date().isoformat()


def test_stronger_team_is_favoured_and_rationale_states_inputs(data_dir, world_cup):
    _, _, by_task = world_cup
    for name in ("elo", "dixon_coles", "ensemble"):
        record = build_baseline(name, data_dir).forecast_now(by_task["esp-v-cpv"])
        assert record.payload.home_win_90 > 0.6, name  # Spain v Cape Verde
    elo = build_baseline("elo", data_dir).forecast_now(by_task["mex-v-rsa"])
    assert "international-results/results.csv" in elo.payload.reason
    assert "home advantage" in elo.payload.reason  # Mexico plays in Mexico City
    assert elo.inputs["fitted_through"] == "2026-06-09"  # T-24h is 2026-06-10 19:00 UTC: same day excluded
    late = by_task["usa-v-par"]  # kicks off 2026-06-13 01:00 UTC: T-24h is 01:00 UTC on the 12th
    record = build_baseline("elo", data_dir).forecast_now(late)
    assert record.inputs["fitted_through"] <= "2026-06-10"  # 11 June local evening games may not have ended


@pytest.mark.parametrize("name", ["elo", "dixon_coles", "base_rate", "ensemble"])
def test_changing_any_later_result_leaves_the_forecast_unchanged(name, data_dir, world_cup, tmp_path):
    """Leakage: rewrite every results.csv row dated on/after the request date (incl. the World Cup itself)."""
    _, _, by_task = world_cup
    task = by_task["m073"]  # the first round-of-32 match, mid-tournament
    # results.csv dates are local: a row dated the day before the request may not have ended yet
    cutoff = (task.now - timedelta(hours=39)).date().isoformat()
    altered = _copy_data(data_dir, tmp_path)
    lines = (altered / RESULTS).read_text(encoding="utf-8").splitlines()
    changed = 0
    for i, line in enumerate(lines[1:], start=1):
        parts = line.split(",")
        if parts[0] > cutoff and parts[3].isdigit():
            parts[3], parts[4] = str(int(parts[4]) + 3), parts[3]
            lines[i] = ",".join(parts)
            changed += 1
    assert changed > 30
    (altered / RESULTS).write_text("\n".join(lines) + "\n", encoding="utf-8")
    original = build_baseline(name, data_dir).forecast_now(task)
    again = build_baseline(name, altered).forecast_now(task)
    assert record_bytes(original) == record_bytes(again)
    # and the alteration is real: a forecast after those dates does see it
    late = by_task["m104"]
    assert build_baseline(name, data_dir).forecast_now(late).payload != build_baseline(name, altered).forecast_now(
        late
    ).payload or name == "base_rate"


def test_league_baselines_use_only_earlier_league_results(data_dir):
    competition, played = played_matches("en-1-2025-26", data_dir)
    task = next(t for t in tasks(competition, played, horizons=(Horizon.T_MINUS_24H,)) if len(t.history) > 150)
    later = [p for p in played if p.event.kickoff_utc > task.now]
    leaked = tuple(task.history) + tuple(
        KnownResult(p.event, p.outcome.model_copy(update={"score_90": Score(home=7, away=0)})) for p in later[:30]
    )
    for name in ("elo", "dixon_coles", "base_rate"):
        clean = build_baseline(name, data_dir).forecast_now(task)
        # a caller that hands over later results by mistake still cannot leak them into the fit
        dirty = build_baseline(name, data_dir).forecast_now(
            task.__class__(**{**task.__dict__, "history": leaked})
        )
        assert clean.payload == dirty.payload, name
        assert clean.inputs["fitted_through"] < task.now.date().isoformat()


def test_forecasts_are_deterministic(data_dir, world_cup):
    _, _, by_task = world_cup
    task = by_task["m073"]
    first = build_baseline("ensemble", data_dir).forecast_now(task)
    second = build_baseline("ensemble", data_dir).forecast_now(task)
    assert record_bytes(first) == record_bytes(second)


def test_unknown_baseline_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown baseline 'elo2'"):
        build_baseline("elo2")


def test_uniform_needs_no_data(world_cup):
    _, _, by_task = world_cup
    task = by_task["mex-v-rsa"]
    record = build_baseline("uniform").forecast_now(task)
    assert record.payload.probabilities_90() == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert record.payload.most_likely_score_90.as_tuple() == (1, 1)
    assert record.lead_time_minutes == pytest.approx((task.deadline - task.now) / timedelta(minutes=1))


@pytest.mark.parametrize("name", BASELINES)
def test_league_opening_day_forecast_leans_on_priors(name, data_dir):
    competition, played = played_matches("en-1-2025-26", data_dir)
    task = next(tasks(competition, played[:1], horizons=(Horizon.T_MINUS_24H,)))
    assert not task.history
    record = build_baseline(name, data_dir).forecast_now(task)
    home, draw, away = record.payload.probabilities_90()
    assert home > away or name == "uniform"  # nothing known but home advantage (prior or base rate)
