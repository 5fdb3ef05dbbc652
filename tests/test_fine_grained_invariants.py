"""Invariants of the fine-grained scores: a perfect forecast scores 100 on every available task,
layer and the composite; removing a field's truth leaves every other task's score unchanged."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from builder.score import fine_grained_layers as fl
from builder.score.fine_grained import task_scores
from collector.records.fine_grained import FineGrainedForecast
from tests.fine_grained_helpers import eleven, forecast_dict, report, stats

PLAYERS = {side: [p["name"] for p in eleven(side.capitalize())] for side in ("home", "away")}
DEPENDS = {  # which tasks read which report field
    "home_lineup": {"starting_xi"}, "away_lineup": {"starting_xi"},
    "home_formation": {"formation", "tactical_formation"}, "away_formation": {"formation", "tactical_formation"},
    "goals": {"goalscorers", "goal_minute", "own_goals", "penalty_events"}, "assists": {"assist_providers"},
    "cards": {"cards"}, "substitutions": {"substitution_times"}, "penalties": {"penalty_events"},
    "player_of_the_match": {"player_of_the_match"},
    "statistics": {"stat_possession", "stat_shots", "stat_shots_on_target", "stat_corners", "stat_fouls",
                   "stat_offsides", "stat_cards", "stat_xg"},
}


@st.composite
def matches(draw):
    side = st.sampled_from(["home", "away"])

    def person(s):
        return draw(st.sampled_from(PLAYERS[s]))
    goals, cards, subs, pens = [], [], [], []
    used_minutes = draw(st.lists(st.integers(1, 120), unique=True, max_size=12))
    for minute in used_minutes[:draw(st.integers(0, 4))]:
        s = draw(side)
        kind = draw(st.sampled_from(["open", "penalty", "own"]))
        goals.append({"side": s, "player": person(s), "minute": minute, "penalty": kind == "penalty",
                      "own_goal": kind == "own"})
        if kind == "penalty":
            pens.append({"side": s, "taker": goals[-1]["player"], "minute": minute, "outcome": "scored"})
    for minute in used_minutes[4:4 + draw(st.integers(0, 3))]:
        s = draw(side)
        colour = draw(st.sampled_from(["yellow", "red"]))
        cards.append({"side": s, "player": person(s), "minute": minute, "colour": colour})
    for minute in used_minutes[7:7 + draw(st.integers(0, 3))]:
        s = draw(side)
        subs.append({"side": s, "player_on": f"Sub {minute}", "player_off": person(s), "minute": minute})
    scorers = list(dict.fromkeys((g["side"], g["player"]) for g in goals if not g["own_goal"]))
    pair = st.floats(0, 30, allow_nan=False, allow_infinity=False)
    home_possession = draw(st.floats(20, 80, allow_nan=False))
    shots = (draw(pair), draw(pair))
    statistics = stats(possession={"home": home_possession, "away": 100 - home_possession},
                       shots={"home": shots[0], "away": shots[1]},
                       shots_on_target={"home": shots[0] / 2, "away": shots[1] / 2},
                       corners={"home": draw(pair), "away": draw(pair)})
    potm = scorers[0] if scorers else ("home", PLAYERS["home"][0])
    truth = {"goals": goals, "cards": cards, "substitutions": subs, "penalties": pens,
             "assists": [{"side": s, "player": p, "minute": 1} for s, p in scorers[:1]],
             "player_of_the_match": {"side": potm[0], "player": potm[1]}, "statistics": statistics}
    return truth, draw(st.sets(st.sampled_from(sorted(DEPENDS)), max_size=4))


def perfect_forecast(truth) -> FineGrainedForecast:
    """What a forecaster who knew the report would answer."""
    goals = truth["goals"]
    ranked = list(dict.fromkeys((g["side"], g["player"]) for g in goals if not g["own_goal"]))
    return FineGrainedForecast.model_validate_json(json.dumps(forecast_dict(
        scorers=[{"side": s, "player": p, "probability": 0.5} for s, p in ranked],
        assisters=[{"side": a["side"], "player": a["player"], "probability": 0.5} for a in truth["assists"]],
        player_of_the_match=[{**truth["player_of_the_match"], "probability": 0.3}],
        goals=[{"side": g["side"], "player": g["player"], "minute": float(g["minute"])}
               for g in goals if not g["own_goal"]],
        own_goals=[{"side": g["side"], "player": g["player"], "minute": float(g["minute"])}
                   for g in goals if g["own_goal"]],
        cards=[{**c, "minute": float(c["minute"])} for c in truth["cards"]],
        substitutions=[{**s, "minute": float(s["minute"])} for s in truth["substitutions"]],
        penalties=[{**p, "minute": float(p["minute"])} for p in truth["penalties"]],
        statistics=truth["statistics"])))


@settings(max_examples=40, deadline=None)
@given(matches())
def test_a_perfect_forecast_scores_100_everywhere(case):
    truth, _ = case
    scores = task_scores(perfect_forecast(truth), report(**truth), goal_total=len(truth["goals"]))
    assert all(v == 100.0 for v in scores.values()), scores
    layers = fl.match_layers(scores, t1=100.0)
    assert all(layers[k] == 100.0 for k in ("T1", "T2", "T3", "T4"))
    means = {k: v for k, (v, _) in fl.layer_means([layers]).items()}
    assert fl.composite_display(fl.composite_raw(means)) == 100.0


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(matches(), st.data())
def test_removing_a_field_changes_no_other_task(case, data):
    truth, removed = case
    fc = perfect_forecast(truth) if data.draw(st.booleans()) else FineGrainedForecast.model_validate_json(
        json.dumps(forecast_dict()))
    full = task_scores(fc, report(**truth))
    partial = task_scores(fc, report(**{**truth, **{f: None for f in removed}}))
    touched = set().union(*(DEPENDS[f] for f in removed)) if removed else set()
    for task, value in full.items():
        if task in touched:  # it lost (part of) its truth: no data, or a score of what is left
            assert math.isnan(partial[task]) or 0.0 <= partial[task] <= 100.0
        else:
            assert partial[task] == value or (math.isnan(partial[task]) and math.isnan(value)), task
    for task in DEPENDS[next(iter(removed))] if len(removed) == 1 and removed <= {"assists", "cards", "statistics",
                                                                                  "player_of_the_match"} else ():
        assert math.isnan(partial[task])  # a field's own tasks become "no data", never 0
    for layer in ("T2", "T3", "T4"):  # a layer without a touched task keeps its score
        before, after = fl.layer_score(full, layer), fl.layer_score(partial, layer)
        if not touched & set(fl.TASK_WEIGHTS[layer]):
            assert after == before or (math.isnan(after) and math.isnan(before))
