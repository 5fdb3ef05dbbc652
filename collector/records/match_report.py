"""The match report record: what happened in a match beyond the score, field by field.

Truth for the fine-grained layers (WorldCupArena T2-T4, seeds/001 §3.2 "Truth acquisition"),
kept apart from the :class:`~collector.records.event.Outcome` that settles the event. Each
field is either ``None`` -- *no data*: the source does not report it, so it is left out of
scoring -- or a value the source confirms, where an empty tuple means *nothing happened*
(a confirmed match with no card supports a forecast of no card). ``sources`` names, for every
field that has data, the source and retrieval time it came from; a field without a source or
a source without a field is rejected. Reports are append-only: a correction or a report
merged from another source is a new revision naming the old one.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue, model_validator

from .base import Contract, Revisable, Slug, UtcDatetime
from .fine_grained import Formation, Position, Side

ReportedMinute = Annotated[int, Field(ge=0, le=130)]
Stoppage = Annotated[int, Field(ge=0, le=30)]
Name = Annotated[str, Field(min_length=1, max_length=120)]
Count = Annotated[float, Field(ge=0.0, le=1000.0, allow_inf_nan=False)]

REPORT_FIELDS = ("home_lineup", "away_lineup", "home_formation", "away_formation", "goals", "assists", "cards",
                 "substitutions", "penalties", "player_of_the_match", "statistics")


class ReportedPlayer(Contract):
    name: Name
    position: Position | None = None
    source_id: str | None = Field(default=None, description="the source's own player id, when it has one")


class ReportedLineup(Contract):
    starting: tuple[ReportedPlayer, ...] = Field(min_length=1, max_length=11)


class ReportedGoal(Contract):
    """A goal; ``side`` is the scorer's own side (for an own goal, the conceding side)."""

    side: Side
    player: Name | None = None
    minute: ReportedMinute | None = None
    stoppage: Stoppage | None = None
    penalty: bool = False
    own_goal: bool = False
    in_squad: bool | None = Field(
        default=None, description="the player is one player of his side's squad; None when no squad was checked")

    @property
    def at(self) -> float | None:
        """The minute as a number, stoppage added (``90+4`` -> 94), None when unknown."""
        return None if self.minute is None else float(self.minute + (self.stoppage or 0))


class ReportedAssist(Contract):
    side: Side
    player: Name
    minute: ReportedMinute | None = None


class ReportedCard(Contract):
    side: Side
    player: Name
    minute: ReportedMinute | None = None
    colour: Literal["yellow", "second_yellow", "red"]


class ReportedSubstitution(Contract):
    side: Side
    player_on: Name
    player_off: Name
    minute: ReportedMinute | None = None


class ReportedPenalty(Contract):
    """A penalty kick in play (not a shoot-out kick), whatever became of it."""

    side: Side
    taker: Name
    minute: ReportedMinute | None = None
    outcome: Literal["scored", "saved", "missed"]


class ReportedPair(Contract):
    home: Count
    away: Count


class ReportedStatistics(Contract):
    """Per-side statistics; a statistic the source does not give is None (no data)."""

    possession: ReportedPair | None = None
    shots: ReportedPair | None = None
    shots_on_target: ReportedPair | None = None
    corners: ReportedPair | None = None
    fouls: ReportedPair | None = None
    offsides: ReportedPair | None = None
    yellow_cards: ReportedPair | None = None
    red_cards: ReportedPair | None = None
    xg: ReportedPair | None = None


class FieldSource(Contract):
    source: str = Field(min_length=1, description="e.g. openfootball, football-data.org, api-football")
    retrieved_at: UtcDatetime


class PlayerRef(Contract):
    side: Side
    player: Name


class MatchReport(Revisable):
    kind: Literal["match_report"] = "match_report"
    competition_id: Slug
    event_id: Slug
    home_lineup: ReportedLineup | None = None
    away_lineup: ReportedLineup | None = None
    home_formation: Formation | None = None
    away_formation: Formation | None = None
    goals: tuple[ReportedGoal, ...] | None = Field(default=None, description="every goal, own goals included")
    assists: tuple[ReportedAssist, ...] | None = None
    cards: tuple[ReportedCard, ...] | None = None
    substitutions: tuple[ReportedSubstitution, ...] | None = None
    penalties: tuple[ReportedPenalty, ...] | None = Field(
        default=None, description="every penalty kick in play; None when a source lists only the scored ones")
    player_of_the_match: PlayerRef | None = None
    statistics: ReportedStatistics | None = None
    sources: dict[str, FieldSource] = Field(description="per field with data: where it came from")
    source_payloads: dict[str, JsonValue] = Field(
        default_factory=dict, description="per source, its raw payload for this match, verbatim")

    @model_validator(mode="after")
    def _sourced(self) -> MatchReport:
        present = {f for f in REPORT_FIELDS if getattr(self, f) is not None}
        if unsourced := sorted(present - set(self.sources)):
            raise ValueError(f"fields without a source: {', '.join(unsourced)}")
        if empty := sorted(set(self.sources) - present):
            raise ValueError(f"sources named for fields without data: {', '.join(empty)}")
        return self

    def available(self, field: str) -> bool:
        """True when the source reports ``field`` (an empty value then means nothing happened)."""
        return getattr(self, field) is not None
