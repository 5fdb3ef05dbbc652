"""The market forecast is the LLM-SoccerArena App. E consensus on every route: each bookmaker's
latest quote before the request time, margin removed per bookmaker, median per outcome,
renormalised; the same three bookmakers written as a football-data.co.uk CSV and as The Odds
API JSON give the same forecast, whether read from files (``replay --odds``) or as the live and
replayed odds snapshots. The expected numbers are worked out here, without the consensus module."""

from __future__ import annotations

import asyncio
import statistics
from datetime import UTC, datetime, timedelta

import orjson
import pytest

from collector.cli import build_parser, main
from collector.competitions import load_competition
from collector.forecasters.baselines import build_baseline
from collector.forecasters.baselines.market import load_quotes
from collector.forecasters.baselines.market_snapshot import SnapshotMarketForecaster
from collector.forecasters.tasks import ForecastTask
from collector.records import (
    Access,
    Clock,
    Event,
    ForecastStatus,
    Horizon,
    ResolutionRule,
    Strategy,
)
from collector.schedule.odds import OddsDue, snapshot_record
from collector.sources.football_data_couk import FootballDataCsvSource
from collector.sources.odds_api import parse_odds_api
from collector.sources.odds_base import OddsBatch

KICKOFF = datetime(2025, 8, 15, 19, 0, tzinfo=UTC)  # Friday 20:00 BST
COLLECTED = datetime(2025, 8, 12, 12, 0, tzinfo=UTC)  # football-data.co.uk's stamp: the Tuesday before, 12:00 UTC
T24 = KICKOFF - timedelta(hours=24)

# Three bookmakers' pre-closing 1X2 odds (home, draw, away); margins 5.7%, 4.1% and 5.8%.
BOOKS = {"bet365": (1.30, 6.00, 9.50), "pinnacle": (1.33, 6.20, 9.00), "williamhill": (1.28, 5.80, 11.00)}
COLUMNS = {"bet365": "B365", "pinnacle": "PS", "williamhill": "WH"}


def football_data(books) -> str:
    """An E0.csv of the match with these books' columns and Avg/Max summaries far from them (a
    consensus counting the summaries as books would move)."""
    header = ",".join(f"{COLUMNS[b]}{s}" for b in books for s in "HDA")
    prices = ",".join(f"{o:.2f}" if isinstance(o, float) else o for b in books for o in books[b])
    return (f"Div,Date,Time,HomeTeam,AwayTeam,FTHG,FTAG,FTR,{header},AvgH,AvgD,AvgA,MaxH,MaxD,MaxA\n"
            f"E0,15/08/2025,20:00,Liverpool,Bournemouth,4,2,H,{prices},1.20,4.00,15.00,1.50,8.00,20.00\n")


CSV = football_data(BOOKS)


def odds_api(books: dict[str, tuple[float, float, float]], at: datetime) -> bytes:
    """The Odds API v4 /odds body for the match, one h2h market per bookmaker updated at ``at``."""
    def market(odds):
        names = ("Liverpool", "Draw", "Bournemouth")
        return {"key": "h2h", "last_update": at.isoformat().replace("+00:00", "Z"),
                "outcomes": [{"name": n, "price": p} for n, p in zip(names, odds, strict=True)]}

    return orjson.dumps([{"id": "e1", "commence_time": "2025-08-15T19:00:00Z", "home_team": "Liverpool",
                          "away_team": "Bournemouth",
                          "bookmakers": [{"key": b, "markets": [market(o)]} for b, o in books.items()]}])


def devig_median(books):
    """App. E by hand: each book's 1/o normalised, the median per outcome, renormalised; and the
    spread (max - min across books of each outcome's margin-free probability)."""
    fair = [[(1 / o) / sum(1 / x for x in odds) for o in odds] for odds in books]
    median = [statistics.median(column) for column in zip(*fair, strict=True)]
    spread = [max(column) - min(column) for column in zip(*fair, strict=True)]
    return [m / sum(median) for m in median], spread


@pytest.fixture(scope="module")
def league():
    return load_competition("en-1-2025-26", datetime(2026, 1, 1, tzinfo=UTC), Clock.REPLAY)


@pytest.fixture(scope="module")
def event(league):
    return Event(
        clock=Clock.REPLAY, recorded_at=datetime(2025, 7, 1, tzinfo=UTC), competition_id=league.id,
        id="liverpool-fc-v-afc-bournemouth", stage="regular-season", matchday=1, kickoff_utc=KICKOFF,
        kickoff_date=KICKOFF.date(), kickoff_source="2025-08-15 20:00", home_team="liverpool-fc",
        away_team="afc-bournemouth", knockout=False, resolution=ResolutionRule.REGULATION, source="test",
        source_retrieved_at=datetime(2025, 7, 1, tzinfo=UTC),
    )


