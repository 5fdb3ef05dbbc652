"""Binary market events (Prophet Arena): registered from ``[[markets.binary]]``, asked to an LLM
with and without the market price at the horizons, resolved from outcomes (fail closed), scored
by Brier, log loss, ECE and the return at the quoted price."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from builder.score.binary_events import (
    CRRA_GAMMA,
    score_binary_events,
    summarise_binary,
)
from collector.archive.reader import load_archive
from collector.commandline import parse_utc_instant
from collector.config import ConfigError, load_config, parse_config
from collector.fixtures.market_events import answer_binary, binary_event_from_config
from collector.records import (
    BinaryEvent,
    BinaryForecast,
    BinaryQuote,
    BinaryResolution,
    BinaryRule,
    Clock,
    ForecastStatus,
    Horizon,
    ResolutionRule,
    Score,
)
from collector.schedule.tick import run_tick
from tests.collection_helpers import TEST_LLM
from tests.fake_markets import FakeMarkets
from tests.gitrepo import KICKOFF, at, event, outcome

MARKETS = """
[[markets.binary]]
id = "mex-win-opener"
competition = "worldcup-2026"
label = "Will Mexico beat South Africa in the opening match?"
market = "mex-beat-rsa"
rule = "match_result"
event = "mex-v-rsa"
result = "home"
[[markets.binary]]
id = "opener-over-2-5"
competition = "worldcup-2026"
label = "Will the opening match have more than 2.5 goals?"
market = "opener-total-2-5"
rule = "total_goals_over"
event = "mex-v-rsa"
line = 2.5
[[markets.binary]]
id = "esp-champion"
competition = "worldcup-2026"
label = "Will Spain win the 2026 World Cup?"
market = "spain-wins-wc"
rule = "champion"
team = "esp"
closes_at = 2026-06-11T19:00:00Z
"""
CONFIG = """
[arena]
competitions = ["worldcup-2026"]
questions = false
access = ["closed_book"]
strategies = ["probabilistic_forecast"]
horizons = ["t_minus_24h", "t_minus_2h"]
""" + TEST_LLM + MARKETS


KO = ResolutionRule.EXTRA_TIME_AND_PENALTIES
ARENA = {"competitions": ["worldcup-2026"]}


def gamma_market(slug: str, ask: float, bid: float | None) -> dict:
    """One binary market in Gamma's documented shape (``GET /markets?slug=``)."""
    return {"id": slug, "slug": slug, "question": slug, "outcomes": '["Yes", "No"]',
            "outcomePrices": f'["{ask}", "{round(1 - ask, 4)}"]', "clobTokenIds": f'["tok-{slug}-yes", "tok-{slug}-no"]',
            "bestAsk": ask, "bestBid": bid, "active": True, "closed": False}


# --- registration from the configured market list ---------------------------------------------

def test_the_market_list_registers_one_event_per_contract_with_its_rule_and_close():
    assert parse_config({"arena": {"competitions": ["worldcup-2026"]}}, "x.toml").markets.binary == ()
    import tomllib
    config = parse_config(tomllib.loads(CONFIG), "arena.toml")
    entries = {e.id: e for e in config.markets.binary}
    opener = binary_event_from_config(entries["mex-win-opener"], [event()], at(1), Clock.LIVE)
    assert opener.rule == BinaryRule(kind="match_result", event_id="mex-v-rsa", result="home")
    assert opener.closes_at == KICKOFF and opener.source == "polymarket" and opener.market == "mex-beat-rsa"
    total = binary_event_from_config(entries["opener-over-2-5"], [event()], at(1), Clock.LIVE)
    assert total.rule.line == 2.5 and total.closes_at == KICKOFF
    champion = binary_event_from_config(entries["esp-champion"], [], at(1), Clock.LIVE)
    assert champion.closes_at == datetime(2026, 6, 11, 19, tzinfo=UTC) and champion.rule.team == "esp"


