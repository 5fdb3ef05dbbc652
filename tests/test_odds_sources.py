"""The odds sources against a local server speaking The Odds API v4's and Polymarket's formats."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from collector.errors import ConfigError
from collector.http import RetryPolicy
from collector.sources.kalshi import KalshiSource, with_fee
from collector.sources.odds_api import OddsApiSource
from collector.sources.polymarket import PolymarketSource
from tests.collection_helpers import KICKOFF, make_event, world_cup
from tests.fake_markets import (
    ODDS_KEY,
    FakeMarkets,
    gamma_event,
    kalshi_candle,
    kalshi_markets,
    odds_event,
)

RECORDED = Path(__file__).parent / "recorded" / "kalshi"

BOOKS = {"pinnacle": (2.10, 3.40, 3.90), "bet365": (2.05, 3.30, 3.75), "williamhill": (2.00, 3.25, 4.00)}
FAST = RetryPolicy(max_attempts=2, base_delay=0.0)


@pytest.fixture
def markets():
    with FakeMarkets(credits=25) as fake:
        fake.odds_events = [odds_event("Mexico", "South Africa", "2026-06-11T19:00:00Z", BOOKS)]
        fake.pm_events = [gamma_event("fifwc-mex-rsa", "Mexico", "South Africa", (0.47, 0.29, 0.27))]
        yield fake


def odds_api(fake: FakeMarkets, key: str = ODDS_KEY) -> OddsApiSource:
    return OddsApiSource("soccer_fifa_world_cup", key=key, base_url=fake.base_url, retry=FAST)


def fetch(source, at=None):
    async def go():
        try:
            return await source.fetch_odds(world_cup(), [make_event()], at)
        finally:
            await source.aclose()
    return asyncio.run(go())


def test_odds_api_live_quotes_every_bookmaker_and_reports_credits(markets):
    batch = fetch(odds_api(markets))
    assert batch.problems == []
    (odds,) = batch.events
    assert (odds.home_team, odds.away_team, odds.kickoff_utc) == ("mex", "rsa", KICKOFF)
    assert {q.bookmaker: tuple(p.odds for p in q.prices) for q in odds.quotes} == BOOKS
    assert [p.outcome for p in odds.quotes[0].prices] == ["home", "draw", "away"]
    assert odds.payload["id"] == "ev-mex-sou"  # the source's event, verbatim
    # regions uk,eu and one market: 2 credits, reported from the x-requests-* headers
    assert (batch.credits.last, batch.credits.used, batch.credits.remaining) == (2, 2, 23)
    path, params = markets.seen[-1]
    assert path == "/v4/sports/soccer_fifa_world_cup/odds" and params["oddsFormat"] == "decimal"
    assert ODDS_KEY not in batch.endpoint and "apiKey" not in batch.endpoint


def test_odds_api_historical_snapshot_costs_ten_times_and_is_refused_without_credits(markets):
    at = datetime(2026, 6, 10, 19, tzinfo=UTC)
    source = odds_api(markets)
    batch = fetch(source, at)
    assert batch.problems == [] and batch.snapshot_at == at and batch.credits.last == 20
    assert markets.seen[-1][0] == "/v4/historical/sports/soccer_fifa_world_cup/odds"
    assert markets.seen[-1][1]["date"] == "2026-06-10T19:00:00Z"
    # 5 credits remain: the next historical call (20) is not even sent
    source = odds_api(markets)
    source.remaining = 5
    sent = len(markets.seen)
    batch = fetch(source, at)
    assert len(markets.seen) == sent and batch.events == []
    assert "costs 20 credits, only 5 remain; not requested" in batch.problems[0].message


@pytest.mark.slow
def test_odds_api_errors_are_named_and_never_carry_the_key(markets):
    batch = fetch(odds_api(markets, key="wrong-key-0123456789"))
    (problem,) = batch.problems
    assert "HTTP 401 (INVALID_KEY): API key is not valid - check ODDS_API_KEY" in problem.message
    assert "wrong-key-0123456789" not in problem.message
    markets.mode = "status:422"
    (problem,) = fetch(odds_api(markets)).problems
    assert "HTTP 422 (INVALID_REGION)" in problem.message
    markets.mode = "status:429"  # once, with Retry-After 0: retried and answered
    batch = fetch(odds_api(markets))
    assert batch.problems == [] and len(batch.events) == 1
    markets.remaining = 1  # the server refuses: out of credits
    (problem,) = fetch(odds_api(markets)).problems
    assert "OUT_OF_USAGE_CREDITS" in problem.message


@pytest.mark.slow
def test_odds_api_bad_quotes_are_problems_and_the_rest_is_kept(markets):
    bad = odds_event("Mexico", "South Africa", "2026-06-11T19:00:00Z", {"pinnacle": (2.1, 3.4, 3.9)})
    bad["bookmakers"].append({"key": "shady", "markets": [{"key": "h2h", "outcomes": [
        {"name": "Mexico", "price": 0.9}, {"name": "South Africa", "price": 3.0}, {"name": "Draw", "price": 3.0}]}]})
    unknown = odds_event("Atlantis", "South Africa", "2026-06-12T19:00:00Z", BOOKS)
    markets.odds_events = [bad, unknown, "not an event"]
    batch = fetch(odds_api(markets))
    (odds,) = batch.events
    assert [q.bookmaker for q in odds.quotes] == ["pinnacle"]
    assert odds.problems == ["bookmaker 'shady' h2h: field home price: decimal odds must be > 1 and finite, got 0.9"]
    messages = [p.message for p in batch.problems]
    assert "field home_team: unknown team 'Atlantis' in worldcup-2026 (add it as an alias)" in messages
    assert any("expected an event object" in m for m in messages)
    markets.mode = "malformed"
    assert "not valid JSON" in fetch(odds_api(markets)).problems[0].message


def test_odds_api_needs_a_key(monkeypatch):
    monkeypatch.delenv("ODDS_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="ODDS_API_KEY is not set"):
        OddsApiSource.from_env("soccer_epl")


def test_polymarket_live_buys_yes_at_the_ask(markets):
    source = PolymarketSource(gamma_url=markets.base_url, clob_url=markets.base_url, retry=FAST)
    batch = fetch(source)
    assert batch.problems == []
    (quote,) = batch.events[0].quotes
    assert quote.bookmaker == "polymarket" and quote.market == "yes-ask"
    assert [(p.outcome, p.ask, p.bid) for p in quote.prices] == [
        ("home", 0.47, 0.46), ("draw", 0.29, 0.28), ("away", 0.27, 0.26)]
    assert quote.prices[0].odds == pytest.approx(1 / 0.47)
    assert markets.seen[0] == ("/public-search", {"q": "Mexico South Africa"})


def test_polymarket_history_takes_the_last_price_before_the_snapshot(markets):
    at = datetime(2026, 6, 10, 19, tzinfo=UTC)
    t = int(at.timestamp())
    for side, p in (("home", 0.5), ("draw", 0.3), ("away", 0.25)):
        markets.pm_history[f"tok-fifwc-mex-rsa-{side}-yes"] = [
            {"t": t - 7200, "p": p - 0.05}, {"t": t - 60, "p": p}, {"t": t + 60, "p": 0.99}]
    source = PolymarketSource(gamma_url=markets.base_url, clob_url=markets.base_url, retry=FAST,
                              slugs={"mex-v-rsa": "fifwc-mex-rsa"})
    batch = fetch(source, at)
    (quote,) = batch.events[0].quotes
    assert [p.ask for p in quote.prices] == [0.5, 0.3, 0.25] and quote.market == "prices-history"
    assert quote.last_update == datetime.fromtimestamp(t - 60, UTC)
    assert ("/events", {"slug": "fifwc-mex-rsa"}) in markets.seen


def test_polymarket_bad_prices_are_problems(markets):
    markets.pm_events[0]["markets"][1]["bestAsk"] = 1.5
    source = PolymarketSource(gamma_url=markets.base_url, clob_url=markets.base_url, retry=FAST)
    batch = fetch(source)
    (odds,) = batch.events
    assert odds.quotes == []
    assert "a share price must be strictly between 0 and 1, got 1.5" in odds.problems[0]


def kalshi(fake: FakeMarkets) -> KalshiSource:
    return KalshiSource(base_url=fake.base_url + "/trade-api/v2", events={"mex-v-rsa": "KXWCGAME-26JUN11MEXRSA"},
                        retry=FAST)


def test_kalshi_live_buys_at_the_ask_plus_the_fee(markets):
    markets.kalshi_markets["KXWCGAME-26JUN11MEXRSA"] = kalshi_markets(
        "KXWCGAME-26JUN11MEXRSA", "Mexico", "South Africa", (48, 28, 27))
    batch = fetch(kalshi(markets))
    assert batch.problems == []
    (quote,) = batch.events[0].quotes
    assert quote.bookmaker == "kalshi" and quote.fee_rate == 0.07
    home = quote.prices[0]
    # 0.48 + 0.07 x 0.48 x 0.52 = 0.497472: the price paid for a home-win share, fee included
    assert (home.ask, home.bid) == (0.48, 0.46) and 1 / home.odds == pytest.approx(0.497472)
    assert with_fee(0.5) == pytest.approx(0.5175)
    assert [p.outcome for p in quote.prices] == ["home", "draw", "away"]


def test_kalshi_history_uses_the_last_candle_before_the_snapshot(markets):
    ticker = "KXWCGAME-26JUN11MEXRSA"
    markets.kalshi_markets[ticker] = kalshi_markets(ticker, "Mexico", "South Africa", (48, 28, 27))
    at = datetime(2026, 6, 10, 19, tzinfo=UTC)
    t = int(at.timestamp())
    for side, ask in (("H", 50), ("TIE", 30), ("A", 25)):
        markets.kalshi_candles[f"{ticker}-{side}"] = [
            kalshi_candle(t - 3600, ask - 3, ask - 5), kalshi_candle(t, ask, ask - 2), kalshi_candle(t + 3600, 99, 97)]
    batch = fetch(kalshi(markets), at)
    assert batch.problems == []
    assert [p.ask for p in batch.events[0].quotes[0].prices] == [0.5, 0.3, 0.25]
    assert any(path == f"/trade-api/v2/series/KXWCGAME/markets/{ticker}-H/candlesticks" for path, _ in markets.seen)


def test_kalshi_missing_side_and_bad_price_are_named(markets):
    ticker = "KXWCGAME-26JUN11MEXRSA"
    markets.kalshi_markets[ticker] = kalshi_markets(ticker, "Mexico", "South Africa", (48, 28, 27))[:2]
    (odds,) = fetch(kalshi(markets)).events
    assert odds.quotes == [] and odds.problems == [f"event {ticker}: no market for ['away']"]
    markets.kalshi_markets[ticker] = kalshi_markets(ticker, "Mexico", "South Africa", (48, 28, 27))
    markets.kalshi_markets[ticker][0]["yes_ask_dollars"] = "lots"
    (odds,) = fetch(kalshi(markets)).events
    assert odds.quotes == [] and "field yes_ask_dollars: expected a fixed-point dollar string" in odds.problems[0]


def test_kalshi_reads_the_recorded_current_shapes_and_never_the_removed_cents(markets):
    """Markets and candles as Kalshi's reference publishes them since the cents fields went (12 March 2026)."""
    recorded = json.loads((RECORDED / "markets.json").read_text())
    candles = json.loads((RECORDED / "candlesticks.json").read_text())
    ticker = "KXWCGAME-26JUN11MEXRSA"
    markets.kalshi_markets[ticker] = recorded["markets"]
    (quote,) = fetch(kalshi(markets)).events[0].quotes
    assert [(p.outcome, p.ask, p.bid) for p in quote.prices] == [
        ("home", 0.48, 0.46), ("draw", 0.28, 0.26), ("away", 0.27, 0.25)]
    at = datetime.fromtimestamp(candles["candlesticks"][-1]["end_period_ts"], UTC)
    for market in recorded["markets"]:  # the last candle: no trade in the hour, but an ask and a bid
        markets.kalshi_candles[market["ticker"]] = candles["candlesticks"]
    (history,) = fetch(kalshi(markets), at).events[0].quotes
    assert [(p.ask, p.bid) for p in history.prices] == [(0.48, 0.46)] * 3
    old = [{k: v for k, v in m.items() if not k.endswith("_dollars")} | {"yes_ask": 48, "yes_bid": 46}
           for m in recorded["markets"]]  # the shape before 12 March 2026: cents only
    markets.kalshi_markets[ticker] = old
    (odds,) = fetch(kalshi(markets)).events
    assert odds.quotes == [] and "field yes_ask_dollars: expected a price between 0 and 1, got None" in odds.problems[0]
