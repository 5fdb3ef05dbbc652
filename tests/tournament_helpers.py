"""A small 8-team tournament (two groups of four, semi-finals, third place, final) for T5 tests.

Group A is a1..a4, group B b1..b4; slot 13 is 1A v 2B, slot 14 1B v 2A, 15 the third-place
match (L13 v L14), 16 the final (W13 v W14). ``order_scores`` turns a wanted group order into
the six 1-0 results that produce it.
"""

from __future__ import annotations

from datetime import timedelta

from collector.records import (
    Group,
    GroupMatchForecast,
    KnockoutMatchForecast,
    KnockoutSlot,
    Score,
    Stage,
    TournamentForecast,
)
from tests.factories import T0, make_competition, make_event, make_outcome

GROUP_A = ("a1", "a2", "a3", "a4")
GROUP_B = ("b1", "b2", "b3", "b4")
STAGES = (("group", False), ("semi-final", True), ("third-place", True), ("final", True))


def small_cup():
    return make_competition(
        "mini-cup", teams=GROUP_A + GROUP_B,
        groups=(Group(name="A", teams=GROUP_A), Group(name="B", teams=GROUP_B)),
        stages=tuple(Stage(id=s, name=s, knockout=k, order=i) for i, (s, k) in enumerate(STAGES)),
        knockout_slots=(KnockoutSlot(match_number=13, stage="semi-final", home_rule="1A", away_rule="2B"),
                        KnockoutSlot(match_number=14, stage="semi-final", home_rule="1B", away_rule="2A"),
                        KnockoutSlot(match_number=15, stage="third-place", home_rule="L13", away_rule="L14"),
                        KnockoutSlot(match_number=16, stage="final", home_rule="W13", away_rule="W14")))


def group_pairs(teams):
    return [(a, b) for i, a in enumerate(teams) for b in teams[i + 1:]]


def order_scores(teams, order):
    """(home, away, home goals, away goals) for each pairing of ``teams``: the one higher in ``order`` wins 1-0."""
    rank = {t: i for i, t in enumerate(order)}
    return [(a, b, 1, 0) if rank[a] < rank[b] else (a, b, 0, 1) for a, b in group_pairs(teams)]


def group_forecasts(group, teams, order):
    out = []
    for home, away, hg, ag in order_scores(teams, order):
        p = (0.6, 0.25, 0.15) if hg > ag else (0.15, 0.25, 0.6)
        out.append(GroupMatchForecast(group=group, home=home, away=away, home_win=p[0], draw=p[1], away_win=p[2],
                                      score=Score(home=hg, away=ag)))
    return out


def ko(number, stage, home, away, winner, p=0.6):
    score = Score(home=1, away=0) if winner == home else Score(home=0, away=1)
    return KnockoutMatchForecast(match_number=number, stage=stage, home=home, away=away, score=score,
                                 advances=winner, advance_probability=p)


def hand_worked_forecast(reach=()):
    """Predicts A: a2 a1 a3 a4 and B reversed (b4 b3 b2 b1); semis a2-b3, b4-a1; final a2-a1 won by a1."""
    return TournamentForecast(
        format="cup",
        group_matches=tuple(group_forecasts("A", GROUP_A, ("a2", "a1", "a3", "a4"))
                            + group_forecasts("B", GROUP_B, ("b4", "b3", "b2", "b1"))),
        knockout_matches=(ko(13, "semi-final", "a2", "b3", "a2"), ko(14, "semi-final", "b4", "a1", "a1"),
                          ko(15, "third-place", "b3", "b4", "b3"), ko(16, "final", "a2", "a1", "a1")),
        reach=reach)


def real_tournament(upto: str = "final"):
    """Events and outcomes of the real run: groups in id order; semis a1-b2 (a1), b1-a2 (b1); final a1-b1 (a1)."""
    events, outcomes, day = [], {}, 0
    for group, teams in (("A", GROUP_A), ("B", GROUP_B)):
        for home, away, hg, ag in order_scores(teams, teams):
            day += 1
            e = make_event(home, away, cid="mini-cup", kickoff=T0 + timedelta(days=day), group=group)
            events.append(e)
            outcomes[e.id] = make_outcome(e, hg, ag)
    plan = [("semi-final", 13, "a1", "b2", (2, 0)), ("semi-final", 14, "b1", "a2", (1, 1)),
            ("third-place", 15, "b2", "a2", (0, 2)), ("final", 16, "a1", "b1", (3, 1))]
    for stage, number, home, away, (hg, ag) in plan:
        day += 1
        e = make_event(home, away, cid="mini-cup", kickoff=T0 + timedelta(days=day), stage=stage, knockout=True,
                       match_number=number, event_id=f"m{number}")
        events.append(e)
        if upto == "groups" or (upto == "semi-final" and stage != "semi-final"):
            continue
        outcomes[e.id] = make_outcome(e, hg, ag, advancing_team=home)
    return events, outcomes


def finished_league(competition, order):
    """A complete double round robin in which the team higher in ``order`` always wins 1-0 (table = order)."""
    rank = {t: i for i, t in enumerate(order)}
    events, outcomes, day = [], {}, 0
    for home in order:
        for away in order:
            if home == away:
                continue
            day += 1
            e = make_event(home, away, cid=competition.id, kickoff=T0 + timedelta(hours=day), stage="regular-season")
            events.append(e)
            outcomes[e.id] = make_outcome(e, *((1, 0) if rank[home] < rank[away] else (0, 1)))
    return events, outcomes
