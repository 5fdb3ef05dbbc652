"""One interface for every fixture/result source: normalised matches plus collected problems.

An adapter turns a provider's payload into :class:`SourceMatch` objects with team ids
already resolved through the competition's alias table. A match it cannot use becomes a
:class:`~collector.errors.Problem` naming the source and the match; the other matches are
still returned (bad input never stops the rest).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import Any, Protocol

from collector.errors import Problem
from collector.records import Competition, Goal, Score


class MatchStatus(StrEnum):
    """A source match's state, normalised across providers."""

    SCHEDULED = "scheduled"
    IN_PLAY = "in_play"  # also half-time, extra time, shoot-out in progress
    FINISHED = "finished"
    AWARDED = "awarded"
    POSTPONED = "postponed"
    SUSPENDED = "suspended"  # interrupted, may resume or be replayed: no outcome yet
    ABANDONED = "abandoned"  # abandoned for good (until a later source change says otherwise)
    CANCELLED = "cancelled"
    IN_DOUBT = "in_doubt"  # finished per the source, but its result contradicts itself: held back until corrected

    @property
    def has_result(self) -> bool:
        """Finished or awarded: the source gives the match's result."""
        return self in (MatchStatus.FINISHED, MatchStatus.AWARDED)


@dataclass(frozen=True)
class SourceMatch:
    """One match as a source reports it, normalised. Teams are ids, or None while a slot is open."""

    label: str  # how errors name the match, e.g. "Matchday 1 2026-06-11 Mexico v South Africa"
    stage: str
    round_name: str
    kickoff_date: date
    kickoff_source: str
    kickoff_utc: datetime | None
    home_team: str | None
    away_team: str | None
    status: MatchStatus
    payload: dict[str, Any]
    knockout: bool = False
    home_slot: str | None = None  # e.g. "1E" while the team is not yet known
    away_slot: str | None = None
    match_number: int | None = None
    group: str | None = None
    matchday: int | None = None
    venue: str | None = None
    score_90: Score | None = None
    score_half_time: Score | None = None
    score_extra_time: Score | None = None
    score_penalties: Score | None = None
    goals: tuple[Goal, ...] | None = None
    leg: int | None = None  # 1 or 2: a leg of a two-legged tie (collector.sources.legs)
    other_leg: int | None = None  # the match number of the tie's other leg
    tie: Any = None  # on a second leg whose tie is decided: its collector.competitions.ties.TieResult
    held: str | None = None  # why the outcome is held back (the source contradicts itself), until corrected
    corrections: tuple[Any, ...] = ()  # the collector.records.SourceCorrection applied to this match at ingest

    @property
    def event_id(self) -> str | None:
        """``m073`` for numbered knockout matches, ``{home}-v-{away}`` otherwise; None if teams unknown."""
        if self.knockout and self.match_number is not None:
            return f"m{self.match_number:03d}"
        if self.home_team is None or self.away_team is None:
            return None
        return f"{self.home_team}-v-{self.away_team}"


@dataclass
class SourceBatch:
    """What one read of a source produced."""

    source: str  # e.g. "openfootball:openfootball/worldcup-2026/worldcup.json"
    retrieved_at: datetime
    matches: list[SourceMatch] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class Source(Protocol):
    """A fixture/result source for one competition."""

    name: str

    def fetch(self, competition: Competition) -> SourceBatch: ...


def score_from_pair(value: Any, where: str) -> Score | None:
    """``[2, 0]`` -> Score(2, 0); None for a missing value; ValueError naming ``where`` otherwise."""
    if value is None:
        return None
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 99 for v in value)
    ):
        return Score(home=value[0], away=value[1])
    raise ValueError(f"field {where}: expected two goal counts like [2, 0], got {value!r}")
