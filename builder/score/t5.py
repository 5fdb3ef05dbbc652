"""T5: a saved full-tournament forecast against the real tournament, at dated truth stages.

WorldCupArena §4.3 and eq. 4, Appendix A.2 ("the tournament truth is kept in a dated
configuration ... so the same prediction can be evaluated through the semifinal, final, and
completed-tournament stages without hindsight changes"). Here the truth comes from the
archive's outcomes: the stage *after the groups* knows every group table and the first
knockout round's teams and match-ups; the stage after knockout round r knows round r + 1's;
the stage after the final knows the champion (a two-legged tie counts once, as its second leg,
whose outcome carries the tie's ``advancing_team``). Each stage is dated by the latest outcome it
needs (its ``recorded_at``) and scored from the same saved forecast, never revised.

Components (0..100): ``G`` the mean over groups of :func:`kendall_group_order`; ``A`` and
``M`` the round-weighted (1, 2, 4, 8, 16 from the first knockout round) advancement and
exact-pairing shares over the rounds the stage knows; ``H`` the champion hit (final stage
only); ``T5`` eq. 4 (:func:`t5_provisional`, equal to :func:`t5_complete` at the last stage).
Baselines' reach-round probabilities also get a Brier score and log loss per round.
A ``groups_complete`` forecast (asked with the real tables and first-round pairings) has no G
and is scored on the later rounds only. Leagues (:func:`score_league`): Kendall's τ and Spearman's
ρ of the predicted final table, and the champion, top-k and relegation hits (none for a league
that relegates nobody), once the round robin (single or double) is complete, every result known.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from collector.competitions.slots import complete_round_robin
from collector.competitions.standings import MatchResult, table_for
from collector.records import (
    Competition,
    Event,
    Outcome,
    TournamentForecast,
    advancement_rounds,
    round_ties,
)

from .t5_metrics import (
    advancement_round,
    brier_reach,
    hit_champion,
    hits_league_places,
    kendall_group_order,
    kendall_league_table,
    logloss_reach,
    pairing_round,
    round_weights,
    spearman_league_table,
    t5_provisional,
    weighted_rounds,
)


@dataclass(frozen=True)
class Bracket:
    """Group orders, teams and match-ups per knockout round, and the champion (truth or forecast)."""

    group_orders: dict[str, tuple[str, ...]]
    round_teams: dict[str, frozenset[str]]
    round_pairs: dict[str, frozenset[frozenset[str]]]
    champion: str | None


@dataclass(frozen=True)
class TruthStage:
    """What is known of the real tournament at one dated stage."""

    name: str  # "groups", then the id of the last knockout round decided
    known_at: datetime
    rounds: tuple[str, ...]  # the knockout rounds whose teams and match-ups are known
    champion_known: bool


@dataclass(frozen=True)
class T5Score:
    stage: str
    known_at: datetime
    g: float | None
    a: float | None
    m: float | None
    h: float | None
    t5: float | None
    per_round: dict[str, tuple[float, float]] = field(default_factory=dict)  # round -> (A_r, M_r)
    reach: dict[str, tuple[float, float]] = field(default_factory=dict)  # round -> (Brier, log loss)


def forecast_bracket(competition: Competition, payload: TournamentForecast) -> Bracket:
    """The forecast's own bracket: tables from its group scores, its knockout matches by stage."""
    results = defaultdict(list)
    for m in payload.group_matches:
        results[m.group].append(MatchResult(m.home, m.away, m.score.home, m.score.away))
    orders = {g.name: tuple(r.team for r in table_for(competition, g.teams, results[g.name]))
              for g in competition.groups}
    teams, pairs = defaultdict(set), defaultdict(set)
    for m in payload.knockout_matches:
        teams[m.stage] |= {m.home, m.away}
        pairs[m.stage].add(frozenset((m.home, m.away)))
    rounds = advancement_rounds(competition)
    final = [m for m in payload.knockout_matches if rounds and m.stage == rounds[-1]]
    return Bracket(orders, {k: frozenset(v) for k, v in teams.items()},
                   {k: frozenset(v) for k, v in pairs.items()}, final[0].advances if len(final) == 1 else None)


