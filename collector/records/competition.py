"""The competition record: teams, groups, stages and knockout slot rules."""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from .base import Contract, Revisable, Slug


class CompetitionFormat(StrEnum):
    LEAGUE = "league"
    TOURNAMENT = "tournament"  # groups followed by knockouts


class Team(Contract):
    """A team with a stable id, its display name, codes and every alias a source may use."""

    id: Slug
    name: str = Field(min_length=1)
    code: str | None = Field(default=None, description="FIFA or short code, e.g. MEX")
    aliases: tuple[str, ...] = ()
    group: str | None = None
    confederation: str | None = None


class Group(Contract):
    name: str = Field(min_length=1, description="Group letter or name, e.g. 'A'")
    teams: tuple[Slug, ...]


class Stage(Contract):
    """A stage of the competition, in order. ``knockout`` stages are decided after extra time."""

    id: Slug
    name: str
    knockout: bool = False
    order: int = 0


# '1E', '2A', '3A/B/C/D/F', 'W74', 'L101'; 'P4' (4th of a league table, for leagues with play-offs)
SLOT_RULE = re.compile(r"^(?:[12][A-L]|3[A-L](?:/[A-L])*|[WL]\d{1,3}|P\d{1,2})$")


class KnockoutSlot(Contract):
    """How the two teams of a numbered knockout match are determined (e.g. ``1E v 3A/B/C/D/F``)."""

    match_number: Annotated[int, Field(ge=1)]
    stage: Slug
    home_rule: str
    away_rule: str
    source_date: date | None = Field(
        default=None, description="for a source without match numbers: the match's local date in the source")
    source_index: Annotated[int, Field(ge=0)] | None = Field(
        default=None, description="... and its position among the stage's matches of that date (kickoff, then file order)")
    first_leg: Annotated[int, Field(ge=1)] | None = Field(
        default=None, description="a two-legged tie: this slot is the second leg, and this is its first leg's match number "
                                  "(a W/L rule of this number is the tie's winner/loser on aggregate)")

    @field_validator("home_rule", "away_rule")
    @classmethod
    def _rule_shape(cls, value: str) -> str:
        if not SLOT_RULE.match(value):
            raise ValueError(f"unknown slot rule {value!r}: expected 1A, 2A, 3A/B/C, P4, W74 or L101")
        return value


class ThirdPlaceAssignment(Contract):
    """In one row of a best-third table: the group whose third-placed team plays in this match."""

    match_number: Annotated[int, Field(ge=1)]
    group: str = Field(pattern=r"^[A-L]$")


class BestThirdRow(Contract):
    """One row of the official table: which qualified third goes to which knockout match."""

    groups: str = Field(pattern=r"^[A-L]+$", description="the groups whose thirds qualified, in order, e.g. ACDF")
    assignments: tuple[ThirdPlaceAssignment, ...]


class TopScorerTieBreak(StrEnum):
    """How a competition ranks players level on goals (the top-scorer question's answer)."""

    SHARED = "shared"  # every player level on goals is a top scorer (their teams all count)
    FEWER_PENALTIES = "fewer_penalties"  # then fewer penalty goals (not enough data: shared among the rest)


class TieBreakers(StrEnum):
    POINTS = "points"
    GOAL_DIFFERENCE = "goal_difference"
    GOALS_FOR = "goals_for"
    HEAD_TO_HEAD = "head_to_head"
    FAIR_PLAY = "fair_play"
    DRAWING_OF_LOTS = "drawing_of_lots"


