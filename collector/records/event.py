"""Event registration (a match) and its outcome."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from .base import Contract, Revisable, Score, Slug, UtcDatetime


class ResolutionRule(StrEnum):
    """What decides the event: the 90-minute result only, or advancement after extra time/penalties."""

    REGULATION = "regulation"  # league and group matches: 90 minutes plus stoppage time
    EXTRA_TIME_AND_PENALTIES = "extra_time_and_penalties"  # knockouts: someone must advance


class EventStatus(StrEnum):
    SCHEDULED = "scheduled"
    POSTPONED = "postponed"
    CANCELLED = "cancelled"


class Event(Revisable):
    """A registered match.

    ``kickoff_utc`` is ``None`` while the source gives a date but no time (kick-off to be
    announced, or a past tournament's file without times); the scheduler then counts its
    windows back from 00:00 of ``kickoff_date`` in the competition's time zone, the earliest
    instant it could be (``collector.competitions.kickoffs``), until a revision sets the time.
    ``kickoff_source`` keeps the source's own string (e.g. ``2026-06-11 13:00 UTC-6``).
    """

    kind: Literal["event"] = "event"
    competition_id: Slug
    id: Slug
    stage: Slug
    group: str | None = None
    matchday: Annotated[int, Field(ge=0)] | None = None
    round_name: str | None = Field(default=None, description="The source's round label")
    match_number: Annotated[int, Field(ge=1)] | None = None
    kickoff_utc: UtcDatetime | None
    kickoff_date: date = Field(description="Local calendar date at the venue, as the source gives it")
    kickoff_source: str = Field(min_length=1)
    venue: str | None = None
    home_team: Slug
    away_team: Slug
    knockout: bool
    resolution: ResolutionRule
    status: EventStatus = EventStatus.SCHEDULED
    leg: Literal[1, 2] | None = Field(
        default=None, description="a leg of a two-legged tie (an ordinary 90-minute match; the tie advances a team)")
    other_leg: Slug | None = Field(default=None, description="the event id of the tie's other leg")
    source: str
    source_retrieved_at: UtcDatetime

    @model_validator(mode="after")
    def _consistent(self) -> Event:
        if self.home_team == self.away_team:
            raise ValueError(f"home and away team are both {self.home_team!r}")
        if (self.leg is None) != (self.other_leg is None) or self.leg is not None and self.knockout:
            raise ValueError("a leg names its other leg, and is forecast as a 90-minute match (knockout false)")
        if self.knockout != (self.resolution is ResolutionRule.EXTRA_TIME_AND_PENALTIES):
            raise ValueError("knockout events resolve after extra time and penalties; others at 90 minutes")
        return self


class OutcomeStatus(StrEnum):
    FINISHED = "finished"
    AWARDED = "awarded"
    POSTPONED = "postponed"
    ABANDONED = "abandoned"
    CANCELLED = "cancelled"

    @property
    def has_result(self) -> bool:
        """Finished or awarded: the outcome carries a score and settles its event."""
        return self in (OutcomeStatus.FINISHED, OutcomeStatus.AWARDED)


class Goal(Contract):
    """One goal. ``90+4`` is stored as ``minute=90, stoppage=4``."""

    team: Slug = Field(description="The team credited with the goal (for an own goal: the benefiting team)")
    scorer: str | None = None
    minute: Annotated[int, Field(ge=0, le=130)] | None = None
    stoppage: Annotated[int, Field(ge=0, le=30)] | None = None
    penalty: bool | None = None
    own_goal: bool | None = None
    period: Literal["regulation", "extra_time"] | None = None


class SourceCorrection(Contract):
    """A correction of a source's value applied at ingest (the competition's corrections file), with its citation."""

    field: str = Field(min_length=1, description="the corrected field of the source's match, e.g. score.et or goals2")
    source_value: Any = Field(default=None, description="what the source gives (None: the field was absent)")
    value: Any = Field(description="the corrected value used instead")
    citation: str = Field(min_length=1, description="where the corrected value is documented (a URL or reference)")
    note: str = ""
    file: str = Field(min_length=1, description="the corrections file it came from (its name)")


class Outcome(Revisable):
    """The official result of an event.

    ``score_90`` is regulation plus stoppage time; ``score_extra_time`` the cumulative score
    after 120 minutes (only when extra time was played); ``score_penalties`` the shoot-out
    alone. Only finished or awarded matches carry scores; ``advancing_team`` is set for
    knockouts that were decided, and on the second leg of a two-legged tie (with ``aggregate``).
    """

    kind: Literal["outcome"] = "outcome"
    competition_id: Slug
    event_id: Slug
    status: OutcomeStatus
    score_90: Score | None = None
    score_half_time: Score | None = None
    score_extra_time: Score | None = None
    score_penalties: Score | None = None
    advancing_team: Slug | None = None
    aggregate: Score | None = Field(
        default=None, description="a tie's second leg: both legs' goals (after extra time if played), "
                                  "this leg's home team first")
    goals: tuple[Goal, ...] | None = Field(default=None, description="None when the source lists no goals")
    corrections: tuple[SourceCorrection, ...] = Field(
        default=(), description="corrections of the source applied to this match (its payload stays verbatim)")
    source: str
    source_retrieved_at: UtcDatetime
    source_payload: dict[str, Any] = Field(description="The source's raw payload for this match, verbatim")

    @model_validator(mode="after")
    def _consistent(self) -> Outcome:
        scored = self.status.has_result
        if not scored and any(
            s is not None for s in (self.score_90, self.score_extra_time, self.score_penalties)
        ):
            raise ValueError(f"an outcome with status {self.status.value} cannot carry a score")
        if scored and self.score_90 is None:
            raise ValueError(f"an outcome with status {self.status.value} needs score_90")
        if self.score_penalties is not None and self.score_extra_time is None and \
                (self.score_90 is None or self.score_90.home != self.score_90.away):
            raise ValueError("a penalty shoot-out needs score_extra_time, or a level score_90 (a competition "
                             "without extra time before its final)")
        if self.score_extra_time is not None and self.score_90 is not None:
            et, ft = self.score_extra_time, self.score_90
            if et.home < ft.home or et.away < ft.away:
                raise ValueError("score_extra_time is cumulative and cannot be below score_90")
        if self.score_penalties is not None:
            if self.score_penalties.home == self.score_penalties.away:
                raise ValueError("a penalty shoot-out cannot end level")
        return self

    def ninety_minute_result(self) -> Literal["home", "draw", "away"] | None:
        if self.score_90 is None:
            return None
        h, a = self.score_90.as_tuple()
        return "home" if h > a else "away" if a > h else "draw"
