"""Consistency checks of one source match at ingest: goals against scores, scores against each other.

Each check returns messages naming the values; the adapter turns them into a problem naming
file and match, and holds the outcome back (fail closed: a result that contradicts itself is
neither recorded nor used to decide a knockout slot). Rules:

* extra time (``et``) is played only after a level 90 minutes, and its cumulative score is
  at least the 90-minute one on each side; a shoot-out (``p``) follows a level score after
  extra time and is not level itself;
* listed goals (own goals are listed under the team credited) add up to the final score,
  those of regulation (minute ≤ 90, stoppage ``90+x`` included) to the 90-minute score;
* a goal in extra time (``91`` without an offset, :func:`collector.sources.openfootball._goals`)
  needs an extra-time score: without one the result is in doubt, never silently regulation;
* a knockout match follows the edition's rules (:func:`edition_problems`): extra time always,
  only in the final (else a level match goes straight to a shoot-out) or never; shoot-outs or none.

A match with any of these problems is still registered (the bracket never depends on a score);
its outcome is held back, with a problem naming file, match and values, until a correction
(:mod:`collector.sources.corrections`) makes it consistent. A score in doubt decides nothing; goals
that do not add up to a consistent score leave the score deciding who advances.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from collector.competitions.kickoffs import kickoff_span
from collector.records import Competition, Goal, Score


def _pair(score: Score) -> str:
    return f"{score.home}-{score.away}"


def score_problems(score_90: Score | None, extra: Score | None, shootout: Score | None,
                   single_match: bool = True) -> list[str]:
    """``single_match=False``: a stage of two-legged ties, whose legs :mod:`collector.sources.legs` checks."""
    if not single_match:
        return []
    problems = []
    if extra is not None and score_90 is not None:
        if score_90.home != score_90.away:
            problems.append(f"extra time {_pair(extra)} after a 90-minute score {_pair(score_90)} that is not level")
        if extra.home < score_90.home or extra.away < score_90.away:
            problems.append(f"score after extra time {_pair(extra)} is below the 90-minute score {_pair(score_90)}")
    if shootout is not None:
        level = extra or score_90
        if level is not None and level.home != level.away:
            problems.append(f"a shoot-out {_pair(shootout)} after a score {_pair(level)} that is not level")
        if shootout.home == shootout.away:
            problems.append(f"a shoot-out {_pair(shootout)} that is level decides nothing")
    return problems


def edition_problems(competition: Competition, stage: str, score_90: Score | None, extra: Score | None,
                     shootout: Score | None) -> list[str]:
    """A knockout match's periods against the edition's rules (``extra_time``, ``shootouts``)."""
    rule = competition.extra_time
    plays_extra = competition.plays_extra_time(stage)
    problems = []
    if extra is not None and not plays_extra:
        problems.append(f"extra time {_pair(extra)} in a {stage} match, but the competition plays extra time "
                        f"{'only in the final' if rule == 'final_only' else 'never'} (extra_time = {rule!r})")
    if shootout is not None and extra is None and plays_extra and score_90 is not None and score_90.home == score_90.away:
        problems.append(f"a shoot-out {_pair(shootout)} straight after a level 90 minutes {_pair(score_90)}, but the "
                        f"competition plays extra time first (extra_time = {rule!r}); the extra-time score is missing")
    if shootout is not None and not competition.shootouts:
        problems.append(f"a shoot-out {_pair(shootout)}, but the competition has none (shootouts = false)")
    return problems


def _minute(goal: Goal) -> str:
    return f"{goal.minute}+{goal.stoppage}'" if goal.stoppage else f"{goal.minute}'"


LAST_STOPPAGE_MINUTE = 105  # a bare minute beyond it is extra time even in a file that writes 92 for 90+2


def late_goal_problems(goals: Iterable[Goal] | None, score_90: Score | None, extra: Score | None) -> list[str]:
    """A goal in extra time when the source gives no extra-time score: the score is in doubt."""
    late = [g for g in goals or () if g.period == "extra_time"]
    if not late or extra is not None or score_90 is None:
        return []
    return [f"goal(s) at {', '.join(_minute(g) for g in late)} but the source gives no extra-time score "
            f"(90 minutes: {_pair(score_90)})"]


def goal_problems(goals: Iterable[Goal] | None, home: str | None, away: str | None, score_90: Score | None,
                  extra: Score | None) -> list[str]:
    """Listed goals that do not add up to the (consistent) score."""
    if goals is None or score_90 is None:
        return []
    goals = list(goals)
    problems = []
    final = extra or score_90
    total = Counter(g.team for g in goals)
    if (total[home], total[away]) != (final.home, final.away):
        problems.append(f"{len(goals)} goal(s) listed ({total[home]}-{total[away]}) do not add up to the score "
                        f"{_pair(final)}{' after extra time' if extra else ''}")
    elif extra is not None and all(g.minute is not None for g in goals):
        regulation = Counter(g.team for g in goals if g.period == "regulation")
        if (regulation[home], regulation[away]) != (score_90.home, score_90.away):
            problems.append(f"goals up to the 90th minute ({regulation[home]}-{regulation[away]}) do not add up to "
                            f"the 90-minute score {_pair(score_90)}")
    return problems


def batch_problems(matches: list, competition) -> list[tuple[object, str]]:
    """(match or None, message): dates outside the competition's span, groups missing round-robin matches."""
    out: list[tuple[object, str]] = [(m, message) for m, message in outside_span(matches, competition)]
    for group in competition.groups:
        played = sum(1 for m in matches if m.group == group.name and not m.knockout)
        expected = len(group.teams) * (len(group.teams) - 1) // 2
        if played != expected:
            out.append((None, f"group {group.name}: the source lists {played} matches, a round robin of "
                              f"{len(group.teams)} teams has {expected}"))
    return out


def outside_span(matches: list, competition) -> list[tuple[object, str]]:
    """(match, message) for each match dated outside the days the competition can be played on
    (:func:`collector.competitions.kickoffs.kickoff_span`)."""
    first, last = kickoff_span(competition)
    return [(m, f"date {m.kickoff_date} is outside the competition's span {first} .. {last} (match left out)")
            for m in matches if (first and m.kickoff_date < first) or (last and m.kickoff_date > last)]
