"""End to end: live-clock ticks against a local server speaking The Odds API's and Polymarket's
formats write odds snapshots at T-24h, T-2h and kickoff and the market's records at each; the
builder scores them; ``verify`` checks odds records like forecasts."""

from __future__ import annotations

import sys
from datetime import timedelta

import orjson
import pytest

from builder.score.scoring import score_archive
from collector.archive.reader import load_archive
from collector.audit.verify import verify_repository
from collector.commandline import parse_utc_instant
from collector.config import load_config
from collector.records import Clock, ForecastStatus, Horizon, OddsSnapshot
from collector.schedule.tick import run_tick
from tests.fake_markets import ODDS_KEY, FakeMarkets, gamma_event, odds_event
from tests.gitrepo import KICKOFF, GitRepo, at, event, outcome

CONFIG = """
[arena]
competitions = ["worldcup-2026"]
questions = false
[odds]
sources = ["the-odds-api", "polymarket"]
sport_keys = {worldcup-2026 = "soccer_fifa_world_cup"}
regions = "eu"
closing_minutes = 10
[[forecasters]]
id = "market"
type = "baseline"
options = {baseline = "market_snapshot"}
[[forecasters]]
id = "uniform"
type = "baseline"
"""
BOOKS = {"pinnacle": (2.10, 3.40, 3.90), "bet365": (2.05, 3.30, 3.75), "unibet": (2.00, 3.25, 4.00)}
OPENER = "worldcup-2026/events/mex-v-rsa"


@pytest.fixture
def markets(monkeypatch):
    with FakeMarkets(credits=100) as fake:
        fake.odds_events = [odds_event("Mexico", "South Africa", "2026-06-11T19:00:00Z", BOOKS)]
        fake.pm_events = [gamma_event("fifwc-mex-rsa", "Mexico", "South Africa", (0.47, 0.29, 0.27))]
        monkeypatch.setenv("ODDS_API_KEY", ODDS_KEY)
        monkeypatch.setenv("ODDS_API_BASE_URL", fake.base_url)
        monkeypatch.setenv("POLYMARKET_GAMMA_URL", fake.base_url)
        monkeypatch.setenv("POLYMARKET_CLOB_URL", fake.base_url)
        yield fake


def tick(tmp_path, data_dir, now: str) -> int:
    """A live-clock tick at ``now``: 0 when its only problems are the shared data's results of
    matches after ``now`` (the data is a snapshot taken after the tournament), else 1."""
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG)
    report = run_tick(load_config(config), tmp_path / "archive", parse_utc_instant(now), data_dir, Clock.LIVE)
    print("\n".join(report.summary_lines()))
    other = [p for p in report.problems if "source gives a result for a match that kicks off" not in p.message]
    print("\n".join(f"problem: {p}" for p in other), file=sys.stderr)
    return 1 if other else 0


@pytest.mark.slow
def test_live_ticks_write_odds_and_market_records_at_each_horizon_and_the_builder_scores_them(
        tmp_path, data_dir, markets, capsys):
    assert tick(tmp_path, data_dir, "2026-06-10T19:05:00Z") == 0  # T-24h window of the opener
    assert tick(tmp_path, data_dir, "2026-06-11T17:05:00Z") == 0  # T-2h
    assert tick(tmp_path, data_dir, "2026-06-11T18:55:00Z") == 0  # closing: the last 10 minutes
    assert "odds snapshots and closing market forecasts written: 3" in capsys.readouterr().out
    archive = load_archive(tmp_path / "archive")
    assert archive.problems == []
    snapshots = {p: r for p, r in archive.records.items() if isinstance(r, OddsSnapshot)}
    assert sorted(snapshots) == sorted(f"{OPENER}/odds/{s}/{h}.json" for h in ("closing", "t_minus_24h", "t_minus_2h")
                                       for s in ("polymarket", "the-odds-api"))  # only the priced match
    for record in snapshots.values():
        assert record.retrieved_at < KICKOFF and record.kickoff_utc == KICKOFF
    api = snapshots[f"{OPENER}/odds/the-odds-api/t_minus_2h.json"]
    assert [q.bookmaker for q in api.quotes] == list(BOOKS) and api.credits.last == 1
    assert api.payload["bookmakers"][0]["key"] == "pinnacle"  # the source's payload, verbatim
    assert ODDS_KEY not in (tmp_path / "archive" / f"{OPENER}/odds/the-odds-api/t_minus_2h.json").read_text()
    # the market's record at each horizon, from that horizon's snapshots (3 books + Polymarket)
    market = {f.horizon: f for f in archive.forecasts if f.forecaster == "market" and f.target_id == "mex-v-rsa"}
    assert set(market) == {Horizon.STAGE_OPENING, Horizon.T_MINUS_24H, Horizon.T_MINUS_2H, Horizon.CLOSING}
    assert market.pop(Horizon.STAGE_OPENING).status is ForecastStatus.MISSED  # no odds are read at stage opening
    for horizon, record in market.items():
        assert record.status is ForecastStatus.VALID and record.requested_at < KICKOFF
        assert record.inputs["books"] == 4 and record.inputs["margin_method"] == "proportional"
        assert record.inputs["snapshots"] == [f"{OPENER}/odds/polymarket/{horizon.value}.json",
                                              f"{OPENER}/odds/the-odds-api/{horizon.value}.json"]
        assert record.inputs["buy_odds"][0] == pytest.approx((2.05 + 2.10) / 2)  # median of 2.00, 2.05, 2.10, 1/0.47 = 2.13
    # a match the sources do not price: the market's record says so (missed), nothing invented
    other = [f for f in archive.forecasts if f.forecaster == "market" and f.target_id != "mex-v-rsa"]
    assert other and all(f.status is ForecastStatus.MISSED for f in other)
    assert "no odds snapshot" in other[0].validation.errors[0]
    # a later tick in the same window asks no source again
    asked = len(markets.seen)
    assert tick(tmp_path, data_dir, "2026-06-11T18:57:00Z") == 0
    assert len(markets.seen) == asked

    # after the match: the outcome, then the builder scores the market at each horizon
    assert tick(tmp_path, data_dir, "2026-06-12T12:00:00Z") == 0
    scores = score_archive(load_archive(tmp_path / "archive"))
    rows = {(r.forecaster, r.horizon) for r in scores.leaderboard}
    assert {("market", "t_minus_24h"), ("market", "t_minus_2h"), ("market", "closing")} <= rows
    uniform = next(r for r in scores.leaderboard if r.forecaster == "uniform" and r.horizon == "t_minus_2h")
    assert uniform.market["n"] >= 1 and uniform.market["n_return"] >= 1 and uniform.market["return"] is not None


