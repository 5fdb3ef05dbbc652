"""T5 (WorldCupArena §4.3, eq. 4): a hand-worked 8-team tournament, an independent route, invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from builder.score.t5 import real_bracket, score_forecast
from builder.score.t5_metrics import (
    advancement_round,
    brier_reach,
    kendall_group_order,
    kendall_league_table,
    logloss_reach,
    pairing_round,
    spearman_league_table,
    t5_complete,
    t5_provisional,
)
from collector.records import ReachProbability
from tests.tournament_helpers import hand_worked_forecast, real_tournament, small_cup

# Hand-worked (see tests/tournament_helpers.py): real order A a1 a2 a3 a4, B b1 b2 b3 b4.
# Forecast A a2 a1 a3 a4: one discordant pair of six, tau = 4/6, G_A = 100 (tau + 1) / 2 = 83.33.
# Forecast B reversed: tau = -1, G_B = 0. G = 41.67.
# Semis (weight 1): forecast teams {a2 b3 b4 a1} vs real {a1 b2 b1 a2}: A = 50; pairs none: M = 0.
# Final (weight 2): {a2 a1} vs {a1 b1}: A = 50; pair a1-a2 vs a1-b1: M = 0. Champion a1 = a1: H = 100.
# T5 = (0.25 * 41.667 + 0.35 * (0.7 * 50 + 0.3 * 0) + 0.20 * 100) / 0.80 = 53.33.
# Before the final (no H): (0.25 * 41.667 + 0.35 * 35) / 0.60 = 37.78.
G_HAND = (500 / 6) / 2
T5_HAND = (0.25 * G_HAND + 0.35 * 35 + 20) / 0.8
T5_BEFORE_FINAL = (0.25 * G_HAND + 0.35 * 35) / 0.6


def test_the_hand_worked_tournament_scores_as_worked_out_at_every_stage():
    events, outcomes = real_tournament()
    scores = score_forecast(small_cup(), hand_worked_forecast(), events, outcomes)
    assert [s.stage for s in scores] == ["groups", "semi-final", "final"]
    final = scores[-1]
    assert final.g == pytest.approx(G_HAND)
    assert final.per_round == {"semi-final": (50.0, 0.0), "final": (50.0, 0.0)}
    assert (final.a, final.m, final.h) == (pytest.approx(50.0), pytest.approx(0.0), 100.0)
    assert final.t5 == pytest.approx(T5_HAND) == pytest.approx(53.3333, abs=1e-4)
    assert final.t5 == pytest.approx(t5_complete(final.g, final.a, final.m, final.h))
    groups, semis = scores[0], scores[1]
    assert groups.per_round == {"semi-final": (50.0, 0.0)} and groups.h is None
    assert groups.t5 == pytest.approx(T5_BEFORE_FINAL) == pytest.approx(37.7778, abs=1e-4)
    assert set(semis.per_round) == {"semi-final", "final"} and semis.h is None
    # Each stage is dated by the latest outcome it needs, in order.
    assert groups.known_at < semis.known_at < final.known_at
    assert groups.known_at == max(o.recorded_at for e, o in ((e, outcomes[e.id]) for e in events) if not e.knockout)


def test_stages_grow_with_the_truth_and_rescore_the_same_forecast():
    forecast = hand_worked_forecast()
    for upto, names in (("groups", ["groups"]), ("semi-final", ["groups", "semi-final"]),
                        ("final", ["groups", "semi-final", "final"])):
        events, outcomes = real_tournament(upto)
        assert [s.stage for s in score_forecast(small_cup(), forecast, events, outcomes)] == names
    events, outcomes = real_tournament()
    unfinished = {k: v for k, v in outcomes.items() if k != events[0].id}  # one group match unplayed
    assert score_forecast(small_cup(), forecast, events, unfinished) == []


def test_a_perfect_forecast_scores_100_and_the_real_bracket_is_read_from_outcomes():
    events, outcomes = real_tournament()
    truth, _ = real_bracket(small_cup(), events, outcomes)
    assert truth.group_orders == {"A": ("a1", "a2", "a3", "a4"), "B": ("b1", "b2", "b3", "b4")}
    assert truth.champion == "a1" and truth.round_teams["final"] == {"a1", "b1"}
    from collector.records import TournamentForecast
    from tests.tournament_helpers import GROUP_A, GROUP_B, group_forecasts, ko
    perfect = TournamentForecast(
        format="cup", group_matches=tuple(group_forecasts("A", GROUP_A, GROUP_A) + group_forecasts("B", GROUP_B, GROUP_B)),
        knockout_matches=(ko(13, "semi-final", "a1", "b2", "a1"), ko(14, "semi-final", "b1", "a2", "b1"),
                          ko(15, "third-place", "b2", "a2", "a2"), ko(16, "final", "a1", "b1", "a1")))
    final = score_forecast(small_cup(), perfect, events, outcomes)[-1]
    assert (final.g, final.a, final.m, final.h, final.t5) == (100.0, 100.0, 100.0, 100.0, pytest.approx(100.0))


def test_reach_round_probabilities_get_brier_and_log_loss_per_round():
    reach = tuple(ReachProbability(team=t, stage="semi-final", probability=p)
                  for t, p in (("a1", 0.9), ("a2", 0.5), ("b1", 0.8), ("b2", 0.25)))
    events, outcomes = real_tournament()
    scores = score_forecast(small_cup(), hand_worked_forecast(reach), events, outcomes)
    brier, logloss = scores[0].reach["semi-final"]
    # The other four teams get 0 and did not reach: eight teams, reached = a1 a2 b1 b2.
    assert brier == pytest.approx((0.01 + 0.25 + 0.04 + 0.5625) / 8)
    assert logloss == pytest.approx(-(math.log(0.9) + math.log(0.5) + math.log(0.8) + math.log(0.25)) / 8)


def test_metric_edge_values():
    assert kendall_group_order(["a", "b", "c", "d"], ["a", "b", "c", "d"]) == 100.0
    assert kendall_group_order(["d", "c", "b", "a"], ["a", "b", "c", "d"]) == 0.0
    assert advancement_round({"a", "x"}, {"a", "b"}) == 50.0
    assert pairing_round({frozenset("ab")}, {frozenset("ba"), frozenset("cd")}) == 50.0
    assert t5_provisional(None, None, None, None) is None


orders = st.integers(2, 12).flatmap(lambda n: st.tuples(st.permutations(list(range(n))), st.permutations(list(range(n)))))


@settings(max_examples=200, deadline=None)
@given(orders)
def test_kendall_and_spearman_agree_with_scipy(pair):
    pred, truth = ([f"t{i}" for i in p] for p in pair)
    ranks_pred = [pred.index(t) for t in truth]
    tau = stats.kendalltau(ranks_pred, list(range(len(truth)))).statistic
    rho = stats.spearmanr(ranks_pred, list(range(len(truth)))).statistic
    assert kendall_league_table(pred, truth) == pytest.approx(tau)
    assert spearman_league_table(pred, truth) == pytest.approx(rho)
    assert kendall_group_order(pred, truth) == pytest.approx(100 * (tau + 1) / 2)


unit = st.floats(0, 100, allow_nan=False)


@given(unit, unit, unit, unit)
def test_t5_is_a_weighted_mean_in_0_100_and_provisional_equals_complete_when_all_known(g, a, m, h):
    t5 = t5_complete(g, a, m, h)
    assert -1e-9 <= t5 <= 100 + 1e-9
    assert t5_provisional(g, a, m, h) == pytest.approx(t5)
    assert min(g, 0.7 * a + 0.3 * m, h) - 1e-9 <= t5 <= max(g, 0.7 * a + 0.3 * m, h) + 1e-9
    assert t5_complete(g, a, m, 100.0) >= t5_complete(g, a, m, 0.0)


@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=40))
def test_brier_and_log_loss_are_proper_bounded_and_zero_when_certain_and_right(rows):
    p, y = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
    assert 0 <= brier_reach(p, y) <= 1
    assert logloss_reach(p, y) >= 0
    assert brier_reach(y.astype(float), y) == 0.0
    assert brier_reach(p, y) == pytest.approx(np.mean([(pi - yi) ** 2 for pi, yi in zip(p, y, strict=True)]))


def test_a_forecast_asked_after_the_groups_is_not_scored_on_what_it_was_given():
    """groups_complete: no group matches, the real first round given; G and that round are left out."""
    from collector.records import TournamentForecast
    from tests.tournament_helpers import ko

    after_groups = TournamentForecast(format="cup", knockout_matches=(
        ko(13, "semi-final", "a1", "b2", "a1"), ko(14, "semi-final", "b1", "a2", "a2"),
        ko(15, "third-place", "b2", "b1", "b1"), ko(16, "final", "a1", "a2", "a1")))
    events, outcomes = real_tournament()
    scores = score_forecast(small_cup(), after_groups, events, outcomes)
    assert [s.stage for s in scores] == ["semi-final", "final"]  # the groups stage knows only what it was given
    final = scores[-1]
    assert final.g is None and set(final.per_round) == {"final"}
    assert final.per_round["final"] == (50.0, 0.0) and final.h == 100.0  # a1 and a2 v real a1 and b1
    assert final.t5 == pytest.approx((0.35 * 35 + 0.20 * 100) / 0.55)


def test_the_t5_command_prints_the_hand_worked_scores(tmp_path, capsys):
    from builder.cli import main
    from collector.records import Horizon
    from tests.factories import make_forecast, write_records

    events, outcomes = real_tournament()
    first = min(e.kickoff_utc for e in events)
    record = make_forecast(events[0], "elo", hand_worked_forecast(), horizon=Horizon.STAGE_OPENING,
                           target_kind="tournament", target_id="full-tournament", kickoff_utc=first)
    write_records(tmp_path / "archive", [small_cup(), *events, *outcomes.values(), record])
    assert main(["t5", "--archive", str(tmp_path / "archive"), "--stages"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["forecaster", "access", "horizon", "stage", "known_at", "G", "A", "M", "H", "T5"]
    by_stage = {line.split()[3]: line.split() for line in lines[1:4]}
    assert by_stage["groups"][5:] == ["41.7", "50.0", "0.0", "–", "37.8"]
    assert by_stage["final"][5:] == ["41.7", "50.0", "0.0", "100.0", "53.3"]
    assert main(["t5", "--archive", str(tmp_path / "archive"), "--competition", "nope"]) == 2


@pytest.mark.parametrize("final_legs", [False, True])
def test_a_cup_with_two_legged_ties_scores_each_round_once_and_the_champion(final_legs):
    """Two-legged semi-finals (and final): a tie counts once, as its second leg, and the final tie's
    ``advancing_team`` is the champion."""
    from collector.records import TournamentForecast
    from tests.tournament_helpers import (
        GROUP_A,
        GROUP_B,
        group_forecasts,
        ko,
        real_two_legged,
        two_legged_cup,
    )

    competition = two_legged_cup(final_legs)
    events, outcomes = real_two_legged(final_legs)
    truth, _ = real_bracket(competition, events, outcomes)
    assert truth.round_pairs["semi-final"] == {frozenset(("a1", "b2")), frozenset(("b1", "a2"))}
    assert truth.round_teams["final"] == {"a1", "b1"} and truth.champion == "a1"
    final = 18 if final_legs else 17
    groups = tuple(group_forecasts("A", GROUP_A, GROUP_A) + group_forecasts("B", GROUP_B, GROUP_B))
    perfect = TournamentForecast(format="cup", group_matches=groups, knockout_matches=(
        ko(14, "semi-final", "a1", "b2", "a1"), ko(16, "semi-final", "b1", "a2", "b1"), ko(final, "final", "a1", "b1", "a1")))
    scores = score_forecast(competition, perfect, events, outcomes)
    assert [s.stage for s in scores] == ["groups", "semi-final", "final"]
    assert scores[-1].per_round == {"semi-final": (100.0, 100.0), "final": (100.0, 100.0)}
    assert (scores[-1].h, scores[-1].t5) == (100.0, pytest.approx(100.0))
    assert scores[1].known_at == outcomes["m16"].recorded_at  # the semi-finals end with the later second leg
    wrong = TournamentForecast(format="cup", group_matches=groups, knockout_matches=(
        ko(14, "semi-final", "a1", "b2", "a1"), ko(16, "semi-final", "b1", "a2", "b1"), ko(final, "final", "a1", "b1", "b1")))
    assert score_forecast(competition, wrong, events, outcomes)[-1].h == 0.0
    unfinished = {k: v for k, v in outcomes.items() if k != f"m{final}"}  # the final tie undecided
    assert [s.stage for s in score_forecast(competition, perfect, events, unfinished)] == ["groups", "semi-final"]


def test_a_single_round_robin_league_is_scored_once_every_match_is_played():
    """A league whose season is one round robin (each pair once) has a final table too; a league
    that relegates nobody gets no relegation hit."""
    from builder.score.t5 import score_league
    from collector.records import (
        CompetitionFormat,
        Stage,
        TableEntry,
        TournamentForecast,
    )
    from tests.factories import make_competition
    from tests.tournament_helpers import finished_league

    order = ["aaa", "bbb", "ccc", "ddd", "eee"]

    def league(relegation_places=0):
        return make_competition("lg", teams=tuple(order), format=CompetitionFormat.LEAGUE,
                                stages=(Stage(id="regular-season", name="League"),), relegation_places=relegation_places)

    competition = league()
    events, outcomes = finished_league(competition, order)
    once = [e for e in events if order.index(e.home_team) < order.index(e.away_team)]  # each pair once
    table = TournamentForecast(format="league", table=tuple(
        TableEntry(team=t, position=i + 1, points=12 - 3 * i) for i, t in enumerate(["bbb", "aaa", "ccc", "ddd", "eee"])))
    score = score_league(competition, table, once, outcomes)
    assert (score.kendall_tau, score.champion, score.top_k, score.relegation) == (pytest.approx(0.8), 0.0, 1.0, None)
    assert score.known_at == max(outcomes[e.id].recorded_at for e in once)
    assert score_league(league(relegation_places=1), table, once, outcomes).relegation == 1.0
    unplayed = {k: v for k, v in outcomes.items() if k != once[-1].id}
    assert score_league(competition, table, once, unplayed) is None  # a match left: no final table
