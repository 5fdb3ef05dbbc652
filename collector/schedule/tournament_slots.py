"""The slots of full-tournament forecasts (target ``tournament/full-tournament``).

Two horizons, each its own forecast key, for every forecaster that answers them
(``answers_tournament``), under the stage-opening window's settings:

* ``stage_opening``: once every pairing of the first stage is registered (a cup's whole group
  stage; a league's first matchday), not earlier than ``max_lead_hours`` before the first
  kickoff; closes ``close_before_minutes`` before it. Deadline: the first kickoff.
* ``groups_complete`` (cups with groups): once every group match has its outcome recorded and
  every match of the first knockout round is registered (the real pairings); closes
  ``close_before_minutes`` before that round's first kickoff, its deadline.

Fail closed: no first kickoff known, no slot; an outcome missing, no ``groups_complete`` slot.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from collector.archive.reader import Archive
from collector.config import ArenaConfig
from collector.forecasters.tasks import FULL_TOURNAMENT
from collector.records import (
    Competition,
    CompetitionFormat,
    Event,
    EventStatus,
    Horizon,
    advancement_rounds,
)

from .scheduler import Window, _cells, expected_pairings, registered_at, stage_key


def answers_tournament(forecaster) -> bool:
    """Only forecasters that say so (``answers_tournament = True``) get full-tournament slots."""
    return bool(getattr(forecaster, "answers_tournament", False))


def _window(arena: ArenaConfig, known: datetime, first: datetime, horizon: Horizon) -> Window:
    so = arena.windows.stage_opening
    closes = first - timedelta(minutes=so.close_before_minutes)
    opens = max(known, first - timedelta(hours=so.max_lead_hours))
    return Window(horizon, min(opens, closes), closes)


def opening_window(archive: Archive, arena: ArenaConfig, competition: Competition,
                   events: Sequence[Event]) -> tuple[Window, datetime] | None:
    """The ``stage_opening`` window and deadline, once the first stage's pairings are all registered."""
    kicked = [e for e in events if e.kickoff_utc is not None and e.status is EventStatus.SCHEDULED]
    if not kicked:
        return None
    first_event = min(kicked, key=lambda e: e.kickoff_utc)
    key = stage_key(competition, first_event)
    stage = [e for e in events if stage_key(competition, e) == key]
    expected = expected_pairings(competition, key)
    if expected is not None and len(stage) < expected:
        return None
    known = max(registered_at(archive, e) for e in stage)
    return _window(arena, known, first_event.kickoff_utc, Horizon.STAGE_OPENING), first_event.kickoff_utc


def groups_complete_window(archive: Archive, arena: ArenaConfig, competition: Competition,
                           events: Sequence[Event]) -> tuple[Window, datetime] | None:
    """The ``groups_complete`` window and deadline, once every group result and first-round pairing is in."""
    rounds = advancement_rounds(competition)
    if not competition.groups or not rounds:
        return None
    group_events = [e for e in events if not e.knockout and e.group]
    if len(group_events) < (expected_pairings(competition, ("group",)) or 0):
        return None
    outcomes = [archive.outcomes.get((competition.id, e.id)) for e in group_events]
    if any(o is None or o.score_90 is None for o in outcomes):
        return None
    first_round = [e for e in events if e.stage == rounds[0] and e.kickoff_utc is not None]
    if len(first_round) < sum(1 for s in competition.knockout_slots if s.stage == rounds[0]):
        return None
    first = min(e.kickoff_utc for e in first_round)
    known = max([o.recorded_at for o in outcomes] + [registered_at(archive, e) for e in first_round])
    return _window(arena, known, first, Horizon.GROUPS_COMPLETE), first


def tournament_slots(archive: Archive, arena: ArenaConfig, forecasters: Sequence,
                     since: dict[str, datetime | None], cid: str) -> Iterable:
    """Every full-tournament slot of competition ``cid`` (see the module docstring)."""
    competition = archive.competitions.get(cid)
    league = competition is not None and competition.format is CompetitionFormat.LEAGUE
    asking = [f for f in forecasters if answers_tournament(f)
              and not (league and not getattr(f, "answers_league_table", True))]
    if competition is None or not asking:
        return
    events = archive.events_of(cid)
    for found in (opening_window(archive, arena, competition, events),
                  groups_complete_window(archive, arena, competition, events)):
        if found is not None:
            window, deadline = found
            yield from _cells(arena, asking, since, cid, "tournament", FULL_TOURNAMENT, window, deadline,
                              window.opens)
