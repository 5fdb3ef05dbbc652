"""What a visitor reads on the match pages and the charts: goals in the order they were scored, no
"Advances" where nobody advances, a reliability legend grouped by forecaster whose edge markers are
drawn whole, and stages named as the competition names them. (The bracket's heads at 390 px and the
scroll cue of wide tables are checked in a browser: test_bracket_page.py, test_site_browser.py.)"""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from builder.site.charts import brier_by_stage, reliability
from builder.site.matches import outcome_view, winner_label
from collector.competitions.loader import load_competition
from collector.records import Clock, Goal
from tests.factories import make_event, make_outcome


def test_goals_are_listed_by_minute_whichever_team_scored():
    event = make_event("mex", "rsa")
    goals = (Goal(team="mex", scorer="A", minute=67), Goal(team="mex", scorer="B", minute=9),
             Goal(team="rsa", scorer="C", minute=45, stoppage=2), Goal(team="rsa", scorer="D", minute=30),
             Goal(team="mex", scorer="E", minute=45))
    view = outcome_view(make_outcome(event, 3, 2, goals=goals), {"mex": "Mexico", "rsa": "South Africa"})
    assert [(g.minute, g.scorer, g.team) for g in view.goals] == [
        ("9'", "B", "Mexico"), ("30'", "D", "South Africa"), ("45'", "E", "Mexico"), ("45'+2", "C", "South Africa"),
        ("67'", "A", "Mexico")]


def test_nobody_advances_from_the_third_place_match_or_the_final():
    competition = load_competition("worldcup-2026", datetime(2026, 6, 1, tzinfo=UTC), Clock.REPLAY)
    numbers = {s.stage: s.match_number for s in competition.knockout_slots}
    labels = {stage: winner_label(competition, make_event(stage=stage, knockout=True, match_number=number))
              for stage, number in numbers.items()}
    assert labels["third-place"] == labels["final"] == "Winner"
    assert labels["round-of-32"] == labels["semi-final"] == "Advances"
    assert winner_label(competition, make_event(stage="group")) == "Advances"  # no match number: as before
    event = make_event("eng", "fra", stage="third-place", knockout=True, match_number=numbers["third-place"])
    view = outcome_view(make_outcome(event, 2, 1), {"eng": "England"}, winner_label(competition, event))
    assert (view.winner_label, view.advancing) == ("Winner", "England")


def _row(forecaster: str, horizon: str, access: str, n: int):
    bins = [SimpleNamespace(scheme="equal_width", n=n, outcome=o, lower=0.9, upper=1.0, mean_probability=0.95,
                            observed_frequency=1.0) for o in ("home", "away")]
    return SimpleNamespace(cell=SimpleNamespace(forecaster=forecaster, access=access, strategy="probabilistic_forecast",
                                                horizon=horizon), n=n, bins=bins)


def test_the_reliability_legend_is_grouped_by_forecaster_and_edge_markers_are_not_clipped():
    rows = [_row(f, h, a, 10) for f in ("elo", "demo.atlas") for h in ("t_minus_24h", "t_minus_2h")
            for a in ("closed_book", "open_book")]
    figure = reliability(rows, "Reliability", "reliability").figure
    series = figure["data"][1:]  # after the diagonal
    assert {s["legendgroup"] for s in series} == {"elo", "demo.atlas"}
    titles = [s["legendgrouptitle"]["text"] for s in series if "legendgrouptitle" in s]
    assert sorted(titles) == ["demo.atlas", "elo"]  # one title per forecaster, its series listed under it
    assert all(not s["name"].startswith(("elo", "demo.atlas")) for s in series)  # the name is not repeated
    assert all(s["cliponaxis"] is False for s in series)
    for axis in ("xaxis", "yaxis"):
        low, high = figure["layout"][axis]["range"]
        assert low < 0 and high > 1  # a marker at an observed frequency of 1.0 is drawn whole


def test_brier_by_stage_names_the_stages():
    scored = [SimpleNamespace(forecaster="elo", stage=stage, competition_id="c", event_id=f"e{i}",
                              measures={"brier": 0.5}) for i, stage in enumerate(("group", "group", "round-of-32"))]
    chart = brier_by_stage(scored, ["group", "round-of-32"], {"group": "Group stage", "round-of-32": "Round of 32"})
    assert chart.figure["data"][0]["x"] == ["Group stage", "Round of 32"]
    assert "Group stage 2, Round of 32 1" in chart.caption
