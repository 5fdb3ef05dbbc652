"""Two-legged ties in the Monte Carlo: both legs, the aggregate, then extra time and penalties.

An undecided tie is simulated as a tie, not as one match. Named from the second leg (its home
team ``H``, visitor ``A``; the first leg was ``A`` v ``H``):

* the first leg's 90 minutes: its known score when the source has it, else drawn from the
  baseline's grid of ``A`` at home to ``H``; the second leg's 90 minutes drawn for ``H`` v ``A``;
* aggregate ``H = second_H + first_H``, ``A = second_A + first_A``: more goals go through;
* level, and the definition's ``away_goals`` is true: more away goals go through (``H``'s in
  the first leg against ``A``'s in the second);
* still level: extra time in the second leg only (the baseline's rates times
  ``EXTRA_TIME_SHARE``, ``H`` at home), the aggregate again, then away goals again where the
  rule holds (``A``'s extra-time goals count as away goals, as in
  :mod:`collector.competitions.ties`), then penalties at 50/50.

:func:`tie_outcome` is the rule on arrays (pure); :func:`tie_winners` plays one knockout slot's
ties for every simulation, grouped by pairing. Each leg is played at its home team's ground (edge
+1 in the baseline's view), whatever the tournament's host nations: that is what home and away
legs are.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from collector.records import Score

SIZE = 11  # the score grid's side (0..10 goals), as in simulate
HOME = 1  # each leg is at its home team's ground (the venue edge of a home side)


def tie_outcome(first_h: np.ndarray, first_a: np.ndarray, second_h: np.ndarray, second_a: np.ndarray,
                extra_h: np.ndarray, extra_a: np.ndarray, coin: np.ndarray,
                away_goals: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(H's goals over both legs, A's, H goes through), extra time counted only where it is played.

    ``first_h``/``first_a``: the goals of H (the first leg's visitor) and A (its home team) in
    the first leg; ``second_*``: the second leg's 90 minutes; ``extra_*``: what extra time would
    add; ``coin``: H wins the shoot-out.
    """
    agg_h, agg_a = first_h + second_h, first_a + second_a
    decided, through = agg_h != agg_a, agg_h > agg_a
    if away_goals:
        by_away = ~decided & (first_h != second_a)
        decided, through = decided | by_away, np.where(by_away, first_h > second_a, through)
    level = ~decided
    second_h, second_a = second_h + np.where(level, extra_h, 0), second_a + np.where(level, extra_a, 0)
    agg_h, agg_a = first_h + second_h, first_a + second_a
    by_extra = level & (agg_h != agg_a)
    through = np.where(by_extra, agg_h > agg_a, through)
    level &= ~by_extra
    if away_goals:
        by_away = level & (first_h != second_a)
        through, level = np.where(by_away, first_h > second_a, through), level & ~by_away
    return agg_h, agg_a, np.where(level, coin, through)


def tie(sampler, home: str, away: str, n: int, *, edge_first: int, edge_second: int, away_goals: bool,
        extra_time: bool, first_leg: Score | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n ties whose second leg is ``home`` v ``away``: (home's goals, away's, home goes through).

    ``first_leg``: the first leg's known 90-minute score (``away`` v ``home``), else drawn. Goals
    of a known first leg are not counted again (they are in the history).
    """
    if first_leg is None:
        first_a, first_h = sampler.scores(away, home, edge_first, n)
    else:
        first_a, first_h = np.full(n, first_leg.home), np.full(n, first_leg.away)
    second_h, second_a = sampler.scores(home, away, edge_second, n)
    cells = sampler.rng.choice(SIZE * SIZE, size=n, p=sampler.extra_time(home, away, edge_second)) if extra_time \
        else np.zeros(n, dtype=np.intp)  # no extra time in this stage: a level tie goes to the shoot-out
    coin = sampler.rng.random(n) < 0.5
    agg_h, agg_a, through = tie_outcome(first_h, first_a, second_h, second_a, cells // SIZE, cells % SIZE, coin,
                                        away_goals)
    if first_leg is not None:
        agg_h, agg_a = agg_h - first_h, agg_a - first_a
    return agg_h, agg_a, through


def tie_winners(task: Any, sampler, slot: Any, home: np.ndarray, away: np.ndarray,
                goals: dict[str, np.ndarray]) -> np.ndarray:
    """Per simulation, whether the second leg's home team goes through ``slot``'s tie (adds the goals)."""
    comp, n = task.competition, home.size
    legs = {e.match_number: e for e in task.fixtures if e.match_number == slot.first_leg}
    known = {k.event.id: k.outcome for k in task.history if k.outcome.score_90 is not None}
    first_event = legs.get(slot.first_leg)
    win = np.zeros(n, dtype=bool)
    by_pair: dict[tuple[str, str], list[int]] = {}
    for i, pair in enumerate(zip(home.tolist(), away.tolist(), strict=True)):
        by_pair.setdefault(pair, []).append(i)
    for h, a in sorted(by_pair):
        if not h or not a:
            continue
        sims = np.asarray(by_pair[(h, a)])
        played = first_event is not None and (first_event.home_team, first_event.away_team) == (a, h) \
            and first_event.id in known
        hg, ag, through = tie(sampler, h, a, sims.size, away_goals=comp.away_goals,
                              extra_time=comp.plays_extra_time(slot.stage), edge_first=HOME,
                              edge_second=HOME, first_leg=known[first_event.id].score_90 if played else None)
        win[sims] = through
        for team, scored in ((h, hg), (a, ag)):
            if team in goals:
                goals[team][sims] += scored
    return win