@pytest.mark.parametrize("change, message", [
    ({"rule": "champion", "team": None, "closes_at": "2026-06-11T19:00:00Z"}, "rule champion needs team"),
    ({"line": 2.0}, "a total must be a half line"),
    ({"event": "no-such-match"}, "event 'no-such-match' is not registered"),
    ({"rule": "reaches", "team": "esp", "stage": "final"}, "rule reaches needs closes_at"),
    ({"rule": "champion", "team": "atlantis", "closes_at": "2026-06-11T19:00:00Z"}, "team 'atlantis' is not a team"),
    ({"rule": "reaches", "team": "esp", "stage": "semis", "closes_at": "2026-06-11T19:00:00Z"},
     "stage 'semis' is not a knockout stage of worldcup-2026"),
])
def test_a_bad_contract_is_refused_naming_the_entry_and_the_field(change, message, wc_competition):
    entry = {"id": "bad", "competition": "worldcup-2026", "label": "x", "market": "m", "rule": "total_goals_over",
             "event": "mex-v-rsa", "line": 2.5, **change}
    config = parse_config({"arena": ARENA, "markets": {"binary": [entry]}}, "arena.toml")
    with pytest.raises(ConfigError, match=message) as err:
        binary_event_from_config(config.markets.binary[0], [event()], at(1), Clock.LIVE, wc_competition)
    assert "[[markets.binary]] bad" in str(err.value)


def test_an_unknown_key_in_a_contract_is_a_config_error():
    with pytest.raises(ConfigError, match="markets"):
        parse_config({"arena": ARENA, "markets": {"binary": [{"id": "x", "competition": "c", "label": "l", "market": "m",
                                              "rule": "champion", "team": "esp", "price": 0.5}]}}, "arena.toml")


# --- resolution from outcomes, fail closed ------------------------------------------------------

def _binary(**rule) -> BinaryEvent:
    return BinaryEvent(recorded_at=at(1), competition_id="worldcup-2026", id="b", label="?", source="polymarket",
                       market="m", rule=BinaryRule(**rule), closes_at=KICKOFF)


def test_match_rules_resolve_only_once_the_result_is_recorded(wc_competition):
    win = _binary(kind="match_result", event_id="mex-v-rsa", result="home")
    over = _binary(kind="total_goals_over", event_id="mex-v-rsa", line=2.5)
    assert answer_binary(win, wc_competition, [event()], {}) is None  # no outcome: unresolved
    two_nil = {"mex-v-rsa": outcome(score_90=Score(home=2, away=0))}
    assert answer_binary(win, wc_competition, [event()], two_nil) == (True, ("mex-v-rsa",))
    assert answer_binary(over, wc_competition, [event()], two_nil) == (False, ("mex-v-rsa",))
    three = {"mex-v-rsa": outcome(score_90=Score(home=1, away=2))}
    assert answer_binary(win, wc_competition, [event()], three) == (False, ("mex-v-rsa",))
    assert answer_binary(over, wc_competition, [event()], three) == (True, ("mex-v-rsa",))


def test_tournament_rules_wait_for_the_deciding_match(wc_competition):
    champion = _binary(kind="champion", team="esp")
    final = event(id="final", stage="final", home_team="esp", away_team="arg", knockout=True, resolution=KO)
    assert answer_binary(champion, wc_competition, [event(), final], {}) is None
    won = {"final": outcome(event_id="final", score_90=Score(home=1, away=1), advancing_team="esp")}
    assert answer_binary(champion, wc_competition, [final], won) == (True, ("final",))
    lost = {"final": outcome(event_id="final", score_90=Score(home=0, away=1), advancing_team="arg")}
    assert answer_binary(champion, wc_competition, [final], lost) == (False, ("final",))
    reaches = _binary(kind="reaches", team="esp", stage="final")
    assert answer_binary(reaches, wc_competition, [event()], {}) is None  # the final's pairing not known
    assert answer_binary(reaches, wc_competition, [final], {}) == (True, ("final",))
    other = event(id="final", stage="final", home_team="fra", away_team="arg", knockout=True, resolution=KO)
    assert answer_binary(reaches, wc_competition, [other], {}) == (False, ("final",))


@pytest.fixture
def wc_competition():
    from collector.competitions.loader import load_competition
    return load_competition("worldcup-2026", at(1))


# --- scoring, hand-worked -------------------------------------------------------------------

