"""A tie is not a pick: a final pick whose stated probability equals a team the forecaster did not
pick is no pick (``QuestionForecast.tied_picks``), never right, and shown as "tie".

By hand, as an invariant (hypothesis: reordering equal candidates never makes a pick) and on the
2026 World Cup replay, where ``uniform`` gives every team the same probability and the source's
order of the teams used to give it the picks-right share of elo."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from builder.score.metrics_questions import (
    accuracy_question,
    correct_count_question,
    exact_set_question,
)
from collector.records import QuestionForecast
from tests.factories import make_question, make_question_forecast

TEAMS = ("arg", "bra", "esp", "fra", "ger", "por")


def forecast(probabilities: dict[str, float], picks: tuple[str, ...]) -> QuestionForecast:
    question = make_question("q", tuple(probabilities), k=len(picks))
    return make_question_forecast(question, probabilities, picks).payload


def test_ties_by_hand():
    # the pick ahead of every other team is a pick
    assert forecast({"arg": 0.5, "bra": 0.3, "esp": 0.2}, ("arg",)).picks_made() == ("arg",)
    # level with a team not picked: no pick
    tied = forecast({"arg": 0.4, "bra": 0.4, "esp": 0.2}, ("arg",))
    assert tied.tied_picks() == {"arg"} and tied.picks_made() == ()
    # a pick below a team not picked is still the forecaster's pick (it chose it)
    assert forecast({"arg": 0.3, "bra": 0.5, "esp": 0.2}, ("arg",)).picks_made() == ("arg",)
    # two picks level with each other and ahead of the rest: both are picks
    assert forecast({"arg": 0.35, "bra": 0.35, "esp": 0.2, "fra": 0.1}, ("arg", "bra")).picks_made() == ("arg", "bra")
    # the second pick level with a team not picked: only the first is a pick
    partly = forecast({"arg": 0.5, "bra": 0.2, "esp": 0.2, "fra": 0.1}, ("arg", "bra"))
    assert partly.picks_made() == ("arg",) and partly.tied_picks() == {"bra"}
    # every team the same: nobody is picked
    assert forecast(dict.fromkeys(TEAMS, 1 / 6), ("arg", "bra")).picks_made() == ()


def test_a_forecast_without_a_pick_is_never_right():
    answer = np.array([[1.0, 0.0, 0.0]])
    assert accuracy_question(np.zeros((1, 3)), answer).tolist() == [0.0]  # no pick: not right
    assert accuracy_question(np.array([[1.0, 0.0, 0.0]]), answer).tolist() == [1.0]
    pair = np.array([[1.0, 1.0, 0.0, 0.0]])
    assert correct_count_question(np.array([[1.0, 0.0, 0.0, 0.0]]), pair).tolist() == [1.0]  # one tied pick left out
    assert exact_set_question(np.array([[1.0, 0.0, 0.0, 0.0]]), pair).tolist() == [0.0]


@given(st.lists(st.integers(1, 5), min_size=3, max_size=6), st.integers(1, 2), st.randoms(use_true_random=False))
def test_the_order_of_equal_teams_never_makes_a_pick(weights, k, rng):
    """Shuffling the listed order (and which of several equal teams is named first) never turns a
    tie into a pick: a team is picked only when it is strictly ahead of every team not picked."""
    teams = TEAMS[: len(weights)]
    total = sum(weights)
    probabilities = {t: w / total for t, w in zip(teams, weights, strict=True)}
    order = list(teams)
    rng.shuffle(order)
    by_probability = sorted(order, key=lambda t: -probabilities[t])  # the source's order among equals
    picks = tuple(by_probability[:k])
    made = set(forecast({t: probabilities[t] for t in order}, picks).picks_made())
    rest = [probabilities[t] for t in teams if t not in picks]
    assert made == {t for t in picks if all(probabilities[t] != p for p in rest)}
    if len(set(weights)) == 1:
        assert made == set()


@pytest.mark.slow
def test_uniform_makes_no_picks_and_gets_no_credit_on_the_2026_replay(worldcup_scored):
    _, scores = worldcup_scored
    uniform = [q for q in scores.questions if q.forecaster == "uniform"]
    assert uniform and all(set(q.tied) == set(q.final_picks) for q in uniform)  # every pick was a tie
    share = {s.forecaster: s.measures for s in scores.question_summary if s.prediction_type == "single_choice"}
    assert share["uniform"]["accuracy"] == 0.0 and share["uniform"]["accuracy"] <= share["base_rate"]["accuracy"]
    sets = {s.forecaster: s.measures for s in scores.question_summary if s.prediction_type != "single_choice"}
    assert sets["uniform"]["correct"] == 0.0 and sets["uniform"]["correct"] <= sets["base_rate"]["correct"]
    # probabilities are still scored as stated: uniform's Brier is the uniform Brier, not a pick's
    assert share["uniform"]["brier"] == pytest.approx(np.mean([q.measures["brier"] for q in uniform
                                                               if q.prediction_type == "single_choice"]))


@pytest.mark.slow
def test_question_cards_and_the_bracket_show_tie_for_uniform(worldcup_site):
    out = worldcup_site
    page = (out / "questions/worldcup-2026/group_winner_a.html").read_text()
    cards = re.findall(r'<article class="forecast.*?</article>', page, re.S)
    [uniform] = [c for c in cards if "<strong>uniform</strong>" in c]
    assert 'class="badge tie"' in uniform and 'class="badge">pick' not in uniform
    [elo] = [c for c in cards if "<strong>elo</strong>" in c]
    assert 'class="badge">pick' in elo and "badge tie" not in elo
    bracket = (out / "bracket/worldcup-2026.html").read_text()
    questions = bracket[bracket.index("<h2>Tournament questions</h2>"):]
    row = re.search(r"<tr><td>uniform</td>.*?</tr>", questions, re.S)
    assert row and "tie" in row.group(0)
