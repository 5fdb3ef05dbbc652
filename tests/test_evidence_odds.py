"""The evidence package's odds part: a live tick with a market source configured writes the odds
snapshot first, and the package of the same horizon names it (path and SHA-256 of its file),
states its consensus, and carries it into the ``evidence_package`` prompt; without a snapshot
the part is empty and its note says why."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import pytest

from collector.archive.layout import evidence_path, odds_path
from collector.archive.reader import load_archive
from collector.config import parse_config
from collector.forecasters.baselines.consensus import consensus_probabilities
from collector.records import Access, Clock
from collector.schedule.tick import run_tick
from tests.fake_markets import odds_event, serving_odds_api

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

NOW = datetime(2026, 6, 10, 19, 5, tzinfo=UTC)  # T-24h window of the opener (Mexico v South Africa)
BOOKS = {"pinnacle": (2.10, 3.40, 3.90), "bet365": (2.05, 3.30, 3.75), "unibet": (2.00, 3.25, 4.00)}


def arena(odds: bool):
    data = {
        "arena": {"competitions": ["worldcup-2026"], "access": ["evidence_package"],
                  "strategies": ["probabilistic_forecast"], "questions": False, "spending_cap_usd": 50},
        "openrouter": {"max_attempts": 2, "base_delay_s": 0},
        "forecasters": [{"id": "test.model", "type": "llm", "model": "test/model", "version": "test/model@1"}],
    }  # fmt: skip
    if odds:
        data["odds"] = {"sources": ["the-odds-api"], "sport_keys": {"worldcup-2026": "soccer_fifa_world_cup"}}
    return parse_config(data, "test")


@pytest.fixture
def markets(monkeypatch):
    with serving_odds_api(monkeypatch, [odds_event("Mexico", "South Africa", "2026-06-11T19:00:00Z", BOOKS)]) as fake:
        yield fake


def opener_package(tmp_path):
    archive = load_archive(tmp_path / "archive")
    assert archive.problems == []
    return archive, archive.records[evidence_path("worldcup-2026", "mex-v-rsa", "t_minus_24h")]


def test_the_package_names_the_snapshot_of_its_horizon_and_the_prompt_states_it(tmp_path, data_dir, server, markets):
    report = run_tick(arena(odds=True), tmp_path / "archive", now=NOW, data_dir=data_dir, clock=Clock.LIVE)
    assert not [p for p in report.problems if "kicks off" not in p.message], report.problems
    archive, package = opener_package(tmp_path)
    snapshot_path = odds_path("worldcup-2026", "mex-v-rsa", "the-odds-api", "t_minus_24h")
    odds = package.odds
    assert odds.snapshot_path == snapshot_path and odds.source == "the-odds-api" and odds.books == 3
    assert odds.snapshot_sha256 == hashlib.sha256((tmp_path / "archive" / snapshot_path).read_bytes()).hexdigest()
    assert odds.retrieved_at <= package.locks_at  # retrieved before the lock, so not a late item
    assert package.late_items() == []
    assert odds.probabilities == pytest.approx(tuple(consensus_probabilities(list(BOOKS.values()))), abs=1e-6)
    assert abs(sum(odds.probabilities) - 1) <= 1.5e-6  # three values rounded to six decimals
    assert not any(n.startswith("odds:") for n in package.notes)
    order = {path: i for i, path in enumerate(report.written)}
    assert order[snapshot_path] < order[evidence_path("worldcup-2026", "mex-v-rsa", "t_minus_24h")]
    forecast = next(f for f in archive.forecasts if f.target_id == "mex-v-rsa" and f.access is Access.EVIDENCE_PACKAGE
                    and f.horizon.value == "t_minus_24h")
    home = f"{odds.probabilities[0]:.1%}"
    assert "Market odds (the-odds-api, 3 book(s)" in forecast.prompt.text and f"Mexico win {home}" in forecast.prompt.text


def test_without_a_snapshot_the_odds_part_is_empty_and_says_why(tmp_path, data_dir, server):
    run_tick(arena(odds=False), tmp_path / "archive", now=NOW, data_dir=data_dir, clock=Clock.LIVE)
    archive, package = opener_package(tmp_path)
    assert package.odds.snapshot_path is None and package.odds.probabilities is None
    assert any(n.startswith("odds: no odds snapshot") for n in package.notes)
    forecast = next(f for f in archive.forecasts if f.target_id == "mex-v-rsa" and f.horizon.value == "t_minus_24h")
    assert "Market odds" not in forecast.prompt.text


def test_a_snapshot_retrieved_after_the_lock_is_a_late_item(tmp_path, data_dir, server, markets):
    run_tick(arena(odds=True), tmp_path / "archive", now=NOW, data_dir=data_dir, clock=Clock.LIVE)
    _, package = opener_package(tmp_path)
    tampered = package.model_copy(update={"odds": package.odds.model_copy(
        update={"retrieved_at": package.locks_at.replace(year=2027)})})
    assert [item for item in tampered.late_items() if item.startswith("odds ")]
