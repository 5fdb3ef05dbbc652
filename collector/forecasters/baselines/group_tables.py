"""Simulated group tables: points, goal difference and goals per simulation, ranked by the
competition's tie-breakers (the same rule as ``collector.competitions.standings.compute_table``,
on plain tuples, so the Monte Carlo of :mod:`.simulate` ranks thousands of tables quickly).
"""

from __future__ import annotations

import numpy as np

from collector.records import TieBreakers


def add_result(pts: np.ndarray, gd: np.ndarray, gf: np.ndarray, h: int, a: int, hg, ag,
               points: tuple[int, int]) -> None:
    """Add one match (home goals ``hg``, away goals ``ag`` per simulation) to the table columns h and a;
    ``points`` for a win and a draw (the competition's)."""
    win, draw = points
    pts[:, h] += np.where(hg > ag, win, np.where(hg == ag, draw, 0))
    pts[:, a] += np.where(ag > hg, win, np.where(hg == ag, draw, 0))
    gd[:, h] += hg - ag
    gd[:, a] += ag - hg
    gf[:, h] += hg
    gf[:, a] += ag


def rank_group(teams, scores, tie_breakers, n, points: tuple[int, int]):
    """Each simulation's table of one group, best first, and its (index, (n, teams, 3) points/gd/goals) columns.

    ``scores``: (home, away, home goals per simulation, away goals per simulation) per fixture;
    the points order is vectorised, and only simulations with a tie run :func:`rank_table`.
    """
    index = {t: i for i, t in enumerate(teams)}
    pts = np.zeros((n, len(teams)), dtype=int)
    gd = np.zeros_like(pts)
    gf = np.zeros_like(pts)
    pairs = []
    for home, away, hg, ag in scores:
        h, a = index[home], index[away]
        pairs.append((h, a))
        add_result(pts, gd, gf, h, a, hg, ag, points)
    order = np.argsort(-pts, axis=1, kind="stable")
    sorted_pts = np.take_along_axis(pts, order, axis=1)
    tied = np.any(sorted_pts[:, 1:] == sorted_pts[:, :-1], axis=1)
    ranked = [[teams[j] for j in order[s]] for s in range(n)]
    goals = np.stack([np.stack([hg, ag], axis=1) for *_, hg, ag in scores], axis=1) if scores else None
    names = {i: t for t, i in index.items()}
    for s in np.flatnonzero(tied):
        results = [(h, a, int(goals[s, k, 0]), int(goals[s, k, 1])) for k, (h, a) in enumerate(pairs)]
        ranked[s] = [names[i] for i in rank_table(len(teams), results, tie_breakers, names, points)]
    stats = np.stack([pts, gd, gf], axis=2)  # (n, teams, 3), in the group's team order
    return ranked, (index, stats)


def _tally(level: frozenset, results, points: tuple[int, int]) -> dict[int, tuple[int, int, int]]:
    """(points, goal difference, goals) per team index, counting only matches among ``level``."""
    rows = {t: [0, 0, 0] for t in level}
    win, draw = points
    for h, a, hg, ag in results:
        if h in level and a in level:
            rows[h][0] += win if hg > ag else draw if hg == ag else 0
            rows[a][0] += win if ag > hg else draw if hg == ag else 0
            rows[h][1] += hg - ag
            rows[a][1] += ag - hg
            rows[h][2] += hg
            rows[a][2] += ag
    return {t: tuple(v) for t, v in rows.items()}


def rank_table(size: int, results, tie_breakers, names: dict[int, str], points: tuple[int, int]) -> list[int]:
    """Team indices best first: the same rule as ``collector.competitions.standings.compute_table``, on plain tuples.

    Criteria in the competition's order; head to head = points, goal difference, goals among
    the teams still level; fair play and lots (no data) leave ties in team-id order.
    """
    full = _tally(frozenset(range(size)), results, points)
    column = {TieBreakers.POINTS: 0, TieBreakers.GOAL_DIFFERENCE: 1, TieBreakers.GOALS_FOR: 2}

    def split(level: list[int], criteria) -> list[int]:
        if len(level) <= 1 or not criteria:
            return sorted(level, key=lambda t: names[t])
        first = criteria[0]
        if first is TieBreakers.HEAD_TO_HEAD:
            mini = _tally(frozenset(level), results, points)
            key = {t: mini[t] for t in level}
        elif first in column:
            key = {t: (full[t][column[first]],) for t in level}
        else:
            key = {t: () for t in level}
        out: list[int] = []
        for value in sorted(set(key.values()), reverse=True):
            out += split([t for t in level if key[t] == value], criteria[1:])
        return out

    return split(list(range(size)), list(tie_breakers))