def _forecast(event_id: str, condition: str, p: float, ask: float, bid: float | None, **kw) -> BinaryForecast:
    quote = BinaryQuote(ask=ask, bid=bid, retrieved_at=at(10), endpoint="/markets?slug=m")
    return BinaryForecast(recorded_at=at(10), competition_id="worldcup-2026", event_id=event_id, forecaster="llm",
                          model="x/y", condition=condition, horizon=Horizon.T_MINUS_24H, closes_at=KICKOFF,
                          status=kw.pop("status", ForecastStatus.VALID), probability=p, quote=quote, prompt="?", **kw)


def _resolution(event_id: str, value: bool) -> BinaryResolution:
    return BinaryResolution(recorded_at=at(12), competition_id="worldcup-2026", event_id=event_id, value=value,
                            resolved_from=("mex-v-rsa",))


def test_brier_log_loss_ece_and_return_at_the_quoted_price_hand_worked():
    records = [
        _forecast("a", "with_price", 0.7, 0.6, 0.58), _forecast("a", "no_price", 0.5, 0.6, 0.58),
        _forecast("b", "with_price", 0.2, 0.3, None), _forecast("c", "with_price", 0.9, 0.5, 0.4),  # c unresolved
        _forecast("b", "no_price", 0.5, 0.3, None, status=ForecastStatus.INVALID_RANGE),
        _resolution("a", True), _resolution("b", False),
    ]
    rows, asked = score_binary_events(records)
    got = {(r.event_id, r.forecaster, r.condition): r for r in rows}
    assert {k[0] for k in got} == {"a", "b"}  # c is not resolved: not scored
    a = got[("a", "llm", "with_price")]
    # Yes at the ask 0.6 (p 0.7 > 0.6): 1/0.6; No would cost 1 - bid = 0.42
    assert (a.brier, a.log_loss, a.return_risk_neutral) == pytest.approx((0.09, 0.356675, 1.666667), abs=1e-6)
    # CRRA gamma 1/2: a* = (0.49/0.6) / (0.49/0.6 + 0.09/0.42) = 0.792148, return a*/0.6
    assert a.return_crra == pytest.approx(1.320247, abs=1e-6) and CRRA_GAMMA == 0.5
    n = got[("a", "llm", "no_price")]  # 1 - p = 0.5 > 0.42: buys No, loses the stake
    assert (n.brier, n.log_loss, n.return_risk_neutral) == pytest.approx((0.25, math.log(2), 0.0), abs=1e-6)
    b = got[("b", "llm", "with_price")]  # no bid: no No side, the stake is kept
    assert (b.brier, b.return_risk_neutral, b.no_price) == (pytest.approx(0.04), 1.0, math.inf)
    assert b.return_crra == pytest.approx(0.827586, abs=1e-6)  # a* = (0.04/0.3) / (0.04/0.3 + 0.64)
    market = got[("a", "market", "price")]
    assert (market.p, market.brier, market.return_risk_neutral) == (0.6, pytest.approx(0.16), None)
    summary = {(s.forecaster, s.condition): s for s in summarise_binary(rows, asked)}
    wp = summary[("llm", "with_price")]
    assert (wp.n, wp.n_asked) == (2, 2)
    assert (wp.brier, wp.log_loss, wp.ece) == pytest.approx((0.065, 0.289909, 0.25), abs=1e-6)
    assert (wp.return_risk_neutral, wp.return_crra, wp.sharpe) == pytest.approx((1.333333, 1.073917, 0.707107),
                                                                                abs=1e-6)
    assert (summary[("llm", "no_price")].n, summary[("llm", "no_price")].n_asked) == (1, 2)  # one invalid answer
    assert summary[("market", "price")].n == 2 and summary[("market", "price")].return_risk_neutral is None


