"""The simulator's two-legged model: an undecided tie is played as a tie (two legs, aggregate,
away goals when the definition says so, extra time and penalties after the second leg).

Checked by hand-worked values, by a brute-force enumeration (an independent scalar statement
of the rules) against a seeded Monte Carlo, and by mirror symmetry.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from collector.archive.reader import load_archive
from collector.cli import main
from collector.forecasters.baselines.common import MatchView
from collector.forecasters.baselines.scoregrid import EXTRA_TIME_SHARE, score_grid
from collector.forecasters.baselines.simulate import Sampler, simulate
from collector.forecasters.baselines.two_legs import tie, tie_outcome
from collector.forecasters.tasks import ForecastTask, KnownResult
from collector.records import Access, Clock, Horizon, Score, Strategy
from tests.test_cup_two_legs import CID, cup  # noqa: F401 (the fixture)

SIZE = 11


def _grid(cells: dict[tuple[int, int], float]) -> np.ndarray:
    grid = np.zeros((SIZE, SIZE))
    for (h, a), p in cells.items():
        grid[h, a] = p
    return grid / grid.sum()


def _sampler(grids, rates=None, seed=7):
    """A sampler over fixed grids: ``grids[(home, away)]``, extra time from ``rates[(home, away)]`` (else none)."""
    rates = rates or {}

    def view(home, away, edge):
        rh, ra = rates.get((home, away), (0.0, 0.0))
        return MatchView(grid=grids[(home, away)], rate_home=rh, rate_away=ra)

    return Sampler(view, np.random.default_rng(seed))


def _arr(*values):
    return np.array(values)


def test_tie_outcome_by_hand():
    # first leg A 2-1 H, second leg H 1-0 A: 2-2 on aggregate
    no_et = dict(extra_h=_arr(0), extra_a=_arr(0), coin=_arr(False))
    h, a, through = tie_outcome(_arr(1), _arr(2), _arr(1), _arr(0), extra_h=_arr(1), extra_a=_arr(0),
                                coin=_arr(False), away_goals=False)
    assert (h[0], a[0], through[0]) == (3, 2, True)  # extra time 1-0 in the second leg
    h, a, through = tie_outcome(_arr(1), _arr(2), _arr(1), _arr(0), extra_h=_arr(0), extra_a=_arr(3),
                                coin=_arr(True), away_goals=True)
    assert (h[0], a[0], through[0]) == (2, 2, True)  # H's away goal decides: no extra time played
    # 0-0, then 1-1: A's away goal
    assert not tie_outcome(_arr(0), _arr(0), _arr(1), _arr(1), away_goals=True, **no_et)[2][0]
    assert tie_outcome(_arr(0), _arr(0), _arr(1), _arr(1), extra_h=_arr(0), extra_a=_arr(0), coin=_arr(True),
                       away_goals=False)[2][0]  # without the rule: penalties
    # 0-0 and 0-0, 1-1 in extra time: with the rule A's extra-time goal is an away goal
    h, a, through = tie_outcome(_arr(0), _arr(0), _arr(0), _arr(0), extra_h=_arr(1), extra_a=_arr(1),
                                coin=_arr(True), away_goals=True)
    assert (h[0], a[0], through[0]) == (1, 1, False)
    assert tie_outcome(_arr(0), _arr(0), _arr(0), _arr(0), extra_h=_arr(1), extra_a=_arr(1), coin=_arr(True),
                       away_goals=False)[2][0]


@pytest.mark.parametrize(("away_goals", "expected"), [(False, 0.3 + 0.6 * 0.5), (True, 0.3 + 0.6)])
def test_a_known_first_leg_hand_worked(away_goals, expected):
    """First leg A 2-1 H known; second leg H 2-0 (0.3), 1-0 (0.6) or 0-0 (0.1), no extra-time goals.

    1-0 makes 2-2 on aggregate: without away goals extra time (none scored) and penalties,
    0.3 + 0.6/2; with them H's away goal against A's none, 0.3 + 0.6.
    """
    sampler = _sampler({("h", "a"): _grid({(2, 0): 0.3, (1, 0): 0.6, (0, 0): 0.1})})
    n = 200_000
    hg, ag, through = tie(sampler, "h", "a", n, edge_first=1, edge_second=1, away_goals=away_goals, extra_time=True,
                          first_leg=Score(home=2, away=1))
    assert abs(through.mean() - expected) < 4 * np.sqrt(0.25 / n)
    assert ag.max() == 0 and set(np.unique(hg)) == {0, 1, 2}  # the known first leg's goals are not added again


LEG = {(0, 0): 0.25, (1, 0): 0.2, (0, 1): 0.15, (1, 1): 0.15, (2, 0): 0.1, (2, 1): 0.1, (0, 2): 0.05}
AWAY = {(0, 0): 0.3, (1, 0): 0.15, (0, 1): 0.25, (1, 1): 0.1, (0, 2): 0.1, (1, 2): 0.1}
RATES = {("h", "a"): (1.5, 0.9)}


def _brute_force(first: dict, second: dict, extra: np.ndarray, away_goals: bool) -> float:
    """P(H through), the rules stated once more as scalar if/else over every combination of scores."""
    total = 0.0
    for (fa, fh), p1 in first.items():  # first leg: A at home
        for (sh, sa), p2 in second.items():
            if sh + fh != sa + fa:
                total += p1 * p2 * (sh + fh > sa + fa)
                continue
            if away_goals and fh != sa:
                total += p1 * p2 * (fh > sa)
                continue
            for eh in range(SIZE):
                for ea in range(SIZE):
                    p = p1 * p2 * extra[eh, ea]
                    h, a = sh + eh + fh, sa + ea + fa
                    if h != a:
                        total += p * (h > a)
                    elif away_goals and fh != sa + ea:
                        total += p * (fh > sa + ea)
                    else:
                        total += p * 0.5
    return total


@pytest.mark.parametrize("away_goals", [False, True])
def test_monte_carlo_against_enumeration(away_goals):
    first, second = AWAY, LEG
    sampler = _sampler({("a", "h"): _grid(first), ("h", "a"): _grid(second)}, RATES, seed=11)
    extra = score_grid(1.5 * EXTRA_TIME_SHARE, 0.9 * EXTRA_TIME_SHARE)
    exact = _brute_force(first, second, extra, away_goals)
    n = 400_000
    _, _, through = tie(sampler, "h", "a", n, edge_first=1, edge_second=1, away_goals=away_goals, extra_time=True)
    assert abs(through.mean() - exact) < 4 * np.sqrt(exact * (1 - exact) / n)
    assert 0.2 < exact < 0.8  # not a foregone tie


def test_mirrored_legs_without_extra_time_goals_are_a_coin():
    """Both legs from one home/away grid, no extra-time goals: home advantage cancels, P = 1/2 exactly."""
    grids = {("h", "a"): _grid(LEG), ("a", "h"): _grid(LEG)}
    exact = _brute_force(LEG, LEG, _grid({(0, 0): 1.0}), False)
    assert exact == pytest.approx(0.5)
    _, _, through = tie(_sampler(grids, seed=3), "h", "a", 200_000, edge_first=1, edge_second=1, away_goals=False,
                        extra_time=True)
    assert abs(through.mean() - 0.5) < 4 * np.sqrt(0.25 / 200_000)


@pytest.mark.slow
def test_the_simulator_plays_an_undecided_tie_from_its_known_first_leg(cup, tmp_path):  # noqa: F811 (the fixture)
    """cup-16-two-legs after the quarter-finals' first legs (tests/test_cup_two_legs.py): Hawks D
    beat Lions C 2-0. Lions C's chance of the semi-finals is the tie's (win the second leg at home
    by three, or by two and then extra time or penalties), not a single match's."""
    config, data = cup
    archive = tmp_path / "a"
    assert main(["sync", "--competition", CID, "--config", str(config), "--data-dir", str(data),
                 "--now", "2025-10-10", "--archive", str(archive)]) == 0
    view = load_archive(archive)
    competition = view.competitions[CID]
    events = [e for e in view.events.values()]
    history = [KnownResult(e, view.outcomes[(CID, e.id)]) for e in events if (CID, e.id) in view.outcomes]
    when = datetime(2025, 10, 10, tzinfo=UTC)
    task = ForecastTask(competition=competition, access=Access.CLOSED_BOOK, strategy=Strategy.PROBABILISTIC_FORECAST,
                        horizon=Horizon.STAGE_OPENING, sample=0, scheduled_at=when, now=when, deadline=when,
                        clock=Clock.REPLAY, fixtures=events, history=history)

    def pair_view(home, away, edge):
        rate = 1.6 if edge > 0 else 1.1  # a home side scores more: the legs must be played at home
        return MatchView(grid=score_grid(rate, 1.0), rate_home=rate, rate_away=1.0)

    n = 40_000
    answers = simulate(task, pair_view, seed=5, n=n)
    assert all(len(set(a)) == len(a) == 4 for a in answers["semifinalists"])  # each two-legged tie counted once
    semis = [set(a) for a in answers["semifinalists"]]
    p = float(np.mean(["lions-c" in s for s in semis]))
    exact = _brute_force({(2, 0): 1.0}, {k: v for k, v in np.ndenumerate(score_grid(1.6, 1.0))},
                         score_grid(1.6 * EXTRA_TIME_SHARE, EXTRA_TIME_SHARE), False)
    assert abs(p - exact) < 4 * np.sqrt(exact * (1 - exact) / n) and exact < 0.25
    assert all("hawks-d" in s or "lions-c" in s for s in semis)  # one of the tie's two, never anyone else