def task(league, event, now, horizon=Horizon.T_MINUS_24H, odds=()):
    return ForecastTask(competition=league, access=Access.CLOSED_BOOK, strategy=Strategy.PROBABILISTIC_FORECAST,
                        horizon=horizon, sample=0, scheduled_at=now, now=now, deadline=KICKOFF, clock=Clock.REPLAY,
                        event=event, odds=odds)


def assert_consensus_of(record, books):
    probs, spread = devig_median(books)
    assert record.status is ForecastStatus.VALID
    assert record.payload.probabilities_90() == pytest.approx(probs, abs=1e-12)
    assert record.inputs["books"] == len(books) and record.inputs["margin_method"] == "proportional"
    assert record.inputs["spread"] == pytest.approx(spread, abs=1e-6)
    quoted = [statistics.median(column) for column in zip(*books, strict=True)]
    assert record.inputs["buy_odds"] == pytest.approx(quoted)  # the price the builder's return backs at


def test_the_csv_and_the_json_file_give_the_three_book_median(tmp_path, league, event):
    (tmp_path / "E0.csv").write_text(CSV, encoding="utf-8")
    (tmp_path / "odds.json").write_bytes(odds_api(BOOKS, COLLECTED))
    for name in ("E0.csv", "odds.json"):
        quotes, problems = load_quotes([tmp_path / name], league)
        assert problems == []
        record = build_baseline("market", quotes=quotes).forecast_now(task(league, event, T24))  # default method
        assert_consensus_of(record, list(BOOKS.values()))
        assert record.inputs["odds_by_book"] == {b: list(o) for b, o in BOOKS.items()}  # named books, no Avg/Max
        assert record.requested_at == COLLECTED
    probs, _ = devig_median(list(BOOKS.values()))
    assert probs[0] != pytest.approx(devig_median([BOOKS["pinnacle"]])[0][0], abs=1e-3)  # not one book's answer


def test_each_books_latest_quote_before_the_request_time_is_used(tmp_path, league, event):
    moved = {"pinnacle": (1.60, 4.20, 5.50)}  # pinnacle moves after the T-24h request
    stale = {"williamhill": (2.00, 3.50, 3.80)}  # williamhill's older quote, replaced before it
    (tmp_path / "early.json").write_bytes(odds_api(stale, COLLECTED - timedelta(days=2)))
    (tmp_path / "main.json").write_bytes(odds_api(BOOKS, COLLECTED))
    (tmp_path / "late.json").write_bytes(odds_api(moved, T24 + timedelta(hours=1)))
    quotes, _ = load_quotes([tmp_path / n for n in ("late.json", "main.json", "early.json")], league)
    market = build_baseline("market", quotes=quotes)
    at_t24 = market.forecast_now(task(league, event, T24))
    assert_consensus_of(at_t24, list(BOOKS.values()))  # neither the later nor the replaced quote
    assert at_t24.requested_at == COLLECTED
    later = T24 + timedelta(hours=2)
    at_later = market.forecast_now(task(league, event, later, Horizon.T_MINUS_2H))
    assert_consensus_of(at_later, [BOOKS["bet365"], moved["pinnacle"], BOOKS["williamhill"]])
    assert at_later.requested_at == T24 + timedelta(hours=1)
    too_early = market.forecast_now(task(league, event, COLLECTED - timedelta(days=3)))
    assert too_early.status is ForecastStatus.MISSED and too_early.payload is None


def test_a_book_with_a_bad_price_is_skipped_and_named(tmp_path, league, event):
    bad = {**BOOKS, "betfair": (1.0, 6.0, 9.0)}
    (tmp_path / "odds.json").write_bytes(odds_api(bad, COLLECTED))
    (tmp_path / "E0.csv").write_text(football_data({**BOOKS, "williamhill": (1.28, "", 11.0)}), encoding="utf-8")
    quotes, problems = load_quotes([tmp_path / "odds.json"], league)
    assert len(problems) == 1 and "betfair" in problems[0].message
    assert_consensus_of(build_baseline("market", quotes=quotes).forecast_now(task(league, event, T24)),
                        list(BOOKS.values()))
    quotes, problems = load_quotes([tmp_path / "E0.csv"], league)
    assert len(problems) == 1 and "WHD" in problems[0].message and "line 2" in problems[0].path
    record = build_baseline("market", quotes=quotes).forecast_now(task(league, event, T24))
    assert_consensus_of(record, [BOOKS["bet365"], BOOKS["pinnacle"]])