@given(p=st.floats(0.01, 0.99), ask=st.floats(0.02, 0.98), spread=st.floats(0.0, 0.5), yes=st.booleans())
def test_scores_agree_with_a_plain_formula_and_a_price_inside_the_spread_abstains(p, ask, spread, yes):
    bid = max(0.01, ask - spread)
    rows, _ = score_binary_events([_forecast("a", "with_price", p, ask, bid), _resolution("a", yes)])
    row = next(r for r in rows if r.forecaster == "llm")
    o = 1.0 if yes else 0.0
    assert row.brier == pytest.approx((p - o) ** 2) and 0 <= row.brier <= 1
    assert row.log_loss == pytest.approx(-math.log(p if yes else 1 - p))
    if bid <= p <= ask:  # no edge on either side at the quoted prices: the stake is kept
        assert row.return_risk_neutral == 1.0
    elif p > ask:
        assert row.return_risk_neutral == pytest.approx(o / ask)
    else:
        assert row.return_risk_neutral == pytest.approx((1 - o) / (1 - bid))
    assert 0 <= row.return_crra <= max(1 / ask, 1 / (1 - bid)) + 1e-9


# --- a live tick against local OpenRouter and Polymarket servers ----------------------------------

@pytest.fixture
def polymarket(monkeypatch):
    with FakeMarkets() as fake:
        fake.pm_markets = [gamma_market("mex-beat-rsa", 0.55, 0.53), gamma_market("opener-total-2-5", 0.40, 0.38),
                           gamma_market("spain-wins-wc", 0.12, 0.11)]
        monkeypatch.setenv("POLYMARKET_GAMMA_URL", fake.base_url)
        monkeypatch.setenv("POLYMARKET_CLOB_URL", fake.base_url)
        yield fake


def _tick(tmp_path, data_dir, now: str):
    config = tmp_path / "arena.toml"
    config.write_text(CONFIG)
    report = run_tick(load_config(config), tmp_path / "archive", parse_utc_instant(now), data_dir, Clock.LIVE)
    print("\n".join(report.summary_lines()))
    return report


@pytest.mark.slow
def test_a_live_tick_asks_each_contract_with_and_without_its_price_then_resolves_it(
        tmp_path, data_dir, server, polymarket):
    _tick(tmp_path, data_dir, "2026-06-10T19:05:00Z")  # T-24h before the opener (and Spain's close)
    archive = load_archive(tmp_path / "archive")
    assert archive.problems == []
    forecasts = {(r.event_id, r.condition): r for r in archive.records.values() if isinstance(r, BinaryForecast)}
    assert sorted(forecasts) == sorted((e, c) for e in ("esp-champion", "mex-win-opener", "opener-over-2-5")
                                       for c in ("no_price", "with_price"))
    priced, blind = forecasts[("mex-win-opener", "with_price")], forecasts[("mex-win-opener", "no_price")]
    assert "Market price: a Yes share costs 0.550" in priced.prompt and "Market price" not in blind.prompt
    assert ("Resolves Yes if Mexico v South Africa (kickoff 2026-06-11T19:00:00+00:00) ends in a Mexico win after 90"
            in blind.prompt)
    assert (priced.probability, blind.probability) == (pytest.approx(0.65), 0.5)  # the local LLM's rule
    assert priced.quote == blind.quote and priced.quote.ask == 0.55 and priced.quote.bid == 0.53
    assert all(f.status is ForecastStatus.VALID and f.horizon is Horizon.T_MINUS_24H for f in forecasts.values())
    assert all(f.requested_at < f.closes_at for f in forecasts.values())
    prompts = [s["body"]["messages"][-1]["content"] for s in server.seen]
    assert sum("Binary contract:" in text for text in prompts) == 6
    assert [p for p, q in polymarket.seen if p == "/markets"] == ["/markets"] * 3  # one price read per contract

    _tick(tmp_path, data_dir, "2026-06-10T19:10:00Z")  # same window: nothing asked twice
    assert sum("Binary contract:" in s["body"]["messages"][-1]["content"] for s in server.seen) == 6

    _tick(tmp_path, data_dir, "2026-06-12T12:00:00Z")  # after the opener: its outcome is recorded
    archive = load_archive(tmp_path / "archive")
    resolutions = {r.event_id: r for r in archive.records.values() if isinstance(r, BinaryResolution)}
    score = archive.outcomes[("worldcup-2026", "mex-v-rsa")].score_90 if ("worldcup-2026", "mex-v-rsa") in \
        archive.outcomes else None
    assert score is not None
    assert resolutions["mex-win-opener"].value is (score.home > score.away)
    assert resolutions["opener-over-2-5"].value is (score.home + score.away > 2.5)
    assert "esp-champion" not in resolutions  # the final is not played: unresolved (fail closed)
    rows, asked = score_binary_events(archive.records.values())
    assert {(r.event_id, r.condition) for r in rows} >= {("mex-win-opener", "with_price"), ("mex-win-opener", "price")}
    o = float(resolutions["mex-win-opener"].value)
    priced_row = next(r for r in rows if (r.event_id, r.condition) == ("mex-win-opener", "with_price"))
    assert priced_row.brier == pytest.approx((0.65 - o) ** 2)
    assert priced_row.return_risk_neutral == pytest.approx(o / 0.55)  # 0.65 > the ask: bought Yes at 0.55
    assert np.isfinite(priced_row.no_price)


