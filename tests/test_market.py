"""Market baseline: margin removal (hand-worked, independent route, invariants) and odds import formats."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collector.competitions import load_competition
from collector.forecasters.baselines import build_baseline
from collector.forecasters.baselines.margin import (
    METHODS,
    power_margin,
    proportional_margin,
    remove_margin,
    shin_margin,
    shin_z,
)
from collector.forecasters.baselines.market import (
    load_quotes,
    parse_football_data_csv,
    parse_odds_api_json,
    poisson_match,
)
from collector.forecasters.tasks import ForecastTask
from collector.records import (
    Access,
    Clock,
    Event,
    ForecasterType,
    ForecastStatus,
    Horizon,
    ResolutionRule,
    Strategy,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)

# football-data.co.uk layout (E0.csv): a subset of its real columns, values made up.
FOOTBALL_DATA_CSV = """\ufeffDiv,Date,Time,HomeTeam,AwayTeam,FTHG,FTAG,FTR,B365H,B365D,B365A,PSH,PSD,PSA,AvgH,AvgD,AvgA,B365CH,B365CD,B365CA,PSCH,PSCD,PSCA
E0,15/08/2025,20:00,Liverpool,Bournemouth,4,2,H,1.30,6.00,9.50,1.31,6.20,10.00,1.29,5.90,9.40,1.28,6.25,11.00,1.29,6.40,11.50
E0,16/08/2025,15:00,Man Utd,Arsenal,0,1,A,3.60,3.70,2.00,,,,3.50,3.60,2.02,,,,,,
E0,16/08/2025,15:00,Chelsea,Crystal Palace,0,0,D,1.50,4.33,0.90,,,,,,,,,,,,
"""

# The Odds API v4 /sports/{sport}/odds response shape, values made up.
ODDS_API_JSON = b"""[
 {"id": "e1", "sport_key": "soccer_epl", "sport_title": "EPL", "commence_time": "2025-08-15T19:00:00Z",
  "home_team": "Liverpool", "away_team": "Bournemouth",
  "bookmakers": [
   {"key": "pinnacle", "title": "Pinnacle", "last_update": "2025-08-14T10:00:00Z",
    "markets": [{"key": "h2h", "last_update": "2025-08-14T09:58:00Z",
      "outcomes": [{"name": "Liverpool", "price": 1.33}, {"name": "Bournemouth", "price": 9.0},
                   {"name": "Draw", "price": 6.0}]},
     {"key": "totals", "last_update": "2025-08-14T09:58:00Z", "outcomes": []}]}]},
 {"id": "e2", "commence_time": "2025-08-16T14:00:00Z", "home_team": "Nobody FC", "away_team": "Arsenal",
  "bookmakers": []}
]"""


def test_margin_removal_hand_worked():
    odds = [2.0, 3.4, 4.0]
    q = np.array([0.5, 1 / 3.4, 0.25])
    assert proportional_margin(odds) == pytest.approx(q / q.sum())
    p = power_margin(odds)
    k = np.log(p[0]) / np.log(q[0])  # p_i = q_i^k with one common k
    assert np.log(p[1]) / np.log(q[1]) == pytest.approx(k, rel=1e-6) and p.sum() == pytest.approx(1.0)
    # favourite keeps more than under proportional; the long shot less (favourite-longshot bias)
    assert p[0] > proportional_margin(odds)[0] and p[2] < proportional_margin(odds)[2]


def test_shin_matches_an_independent_root_finder():
    from scipy.optimize import brentq

    odds = np.array([1.45, 4.6, 7.5])
    q = 1 / odds
    booksum = q.sum()

    def total(z):
        return np.sum((np.sqrt(z**2 + 4 * (1 - z) * q**2 / booksum) - z) / (2 * (1 - z))) - 1

    z = brentq(total, 0.0, 0.5)
    assert shin_z(odds) == pytest.approx(z, abs=1e-9)
    expected = (np.sqrt(z**2 + 4 * (1 - z) * q**2 / booksum) - z) / (2 * (1 - z))
    assert shin_margin(odds) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(1.05, 30.0), min_size=3, max_size=3), st.floats(0.0, 0.12))
def test_margin_invariants(fair_shape, margin):
    fair = np.asarray(fair_shape) * np.sum(1 / np.asarray(fair_shape))  # rescale to a fair book: sum 1/o = 1
    if np.any(fair <= 1.0):
        return
    for method in METHODS:
        assert remove_margin(fair, method) == pytest.approx(1 / fair, abs=1e-7)  # fair odds unchanged
        loaded = fair / (1 + margin)
        if np.any(loaded <= 1.0):
            continue
        p = remove_margin(loaded, method)
        assert p.sum() == pytest.approx(1.0) and (p > 0).all()
        assert list(np.argsort(p)) == list(np.argsort(1 / loaded)) or len(set(np.round(loaded, 9))) < 3


def test_bad_odds_and_methods_are_named():
    with pytest.raises(ValueError, match="must be > 1"):
        remove_margin([1.0, 3.0, 4.0])
    with pytest.raises(ValueError, match="unknown margin-removal method 'magic'"):
        remove_margin([2.0, 3.0, 4.0], "magic")


@pytest.fixture(scope="module")
def premier_league():
    return load_competition("en-1-2025-26", T0, Clock.REPLAY)


def test_football_data_csv_quotes_and_problems(premier_league):
    quotes, problems = parse_football_data_csv(FOOTBALL_DATA_CSV, premier_league, "E0.csv")
    liverpool = [q for q in quotes if q.home == "liverpool-fc"]
    # one quote per real bookmaker, named; the Avg columns summarise the books and are not one
    pre = {q.bookmaker: q for q in liverpool if not q.closing}
    closings = {q.bookmaker: q for q in liverpool if q.closing}
    assert {b: q.odds for b, q in pre.items()} == {"bet365": (1.3, 6.0, 9.5), "pinnacle": (1.31, 6.2, 10.0)}
    assert {b: q.odds for b, q in closings.items()} == {"bet365": (1.28, 6.25, 11.0), "pinnacle": (1.29, 6.4, 11.5)}
    pre, closing = pre["pinnacle"], closings["pinnacle"]
    kickoff = datetime(2025, 8, 15, 19, 0, tzinfo=UTC)  # 20:00 BST
    assert closing.kickoff == kickoff and closing.quoted_at == kickoff - timedelta(minutes=1)
    assert pre.quoted_at == datetime(2025, 8, 12, 12, 0, tzinfo=UTC)  # Friday match: the Tuesday before
    assert len(problems) == 2  # 'Man Utd' is not an alias; odds 0.90 are impossible
    assert any("line 3" in p.path and "Man Utd" in p.message for p in problems)
    assert any("line 4" in p.path and "B365A" in p.message and "> 1" in p.message for p in problems)
    assert not [q for q in quotes if q.home == "chelsea-fc"]  # its only book had a bad price: skipped


def test_odds_api_json_quotes_and_problems(premier_league):
    quotes, problems = parse_odds_api_json(ODDS_API_JSON, premier_league, "odds.json")
    assert len(quotes) == 1
    quote = quotes[0]
    assert (quote.home, quote.away, quote.odds) == ("liverpool-fc", "afc-bournemouth", (1.33, 6.0, 9.0))
    assert quote.quoted_at == datetime(2025, 8, 14, 9, 58, tzinfo=UTC)  # the market's own last_update
    assert len(problems) == 1 and "Nobody FC" in problems[0].message and "[1]" in problems[0].path
    assert parse_odds_api_json(b"{not json", premier_league, "x.json")[1][0].message.startswith("not valid JSON")


def _task(competition, now, horizon=Horizon.T_MINUS_24H):
    kickoff = datetime(2025, 8, 15, 19, 0, tzinfo=UTC)
    event = Event(
        clock=Clock.REPLAY, recorded_at=T0.replace(year=2025, month=7), competition_id=competition.id,
        id="liverpool-fc-v-afc-bournemouth", stage="regular-season", matchday=1, kickoff_utc=kickoff,
        kickoff_date=kickoff.date(), kickoff_source="2025-08-15 20:00", home_team="liverpool-fc",
        away_team="afc-bournemouth", knockout=False, resolution=ResolutionRule.REGULATION, source="test",
        source_retrieved_at=T0.replace(year=2025, month=7),
    )
    return ForecastTask(competition=competition, access=Access.CLOSED_BOOK, strategy=Strategy.PROBABILISTIC_FORECAST,
                        horizon=horizon, sample=0, scheduled_at=now, now=now, deadline=kickoff, clock=Clock.REPLAY,
                        event=event)


def test_market_forecast_uses_the_quote_time(premier_league, tmp_path):
    (tmp_path / "E0.csv").write_text(FOOTBALL_DATA_CSV, encoding="utf-8")
    (tmp_path / "odds.json").write_bytes(ODDS_API_JSON)
    quotes, problems = load_quotes([tmp_path / "E0.csv", tmp_path / "odds.json"], premier_league)
    assert len(problems) == 3
    market = build_baseline("market", quotes=quotes, method="shin")
    now = datetime(2025, 8, 14, 19, 0, tzinfo=UTC)
    record = market.forecast_now(_task(premier_league, now))
    assert record.forecaster == "market" and record.forecaster_type is ForecasterType.MARKET
    assert record.requested_at == datetime(2025, 8, 14, 9, 58, tzinfo=UTC)  # the latest quote before `now`

    def median_of_two(a, b):  # the median of two books is their mean, then renormalised
        mid = (shin_margin(a) + shin_margin(b)) / 2
        return tuple(mid / mid.sum())

    # bet365's CSV quote and pinnacle's JSON quote, which replaces pinnacle's older CSV one
    assert record.payload.probabilities_90() == pytest.approx(median_of_two([1.30, 6.0, 9.5], [1.33, 6.0, 9.0]))
    assert record.inputs["odds_by_book"] == {"bet365": [1.3, 6.0, 9.5], "pinnacle": [1.33, 6.0, 9.0]}
    assert record.inputs["books"] == 2 and record.clock is Clock.REPLAY
    closing = market.forecast_now(_task(premier_league, now, Horizon.CLOSING))
    assert closing.inputs["closing"] is True and closing.payload.probabilities_90() == pytest.approx(
        median_of_two([1.28, 6.25, 11.0], [1.29, 6.4, 11.5])
    )
    early = market.forecast_now(_task(premier_league, datetime(2025, 8, 1, tzinfo=UTC)))
    assert early.status is ForecastStatus.MISSED and early.payload is None and "no odds" in early.validation.errors[0]


def test_poisson_match_reproduces_market_probabilities():
    from collector.forecasters.baselines.scoregrid import (
        outcome_probabilities,
        score_grid,
    )

    probs = (0.55, 0.25, 0.20)
    lam, mu = poisson_match(probs)
    home, _, away = outcome_probabilities(score_grid(lam, mu))
    assert home == pytest.approx(0.55, abs=0.01) and away == pytest.approx(0.20, abs=0.01)
    assert lam > mu
