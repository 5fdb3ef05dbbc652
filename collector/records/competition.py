"""The competition record: teams, groups, stages and knockout slot rules."""

from __future__ import annotations

import re
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


# '1E', '2A', '3A/B/C/D/F', 'W74', 'L101'
SLOT_RULE = re.compile(r"^(?:[12][A-L]|3[A-L](?:/[A-L])*|[WL]\d{1,3})$")


class KnockoutSlot(Contract):
    """How the two teams of a numbered knockout match are determined (e.g. ``1E v 3A/B/C/D/F``)."""

    match_number: Annotated[int, Field(ge=1)]
    stage: Slug
    home_rule: str
    away_rule: str

    @field_validator("home_rule", "away_rule")
    @classmethod
    def _rule_shape(cls, value: str) -> str:
        if not SLOT_RULE.match(value):
            raise ValueError(f"unknown slot rule {value!r}: expected 1A, 2A, 3A/B/C, W74 or L101")
        return value


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
    promotion_places: Annotated[int, Field(ge=0)] = 0
    relegation_places: Annotated[int, Field(ge=0)] = 0
    stage_opening_by: Literal["stage", "matchday"] = "stage"
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
        stage_ids = {s.id for s in self.stages}
        for slot in self.knockout_slots:
            if slot.stage not in stage_ids:
                raise ValueError(f"slot for match {slot.match_number} names unknown stage {slot.stage}")
        return self

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
