"""Turn a normalised :class:`SourceMatch` into the archive's Event and Outcome records."""

from __future__ import annotations

from datetime import datetime

from collector.errors import SourceError
from collector.records import (
    Clock,
    Competition,
    Event,
    EventStatus,
    Outcome,
    OutcomeStatus,
    ResolutionRule,
    Revisable,
)
from collector.sources.base import MatchStatus, SourceMatch

_EVENT_STATUS = {
    MatchStatus.POSTPONED: EventStatus.POSTPONED,
    MatchStatus.CANCELLED: EventStatus.CANCELLED,
}
OUTCOME_STATUS = {
    MatchStatus.FINISHED: OutcomeStatus.FINISHED,
    MatchStatus.AWARDED: OutcomeStatus.AWARDED,
    MatchStatus.ABANDONED: OutcomeStatus.ABANDONED,
    MatchStatus.CANCELLED: OutcomeStatus.CANCELLED,
}
# Fields whose change at the source is not a change of the record.
BOOKKEEPING = frozenset(
    {"revision", "supersedes", "change_reason", "recorded_at", "clock", "source_retrieved_at", "source_payload"}
)


def build_event(
    competition: Competition, match: SourceMatch, *, source: str, retrieved_at: datetime, now: datetime, clock: Clock
) -> Event:
    assert match.home_team is not None and match.away_team is not None and match.event_id is not None
    return Event(
        recorded_at=now,
        clock=clock,
        competition_id=competition.id,
        id=match.event_id,
        stage=match.stage,
        group=match.group,
        matchday=match.matchday,
        round_name=match.round_name or None,
        match_number=match.match_number,
        kickoff_utc=match.kickoff_utc,
        kickoff_date=match.kickoff_date,
        kickoff_source=match.kickoff_source,
        venue=match.venue,
        home_team=match.home_team,
        away_team=match.away_team,
        knockout=match.knockout,
        resolution=ResolutionRule.EXTRA_TIME_AND_PENALTIES if match.knockout else ResolutionRule.REGULATION,
        status=_EVENT_STATUS.get(match.status, EventStatus.SCHEDULED),
        source=source,
        source_retrieved_at=retrieved_at,
    )


def advancing_team(event: Event, match: SourceMatch) -> str | None:
    """Who goes through a knockout: shoot-out winner, else extra-time leader, else 90-minute leader."""
    if not event.knockout:
        return None
    for score in (match.score_penalties, match.score_extra_time, match.score_90):
        if score is not None and score.home != score.away:
            return event.home_team if score.home > score.away else event.away_team
    raise SourceError(f"knockout match {match.label} ends level with no shoot-out: nobody advances")


def build_outcome(
    event: Event, match: SourceMatch, *, source: str, retrieved_at: datetime, now: datetime, clock: Clock
) -> Outcome:
    status = OUTCOME_STATUS[match.status]
    scored = status in (OutcomeStatus.FINISHED, OutcomeStatus.AWARDED)
    return Outcome(
        recorded_at=now,
        clock=clock,
        competition_id=event.competition_id,
        event_id=event.id,
        status=status,
        score_90=match.score_90 if scored else None,
        score_half_time=match.score_half_time if scored else None,
        score_extra_time=match.score_extra_time if scored else None,
        score_penalties=match.score_penalties if scored else None,
        advancing_team=advancing_team(event, match) if scored else None,
        goals=match.goals if scored else None,
        source=source,
        source_retrieved_at=retrieved_at,
        source_payload=match.payload,
    )


def changes(old: Revisable, new: Revisable) -> list[str]:
    """Human-readable list of fields that differ, bookkeeping ignored (empty: same content)."""
    a, b = old.model_dump(exclude=BOOKKEEPING), new.model_dump(exclude=BOOKKEEPING)
    return [f"{k}: {_show(a.get(k))} -> {_show(b.get(k))}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def _show(value: object) -> str:
    if isinstance(value, dict) and set(value) == {"home", "away"}:
        return f"{value['home']}-{value['away']}"
    if isinstance(value, datetime):
        return value.isoformat()
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
