"""The full-tournament forecast payload (WorldCupArena §3.1 and Appendix A.2).

A cup forecast is every group match (1X2 probabilities and a score, as the match schema asks)
and then the knockout matches that *the forecast's own* group tables produce, round by round
to the final, each with the team that advances. A league forecast is the final table (every
team's position and points). Champion, runner-up, third place and semi-finalists are never
asked: code derives them from the saved matches (``collector.forecasters.tournament``).
Baselines add the probability of each team reaching each knockout round.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from .base import Contract, Probability, Score, Slug
from .competition import Competition

PROBABILITY_TOLERANCE = 1e-6


class GroupMatchForecast(Contract):
    """One group match: the 90-minute 1X2 probabilities and the headline score."""

    group: str = Field(min_length=1)
    home: Slug
    away: Slug
    home_win: Probability
    draw: Probability
    away_win: Probability
    score: Score = Field(description="the predicted 90-minute score; the tables are computed from it")

    @model_validator(mode="after")
    def _consistent(self) -> GroupMatchForecast:
        if self.home == self.away:
            raise ValueError(f"group {self.group}: a team cannot play itself ({self.home})")
        total = self.home_win + self.draw + self.away_win
        if abs(total - 1.0) > PROBABILITY_TOLERANCE:
            raise ValueError(f"{self.home}-{self.away}: probabilities sum to {total:.6f}, not 1")
        return self


class KnockoutMatchForecast(Contract):
    """One knockout match of the forecast's own bracket, with the team that advances."""

    match_number: Annotated[int, Field(ge=1)]
    stage: Slug
    home: Slug
    away: Slug
    score: Score = Field(description="the predicted score after extra time (level: decided on penalties)")
    advances: Slug = Field(description="the team that goes through (wins the match)")
    advance_probability: Probability = Field(description="the probability that ``advances`` goes through")

    @model_validator(mode="after")
    def _consistent(self) -> KnockoutMatchForecast:
        if self.advances not in (self.home, self.away):
            raise ValueError(f"match {self.match_number}: advances {self.advances!r} plays neither side "
                             f"({self.home}, {self.away})")
        h, a = self.score.as_tuple()
        if h != a and (self.advances == self.home) != (h > a):
            raise ValueError(f"match {self.match_number}: score {h}-{a} contradicts advances {self.advances!r}")
        return self


class TableEntry(Contract):
    """One row of a predicted league table."""

    team: Slug
    position: Annotated[int, Field(ge=1)]
    points: Annotated[int, Field(ge=0)]


class ReachProbability(Contract):
    """The probability that ``team`` plays in knockout stage ``stage`` (baselines' simulations)."""

    team: Slug
    stage: Slug
    probability: Probability


class TournamentForecast(Contract):
    """The parsed full-tournament forecast (payload of a ``target_kind="tournament"`` record)."""

    target: Literal["tournament"] = "tournament"
    format: Literal["cup", "league"]
    group_matches: tuple[GroupMatchForecast, ...] = ()
    knockout_matches: tuple[KnockoutMatchForecast, ...] = ()
    table: tuple[TableEntry, ...] = ()
    reach: tuple[ReachProbability, ...] = ()
    reason: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> TournamentForecast:
        if self.format == "league":
            positions = sorted(e.position for e in self.table)
            if positions != list(range(1, len(self.table) + 1)):
                raise ValueError(f"table positions must be 1..{len(self.table)} once each, got {positions}")
            teams = [e.team for e in self.table]
            if len(set(teams)) != len(teams):
                raise ValueError("each team appears once in the table")
            by_position = sorted(self.table, key=lambda e: e.position)
            if any(a.points < b.points for a, b in zip(by_position, by_position[1:], strict=False)):
                raise ValueError("a team placed higher cannot have fewer points")
        numbers = [m.match_number for m in self.knockout_matches]
        if len(set(numbers)) != len(numbers):
            raise ValueError("each knockout match number appears once")
        pairs = [frozenset((m.home, m.away)) for m in self.group_matches]
        if len(set(pairs)) != len(pairs):
            raise ValueError("each group pairing appears once")
        return self

    def knockout(self, match_number: int) -> KnockoutMatchForecast | None:
        return next((m for m in self.knockout_matches if m.match_number == match_number), None)


def advancement_rounds(competition: Competition) -> list[str]:
    """Knockout stage ids in order, as T5 counts them (WorldCupArena §4.3: R32 ... final).

    The third-place match, fed by losers (``L101``), is not a round of advancement.
    """
    rules: dict[str, set[str]] = {}
    for s in competition.knockout_slots:
        rules.setdefault(s.stage, set()).update((s.home_rule[0], s.away_rule[0]))
    ordered = sorted((s for s in competition.stages if s.knockout and s.id in rules), key=lambda s: s.order)
    return [s.id for s in ordered if "L" not in rules[s.id]]


def final_rounds(competition: Competition) -> tuple[str | None, str | None]:
    """(the round before the final, the final): the last two of :func:`advancement_rounds` (None
    where the competition has no such round)."""
    rounds = advancement_rounds(competition)
    return (rounds[-2] if len(rounds) > 1 else None), (rounds[-1] if rounds else None)


def round_ties(competition: Competition, stage: str) -> list[int]:
    """The slot numbers of ``stage``'s ties: its single matches and second legs (a two-legged tie
    is its second leg; a first leg decides nothing)."""
    firsts = set(competition.first_legs().values())
    return [s.match_number for s in competition.knockout_slots if s.stage == stage and s.match_number not in firsts]
