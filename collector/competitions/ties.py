"""Two-legged ties: the aggregate, the away-goals rule, and who advances (pure, on scores).

A tie is two matches of the same two teams, the second with home and away swapped. Scores
here are given as the **second leg lists them** (its home team first): the aggregate after the
second leg's 90 minutes is ``second_90 + reversed(first)``. Rules (UEFA's):

* the team with more goals on aggregate advances;
* level on aggregate, with the away-goals rule (a competition option, off by default as in
  UEFA's rules since 2021-22): the team with more goals away from home advances (in extra
  time too: the second leg's visitor's goals count as away goals);
* still level: extra time in the second leg only, then a shoot-out if still level.

So extra time is legal after a non-level 90-minute second-leg score when the aggregate is
level, never in a first leg, and a shoot-out only when extra time left the tie level.
"""

from __future__ import annotations

from dataclasses import dataclass

from collector.records import Score


@dataclass(frozen=True)
class TieResult:
    aggregate: Score  # after extra time when played, the second leg's home team first
    home_advances: bool  # the second leg's home team goes through
    by: str  # "aggregate", "away goals" or "penalties"


def _pair(score: Score) -> str:
    return f"{score.home}-{score.away}"


def aggregate(first: Score, second: Score) -> Score:
    """Both legs' goals, the second leg's home team first (it was the first leg's visitor)."""
    return Score(home=second.home + first.away, away=second.away + first.home)


def _decided(first: Score, second: Score, away_goals: bool) -> tuple[bool, str] | None:
    """(second leg's home team advances, how) on aggregate then away goals; None while level."""
    total = aggregate(first, second)
    if total.home != total.away:
        return total.home > total.away, "aggregate"
    if away_goals and second.away != first.away:  # away goals: the 2nd leg's visitor's vs the 1st leg's visitor's
        return second.away < first.away, "away goals"
    return None


def first_leg_problems(extra: Score | None, shootout: Score | None) -> list[str]:
    """A first leg ends after 90 minutes: no extra time, no shoot-out."""
    return ["extra time or a shoot-out in the first leg of a two-legged tie (only the second leg has them)"] \
        if extra is not None or shootout is not None else []


def second_leg_problems(first: Score, score_90: Score, extra: Score | None, shootout: Score | None,
                        away_goals: bool, given: Score | None = None) -> list[str]:
    """Extra time and shoot-out of a second leg against the aggregate; a stated aggregate must add up."""
    problems = []
    after_90 = _decided(first, score_90, away_goals)
    if extra is not None:
        if after_90 is not None:
            problems.append(f"extra time after an aggregate {_pair(aggregate(first, score_90))} (second leg "
                            f"{_pair(score_90)}) that already decides the tie")
        if extra.home < score_90.home or extra.away < score_90.away:
            problems.append(f"score after extra time {_pair(extra)} is below the 90-minute score {_pair(score_90)}")
    if shootout is not None:
        if extra is None or _decided(first, extra, away_goals) is not None:
            problems.append(f"a shoot-out {_pair(shootout)} in a tie that is not level after extra time")
        if shootout.home == shootout.away:
            problems.append(f"a shoot-out {_pair(shootout)} that is level decides nothing")
    total = aggregate(first, extra or score_90)
    if given is not None and given != total:
        problems.append(f"the source's aggregate {_pair(given)} does not add up: first leg {_pair(first)} (reversed) "
                        f"and second leg {_pair(extra or score_90)} make {_pair(total)}")
    return problems


def tie_result(first: Score, score_90: Score, extra: Score | None, shootout: Score | None,
               away_goals: bool) -> TieResult | None:
    """Who advances from a consistent tie (see :func:`second_leg_problems`); None when nothing decides it."""
    final = extra or score_90
    decided = _decided(first, final, away_goals)
    if decided is None and shootout is not None and shootout.home != shootout.away:
        decided = shootout.home > shootout.away, "penalties"
    if decided is None:
        return None
    return TieResult(aggregate(first, final), decided[0], decided[1])
