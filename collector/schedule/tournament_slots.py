"""The windows of full-tournament forecasts (target ``tournament/full-tournament``).

Two horizons, each its own forecast key, for every forecaster that answers them
(:func:`answers_tournament`), under the stage-opening window's settings:

* ``stage_opening``: once every pairing of the first stage is registered (a cup's whole group
  stage; a league's first matchday), not earlier than ``max_lead_hours`` before the first
  kickoff; closes ``close_before_minutes`` before it. Deadline: the first kickoff.
* ``groups_complete`` (cups with groups): once every group match has its outcome recorded and
  every match of the first knockout round is registered (the real pairings); closes
  ``close_before_minutes`` before that round's first kickoff, its deadline.

Fail closed: a stage not completely registered, no slot; an outcome missing, no
``groups_complete`` slot. Deadlines are the earliest kickoff of the stage whatever its status
now, so a window cannot move later once its first match is played. The scheduler
(:func:`collector.schedule.scheduler.slots_for`) turns these windows into slots.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

from collector.archive.reader import Archive
from collector.competitions.kickoffs import effective_kickoff, first_kickoff
from collector.config import ArenaConfig
from collector.records import (
    Competition,
    CompetitionFormat,
    Event,
    Horizon,
    advancement_rounds,
)


class TournamentWindow(NamedTuple):
    horizon: Horizon
    opens: datetime
    closes: datetime
    deadline: datetime


def answers_tournament(forecaster, competition: Competition) -> bool:
    """Forecasters that say so (``answers_tournament``); for a league also ``answers_league_table``."""
    if not getattr(forecaster, "answers_tournament", False):
        return False
    return competition.format is not CompetitionFormat.LEAGUE or bool(getattr(forecaster, "answers_league_table", True))


def _window(arena: ArenaConfig, horizon: Horizon, known: datetime, first: datetime) -> TournamentWindow:
    so = arena.windows.stage_opening
    closes = first - timedelta(minutes=so.close_before_minutes)
    opens = max(known, first - timedelta(hours=so.max_lead_hours))
    return TournamentWindow(horizon, min(opens, closes), closes, first)


def tournament_windows(archive: Archive, arena: ArenaConfig, competition: Competition, events: Sequence[Event],
                       registered: Callable[[Event], datetime | None]) -> list[TournamentWindow]:
    """The full-tournament windows of ``competition`` that can be established now (see the module docstring).

    ``registered(event)``: when every pairing of the event's stage (a league's: matchday) was
    known, or None while it is not completely registered (the scheduler's stage-opening rule).
    """
    out = []
    first = first_kickoff(events, competition)  # whatever their status now: a played opener stays the deadline
    opener = next((e for e in events if first is not None and effective_kickoff(e, competition) == first), None)
    known = registered(opener) if opener is not None else None
    if known is not None:
        out.append(_window(arena, Horizon.STAGE_OPENING, known, first))
    rounds = advancement_rounds(competition)
    if not competition.groups or not rounds:
        return out
    first_round = [e for e in events if e.stage == rounds[0] and e.knockout]
    group_events = [e for e in events if e.group and not e.knockout]
    expected = sum(len(g.teams) * (len(g.teams) - 1) // 2 for g in competition.groups)
    known = registered(first_round[0]) if first_round else None
    round_starts = first_kickoff(first_round, competition)
    if known is None or round_starts is None or len(group_events) < expected:
        return out
    outcomes = [archive.outcomes.get((competition.id, e.id)) for e in group_events]
    if any(o is None or o.score_90 is None for o in outcomes):
        return out
    out.append(_window(arena, Horizon.GROUPS_COMPLETE, max([known, *(o.recorded_at for o in outcomes)]),
                       round_starts))
    return out
