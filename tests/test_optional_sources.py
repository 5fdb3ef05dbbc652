"""The odds and API-Football sources in the arena: on with their secret, off (and saying so) without it.

``prematch.toml`` turns on The Odds API (``[odds] without_key = "skip"``) and lists API-Football's
leagues (``[reports]``); ``collect.yml`` passes ``ODDS_API_KEY`` to the tick and ``API_FOOTBALL_KEY``
to the daily reports step. Each is exercised here through the real commands against local servers.
"""

from __future__ import annotations

import re

import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.config import load_config
from tests.conftest import REPO_ROOT
from tests.fake_markets import ODDS_KEY, FakeMarkets, odds_event
from tests.test_workflows import job, step_script

CONFIG = """
[arena]
competitions = ["worldcup-2026"]
questions = false
[odds]
sources = ["the-odds-api"]
without_key = "{without_key}"
sport_keys = {{worldcup-2026 = "soccer_fifa_world_cup"}}
[[forecasters]]
id = "uniform"
type = "baseline"
"""
NOW = "2026-06-10T19:30:00Z"  # mex-v-rsa's T-24h window is open


def tick(tmp_path, data_dir, without_key: str) -> int:
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG.format(without_key=without_key))
    return main(["tick", "--now", NOW, "--config", str(config), "--archive",
                 str(tmp_path / "archive"), "--data-dir", str(data_dir)])  # fmt: skip


def test_the_arena_configures_both_sources_off_unless_their_secret_is_present():
    config = load_config(REPO_ROOT / "prematch.toml")
    assert config.odds.sources == ("the-odds-api",) and config.odds.without_key == "skip"
    assert set(config.odds.sport_keys) == set(config.competitions)
    assert set(config.reports.api_football_leagues) == set(config.competitions)
    tick_job = job("collect.yml", "tick")
    assert "ODDS_API_KEY: ${{ secrets.ODDS_API_KEY }}" in tick_job
    assert "API_FOOTBALL_KEY: ${{ secrets.API_FOOTBALL_KEY }}" in tick_job
    reports = step_script("Match reports from API-Football")
    assert re.search(r"prematch reports --source api-football --clock live", reports)


@pytest.mark.slow
def test_without_the_odds_key_the_source_is_off_with_a_note_not_a_problem(tmp_path, data_dir, monkeypatch, capsys):
    monkeypatch.delenv("ODDS_API_KEY", raising=False)
    assert tick(tmp_path / "skip", data_dir, "skip") == 0
    out = capsys.readouterr()
    assert "note: odds source the-odds-api off: its key is not in the environment" in out.out and out.err == ""
    assert not [r for r in load_archive(tmp_path / "skip/archive").records if "/odds/" in r]
    assert tick(tmp_path / "strict", data_dir, "problem") == 1  # the default fails closed
    assert "odds source the-odds-api: ODDS_API_KEY is not set" in capsys.readouterr().err


@pytest.mark.slow
def test_with_the_odds_key_the_tick_writes_snapshots(tmp_path, data_dir, monkeypatch):
    books = {"pinnacle": (2.10, 3.40, 3.90), "bet365": (2.05, 3.30, 3.75)}
    with FakeMarkets(credits=100) as fake:
        fake.odds_events = [odds_event("Mexico", "South Africa", "2026-06-11T19:00:00Z", books)]
        monkeypatch.setenv("ODDS_API_KEY", ODDS_KEY)
        monkeypatch.setenv("ODDS_API_BASE_URL", fake.base_url)
        assert tick(tmp_path, data_dir, "skip") == 0
    snapshots = [r for r in load_archive(tmp_path / "archive").records if "mex-v-rsa/odds/the-odds-api" in r]
    assert snapshots, "an odds snapshot of the match whose T-24h window is open"


@pytest.mark.slow
def test_api_football_reports_are_off_without_the_key_and_every_configured_league_is_asked_with_it(
        tmp_path, data_dir, monkeypatch, capsys):  # fmt: skip
    from tests.fake_api_football import FakeAPIFootball

    archive = tmp_path / "archive"
    assert main(["sync", "--competition", "worldcup-2026", "--now", "2026-06-20", "--archive", str(archive),
                 "--data-dir", str(data_dir)]) == 0  # matches with outcomes to report on  # fmt: skip
    config = tmp_path / "arena.toml"
    config.write_text('[arena]\ncompetitions = ["worldcup-2026"]\n[reports]\napi_football_leagues = {worldcup-2026 = 1}\n')
    monkeypatch.delenv("API_FOOTBALL_KEY", raising=False)
    command = ["reports", "--source", "api-football", "--config", str(config), "--archive", str(archive)]
    assert main(command) == 0
    assert "reports: API_FOOTBALL_KEY is not set: API-Football is off (1 competition(s) configured)" in capsys.readouterr().out
    with FakeAPIFootball() as fake:
        monkeypatch.setenv("API_FOOTBALL_KEY", "test-api-football-key")
        monkeypatch.setenv("API_FOOTBALL_BASE_URL", fake.base_url)
        assert main(command) == 0
        assert any(path.startswith("/fixtures") and query.get("league") == ["1"] and query.get("season") == ["2026"]
                   and key == "test-api-football-key" for path, query, key in fake.seen)  # fmt: skip