def test_the_simulator_answers_the_champion_of_a_two_legged_final():
    """The final is the last round's tie, played at its second leg's slot (never its first leg); once
    the tie is decided its ``advancing_team`` is every simulation's champion."""
    from tests.factories import T0
    from tests.tournament_helpers import real_two_legged, two_legged_cup

    competition = two_legged_cup(final_legs=True)
    events, outcomes = real_two_legged(final_legs=True)

    def task(known):
        return ForecastTask(competition=competition, access=Access.CLOSED_BOOK, strategy=Strategy.PROBABILISTIC_FORECAST,
                            horizon=Horizon.STAGE_OPENING, sample=0, scheduled_at=T0, now=T0, deadline=T0,
                            clock=Clock.REPLAY, fixtures=events,
                            history=[KnownResult(e, outcomes[e.id]) for e in events if e.id in known])

    def pair_view(home, away, edge):
        return MatchView(grid=score_grid(1.4, 1.1), rate_home=1.4, rate_away=1.1)

    answers = simulate(task(()), pair_view, seed=3, n=2000)  # nothing played
    assert all(len(c) == 1 and c[0] in s for c, s in zip(answers["champion"], answers["semifinalists"], strict=True))
    assert all(len(set(s)) == 4 for s in answers["semifinalists"])
    assert len({c for c, in answers["champion"]}) > 2  # the champion is simulated, not one fixed team
    decided = simulate(task(set(outcomes)), pair_view, seed=3, n=200)
    assert set(decided["champion"]) == {("a1",)} and set(decided["semifinalists"]) == {("a1", "a2", "b1", "b2")}
    first_leg_only = simulate(task(set(outcomes) - {"m18"}), pair_view, seed=3, n=2000)
    assert {c for c, in first_leg_only["champion"]} == {"a1", "b1"}  # the final's teams known, the tie open