def test_the_snapshot_routes_give_the_same_consensus(tmp_path, league, event):
    """Replayed CSV snapshots and The Odds API's live answers, through the forecaster of live ticks."""
    (tmp_path / "E0.csv").write_text(CSV, encoding="utf-8")
    source = FootballDataCsvSource([tmp_path / "E0.csv"], clock=lambda: T24)
    csv_batch = asyncio.run(source.fetch_odds(league, [event], T24))
    api_batch = OddsBatch("the-odds-api", "/v4/sports/soccer_epl/odds", T24)
    parse_odds_api(odds_api(BOOKS, COLLECTED), league, api_batch)
    market = SnapshotMarketForecaster()
    for batch in (csv_batch, api_batch):
        snapshot = snapshot_record(batch, OddsDue(event, Horizon.T_MINUS_24H, KICKOFF), league.id, Clock.REPLAY, T24)
        record = market.forecast_now(task(league, event, T24, odds=(snapshot,)))
        assert_consensus_of(record, list(BOOKS.values()))


def test_the_replay_margin_option_defaults_to_proportional_and_says_median():
    parser = build_parser()
    args = parser.parse_args(["replay", "en-1-2025-26", "--out", "x", "--odds", "E0.csv"])
    assert args.margin == "proportional"
    replay = next(a for a in parser._subparsers._group_actions[0].choices["replay"]._actions if a.dest == "margin")
    assert "median across bookmakers" in replay.help and "default: proportional" in replay.help


def test_the_replay_files_leave_out_prices_no_one_offered_and_name_them(tmp_path, league, event):
    """``replay --odds`` reads its files through the same plausibility check as the tick's snapshots: odds within
    1% of 1, a book's overround outside 0.95..1.35 and a time after the read are each a problem naming the file,
    the bookmaker, the field and the value; the plausible books still give the consensus."""
    body = orjson.loads(odds_api({**BOOKS, "near-one": (1.0000001,) * 3, "too-wide": (1.5, 1.5, 1.5),
                                  "from-2099": (1.30, 6.00, 9.50)}, COLLECTED))
    body[0]["bookmakers"][-1]["markets"][0]["last_update"] = "2099-01-01T00:00:00Z"
    (tmp_path / "odds.json").write_bytes(orjson.dumps(body))
    quotes, problems = load_quotes([tmp_path / "odds.json"], league)
    assert sorted({q.bookmaker for q in quotes}) == sorted(BOOKS)
    assert [p.path for p in problems] == [f"{tmp_path / 'odds.json'} liverpool-fc v afc-bournemouth"] * 3
    near, wide, late = (p.message for p in problems)
    assert near == "the-odds-api bookmaker 'near-one' h2h: odds 1.0000001 for home are not above 1.01; left out"
    assert wide == "the-odds-api bookmaker 'too-wide' h2h: the 1X2 prices' overround 2.0000 is outside 0.95..1.35; left out"
    assert late.startswith("the-odds-api bookmaker 'from-2099' h2h: last_update 2099-01-01T00:00:00+00:00 is after")
    assert_consensus_of(build_baseline("market", quotes=quotes).forecast_now(task(league, event, T24)),
                        list(BOOKS.values()))
    (tmp_path / "E0.csv").write_text(football_data({**BOOKS, "williamhill": ("1.005", "1.005", "1.005")}), encoding="utf-8")
    quotes, problems = load_quotes([tmp_path / "E0.csv"], league)
    assert sorted({q.bookmaker for q in quotes}) == ["bet365", "pinnacle"]
    assert [(p.path, p.message) for p in problems] == [(f"{tmp_path / 'E0.csv'} line 2", (
        "football-data-co-uk bookmaker 'williamhill' h2h: odds 1.005 for home are not above 1.01; left out"))]


def test_replay_odds_with_a_price_no_one_offered_stops_before_replaying(tmp_path, data_dir, capsys):
    """The route users take: ``replay --odds file.json`` names the left-out quote and writes no archive."""
    body = orjson.loads(odds_api({"near-one": (1.0000001,) * 3}, COLLECTED))
    (tmp_path / "odds.json").write_bytes(orjson.dumps(body))
    out = tmp_path / "epl"
    code = main(["replay", "en-1-2025-26", "--out", str(out), "--data-dir", str(data_dir), "--baselines", "uniform",
                 "--odds", str(tmp_path / "odds.json"), "--until", "2025-08-19T12:00Z"])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists()
    assert f"{tmp_path / 'odds.json'} liverpool-fc v afc-bournemouth" in err
    assert "bookmaker 'near-one' h2h: odds 1.0000001 for home are not above 1.01" in err