def _complete_groups(competition, events, outcomes) -> tuple[dict[str, tuple[str, ...]], datetime | None]:
    results, latest = defaultdict(list), None
    for e in events:
        o = outcomes.get(e.id)
        if e.group and not e.knockout and o is not None and o.score_90 is not None:
            results[e.group].append(MatchResult(e.home_team, e.away_team, o.score_90.home, o.score_90.away))
            latest = o.recorded_at if latest is None else max(latest, o.recorded_at)
    orders = {}
    for g in competition.groups:
        if len(results[g.name]) == len(g.teams) * (len(g.teams) - 1) // 2:
            orders[g.name] = tuple(r.team for r in table_for(competition, g.teams, results[g.name]))
    return orders, latest


def real_bracket(competition: Competition, events: list[Event], outcomes: dict[str, Outcome]) -> tuple[Bracket, list[TruthStage]]:
    """The real bracket so far and its dated stages (empty until every group is complete).

    A two-legged tie counts once, as its second leg (its outcome carries the tie's ``advancing_team``).
    """
    orders, groups_at = _complete_groups(competition, events, outcomes)
    rounds = advancement_rounds(competition)
    ties = [e for e in events if e.stage in rounds and (e.knockout or e.leg == 2)]
    teams, pairs, done = defaultdict(set), defaultdict(set), {}
    for e in ties:
        teams[e.stage] |= {e.home_team, e.away_team}
        pairs[e.stage].add(frozenset((e.home_team, e.away_team)))
        o = outcomes.get(e.id)
        done.setdefault(e.stage, []).append(o.recorded_at if o is not None and o.advancing_team else None)
    expected = {r: len(round_ties(competition, r)) for r in rounds}
    champion = None
    final_ties = [e for e in ties if e.stage == rounds[-1]]
    if len(final_ties) == 1 and outcomes.get(final_ties[0].id) is not None:
        champion = outcomes[final_ties[0].id].advancing_team
    stages: list[TruthStage] = []
    if len(orders) == len(competition.groups) and groups_at is not None:
        known = [rounds[0]] if rounds and len(pairs[rounds[0]]) == expected[rounds[0]] else []
        stages.append(TruthStage("groups", groups_at, tuple(known), False))
        for i, r in enumerate(rounds):
            times = done.get(r, [])
            if len(times) != expected[r] or any(t is None for t in times):
                break
            nxt = rounds[i + 1] if i + 1 < len(rounds) else None
            if nxt is not None and len(pairs[nxt]) != expected[nxt]:
                break
            known = list(rounds[: i + 2]) if nxt else list(rounds)
            stages.append(TruthStage(r, max(times), tuple(known), nxt is None and champion is not None))
    bracket = Bracket(orders, {k: frozenset(v) for k, v in teams.items()},
                      {k: frozenset(v) for k, v in pairs.items()}, champion)
    return bracket, stages


def _reach_scores(payload: TournamentForecast, truth: Bracket, rounds, competition) -> dict[str, tuple[float, float]]:
    by_round = defaultdict(dict)
    for r in payload.reach:
        by_round[r.stage][r.team] = r.probability
    out = {}
    for r in rounds:
        if not by_round.get(r):
            continue
        teams = [t.id for t in competition.teams]
        p = [by_round[r].get(t, 0.0) for t in teams]
        y = [t in truth.round_teams.get(r, ()) for t in teams]
        out[r] = (brier_reach(p, y), logloss_reach(p, y))
    return out


def given_rounds(competition: Competition, payload: TournamentForecast) -> tuple[str, ...]:
    """Rounds whose teams the forecast was given: a ``groups_complete`` forecast (no group matches)
    was asked with the real tables and first-round pairings, so G and that round are not its own."""
    return tuple(advancement_rounds(competition)[:1]) if competition.groups and not payload.group_matches else ()