# --- verify checks binary forecasts like forecasts ------------------------------------------------

def test_verify_flags_a_binary_forecast_committed_after_its_close_and_an_edited_one(tmp_path):
    from datetime import timedelta

    from collector.audit.verify import verify_repository
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    contract = _binary(kind="match_result", event_id="mex-v-rsa", result="home")
    repo.tick(at(1), event(), contract.model_copy(update={"id": "mex-win-opener"}))
    on_time = _forecast("mex-win-opener", "with_price", 0.6, 0.55, 0.53, requested_at=KICKOFF - timedelta(hours=2))
    repo.tick(KICKOFF - timedelta(hours=2), on_time)
    late = _forecast("mex-win-opener", "no_price", 0.5, 0.55, 0.53, requested_at=KICKOFF - timedelta(minutes=5))
    repo.tick(KICKOFF + timedelta(minutes=1), late)
    report = verify_repository(repo.root)
    found = {(f.path.rsplit("/", 1)[-1], f.code) for f in report.findings if f.violation}
    assert found == {("no_price.t_minus_24h.json", "committed_after_kickoff")}
    path = repo.archive / "worldcup-2026/markets/mex-win-opener/forecasts/llm/with_price.t_minus_24h.json"
    before = path.read_bytes()
    path.write_bytes(before.replace(b'"probability": 0.6', b'"probability": 0.9'))
    assert path.read_bytes() != before
    repo.commit(at(12), "edit")
    modified = [f.path for f in verify_repository(repo.root).findings if f.code == "modified"]
    assert modified == ["worldcup-2026/markets/mex-win-opener/forecasts/llm/with_price.t_minus_24h.json"]


@pytest.mark.parametrize("content, error", [
    ("not json", "not JSON"), ("[0.5]", "expected a JSON object, got list"),
    ('{"probability": true}', "field probability: expected a number, got True"),
    ('{"probability": "0.6"}', "field probability: expected a number, got '0.6'"),
    ('{"probability": 1.2, "reason": "sure"}', "field probability: 1.2 is not between 0 and 1"),
    ('{"probability": -0.1}', "is not between 0 and 1"), (None, "not JSON"),
])
def test_a_bad_binary_answer_is_an_error_naming_the_field_and_never_a_probability(content, error):
    from collector.forecasters.llm.binary import parse_binary

    p, _, errors = parse_binary(content)
    assert p is None and len(errors) == 1 and error in errors[0]
    assert parse_binary('{"probability": 0, "reason": "<b>no</b>"}') == (0.0, "<b>no</b>", [])


@pytest.mark.slow
def test_an_llm_that_answers_garbage_gets_an_invalid_record_and_no_score(tmp_path, data_dir, server, polymarket):
    server.mode = "malformed"
    _tick(tmp_path, data_dir, "2026-06-10T19:05:00Z")
    archive = load_archive(tmp_path / "archive")
    records = [r for r in archive.records.values() if isinstance(r, BinaryForecast)]
    assert len(records) == 6 and all(r.probability is None for r in records)
    assert {r.status for r in records} <= {ForecastStatus.INVALID_JSON, ForecastStatus.API_ERROR}
    assert all(r.errors and r.quote is not None for r in records)
