"""Group and league tables with a competition's tie-breakers, and the ranking of third-placed teams.

Pure functions over plain results, so the baseline simulations can call them on simulated
scores as well as the archive's outcomes::

    table = compute_table(teams, [MatchResult("mex", "rsa", 2, 0), ...], tie_breakers, points=(3, 1))
    table[0].team  # the group winner

A competition's table is :func:`table_for` (its tie-breakers and its points for a win and a draw:
two a win before 1994); ``points`` has no default, so no table can forget the edition's rule.

Tie-breakers are applied in the competition's order. ``head_to_head`` compares points, then
goal difference, then goals scored in the matches among the teams still level (FIFA 2026
art. 13; the Liga and Serie A rules). ``fair_play`` and ``drawing_of_lots`` need data the
sources do not carry: teams still level after every usable criterion keep alphabetical order
by team id, and :attr:`TableRow.tied` marks them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from collector.records import Competition, TieBreakers


@dataclass(frozen=True)
class MatchResult:
    """A 90-minute (regulation) result between two teams."""

    home: str
    away: str
    home_goals: int
    away_goals: int


@dataclass(frozen=True)
class TableRow:
    team: str
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    goals_for: int = 0
    goals_against: int = 0
    tied: bool = False  # level with a neighbour on every criterion that could be applied
    rank: int = 0  # 1-based position; teams level on every criterion share the rank
    win_points: int = 3  # the edition's points for a win and a draw (:func:`tally` sets them)
    draw_points: int = 1

    @property
    def points(self) -> int:
        return self.win_points * self.won + self.draw_points * self.drawn

    @property
    def goal_difference(self) -> int:
        return self.goals_for - self.goals_against


def tally(teams: Iterable[str], results: Iterable[MatchResult], points: tuple[int, int]) -> dict[str, TableRow]:
    """Played/won/drawn/lost/goals per team, counting only results between ``teams``; ``points`` for a win, a draw."""
    rows = {team: TableRow(team, win_points=points[0], draw_points=points[1]) for team in teams}
    for r in results:
        if r.home not in rows or r.away not in rows:
            continue
        for team, scored, conceded in ((r.home, r.home_goals, r.away_goals), (r.away, r.away_goals, r.home_goals)):
            row = rows[team]
            rows[team] = replace(
                row,
                played=row.played + 1,
                won=row.won + (scored > conceded),
                drawn=row.drawn + (scored == conceded),
                lost=row.lost + (scored < conceded),
                goals_for=row.goals_for + scored,
                goals_against=row.goals_against + conceded,
            )
    return rows


def _key(criterion: TieBreakers, level: Sequence[str], rows: dict[str, TableRow], results: Sequence[MatchResult]):
    """Per-team sort key (higher is better) for one criterion among the teams ``level``."""
    if criterion is TieBreakers.POINTS:
        return {t: (rows[t].points,) for t in level}
    if criterion is TieBreakers.GOAL_DIFFERENCE:
        return {t: (rows[t].goal_difference,) for t in level}
    if criterion is TieBreakers.GOALS_FOR:
        return {t: (rows[t].goals_for,) for t in level}
    if criterion is TieBreakers.HEAD_TO_HEAD:
        mini = tally(level, results, (rows[level[0]].win_points, rows[level[0]].draw_points))
        return {t: (mini[t].points, mini[t].goal_difference, mini[t].goals_for) for t in level}
    return {t: () for t in level}  # fair play, lots: no data


def _order(level: list[str], criteria: Sequence[TieBreakers], rows, results) -> list[list[str]]:
    """Split ``level`` into ordered blocks of teams that remain level after ``criteria``."""
    if len(level) <= 1 or not criteria:
        return [sorted(level)]
    keys = _key(criteria[0], level, rows, results)
    blocks: list[list[str]] = []
    for value in sorted({keys[t] for t in level}, reverse=True):
        same = [t for t in level if keys[t] == value]
        blocks += _order(same, criteria[1:], rows, results)
    return blocks


def compute_table(
    teams: Iterable[str], results: Sequence[MatchResult], tie_breakers: Sequence[TieBreakers],
    points: tuple[int, int],
) -> list[TableRow]:
    """The table, best first, ordered by ``tie_breakers`` (points should come first)."""
    rows = tally(teams, results, points)
    ordered: list[TableRow] = []
    for block in _order(list(rows), list(tie_breakers), rows, results):
        rank = len(ordered) + 1
        ordered += [replace(rows[t], tied=len(block) > 1, rank=rank) for t in block]
    return ordered


def table_for(competition: Competition, teams: Iterable[str], results: Sequence[MatchResult]) -> list[TableRow]:
    """:func:`compute_table` with the competition's tie-breakers and points for a win and a draw."""
    return compute_table(teams, results, competition.tie_breakers,
                         (competition.points_for_win, competition.points_for_draw))


def rank_third_placed(thirds: Iterable[TableRow]) -> list[TableRow]:
    """Third-placed teams across groups, best first: points, goal difference, goals scored.

    FIFA 2026 regulations art. 13: the best eight of the twelve go through (fair play and the
    world ranking, which follow, are not in the sources; remaining ties go by team id).
    """
    return sorted(thirds, key=lambda r: (-r.points, -r.goal_difference, -r.goals_for, r.team))
