"""Resolve tournament and league questions once the outcomes known at ``now`` determine them.

* ``group_winner_x``: after group X's last match, the top of its table;
* ``semifinalists``: once the semi-final events are registered, their four teams;
* ``world_champion`` / ``champion`` (tournament): the team advancing from the final;
* ``top_scorer_team``: after the final, the team(s) of the player(s) with most goals
  (own goals excluded; a tie gives several teams);
* leagues ``champion``, ``top_four``, ``relegation``: after the last matchday, from the table.

:func:`answer_question` is pure (question + effective events/outcomes -> answer or None);
:func:`resolve_questions` writes a :class:`QuestionResolution` per newly determined answer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from collector.errors import Problem, SourceError
from collector.reader import Archive
from collector.records import (
    SCORED_STATUSES,
    Clock,
    Competition,
    CompetitionFormat,
    Event,
    Outcome,
    Question,
    QuestionResolution,
    Score,
)
from collector.standings import MatchResult, TableRow, compute_table
from collector.sync_report import SyncReport, write_or_revise

Answer = tuple[tuple[str, ...], tuple[str, ...]]  # (teams, event ids it follows from)


def _results(events: Sequence[Event], outcomes: dict[str, Outcome]) -> list[MatchResult]:
    out = []
    for event in events:
        o = outcomes.get(event.id)
        if o is not None and o.score_90 is not None:
            out.append(MatchResult(event.home_team, event.away_team, o.score_90.home, o.score_90.away))
    return out


def _complete(events: Sequence[Event], outcomes: dict[str, Outcome], expected: int) -> bool:
    return len(events) >= expected and all(
        e.id in outcomes and outcomes[e.id].status in SCORED_STATUSES for e in events
    )


def _table(competition: Competition, teams: Sequence[str], events: Sequence[Event], outcomes) -> list[TableRow]:
    return compute_table(teams, _results(events, outcomes), competition.tie_breakers)


def _decided(rows: list[TableRow], cut: int, what: str) -> None:
    """The positions around ``cut`` must not be an unresolved tie."""
    if 0 < cut < len(rows) and rows[cut - 1].rank == rows[cut].rank:
        raise SourceError(f"{what}: {rows[cut - 1].team} and {rows[cut].team} are level on every criterion the sources allow")


def answer_group_winner(competition: Competition, group: str, events, outcomes) -> Answer | None:
    teams = next((g.teams for g in competition.groups if g.name.lower() == group.lower()), None)
    if teams is None:
        raise SourceError(f"{competition.id} has no group {group!r}")
    played = [e for e in events if (e.group or "").lower() == group.lower() and not e.knockout]
    if not _complete(played, outcomes, len(teams) * (len(teams) - 1) // 2):
        return None
    rows = _table(competition, teams, played, outcomes)
    _decided(rows, 1, f"group {group} winner")
    return (rows[0].team,), tuple(sorted(e.id for e in played))


def answer_semifinalists(competition: Competition, events, outcomes) -> Answer | None:
    expected = sum(1 for s in competition.knockout_slots if s.stage == "semi-final") or 2
    semis = [e for e in events if e.stage == "semi-final"]
    if len(semis) < expected:
        return None
    return tuple(sorted({t for e in semis for t in (e.home_team, e.away_team)})), tuple(sorted(e.id for e in semis))


def _final(events, outcomes) -> tuple[Event, Outcome] | None:
    final = next((e for e in events if e.stage == "final"), None)
    if final is None or final.id not in outcomes or outcomes[final.id].advancing_team is None:
        return None
    return final, outcomes[final.id]


def answer_champion_tournament(events, outcomes) -> Answer | None:
    found = _final(events, outcomes)
    return None if found is None else ((found[1].advancing_team,), (found[0].id,))


def answer_top_scorer_team(events, outcomes) -> Answer | None:
    if _final(events, outcomes) is None:
        return None
    goals: Counter[tuple[str, str]] = Counter()
    for event in events:
        outcome = outcomes.get(event.id)
        if outcome is None or outcome.status not in SCORED_STATUSES:
            continue
        if outcome.goals is None and (outcome.score_extra_time or outcome.score_90) != Score(home=0, away=0):
            raise SourceError(f"top_scorer_team: outcome of {event.id} lists no goals")
        goals.update((g.team, g.scorer or "?") for g in outcome.goals or () if not g.own_goal)
    if not goals:
        return None
    best = max(goals.values())
    teams = tuple(sorted({team for (team, _), n in goals.items() if n == best}))
    return teams, tuple(sorted(e.id for e in events if e.id in outcomes))


def answer_league(competition: Competition, question_id: str, events, outcomes) -> Answer | None:
    teams = [t.id for t in competition.teams]
    if not _complete(events, outcomes, len(teams) * (len(teams) - 1)):
        return None
    rows = _table(competition, teams, events, outcomes)
    cut = {"champion": 1, "top_four": 4, "relegation": len(rows) - competition.relegation_places}[question_id]
    _decided(rows, cut, question_id)
    picked = rows[:cut] if question_id != "relegation" else rows[cut:]
    return tuple(sorted(r.team for r in picked)), tuple(sorted(e.id for e in events))


def answer_question(competition: Competition, question: Question, events: Sequence[Event],
                    outcomes: dict[str, Outcome]) -> Answer | None:
    """The answer determined by ``events``/``outcomes`` (keyed by event id), or None if not yet."""
    qid = question.id
    if competition.format is CompetitionFormat.LEAGUE and qid in ("champion", "top_four", "relegation"):
        return answer_league(competition, qid, events, outcomes)
    if qid.startswith("group_winner_"):
        return answer_group_winner(competition, question.group or qid.removeprefix("group_winner_"), events, outcomes)
    if qid == "semifinalists":
        return answer_semifinalists(competition, events, outcomes)
    if qid in ("world_champion", "champion"):
        return answer_champion_tournament(events, outcomes)
    if qid == "top_scorer_team":
        return answer_top_scorer_team(events, outcomes)
    return None  # a question kind this module does not resolve


def resolve_questions(writer, archive: Archive, competition: Competition, *, now: datetime,
                      clock: Clock = Clock.LIVE) -> SyncReport:
    """Write a resolution for every question of ``competition`` whose answer is now determined."""
    report = SyncReport(competition.id)
    cid = competition.id
    events = [e for (c, _), e in archive.events.items() if c == cid]
    outcomes = {eid: o for (c, eid), o in archive.outcomes.items() if c == cid and o.recorded_at <= now}
    for (c, qid), question in sorted(archive.questions.items()):
        if c != cid:
            continue
        try:
            found = answer_question(competition, question, events, outcomes)
        except SourceError as exc:
            report.problems.append(Problem(f"{cid}/questions/{qid}", str(exc)))
            continue
        if found is None:
            continue
        resolution = QuestionResolution(
            recorded_at=now, clock=clock, competition_id=cid, question_id=qid,
            answer=found[0], resolved_from=found[1], source="prematch:outcomes",
        )
        write_or_revise(writer, archive, archive.resolutions.get((cid, qid)), resolution, "resolution", report,
                        "outcomes changed")
    return report
