"""Which teams a knockout slot rule yields, from the results decided so far.

A rule is ``1E``/``2E`` (group E's winner/runner-up), ``3A/B/C/D/F`` (a best third-placed
team from one of those groups), ``W74``/``L74`` (winner/loser of match 74), or ``P4`` (4th
of the table of a league with play-offs: decided once every team has met every other the same
number of times and every result is known). Given the results decided at some moment (:class:`Decided`), :func:`rule_teams` returns

* ``None`` while the rule is not decided (a group unfinished, match 74 not played);
* else the set of teams that satisfy it: one team, or several when the table leaves teams
  level on every criterion the sources allow (fair play, drawing of lots) — a source that
  names any of them agrees with the rule.

Best thirds: with the competition's ``best_third_table`` the team is exactly the third of the
group the official table assigns to this match; without one, any qualified third of the
rule's groups satisfies it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from collector.competitions.standings import (
    MatchResult,
    TableRow,
    rank_third_placed,
    table_for,
)
from collector.records import Competition


@dataclass(frozen=True)
class Decided:
    """Results decided at one moment: complete group tables and decided knockout matches."""

    tables: dict[str, list[TableRow]] = field(default_factory=dict)  # only groups whose every match is decided
    knockouts: dict[int, tuple[str, str]] = field(default_factory=dict)  # match number -> (winner, loser)
    groups: int = 0  # how many groups the competition has
    league: list[TableRow] | None = None  # a league with play-offs: its final table, once every match is decided


def group_table(competition: Competition, group: str, results: Iterable[MatchResult]) -> list[TableRow] | None:
    """The final table of ``group`` when all its round-robin results are given, else None."""
    teams = next((g.teams for g in competition.groups if g.name == group), ())
    played = list(results)
    if not teams or len(played) < len(teams) * (len(teams) - 1) // 2:
        return None
    return table_for(competition, teams, played)


def complete_round_robin(pairs: Iterable[tuple[str, str]], teams: Iterable[str]) -> bool:
    """Whether ``pairs`` are every team against every other, each pair the same number of times (>= 1)."""
    ids = sorted(set(teams))
    met = Counter(tuple(sorted(p)) for p in pairs)
    wanted = {(a, b) for i, a in enumerate(ids) for b in ids[i + 1:]}
    return bool(wanted) and set(met) == wanted and len(set(met.values())) == 1


def league_table(competition: Competition, results: Iterable[MatchResult]) -> list[TableRow] | None:
    """The final table of a league (no groups) when ``results`` are a complete round robin, else None."""
    played = list(results)
    teams = [t.id for t in competition.teams]
    if competition.groups or not complete_round_robin(((r.home, r.away) for r in played), teams):
        return None
    return table_for(competition, teams, played)


def _at(rows: list[TableRow], position: int) -> set[str]:
    """Teams that may hold 1-based ``position``: one, or a block level on every criterion."""
    sizes = {r.rank: sum(1 for o in rows if o.rank == r.rank) for r in rows}
    return {r.team for r in rows if r.rank <= position < r.rank + sizes[r.rank]}


def qualified_thirds(competition: Competition, decided: Decided) -> list[str] | None:
    """Groups whose third-placed team goes through, best first; None until every group is decided."""
    if not competition.groups or len(decided.tables) < len(competition.groups):
        return None
    thirds = {rows[2].team: name for name, rows in decided.tables.items() if len(rows) > 2}
    ranked = rank_third_placed(rows[2] for rows in decided.tables.values() if len(rows) > 2)
    return [thirds[r.team] for r in ranked[: competition.best_third_placed]]


def rule_teams(rule: str, competition: Competition, decided: Decided, match_number: int | None = None) -> set[str] | None:
    """The teams ``rule`` yields (see the module docstring); None while it is undecided."""
    if rule[0] in "12":
        rows = decided.tables.get(rule[1:])
        return None if rows is None else _at(rows, int(rule[0]))
    if rule[0] == "P":
        return None if decided.league is None else _at(decided.league, int(rule[1:]))
    if rule[0] == "3":
        qualified = qualified_thirds(competition, decided)
        if qualified is None:
            return None
        groups = rule[1:].split("/")
        if competition.best_third_table and match_number is not None:
            chosen = competition.third_placed_in("".join(qualified), match_number)
            groups = [chosen] if chosen in groups else []
        return set().union(*(_at(decided.tables[g], 3) for g in groups if g in qualified))
    pair = decided.knockouts.get(int(rule[1:]))
    if pair is None:
        return None
    return {pair[0] if rule[0] == "W" else pair[1]}

