"""Pair the two legs of each two-legged tie in a source batch, and check them (fail closed).

A competition's second-leg slot names its first leg (``first_leg``). After the batch's matches
are numbered, each leg is marked (``leg``, ``other_leg``), and a second leg whose first leg is
final as well gets its :class:`~collector.competitions.ties.TieResult` (``tie``): only then
does a ``W``/``L`` rule of the tie decide anything. Checks, each a problem naming the match:

* a first leg with extra time or a shoot-out is held back (registered, its result in doubt, so
  its tie is never decided until a correction);
* a second leg's extra time, shoot-out and stated aggregate (``score.agg``, the second leg's
  home team first) are checked against both legs (:func:`~collector.competitions.ties.second_leg_problems`);
  a second leg that contradicts them is held back the same way;
* the legs must be the same two teams, home and away swapped; a tie whose second (or first)
  leg the source does not list is named and stays undecided;
* a numbered match of a two-legged stage that is no leg gets the single-match checks; one no
  slot names is never registered (:mod:`collector.fixtures.knowable`), so it is not checked here.
"""

from __future__ import annotations

from dataclasses import replace

from collector.competitions.ties import (
    first_leg_problems,
    second_leg_problems,
    tie_result,
)
from collector.records import Competition
from collector.sources.base import MatchStatus, SourceMatch, score_from_pair
from collector.sources.checks import score_problems

HELD = " (the match is registered; its outcome is held back until a correction is applied; the tie stays undecided)"


def two_legged_stages(competition: Competition) -> set[str]:
    """Stages with at least one two-legged tie (their ingest checks are done here)."""
    return {s.stage for s in competition.knockout_slots if s.first_leg is not None}


def _stated(match: SourceMatch):
    score = match.payload.get("score") if isinstance(match.payload, dict) else None
    return score_from_pair(score.get("agg"), "score.agg") if isinstance(score, dict) else None


def _second_leg(first: SourceMatch, second: SourceMatch, competition: Competition) -> tuple[SourceMatch | None, str | None]:
    """The second leg with its tie (None to leave it out) and a problem."""
    teams = (first.home_team, first.away_team, second.home_team, second.away_team)
    if None not in teams and (first.home_team, first.away_team) != (second.away_team, second.home_team):
        return second, (f"the legs are not the same two teams swapped: first leg {first.home_team} v "
                        f"{first.away_team}, second leg {second.home_team} v {second.away_team}; the tie stays undecided")
    if not (first.status.has_result and second.status.has_result) or first.score_90 is None or second.score_90 is None:
        return second, None  # a leg still to be played: nothing decided
    try:
        problems = second_leg_problems(first.score_90, second.score_90, second.score_extra_time,
                                       second.score_penalties, competition.away_goals, _stated(second))
    except ValueError as exc:
        problems = [str(exc)]
    tie = tie_result(first.score_90, second.score_90, second.score_extra_time, second.score_penalties,
                     competition.away_goals)
    if tie is None and not problems:
        problems = ["the tie is level after both legs and the source gives no extra time and shoot-out to decide it"]
    if problems:
        return None, "; ".join(problems) + HELD
    return replace(second, tie=tie), None


def pair_legs(matches: list[SourceMatch], competition: Competition) -> tuple[list[SourceMatch], list[tuple[SourceMatch, str]]]:
    """(matches with legs marked and ties decided, problems); see the module docstring."""
    ties = competition.first_legs()
    if not ties:
        return matches, []
    stages = two_legged_stages(competition)
    out = list(matches)
    index = {m.match_number: i for i, m in enumerate(out) if m.knockout and m.match_number is not None}
    problems: list[tuple[SourceMatch, str]] = []
    held: set[int] = set()
    for second_no, first_no in sorted(ties.items()):
        i, j = index.get(first_no), index.get(second_no)
        if i is not None:
            out[i] = replace(out[i], leg=1, other_leg=second_no)
            bad = first_leg_problems(out[i].score_extra_time, out[i].score_penalties)
            if bad:
                problems.append((out[i], bad[0] + HELD))
                out[i] = hold(out[i], problems[-1][1])
                held.add(i)
        if j is not None:
            out[j] = replace(out[j], leg=2, other_leg=first_no)
        if i is None or j is None:
            present = out[i] if i is not None else out[j] if j is not None else None
            if present is not None:
                missing = f"second leg (match {second_no})" if j is None else f"first leg (match {first_no})"
                problems.append((present, f"the source lists no {missing} of this tie; the tie stays undecided"))
            continue
        if i in held:
            continue
        second, problem = _second_leg(out[i], out[j], competition)
        if problem is not None:
            problems.append((out[j], problem))
        out[j] = second if second is not None else hold(out[j], problem or "")
    for k, m in enumerate(out):
        if m.stage in stages and m.leg is None and m.match_number is not None:  # numbered, no leg: a single match
            bad = score_problems(m.score_90, m.score_extra_time, m.score_penalties)
            if bad:
                problems.append((m, "; ".join(bad) + HELD))
                out[k] = hold(m, problems[-1][1])
    return out, problems


def hold(match: SourceMatch, why: str) -> SourceMatch:
    """The match as an event whose result is in doubt: no score, deciding nothing, its outcome held back."""
    return replace(match, status=MatchStatus.IN_DOUBT, score_90=None, score_half_time=None, score_extra_time=None,
                   score_penalties=None, goals=None, tie=None, held=why)
