"""Monte Carlo of the rest of a competition under its real format, for tournament questions.

Tournaments: unplayed group matches are drawn from the baseline's score grid; each group
table follows the competition's tie-breakers (``collector.competitions.standings``: points, head to head,
goal difference, goals scored; remaining ties by team id); the best ``best_third_placed``
third-placed teams (points, goal difference, goals) fill the ``3A/B/C/...`` slots by the
definition's official ``best_third_table`` (UEFA's for 24-team Euros, FIFA's Annex C for 2026), else by
the first valid assignment in match-number order (an approximation, and the forecast's inputs say so:
``best_third_allocation``, :func:`collector.competitions.allocation.allocation_inputs`); knockouts follow ``knockout_slots``
(``1E``, ``2A``, ``3A/B/C``, ``W74``, ``L101``): a drawn 90 minutes goes to extra time at a
third of the rates where the stage plays it (``Competition.plays_extra_time``), then penalties
at 50/50; an undecided two-legged tie is played as a tie at
its second leg's slot (both legs, aggregate, away goals if the definition says so, extra time
and penalties after the second leg: :mod:`.two_legs`). Results already known (``task.history``) are
kept. ``top_scorer_team`` is answered by the proxy "team scoring the most goals" (baselines
do not model players). Leagues: remaining fixtures are drawn and each table ranked by the
competition's points and tie-breakers, as groups are (head to head second in La Liga and Serie A).
Everything is seeded: same inputs and seed, same answer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from collector.competitions.allocation import allocation_inputs
from collector.forecasters.tasks import ForecastTask
from collector.records import (
    Choice,
    CompetitionFormat,
    Event,
    QuestionForecast,
    final_rounds,
    round_ties,
)

from .common import MatchView, venue_edge
from .group_tables import rank_group
from .scoregrid import EXTRA_TIME_SHARE, score_grid
from .two_legs import tie_winners

PairView = Callable[[str, str, int], MatchView]
SIZE = 11  # grid side (0..10 goals)


class Sampler:
    """Draws scores for pairings, caching each pairing's view (rng shared, so draw order matters)."""

    def __init__(self, view: PairView, rng: np.random.Generator):
        self.view, self.rng, self._cache = view, rng, {}

    def _get(self, home: str, away: str, edge: int) -> MatchView:
        key = (home, away, edge)
        if key not in self._cache:
            view = self.view(home, away, edge)
            extra = score_grid(view.rate_home * EXTRA_TIME_SHARE, view.rate_away * EXTRA_TIME_SHARE)
            self._cache[key] = (view, view.grid.ravel() / view.grid.sum(), extra.ravel() / extra.sum())
        return self._cache[key]

    def extra_time(self, home: str, away: str, edge: int) -> np.ndarray:
        """The pairing's extra-time score probabilities, flattened (cell = home * SIZE + away)."""
        return self._get(home, away, edge)[2]

    def scores(self, home: str, away: str, edge: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        probs = self._get(home, away, edge)[1]
        cells = self.rng.choice(probs.size, size=n, p=probs)
        return cells // SIZE, cells % SIZE

    def knockout(self, home: str, away: str, edge: int, n: int, *,
                 extra_time: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(home goals incl. extra time where the stage plays it, away goals, home advances) for n simulations."""
        hg, ag = self.scores(home, away, edge, n)
        if extra_time:
            extra = self._get(home, away, edge)[2]
            level = hg == ag
            cells = self.rng.choice(extra.size, size=n, p=extra)
            hg = hg + np.where(level, cells // SIZE, 0)
            ag = ag + np.where(level, cells % SIZE, 0)
        coin = self.rng.random(n) < 0.5
        return hg, ag, np.where(hg == ag, coin, hg > ag)


def _known(task: ForecastTask) -> dict[str, tuple[Event, Any]]:
    return {k.event.id: (k.event, k.outcome) for k in task.history if k.outcome.score_90 is not None}


def _group_fixtures(task: ForecastTask, group: str, teams: tuple[str, ...]) -> list[tuple[str, str, Event | None]]:
    """Every pairing of the group once: the registered event's orientation when there is one."""
    registered = {frozenset((e.home_team, e.away_team)): e for e in task.fixtures if e.group == group
                  and not e.knockout}
    out = []
    for i, a in enumerate(teams):
        for b in teams[i + 1:]:
            event = registered.get(frozenset((a, b)))
            out.append((event.home_team, event.away_team, event) if event else (a, b, None))
    return out


def simulate_groups(task: ForecastTask, sampler: Sampler, n: int, goals: dict[str, np.ndarray]):
    """Per group: (N, teams) array of finishing positions' team indices, plus per-sim (pts, gd, gf) of rows."""
    comp, known = task.competition, _known(task)
    standings: dict[str, list[list[str]]] = {}
    rows: dict[str, np.ndarray] = {}
    for group in comp.groups:
        teams = group.teams
        fixtures = _group_fixtures(task, group.name, teams)
        scores = []
        for home, away, event in fixtures:
            found = known.get(event.id) if event else None
            if found is not None:
                s = found[1].score_90
                hg, ag = np.full(n, s.home), np.full(n, s.away)
            else:
                edge = venue_edge(comp, home, away, event.venue if event else None)
                hg, ag = sampler.scores(home, away, edge, n)
            goals[home] += hg
            goals[away] += ag
            scores.append((home, away, hg, ag))
        standings[group.name], rows[group.name] = rank_group(teams, scores, comp.tie_breakers, n,
                                                             (comp.points_for_win, comp.points_for_draw))
    return standings, rows


def assign_thirds(slots: list[tuple[int, str, set[str]]], qualified: list[str]) -> dict[tuple[int, str], str]:
    """Groups of the qualified third-placed teams -> slots (match, side) allowing them; first valid assignment.

    Used only when the competition's definition has no official best-third table for the combination.
    """
    result: dict[tuple[int, str], str] = {}

    def place(i: int, left: list[str]) -> bool:
        if i == len(slots):
            return True
        match, side, allowed = slots[i]
        for group in sorted(left):
            if group in allowed:
                result[(match, side)] = group
                if place(i + 1, [g for g in left if g != group]):
                    return True
        return False

    place(0, list(qualified))
    return result


def table_thirds(comp, slots: list[tuple[int, str, set[str]]], combo: frozenset) -> dict[tuple[int, str], str]:
    """The official allocation (the definition's ``best_third_table``) of the qualified groups ``combo``; {} without one."""
    placed = {}
    for match, side, _ in slots:
        group = comp.third_placed_in("".join(sorted(combo)), match)
        if group is None:
            return {}
        placed[(match, side)] = group
    return placed


def _rule_teams(rule: str, n: int, ranked, thirds_at, winners, losers, match: int, side: str) -> np.ndarray:
    if rule[0] in "12":
        pos = int(rule[0]) - 1
        return np.array([ranked[rule[1]][s][pos] for s in range(n)], dtype=object)
    if rule[0] == "3":
        return np.array([thirds_at[s].get((match, side), "") for s in range(n)], dtype=object)
    source = winners if rule[0] == "W" else losers
    return source.get(int(rule[1:]), np.full(n, "", dtype=object))


def _thirds(task: ForecastTask, ranked, rows, n: int) -> list[dict[tuple[int, str], str]]:
    """Per simulation: (match, side) -> the third-placed team placed there."""
    comp = task.competition
    slots = [(k.match_number, side, set(rule[1:].split("/")))
             for k in sorted(comp.knockout_slots, key=lambda k: k.match_number)
             for side, rule in (("home", k.home_rule), ("away", k.away_rule)) if rule.startswith("3")]
    out, memo = [], {}
    for s in range(n):
        thirds = []
        for group in comp.groups:
            team = ranked[group.name][s][2] if len(group.teams) > 2 else None
            if team is not None:
                index, stats = rows[group.name]
                pts, gd, gf = stats[s, index[team]]
                thirds.append((-pts, -gd, -gf, team, group.name))
        qualified = sorted(thirds)[: comp.best_third_placed]
        by_group = {g: t for *_, t, g in qualified}
        combo = frozenset(by_group)
        if combo not in memo:
            memo[combo] = table_thirds(comp, slots, combo) or assign_thirds(slots, list(combo))
        assigned = memo[combo]
        out.append({slot: by_group[g] for slot, g in assigned.items()})
    return out


def simulate_knockouts(task, sampler: Sampler, n: int, ranked, rows, goals) -> dict[str, dict[int, np.ndarray]]:
    """Winners, losers and teams per numbered knockout match, for every simulation."""
    comp, known = task.competition, _known(task)
    registered = {e.match_number: e for e in task.fixtures  # a tie's second leg stands for the tie
                  if (e.knockout or e.leg == 2) and e.match_number is not None}
    thirds_at = _thirds(task, ranked, rows, n)
    winners: dict[int, np.ndarray] = {}
    losers: dict[int, np.ndarray] = {}
    teams: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    first_legs = set(comp.first_legs().values())  # a tie is played at its second leg's slot
    for slot in sorted(comp.knockout_slots, key=lambda k: k.match_number):
        m = slot.match_number
        if m in first_legs:
            continue
        event = registered.get(m)
        outcome = known.get(event.id, (None, None))[1] if event else None
        advancing = advancing_team(event, outcome) if outcome is not None and (
            event.leg is None or outcome.advancing_team) else None
        if advancing is not None:
            home = np.full(n, event.home_team, dtype=object)
            away = np.full(n, event.away_team, dtype=object)
            win = np.full(n, advancing == event.home_team)
        elif slot.first_leg is not None:  # an undecided two-legged tie (collector.forecasters.baselines.two_legs)
            home = _rule_teams(slot.home_rule, n, ranked, thirds_at, winners, losers, m, "home")
            away = _rule_teams(slot.away_rule, n, ranked, thirds_at, winners, losers, m, "away")
            win = tie_winners(task, sampler, slot, home, away, goals)
        else:
            home = _rule_teams(slot.home_rule, n, ranked, thirds_at, winners, losers, m, "home")
            away = _rule_teams(slot.away_rule, n, ranked, thirds_at, winners, losers, m, "away")
            win = np.zeros(n, dtype=bool)
            by_pair: dict[tuple[str, str], list[int]] = {}
            for i, pair in enumerate(zip(home.tolist(), away.tolist(), strict=True)):
                by_pair.setdefault(pair, []).append(i)
            for pair in sorted(by_pair):
                if not pair[0] or not pair[1]:
                    continue
                sims = np.asarray(by_pair[pair])
                edge = venue_edge(comp, pair[0], pair[1], event.venue if event else None)
                hg, ag, adv = sampler.knockout(pair[0], pair[1], edge, sims.size,
                                               extra_time=comp.plays_extra_time(slot.stage))
                win[sims] = adv
                _add_goals(goals, pair[0], sims, hg)
                _add_goals(goals, pair[1], sims, ag)
        winners[m] = np.where(win, home, away)
        losers[m] = np.where(win, away, home)
        teams[m] = (home, away)
    return {"winners": winners, "teams": teams}


def advancing_team(event: Event, outcome: Any) -> str | None:
    """The outcome's advancing team, else the one ahead after penalties, extra time or 90 minutes."""
    if outcome.advancing_team:
        return outcome.advancing_team
    for score in (outcome.score_penalties, outcome.score_extra_time, outcome.score_90):
        if score is not None and score.home != score.away:
            return event.home_team if score.home > score.away else event.away_team
    return None


def _add_goals(goals: dict[str, np.ndarray], team: str, sims: np.ndarray, scored: np.ndarray) -> None:
    if team in goals:
        goals[team][sims] += scored


def tournament_answers(task: ForecastTask, sampler: Sampler, n: int) -> dict[str, list[tuple[str, ...]]]:
    """Question id -> per-simulation answer (tuple of team ids)."""
    comp = task.competition
    goals = {t.id: np.zeros(n, dtype=int) for t in comp.teams}
    ranked, rows = simulate_groups(task, sampler, n, goals)
    answers: dict[str, list[tuple[str, ...]]] = {
        f"group_winner_{g.name.lower()}": [(ranked[g.name][s][0],) for s in range(n)] for g in comp.groups
    }
    if comp.knockout_slots:
        ko = simulate_knockouts(task, sampler, n, ranked, rows, goals)
        semi, final = final_rounds(comp)  # a two-legged tie once, at its second leg
        semis = round_ties(comp, semi) if semi else []
        finals = round_ties(comp, final) if final else []
        if semis:
            answers["semifinalists"] = [
                tuple(sorted(t for m in semis for t in (ko["teams"][m][0][s], ko["teams"][m][1][s]))) for s in range(n)
            ]
        if finals:
            champion = [(ko["winners"][finals[0]][s],) for s in range(n)]
            answers["world_champion"] = answers["champion"] = champion
    ids = [t.id for t in comp.teams]
    table = np.stack([goals[t] for t in ids], axis=1)
    answers["top_scorer_team"] = [(ids[int(i)],) for i in np.argmax(table, axis=1)]
    return answers


def league_scores(task: ForecastTask, sampler: Sampler, n: int):
    """Each league fixture between the competition's teams (by id) with its ``n`` simulated 90-minute
    scores (home, away arrays): a recorded result repeated, otherwise drawn from ``sampler``."""
    teams, known = {t.id for t in task.competition.teams}, _known(task)
    for event in sorted(task.fixtures, key=lambda e: e.id):
        if event.home_team not in teams or event.away_team not in teams:
            continue
        found = known.get(event.id)
        if found is not None:
            yield event, np.full(n, found[1].score_90.home), np.full(n, found[1].score_90.away)
        else:
            yield event, *sampler.scores(event.home_team, event.away_team, 1, n)


def league_answers(task: ForecastTask, sampler: Sampler, n: int) -> dict[str, list[tuple[str, ...]]]:
    """Final-table questions of a league: champion, top four, relegation; each simulated table ranked
    by the competition's points and tie-breakers (head to head right after points in La Liga and Serie A), as
    the questions are resolved (:func:`collector.competitions.standings.table_for`)."""
    comp = task.competition
    ids = [t.id for t in comp.teams]
    scores = [(event.home_team, event.away_team, hg, ag) for event, hg, ag in league_scores(task, sampler, n)]
    tables, _ = rank_group(ids, scores, comp.tie_breakers, n, (comp.points_for_win, comp.points_for_draw))
    bottom = comp.relegation_places or 3
    return {
        "champion": [(table[0],) for table in tables],
        "top_four": [tuple(sorted(table[:4])) for table in tables],
        "relegation": [tuple(sorted(table[-bottom:])) for table in tables],
    }


def simulate(task: ForecastTask, view: PairView, seed: int, n: int) -> dict[str, list[tuple[str, ...]]]:
    sampler = Sampler(view, np.random.default_rng(seed))
    if task.competition.format is CompetitionFormat.TOURNAMENT:
        return tournament_answers(task, sampler, n)
    return league_answers(task, sampler, n)


def question_forecast(
    task: ForecastTask, view: PairView, seed: int, n: int, cache: dict | None = None
) -> tuple[QuestionForecast, dict[str, Any]]:
    """The question's forecast from simulated answers: marginal probability per candidate, top-k picks."""
    question = task.question
    key = (task.competition.id, task.now, len(task.history), len(task.fixtures), seed, n)
    if cache is None or key not in cache:
        answers = simulate(task, view, seed, n)
        if cache is not None:
            cache.clear()  # one simulation per request time is enough
            cache[key] = answers
    else:
        answers = cache[key]
    draws = answers.get(question.id)
    if draws is None:
        raise ValueError(f"question {question.id!r}: the simulation has no answer for it")
    counts = Counter(team for answer in draws for team in answer)
    probs = {team: counts.get(team, 0) / n for team in question.candidates}
    ranked = sorted(question.candidates, key=lambda t: (-probs[t], t))
    picks = tuple(ranked[: question.k])
    choices = tuple(
        Choice(team=t, probability=round(probs[t], 6), rank=r, is_final_pick=t in picks)
        for r, t in enumerate(ranked, start=1)
    )
    payload = QuestionForecast(
        question_id=question.id, prediction_type=question.prediction_type.value, k=question.k, choices=choices,
        final_picks=picks, confidence=round(float(np.mean([probs[t] for t in picks])), 6),
        reasoning_summary=f"Monte Carlo: {n} simulations of the remaining matches (seed {seed}); "
                          f"{len(task.history)} results known.",
    )
    return payload, {"results_known": len(task.history), "fixtures_registered": len(task.fixtures),
                     **allocation_inputs(task.competition)}  # official table, or said not to be


__all__ = ["assign_thirds", "question_forecast", "simulate"]
