"""The fine-grained match forecast (WorldCupArena T2-T4): players, events and statistics.

The field set follows the paper's released answer schema (github wzk1015/WorldCupArena,
``schemas/prediction.schema.json``; seeds/001 §3.1, Table 1): per side the starting eleven
with positions and the formation, ranked likely scorers, assist providers and player of the
match with probabilities, goals with minute, cards, substitutions with minute, penalties,
own goals, and per-side statistics. Sides are ``home``/``away`` (team-neutral names, like
:class:`~collector.records.forecast.MatchForecast`); player names are free text, resolved to
the squads before scoring. Every list is a claim: an empty tuple predicts "none happens".
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from .base import Contract, Probability

Side = Literal["home", "away"]
Position = Literal["GK", "DF", "MF", "FW"]
PlayerName = Annotated[str, Field(min_length=1, max_length=80)]
Minute = Annotated[float, Field(ge=0.0, le=130.0, allow_inf_nan=False)]
Formation = Annotated[str, Field(pattern=r"^[1-9](-[1-9]){1,4}$", description="outfield lines, e.g. 4-3-3")]
StatValue = Annotated[float, Field(ge=0.0, le=1000.0, allow_inf_nan=False)]

STATISTICS = ("possession", "shots", "shots_on_target", "corners", "fouls", "offsides", "yellow_cards",
              "red_cards", "xg")
"""The per-side statistics asked for (T4), in display order; xG only where a source has it."""


class LineupPlayer(Contract):
    name: PlayerName
    position: Position


class Lineup(Contract):
    """One side's predicted starting eleven and formation."""

    formation: Formation
    starting: tuple[LineupPlayer, ...] = Field(min_length=11, max_length=11)

    @model_validator(mode="after")
    def _outfield(self) -> Lineup:
        lines = sum(int(n) for n in self.formation.split("-"))
        if lines != 10:
            raise ValueError(f"formation {self.formation} has {lines} outfield players, not 10")
        return self


class RankedPlayer(Contract):
    """A player with a probability (to score, to assist, to be player of the match)."""

    side: Side
    player: PlayerName
    probability: Probability


class GoalEvent(Contract):
    side: Side = Field(description="the scorer's side")
    player: PlayerName
    minute: Minute


class CardEvent(Contract):
    side: Side
    player: PlayerName
    minute: Minute
    colour: Literal["yellow", "second_yellow", "red"]


class SubstitutionEvent(Contract):
    side: Side
    player_on: PlayerName
    player_off: PlayerName
    minute: Minute


class PenaltyEvent(Contract):
    side: Side = Field(description="the taker's side")
    taker: PlayerName
    minute: Minute
    outcome: Literal["scored", "saved", "missed"]


class OwnGoalEvent(Contract):
    side: Side = Field(description="the side of the player who put the ball into his own net")
    player: PlayerName
    minute: Minute


class SidePair(Contract):
    home: StatValue
    away: StatValue


class MatchStatistics(Contract):
    """Per-side statistics; possession in percent of the ball (home + away = 100 within 1)."""

    possession: SidePair
    shots: SidePair
    shots_on_target: SidePair
    corners: SidePair
    fouls: SidePair
    offsides: SidePair
    yellow_cards: SidePair
    red_cards: SidePair
    xg: SidePair | None = None

    @model_validator(mode="after")
    def _coherent(self) -> MatchStatistics:
        total = self.possession.home + self.possession.away
        if abs(total - 100.0) > 1.0:
            raise ValueError(f"possession sums to {total:g}, not 100")
        for side in ("home", "away"):
            if getattr(self.shots_on_target, side) > getattr(self.shots, side):
                raise ValueError(f"{side} shots_on_target exceed shots")
        return self


class FineGrainedForecast(Contract):
    """T2 (players and lineups), T3 (events) and T4 (tactics and statistics) of one match."""

    home_lineup: Lineup
    away_lineup: Lineup
    scorers: tuple[RankedPlayer, ...] = Field(default=(), max_length=30, description="likely scorers, ranked")
    assisters: tuple[RankedPlayer, ...] = Field(default=(), max_length=30)
    player_of_the_match: tuple[RankedPlayer, ...] = Field(default=(), max_length=10)
    goals: tuple[GoalEvent, ...] = Field(default=(), max_length=20)
    cards: tuple[CardEvent, ...] = Field(default=(), max_length=30)
    substitutions: tuple[SubstitutionEvent, ...] = Field(default=(), max_length=12)
    penalties: tuple[PenaltyEvent, ...] = Field(default=(), max_length=10)
    own_goals: tuple[OwnGoalEvent, ...] = Field(default=(), max_length=10)
    statistics: MatchStatistics

    def lineup(self, side: str) -> Lineup:
        return self.home_lineup if side == "home" else self.away_lineup

    def ranked(self, field: str) -> tuple[RankedPlayer, ...]:
        """The players of ``field`` by decreasing probability (stable for ties)."""
        return tuple(sorted(getattr(self, field), key=lambda p: -p.probability))
