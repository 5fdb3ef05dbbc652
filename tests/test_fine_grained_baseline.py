"""squad_form: lineups from squads, scorers from past international goals, statistics prior."""

from __future__ import annotations

import math
from collections import Counter
from datetime import date, timedelta

import pytest

from collector.forecasters.baselines import build_baseline
from collector.forecasters.baselines.fine_grained import (
    goal_counts,
    lineup,
    ranked_scorers,
)
from collector.records import Access, ForecastStatus, Strategy
from tests.collection_helpers import make_event, make_task


def test_goal_counts_use_only_the_window_before_the_knowledge_date():
    before = date(2026, 6, 4)
    rows = [(before - timedelta(days=1), "mexico", "Raúl Jiménez"), (before, "mexico", "Raúl Jiménez"),
            (before - timedelta(days=365 * 4 + 1), "mexico", "Raúl Jiménez"), (before - timedelta(days=9), "usa", "X")]
    assert goal_counts(rows, {"mexico"}, before) == Counter({"Raúl Jiménez": 1})  # the day itself is not known


def test_lineup_takes_the_lines_in_squad_order_and_fills_a_short_line():
    squad = [("G1", "GK"), ("G2", "GK")] + [(f"D{i}", "DF") for i in range(3)] + [(f"M{i}", "MF") for i in range(5)] + \
            [(f"F{i}", "FW") for i in range(4)]
    xi = lineup(squad)
    assert [p["name"] for p in xi["starting"]] == ["G1", "D0", "D1", "D2", "G2", "M0", "M1", "M2", "F0", "F1", "F2"]
    assert ranked_scorers([("A B", "FW"), ("C D", "FW")], Counter({"B. B": 0, "C. D": 2, "D": 1}))[0] == ("C D", 3)


@pytest.mark.slow
def test_the_forecast_is_valid_t1_to_t4_with_goals_of_the_headline_score(data_dir):
    forecaster = build_baseline("squad_form", data_dir)
    assert forecaster.conditions == ((Access.CLOSED_BOOK, Strategy.FINE_GRAINED),)
    record = forecaster.forecast_now(make_task(event=make_event(), strategy=Strategy.FINE_GRAINED))
    assert record.status is ForecastStatus.VALID and record.strategy is Strategy.FINE_GRAINED
    match, fg = record.payload, record.payload.fine_grained
    assert [p.position for p in fg.home_lineup.starting] == ["GK"] + ["DF"] * 4 + ["MF"] * 3 + ["FW"] * 3
    assert len([g for g in fg.goals if g.side == "home"]) == match.most_likely_score_90.home
    assert len([g for g in fg.goals if g.side == "away"]) == match.most_likely_score_90.away
    top = fg.ranked("scorers")[0]
    assert 0 < top.probability < 1 and top.side == "home"  # Mexico, at home, the favourite
    assert fg.statistics.xg.home == round(match.expected_home_goals_90, 2)
    assert fg.statistics.possession.home + fg.statistics.possession.away == 100
    assert record.inputs["goalscorers_dated_before"] == record.inputs["results_dated_before"]
    assert math.isclose(fg.statistics.possession.home, 50 + 20 * (match.home_win_90 - match.away_win_90), abs_tol=0.06)