@pytest.mark.slow
def test_a_failing_odds_source_is_a_problem_and_asked_again(tmp_path, data_dir, markets, capsys):
    markets.key = "another-key-0000000000"  # the server now refuses ours
    assert tick(tmp_path, data_dir, "2026-06-10T19:05:00Z") == 1
    err = capsys.readouterr().err
    assert "HTTP 401 (INVALID_KEY)" in err and ODDS_KEY not in err
    archive = load_archive(tmp_path / "archive")
    assert not any(p.endswith("/the-odds-api/t_minus_24h.json") for p in archive.records)
    markets.key = ODDS_KEY
    assert tick(tmp_path, data_dir, "2026-06-10T19:35:00Z") == 0  # still inside the window: asked again
    archive = load_archive(tmp_path / "archive")
    assert f"{OPENER}/odds/the-odds-api/t_minus_24h.json" in archive.records


def _snapshot(**changes) -> OddsSnapshot:
    from collector.records import BookQuote, OutcomePrice

    fields = dict(
        recorded_at=KICKOFF - timedelta(hours=2), competition_id="worldcup-2026", event_id="mex-v-rsa",
        horizon=Horizon.T_MINUS_2H, source="the-odds-api", endpoint="/v4/sports/soccer_fifa_world_cup/odds",
        retrieved_at=KICKOFF - timedelta(hours=2), kickoff_utc=KICKOFF,
        quotes=(BookQuote(bookmaker="pinnacle", prices=tuple(
            OutcomePrice(outcome=s, odds=o) for s, o in zip(("home", "draw", "away"), (2.1, 3.4, 3.9)))),),
    )  # fmt: skip
    fields.update(changes)
    return OddsSnapshot(**fields)


def test_verify_checks_odds_records_like_forecasts(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.tick(at(1), event())
    repo.tick(KICKOFF - timedelta(hours=2), _snapshot())
    late = _snapshot(horizon=Horizon.CLOSING, retrieved_at=KICKOFF - timedelta(minutes=1))
    repo.tick(KICKOFF + timedelta(minutes=5), late)  # committed after kickoff
    repo.tick(at(12, 1), outcome())
    report = verify_repository(repo.root)
    late_findings = [f for f in report.findings if f.path.endswith("/odds/the-odds-api/closing.json")]
    assert [f.code for f in late_findings if f.violation] == ["committed_after_kickoff"]
    # an odds record edited after its commit breaks the append-only rule
    path = repo.archive / OPENER / "odds/the-odds-api/t_minus_2h.json"
    path.write_bytes(path.read_bytes().replace(b"2.1", b"2.3"))
    repo.commit(at(12, 2), "tidy")
    report = verify_repository(repo.root)
    modified = [f for f in report.findings if f.code == "modified"]
    assert [f.path for f in modified] == [f"{OPENER}/odds/the-odds-api/t_minus_2h.json"]
    assert orjson.loads(path.read_bytes())["quotes"][0]["prices"][0]["odds"] == 2.3


def test_a_hand_edited_odds_record_is_reported_and_never_used(tmp_path):
    from collector.archive.write.writer import ArchiveWriter
    from collector.errors import RecordExistsError

    root = tmp_path / "archive"
    root.mkdir()
    writer = ArchiveWriter(root)
    writer.write(_snapshot())
    path = root / OPENER / "odds/the-odds-api/t_minus_2h.json"
    with pytest.raises(RecordExistsError):  # append-only: a second snapshot of the key is refused
        writer.write(_snapshot(retrieved_at=KICKOFF - timedelta(hours=1)))
    edited = path.read_bytes().replace(b'"odds": 2.1', b'"odds": 0.5')
    assert edited != path.read_bytes()
    path.write_bytes(edited)
    archive = load_archive(root)
    (problem,) = archive.problems
    assert problem.path.endswith("odds/the-odds-api/t_minus_2h.json") and "odds" in problem.message
    assert not any(isinstance(r, OddsSnapshot) for r in archive.records.values())
