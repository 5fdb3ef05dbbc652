"""Replay of a short slice of the 2026 World Cup: real scheduler, simulated clock, one dated commit per tick."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta

import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.records import Clock, Forecast, Horizon
from collector.schedule.replay import replay

UNTIL = datetime(2026, 6, 12, 6, 0, tzinfo=UTC)  # the first two matches played


def _git(repo, *args) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def replayed(data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("replay") / "wc"
    lines: list[str] = []
    summary = replay("worldcup-2026", out, data_dir, until=UNTIL, baselines=("uniform", "elo"),
                     progress=lines.append, progress_every_s=0.0)
    return out, summary, lines, load_archive(out / "archive")


@pytest.mark.slow
def test_every_record_is_marked_replay_and_valid(replayed):
    _, summary, _, archive = replayed
    assert not archive.problems and not summary.problems
    assert archive.records and all(r.clock is Clock.REPLAY for r in archive.records.values())
    assert archive.forecasts and all(f.status.value == "valid" for f in archive.forecasts)


@pytest.mark.slow
def test_forecasts_at_every_horizon_and_outcomes_only_after_the_match(replayed):
    _, _, _, archive = replayed
    played = [e for (_, eid), e in archive.events.items() if e.kickoff_utc < UNTIL]
    assert {e.id for e in played} >= {"mex-v-rsa", "kor-v-cze"}
    keys = {(f.target_id, f.forecaster, f.horizon) for f in archive.forecasts}
    for event in played:
        for name in ("uniform", "elo"):
            for horizon in (Horizon.STAGE_OPENING, Horizon.T_MINUS_24H, Horizon.T_MINUS_2H):
                assert (event.id, name, horizon) in keys, (event.id, name, horizon)
    for (_, eid), outcome in archive.outcomes.items():
        event = archive.events[("worldcup-2026", eid)]
        assert outcome.recorded_at > event.kickoff_utc  # written after the match, never before
    assert ("worldcup-2026", "mex-v-rsa") in archive.outcomes
    assert all(e.kickoff_utc < UNTIL for (_, eid), e in archive.events.items() if (_, eid) in archive.outcomes)
    questions = [f for f in archive.forecasts if f.target_kind == "question"]
    assert {q.forecaster for q in questions} == {"uniform", "elo"}


@pytest.mark.slow
def test_one_commit_per_tick_dated_when_the_tick_ended_on_the_simulated_clock(replayed):
    out, summary, _, archive = replayed
    log = _git(out, "log", "--reverse", "--format=%H|%aI|%cI|%an|%s").strip().splitlines()
    assert len(log) == summary.ticks
    for line in log:
        _, authored, committed, author, subject = line.split("|", 4)
        assert authored == committed and author == "prematch-replay"
        began = datetime.fromisoformat(subject.removeprefix("replay tick ").split(": ")[0])
        # the tick's simulated time plus the real seconds it took, rounded up to git's whole seconds
        assert began <= datetime.fromisoformat(authored) < began + timedelta(minutes=5)
    # a forecast is committed by the tick that requested it, dated at or after its request
    forecast: Forecast = next(f for f in archive.forecasts if f.target_id == "mex-v-rsa" and f.horizon is Horizon.T_MINUS_2H)
    path = next(p for p, r in archive.records.items() if r is forecast)
    added, subject = _git(out, "log", "--diff-filter=A", "--format=%aI|%s", "--", f"archive/{path}").strip().split("|", 1)
    began = datetime.fromisoformat(subject.removeprefix("replay tick ").split(": ")[0])
    assert began <= forecast.requested_at <= datetime.fromisoformat(added)


@pytest.mark.slow
def test_progress_and_summary(replayed):
    _, summary, lines, _ = replayed
    assert lines and "matches done" in lines[-1] and "ticks" in lines[-1] and "elapsed" in lines[-1]
    text = "\n".join(summary.summary_lines())
    assert f"matches with outcomes {summary.outcomes}/104" in text and "clock=replay" in text
    assert summary.outcomes >= 2


def test_replay_refuses_a_non_empty_folder(tmp_path, data_dir, capsys):
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    code = main(["replay", "worldcup-2026", "--out", str(tmp_path), "--data-dir", str(data_dir)])
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "not an empty folder" in captured.err
    assert (tmp_path / "keep.txt").read_text(encoding="utf-8") == "mine"


ODDS = b"""[{"id": "x", "commence_time": "2026-06-11T19:00:00Z", "home_team": "Mexico", "away_team": "South Africa",
  "bookmakers": [{"key": "pinnacle", "last_update": "2026-06-10T08:00:00Z", "markets": [
    {"key": "h2h", "last_update": "2026-06-10T07:55:00Z", "outcomes": [
      {"name": "Mexico", "price": 1.62}, {"name": "Draw", "price": 3.9}, {"name": "South Africa", "price": 6.0}]}]}]}]"""


@pytest.mark.slow
def test_replay_with_market_odds(tmp_path, data_dir, capsys):
    odds = tmp_path / "odds.json"
    odds.write_bytes(ODDS)
    out = tmp_path / "wc"
    code = main(["replay", "worldcup-2026", "--out", str(out), "--data-dir", str(data_dir), "--baselines", "uniform",
                 "--odds", str(odds), "--until", "2026-06-11T18:00Z"])
    assert code == 0, capsys.readouterr().out
    archive = load_archive(out / "archive")
    market = {(f.target_id, f.horizon): f for f in archive.forecasts if f.forecaster == "market"}
    quoted = market[("mex-v-rsa", Horizon.T_MINUS_24H)]
    assert quoted.status.value == "valid" and quoted.forecaster_type.value == "market"
    assert quoted.requested_at == datetime(2026, 6, 10, 7, 55, tzinfo=UTC) and quoted.clock is Clock.REPLAY
    # before the quote existed (stage opening, a week ahead) the market honestly missed
    assert market[("mex-v-rsa", Horizon.STAGE_OPENING)].status.value == "missed"
    assert not [f for f in archive.forecasts if f.forecaster == "market" and f.target_kind == "question"]
