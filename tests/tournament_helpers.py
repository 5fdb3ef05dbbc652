"""A small 8-team tournament (two groups of four, semi-finals, third place, final) for T5 tests.

Group A is a1..a4, group B b1..b4; slot 13 is 1A v 2B, slot 14 1B v 2A, 15 the third-place
match (L13 v L14), 16 the final (W13 v W14). ``order_scores`` turns a wanted group order into
the six 1-0 results that produce it. :func:`two_legged_cup` is the same groups with two-legged
semi-finals and a single or two-legged final (no third-place match).
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


def two_legged_cup(final_legs: bool = False):
    """small_cup's groups, two-legged semi-finals (13 2B v 1A, then 14 1A v 2B; 15 2A v 1B, then
    16 1B v 2A), then the final: 17 W14 v W16, or two legs (17 W16 v W14, then 18 W14 v W16)."""
    legs = [(13, "2B", "1A", None), (14, "1A", "2B", 13), (15, "2A", "1B", None), (16, "1B", "2A", 15)]
    final = [(17, "W16", "W14", None), (18, "W14", "W16", 17)] if final_legs else [(17, "W14", "W16", None)]
    return make_competition(
        "mini-cup", teams=GROUP_A + GROUP_B,
        groups=(Group(name="A", teams=GROUP_A), Group(name="B", teams=GROUP_B)),
        stages=tuple(Stage(id=s, name=s, knockout=k, order=i)
                     for i, (s, k) in enumerate((("group", False), ("semi-final", True), ("final", True)))),
        knockout_slots=tuple(KnockoutSlot(match_number=n, stage="semi-final" if n < 17 else "final", home_rule=h,
                                          away_rule=a, first_leg=first) for n, h, a, first in legs + final))


def tie(stage, number, home, away, first, second, day):
    """Both legs of a tie: match ``number`` ``away`` v ``home`` ending ``first``, then ``number`` + 1
    ``home`` v ``away`` ending ``second``, whose outcome carries the aggregate and who advances."""
    one = make_event(away, home, cid="mini-cup", kickoff=T0 + timedelta(days=day), stage=stage,
                     match_number=number, event_id=f"m{number}", leg=1, other_leg=f"m{number + 1}")
    two = make_event(home, away, cid="mini-cup", kickoff=T0 + timedelta(days=day + 3), stage=stage,
                     match_number=number + 1, event_id=f"m{number + 1}", leg=2, other_leg=f"m{number}")
    total = Score(home=second[0] + first[1], away=second[1] + first[0])
    winner = home if total.home > total.away else away
    return [one, two], {one.id: make_outcome(one, *first),
                        two.id: make_outcome(two, *second, advancing_team=winner, aggregate=total)}


def real_two_legged(final_legs: bool = False):
    """The real run of :func:`two_legged_cup`: the groups of :func:`real_tournament`; a1 beat b2 1-0
    away and 2-0 at home, b1 drew 1-1 at a2 and won 1-0 at home; a1 beat b1 in the final (3-1, or
    1-1 away and 2-1 at home)."""
    events, outcomes = real_tournament("groups")
    events = [e for e in events if e.stage == "group"]
    ties = [tie("semi-final", 13, "a1", "b2", (0, 1), (2, 0), 20), tie("semi-final", 15, "b1", "a2", (1, 1), (1, 0), 21)]
    if final_legs:
        ties.append(tie("final", 17, "a1", "b1", (1, 1), (2, 1), 30))
    else:
        final = make_event("a1", "b1", cid="mini-cup", kickoff=T0 + timedelta(days=30), stage="final",
                           knockout=True, match_number=17, event_id="m17")
        ties.append(([final], {final.id: make_outcome(final, 3, 1)}))
    for more, results in ties:
        events += more
        outcomes |= results
    return events, outcomes


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