class Competition(Revisable):
    """A competition edition: the contract for everything registered under it."""

    kind: Literal["competition"] = "competition"
    id: Slug
    name: str
    edition: str
    format: CompetitionFormat
    time_zone: str = Field(description="IANA zone used for source times that carry no offset")
    teams: tuple[Team, ...]
    groups: tuple[Group, ...] = ()
    stages: tuple[Stage, ...]
    knockout_slots: tuple[KnockoutSlot, ...] = ()
    tie_breakers: tuple[TieBreakers, ...] = (
        TieBreakers.POINTS,
        TieBreakers.GOAL_DIFFERENCE,
        TieBreakers.GOALS_FOR,
    )
    best_third_placed: Annotated[int, Field(ge=0)] = 0
    best_third_table: tuple[BestThirdRow, ...] = Field(
        default=(), description="the official allocation of qualified thirds to knockout matches")
    host_nations: tuple[Slug, ...] = Field(default=(), description="team ids of the host nations")
    starts_on: date | None = Field(default=None, description="first match day (local); a source match before it is refused")
    ends_on: date | None = Field(default=None, description="last match day (local); a source match after it is refused")
    venue_countries: dict[str, Slug] = Field(
        default_factory=dict, description="venue (as the source names it, a prefix) -> host team id of its country")
    top_scorer_tie_break: TopScorerTieBreak = TopScorerTieBreak.SHARED
    player_aliases: dict[str, str] = Field(
        default_factory=dict, description="a scorer's name as some source spells it -> the one name counted")
    promotion_places: Annotated[int, Field(ge=0)] = 0
    relegation_places: Annotated[int, Field(ge=0)] = 0
    stage_opening_by: Literal["stage", "matchday"] = "stage"
    points_for_win: Annotated[int, Field(ge=0, le=10)] = Field(default=3, description="table points for a win "
                                                                                   "(2 before 1994 at World Cups)")
    points_for_draw: Annotated[int, Field(ge=0, le=10)] = 1
    extra_time: Literal["always", "final_only", "never"] = Field(
        default="always", description="when a knockout match level after 90 minutes goes to extra time (else "
                                      "straight to a shoot-out): every knockout, only the final, or never")
    shootouts: bool = Field(default=True, description="a knockout still level is decided by a shoot-out")
    away_goals: bool = Field(
        default=False, description="two-legged ties: a level aggregate goes to the team with more away goals "
                                   "(off by default, as in UEFA's rules since 2021-22)")
    source: str = Field(description="Where the definition came from")

    @model_validator(mode="after")
    def _consistent(self) -> Competition:
        ids = [t.id for t in self.teams]
        if len(set(ids)) != len(ids):
            raise ValueError("team ids must be unique")
        known = set(ids)
        for group in self.groups:
            unknown = [t for t in group.teams if t not in known]
            if unknown:
                raise ValueError(f"group {group.name} names unknown teams {unknown}")
        unknown_hosts = [t for t in (*self.host_nations, *self.venue_countries.values()) if t not in known]
        if unknown_hosts:
            raise ValueError(f"host nations name unknown teams {unknown_hosts}")
        stage_ids = {s.id for s in self.stages}
        numbers = [s.match_number for s in self.knockout_slots]
        if len(set(numbers)) != len(numbers):
            raise ValueError("knockout slot match numbers must be unique")
        for slot in self.knockout_slots:
            if slot.stage not in stage_ids:
                raise ValueError(f"slot for match {slot.match_number} names unknown stage {slot.stage}")
            for rule in (slot.home_rule, slot.away_rule):
                if rule[0] in "WL" and int(rule[1:]) not in numbers:
                    raise ValueError(f"slot for match {slot.match_number}: rule {rule} names no slot's match")
                if rule[0] == "P" and (self.groups or not 1 <= int(rule[1:]) <= len(self.teams)):
                    raise ValueError(f"slot for match {slot.match_number}: rule {rule} reads a league table: "
                                     f"a competition without groups, positions 1-{len(self.teams)}")
        self._check_third_table()
        self._check_legs()
        return self

    def _check_legs(self) -> None:
        """A second leg names a first leg of its stage with the same two rules the other way round, once."""
        slots = {s.match_number: s for s in self.knockout_slots}
        firsts = [s.first_leg for s in self.knockout_slots if s.first_leg is not None]
        for slot in self.knockout_slots:
            if slot.first_leg is None:
                continue
            first = slots.get(slot.first_leg)
            if first is None or first.stage != slot.stage or first.first_leg is not None or firsts.count(slot.first_leg) > 1 \
                    or (first.home_rule, first.away_rule) != (slot.away_rule, slot.home_rule):
                raise ValueError(f"slot for match {slot.match_number}: first_leg {slot.first_leg} must be another "
                                 f"slot of stage {slot.stage}, first leg of no other tie, with the rules "
                                 f"{slot.away_rule} v {slot.home_rule}")
        for slot in self.knockout_slots:
            for rule in (slot.home_rule, slot.away_rule):
                if rule[0] in "WL" and int(rule[1:]) in firsts:
                    raise ValueError(f"slot for match {slot.match_number}: rule {rule} names a first leg, which "
                                     f"decides nothing (name the second leg: the tie)")

    def plays_extra_time(self, stage: str) -> bool:
        """A knockout match of ``stage`` level after 90 minutes goes to extra time (``extra_time``);
        else it goes straight to a shoot-out (or, without ``shootouts``, is decided as the rules say).
        The one statement of the rule: the source checks, the baselines and the site read it."""
        return self.extra_time == "always" or (self.extra_time == "final_only" and stage == "final")

    def first_legs(self) -> dict[int, int]:
        """Second leg's match number -> its first leg's."""
        return {s.match_number: s.first_leg for s in self.knockout_slots if s.first_leg is not None}

    def _check_third_table(self) -> None:
        third_rules = {s.match_number: r for s in self.knockout_slots for r in (s.home_rule, s.away_rule) if r[0] == "3"}
        seen = set()
        for row in self.best_third_table:
            if len(row.groups) != self.best_third_placed or row.groups in seen:
                raise ValueError(f"best-third row {row.groups}: expected {self.best_third_placed} groups, once each")
            seen.add(row.groups)
            placed = sorted(a.group for a in row.assignments)
            if placed != sorted(row.groups) or sorted(a.match_number for a in row.assignments) != sorted(third_rules):
                raise ValueError(f"best-third row {row.groups}: must place each of its groups in one of the "
                                 f"matches {sorted(third_rules)}")
            for a in row.assignments:
                if a.group not in third_rules[a.match_number][1:].split("/"):
                    raise ValueError(f"best-third row {row.groups}: group {a.group} cannot play match "
                                     f"{a.match_number} ({third_rules[a.match_number]})")

    def third_placed_in(self, qualified: str, match_number: int) -> str | None:
        """The group whose third plays ``match_number`` when the thirds of ``qualified`` go through (table)."""
        key = "".join(sorted(qualified))
        for row in self.best_third_table:
            if "".join(sorted(row.groups)) == key:
                return next((a.group for a in row.assignments if a.match_number == match_number), None)
        return None

    def slot(self, match_number: int) -> KnockoutSlot | None:
        return next((s for s in self.knockout_slots if s.match_number == match_number), None)

    def team(self, team_id: str) -> Team:
        for team in self.teams:
            if team.id == team_id:
                return team
        raise KeyError(team_id)

    def stage(self, stage_id: str) -> Stage:
        for stage in self.stages:
            if stage.id == stage_id:
                return stage
        raise KeyError(stage_id)
