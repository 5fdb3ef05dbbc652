"""Number knockout matches from a source that gives none (football-data.org), by the bracket.

A match fills the slot whose rules its two teams satisfy: ``1E``/``2E`` is group E's
winner/runner-up (from the source's own group results and the competition's tie-breakers),
``3A/B/C/D/F`` one of the best third-placed teams from those groups, ``W74``/``L74`` the
winner/loser of match 74. Stages are numbered in order, so later rules can use earlier
numbers. Matches the bracket cannot place keep kickoff order within their stage.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from collector.competitions.slots import league_table
from collector.competitions.standings import (
    MatchResult,
    TableRow,
    rank_third_placed,
    table_for,
)
from collector.records import Competition
from collector.sources.base import SourceMatch


def winner_and_loser(match: SourceMatch) -> tuple[str, str] | None:
    """(winner, loser) of a decided knockout match: shoot-out, else extra time, else 90 minutes; of a tie on aggregate."""
    if not match.status.has_result or match.home_team is None or match.away_team is None:
        return None
    if match.leg is not None:  # a leg decides nothing alone; the second carries its tie once both are final
        if match.leg == 1 or match.tie is None:
            return None
        pair = (match.home_team, match.away_team)
        return pair if match.tie.home_advances else (pair[1], pair[0])
    for score in (match.score_penalties, match.score_extra_time, match.score_90):
        if score is not None and score.home != score.away:
            pair = (match.home_team, match.away_team)
            return pair if score.home > score.away else (pair[1], pair[0])
    return None


def group_tables(matches: list[SourceMatch], competition: Competition) -> dict[str, list[TableRow]]:
    """Final table of every group whose matches have all finished, per the source."""
    tables: dict[str, list[TableRow]] = {}
    for group in competition.groups:
        played = [m for m in matches if m.group == group.name and not m.knockout]
        expected = len(group.teams) * (len(group.teams) - 1) // 2
        if len(played) < expected or any(not m.status.has_result or m.score_90 is None for m in played):
            continue
        results = [MatchResult(m.home_team, m.away_team, m.score_90.home, m.score_90.away) for m in played]
        tables[group.name] = table_for(competition, group.teams, results)
    return tables


class _Rules:
    """Which teams satisfy a slot rule, given the source's results so far."""

    def __init__(self, matches: list[SourceMatch], competition: Competition):
        self.tables = group_tables(matches, competition)
        self.best_thirds: set[str] = set()
        if competition.groups and len(self.tables) == len(competition.groups):
            thirds = rank_third_placed(rows[2] for rows in self.tables.values() if len(rows) > 2)
            self.best_thirds = {r.team for r in thirds[: competition.best_third_placed]}
        self.numbered: dict[int, SourceMatch] = {}
        self.league = None if competition.groups else league_table(competition, [
            MatchResult(m.home_team, m.away_team, m.score_90.home, m.score_90.away) for m in matches
            if not m.knockout and m.status.has_result and m.score_90 is not None and m.home_team and m.away_team])

    def candidates(self, rule: str) -> set[str]:
        if rule[0] in "12":
            rows = self.tables.get(rule[1])
            return {rows[int(rule[0]) - 1].team} if rows else set()
        if rule[0] == "P":
            return {self.league[int(rule[1:]) - 1].team} if self.league else set()
        if rule[0] == "3":
            return {self.tables[g][2].team for g in rule[1:].split("/") if g in self.tables} & self.best_thirds
        match = self.numbered.get(int(rule[1:]))
        decided = winner_and_loser(match) if match is not None else None
        return set() if decided is None else {decided[0] if rule[0] == "W" else decided[1]}


def assign_match_numbers(matches: list[SourceMatch], competition: Competition) -> list[SourceMatch]:
    """``matches`` with knockout matches numbered by the bracket (kickoff order as a fallback)."""
    rules = _Rules(matches, competition)
    out = list(matches)
    slots = defaultdict(list)
    for slot in competition.knockout_slots:
        slots[slot.stage].append(slot)
    for stage in sorted((s for s in competition.stages if s.knockout), key=lambda s: s.order):
        free = sorted(slots[stage.id], key=lambda s: s.match_number)
        todo = sorted((i for i, m in enumerate(out) if m.stage == stage.id and m.match_number is None),
                      key=lambda i: (out[i].kickoff_utc is None, out[i].kickoff_utc, out[i].label))
        for i in list(todo):
            m = out[i]
            slot = next((s for s in free if m.home_team in rules.candidates(s.home_rule)
                         and m.away_team in rules.candidates(s.away_rule)), None)
            if slot is not None:
                out[i] = replace(m, match_number=slot.match_number)
                free.remove(slot)
                todo.remove(i)
        for i, slot in zip(todo, free, strict=False):  # not placeable: kickoff order
            out[i] = replace(out[i], match_number=slot.match_number)
        for m in out:
            if m.stage == stage.id and m.match_number is not None:
                rules.numbered[m.match_number] = m
    return out


def by_date_order(matches: list[SourceMatch]) -> dict[tuple[str, object], list[int]]:
    """Indices of knockout matches per (stage, local date), in kickoff order then the source's order."""
    groups: dict[tuple[str, object], list[int]] = defaultdict(list)
    for i, m in enumerate(matches):
        if m.knockout:
            groups[(m.stage, m.kickoff_date)].append(i)
    for key, indices in groups.items():
        groups[key] = sorted(indices, key=lambda i: (matches[i].kickoff_utc is None, matches[i].kickoff_utc, i))
    return groups


def number_by_slot_dates(matches: list[SourceMatch], competition: Competition) -> list[SourceMatch]:
    """Knockout matches without a number get the one of the slot with their stage, date and position.

    A definition derived from a source without match numbers records, per slot, the match's
    local date and its position among that stage's matches of the day (``source_date``,
    ``source_index``). A match no slot names keeps no number (and so no rule: it is registered
    only once every earlier stage has finished).
    """
    keyed = {(s.stage, s.source_date, s.source_index): s.match_number
             for s in competition.knockout_slots if s.source_date is not None and s.source_index is not None}
    if not keyed:
        return matches
    out = list(matches)
    for (stage, day), indices in by_date_order(matches).items():
        for position, i in enumerate(indices):
            number = keyed.get((stage, day, position))
            if out[i].match_number is None and number is not None:
                out[i] = replace(out[i], match_number=number)
    return out