def score_stage(competition: Competition, payload: TournamentForecast, truth: Bracket, stage: TruthStage) -> T5Score:
    """G, A, M, H and T5 of one forecast at one truth stage (see the module docstring).

    What the forecast was given is not scored: without group matches G is None and the first
    round is left out of A and M (:func:`given_rounds`).
    """
    pred = forecast_bracket(competition, payload)
    groups = [kendall_group_order(pred.group_orders.get(g, ()), order) for g, order in truth.group_orders.items()]
    g = sum(groups) / len(groups) if groups and payload.group_matches else None
    all_rounds = advancement_rounds(competition)
    weights = dict(zip(all_rounds, round_weights(len(all_rounds)), strict=True))
    given = given_rounds(competition, payload)
    rounds = [r for r in stage.rounds if r not in given]
    per_round = {r: (advancement_round(pred.round_teams.get(r, ()), truth.round_teams.get(r, ())),
                     pairing_round(pred.round_pairs.get(r, ()), truth.round_pairs.get(r, ())))
                 for r in rounds}
    w = [weights[r] for r in rounds]
    a = weighted_rounds([per_round[r][0] for r in rounds], w) if rounds else None
    m = weighted_rounds([per_round[r][1] for r in rounds], w) if rounds else None
    h = hit_champion(pred.champion, truth.champion) if stage.champion_known else None
    return T5Score(stage.name, stage.known_at, g, a, m, h, t5_provisional(g, a, m, h), per_round,
                   _reach_scores(payload, truth, rounds, competition))


def score_forecast(competition: Competition, payload: TournamentForecast, events: list[Event],
                   outcomes: dict[str, Outcome]) -> list[T5Score]:
    """One T5 score per dated truth stage reached so far, all from the same saved forecast."""
    truth, stages = real_bracket(competition, events, outcomes)
    scores = [score_stage(competition, payload, truth, s) for s in stages]
    return [s for s in scores if s.t5 is not None]  # a stage that knows only what it was given: nothing to score


@dataclass(frozen=True)
class LeagueTableScore:
    """A predicted final table against the real one (every match played): τ, ρ and place hits."""

    known_at: datetime
    kendall_tau: float
    spearman_rho: float
    champion: float  # 1.0 hit, 0.0 miss
    top_k: float  # share of the real top k in the predicted top k (k = promotion_places, else 4)
    relegation: float | None  # share of the real bottom r in the predicted bottom r (r = relegation_places;
    # None for a league that relegates nobody)


def score_league(competition: Competition, payload: TournamentForecast, events: list[Event],
                 outcomes: dict[str, Outcome]) -> LeagueTableScore | None:
    """The league table's scores once the season is over: every team met every other the same number
    of times (:func:`complete_round_robin`, single or double) and every result is known (None before)."""
    results, latest = [], None
    for e in events:
        o = outcomes.get(e.id)
        if o is None or o.score_90 is None:
            return None
        results.append(MatchResult(e.home_team, e.away_team, o.score_90.home, o.score_90.away))
        latest = o.recorded_at if latest is None else max(latest, o.recorded_at)
    teams = [t.id for t in competition.teams]
    if latest is None or not complete_round_robin(((r.home, r.away) for r in results), teams):
        return None  # the season is not over (or a fixture is missing: never a final table)
    truth = [r.team for r in table_for(competition, teams, results)]
    pred = [e.team for e in sorted(payload.table, key=lambda e: e.position)]
    k, r = competition.promotion_places or 4, competition.relegation_places
    return LeagueTableScore(latest, kendall_league_table(pred, truth), spearman_league_table(pred, truth),
                            hits_league_places(pred[:1], truth[:1]), hits_league_places(pred[:k], truth[:k]),
                            hits_league_places(pred[-r:], truth[-r:]) if r else None)
