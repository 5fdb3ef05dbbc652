"""A hostile odds source through the real ``tick`` (issue 53): numbers out of range, a 40 MB body, prices
no one offered. Each is a problem naming what came; the tick's other records and its manifest are written.

The source is ``tests/fake_markets.py`` speaking The Odds API's format, followed at the opener's
T-24h window (live clock); the only forecaster is the market, which reads the snapshot.
"""

from __future__ import annotations

import pytest

from collector.archive.reader import load_archive
from collector.archive.write.manifest import unlisted
from collector.cli import main
from collector.records import OddsSnapshot
from collector.sources.odds_base import ODDS_RESPONSE_BYTES
from tests.collection_helpers import edited_data, without_results
from tests.fake_markets import odds_event, serving_odds_api

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

NOW = "2026-06-10T19:05:00Z"  # the opener's T-24h window; its kickoff 2026-06-11 19:00Z
CONFIG = """
[arena]
competitions = ["worldcup-2026"]
questions = false
[odds]
sources = ["the-odds-api"]
sport_keys = {worldcup-2026 = "soccer_fifa_world_cup"}
regions = "eu"
[[forecasters]]
id = "market"
type = "baseline"
options = {baseline = "market_snapshot"}
"""
BOOKS = {"pinnacle": (2.10, 3.40, 3.90), "bet365": (2.05, 3.30, 3.75)}
SNAPSHOT = "worldcup-2026/events/mex-v-rsa/odds/the-odds-api/t_minus_24h.json"


@pytest.fixture
def odds(monkeypatch):
    with serving_odds_api(monkeypatch, [odds_event("Mexico", "South Africa", "2026-06-11T19:00:00Z", BOOKS)]) as fake:
        yield fake


def tick(tmp_path, data_dir) -> int:
    """A live tick at NOW on the fixtures as they stood then (the shared file holds the results to come)."""
    (tmp_path / "arena.toml").write_text(CONFIG)
    before = edited_data(tmp_path, data_dir, without_results)
    return main(["tick", "--now", NOW, "--clock", "live", "--config", str(tmp_path / "arena.toml"),
                 "--archive", str(tmp_path / "archive"), "--data-dir", str(before)])  # fmt: skip


def written_and_manifest(tmp_path):
    archive = load_archive(tmp_path / "archive")
    assert archive.problems == [] and len(archive.events) == 72 and archive.manifests
    assert unlisted(archive) == []  # every file the tick wrote is in its manifest
    return archive


def test_a_credits_header_of_1e30_is_one_problem_and_the_snapshot_is_written_without_it(
        tmp_path, data_dir, odds, capsys):
    odds.mode = "header:x-requests-used=1e30"
    assert tick(tmp_path, data_dir) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == ["problem: the-odds-api /v4/sports/soccer_fifa_world_cup/odds?regions=eu&markets=h2h&oddsFormat="
                   "decimal&dateFormat=iso: header x-requests-used: '1e30' is not an integer from 0 to "
                   "1000000000000; ignored"]
    snapshot = written_and_manifest(tmp_path).records[SNAPSHOT]
    assert isinstance(snapshot, OddsSnapshot) and len(snapshot.quotes) == 2
    assert (snapshot.credits.used, snapshot.credits.last) == (None, 1)  # the rest of the headers kept


def test_a_40_mb_odds_body_is_cut_at_the_cap_and_is_one_problem(tmp_path, data_dir, odds, capsys):
    odds.mode = f"huge:{40 * 1024 * 1024}"
    assert tick(tmp_path, data_dir) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("problem: the-odds-api: /v4/sports/soccer_fifa_world_cup/odds?")
    assert f"response body of {40 * 1024 * 1024} bytes cut at the limit of {ODDS_RESPONSE_BYTES} bytes" in err[0]
    assert sum(1 for path, _ in odds.seen if path.startswith("/v4/")) == 1  # a cut body is not asked again
    archive = written_and_manifest(tmp_path)
    assert SNAPSHOT not in archive.records  # no price read: the market's record of the horizon is missed later


def test_prices_no_one_offered_are_left_out_and_named(tmp_path, data_dir, odds, capsys):
    books = {"plausible": (2.10, 3.40, 3.90), "near-one": (1.0000001, 1.0000001, 1.0000001),
             "too-wide": (1.5, 1.5, 1.5), "from-2099": (2.1, 3.4, 3.9)}  # fmt: skip
    event = odds_event("Mexico", "South Africa", "2026-06-11T19:00:00Z", books)
    event["bookmakers"][3]["markets"][0]["last_update"] = "2099-01-01T00:00:00Z"
    odds.odds_events = [event]
    assert tick(tmp_path, data_dir) == 0  # a usable price remains: the others are named in the record
    snapshot = written_and_manifest(tmp_path).records[SNAPSHOT]
    assert [q.bookmaker for q in snapshot.quotes] == ["plausible"]
    near, wide, late = snapshot.problems
    assert near == "the-odds-api bookmaker 'near-one' h2h: odds 1.0000001 for home are not above 1.01; left out"
    assert wide == "the-odds-api bookmaker 'too-wide' h2h: the 1X2 prices' overround 2.0000 is outside 0.95..1.35; left out"
    assert late.startswith("the-odds-api bookmaker 'from-2099' h2h: last_update 2099-01-01T00:00:00+00:00 is after "
                           "the time it was read (2026-06-10T19:05")


def test_a_match_with_no_plausible_price_is_a_problem_and_gets_no_snapshot(tmp_path, data_dir, odds, capsys):
    odds.odds_events = [odds_event("Mexico", "South Africa", "2026-06-11T19:00:00Z", {"near-one": (1.0000001,) * 3})]
    assert tick(tmp_path, data_dir) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line == ("problem: the-odds-api worldcup-2026/mex-v-rsa: the-odds-api bookmaker 'near-one' h2h: odds "
                    "1.0000001 for home are not above 1.01; left out")
    assert SNAPSHOT not in written_and_manifest(tmp_path).records
