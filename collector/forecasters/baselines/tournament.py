"""A baseline's full-tournament forecast: its modal bracket and its reach-round probabilities.

Cups. Each group match gets the baseline's 90-minute 1X2 probabilities and, as its score, the
most likely score *of the most likely result* (the headline score agrees with the largest
probability, WorldCupArena A.3). The tables those scores produce give the knockout pairings
(``collector.forecasters.tournament.bracket``, the same code that checks an LLM's answers);
each knockout match then goes to the team more likely to advance, with the most likely score
after extra time consistent with it, round by round to the final. This is the bracket made of
every match's mode: the mode over whole simulated brackets does not exist in practice (no two
of 10,000 simulated 48-team brackets are alike). Asked when the group stage is over
(``groups_complete``), the real tables replace the forecast group matches.

The probability of each team reaching each knockout round comes from the Monte Carlo
simulation of the remaining tournament (``simulate``), seeded. Leagues: the final table by
expected points from the same simulation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from collector.forecasters.tasks import ForecastTask
from collector.forecasters.tournament.bracket import (
    expected_pairings,
    group_fixtures,
    predicted_tables,
    real_tables,
    slots_in_order,
)
from collector.records import (
    CompetitionFormat,
    GroupMatchForecast,
    Horizon,
    KnockoutMatchForecast,
    ReachProbability,
    Score,
    TableEntry,
    TournamentForecast,
    advancement_rounds,
    round_ties,
)

from .common import MatchView, venue_edge
from .scoregrid import knockout_odds
from .simulate import (
    PairView,
    Sampler,
    league_scores,
    simulate_groups,
    simulate_knockouts,
)

PROBABILITY_DIGITS = 6


def _normalised(probs) -> tuple[float, float, float]:
    arr = np.clip(np.asarray(probs, dtype=float), 0.0, 1.0)
    arr = np.round(arr / arr.sum(), PROBABILITY_DIGITS)
    return float(arr[0]), float(arr[1]), float(round(1.0 - arr[0] - arr[1], PROBABILITY_DIGITS))


def modal_score(grid: np.ndarray, result: int) -> Score:
    """The most likely score with result ``result`` (0 home win, 1 draw, 2 away win); fewer goals on ties."""
    i, j = np.indices(grid.shape)
    mask = (i > j) if result == 0 else (i == j) if result == 1 else (i < j)
    masked = np.where(mask, grid, -1.0) - 1e-12 * (i + j)
    h, a = np.unravel_index(int(np.argmax(masked)), grid.shape)
    return Score(home=int(h), away=int(a))


def group_match(view: MatchView, group: str, home: str, away: str) -> GroupMatchForecast:
    h, d, a = _normalised(view.outcome())
    return GroupMatchForecast(group=group, home=home, away=away, home_win=h, draw=d, away_win=a,
                              score=modal_score(view.grid, int(np.argmax([h, d, a]))))


def knockout_match(view: MatchView, number: int, stage: str, home: str, away: str, *,
                   extra_time: bool) -> KnockoutMatchForecast:
    odds = knockout_odds(view.grid, view.rate_home, view.rate_away, view.probs_90, extra_time=extra_time)
    home_goes = odds.home_advances >= 0.5
    full = odds.full_grid
    i, j = np.indices(full.shape)
    allowed = ((i >= j) if home_goes else (i <= j))
    masked = np.where(allowed, full, -1.0) - 1e-12 * (i + j)
    h, a = np.unravel_index(int(np.argmax(masked)), full.shape)
    p = odds.home_advances if home_goes else 1.0 - odds.home_advances
    return KnockoutMatchForecast(match_number=number, stage=stage, home=home, away=away,
                                 score=Score(home=int(h), away=int(a)), advances=home if home_goes else away,
                                 advance_probability=round(float(p), PROBABILITY_DIGITS))


def modal_bracket(task: ForecastTask, view: PairView, with_groups: bool) -> TournamentForecast:
    """Group matches (or, once they are played, the real tables) and the knockouts they produce."""
    comp = task.competition
    venues = {frozenset((e.home_team, e.away_team)): e.venue for e in task.fixtures if not e.knockout}
    groups = tuple(group_match(view(f.home, f.away, venue_edge(comp, f.home, f.away, venues.get(frozenset((f.home, f.away))))),
                               f.group, f.home, f.away) for f in group_fixtures(comp, task.fixtures)) if with_groups else ()
    tables = predicted_tables(comp, TournamentForecast(format="cup", group_matches=groups)) if with_groups \
        else real_tables(task)
    results: dict[int, tuple[str, str]] = {}
    knockouts = []
    for slot in slots_in_order(comp):
        pair = expected_pairings(comp, tables, results).get(slot.match_number)
        if pair is None:
            continue
        m = knockout_match(view(pair[0], pair[1], venue_edge(comp, pair[0], pair[1], None)),
                           slot.match_number, slot.stage, *pair, extra_time=comp.plays_extra_time(slot.stage))
        knockouts.append(m)
        results[slot.match_number] = (m.advances, pair[1] if m.advances == pair[0] else pair[0])
    return TournamentForecast(format="cup", group_matches=groups, knockout_matches=tuple(knockouts))


def reach_probabilities(task: ForecastTask, view: PairView, seed: int, n: int) -> tuple[ReachProbability, ...]:
    """P(team plays in knockout round r) from ``n`` seeded simulations of the rest of the tournament."""
    comp = task.competition
    sampler = Sampler(view, np.random.default_rng(seed))
    goals = {t.id: np.zeros(n, dtype=int) for t in comp.teams}
    ranked, rows = simulate_groups(task, sampler, n, goals)
    ko = simulate_knockouts(task, sampler, n, ranked, rows, goals)
    out = []
    for stage in advancement_rounds(comp):
        counts: dict[str, int] = {}
        for m in round_ties(comp, stage):  # a two-legged tie is simulated at its second leg's slot
            for side in ko["teams"][m]:
                for team in side.tolist():
                    if team:
                        counts[team] = counts.get(team, 0) + 1
        out += [ReachProbability(team=t, stage=stage, probability=round(c / n, PROBABILITY_DIGITS))
                for t, c in sorted(counts.items())]
    return tuple(out)


def league_table(task: ForecastTask, view: PairView, seed: int, n: int) -> TournamentForecast:
    """The final table by mean simulated points (the competition's points for a win and a draw; known
    results kept; ties: team id), whole points."""
    sampler = Sampler(view, np.random.default_rng(seed))
    win, draw = task.competition.points_for_win, task.competition.points_for_draw
    points = {t.id: np.zeros(n) for t in task.competition.teams}
    for event, hg, ag in league_scores(task, sampler, n):
        points[event.home_team] += np.where(hg > ag, win, np.where(hg == ag, draw, 0))
        points[event.away_team] += np.where(ag > hg, win, np.where(hg == ag, draw, 0))
    mean = {t: float(p.mean()) for t, p in points.items()}
    ordered = sorted(mean, key=lambda t: (-mean[t], t))
    entries, floor = [], None
    for position, team in enumerate(ordered, start=1):
        floor = round(mean[team]) if floor is None else min(floor, round(mean[team]))
        entries.append(TableEntry(team=team, position=position, points=int(floor)))
    return TournamentForecast(format="league", table=tuple(entries),
                              reason=f"Monte Carlo: {n} simulations (seed {seed}), mean points; "
                                     f"{len(task.history)} results known.")


def tournament_forecast(task: ForecastTask, view: PairView, seed: int, n: int) -> tuple[TournamentForecast, dict[str, Any]]:
    """The baseline's full-tournament payload and the inputs recorded beside it."""
    comp = task.competition
    inputs: dict[str, Any] = {"simulations": n, "seed": seed, "results_known": len(task.history)}
    if comp.format is not CompetitionFormat.TOURNAMENT:
        return league_table(task, view, seed, n), inputs
    bracket = modal_bracket(task, view, with_groups=task.horizon is not Horizon.GROUPS_COMPLETE)
    reach = reach_probabilities(task, view, seed, n)
    reason = (f"Modal bracket (every match's most likely result); reach probabilities from {n} simulations "
              f"(seed {seed}); {len(task.history)} results known.")
    payload = TournamentForecast(format="cup", group_matches=bracket.group_matches,
                                 knockout_matches=bracket.knockout_matches, reach=reach, reason=reason)
    return payload, inputs
