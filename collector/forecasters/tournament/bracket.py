"""A forecast's own bracket: group tables from its group scores, then the knockouts they produce.

WorldCupArena Appendix A.2: code computes every group table from the predicted scores (the
competition's tie-breakers, ``collector.competitions.standings``; teams level on every usable
criterion keep team-id order, the deterministic fallback), the best third-placed teams and
their slots (the definition's official ``best_third_table``, else the first valid assignment in
match-number order, as the simulation does), and then each knockout pairing from the slot rules
(``1E``, ``3A/B/C``, ``W74``, ``L101``), round by round from the forecast's own winners.
Champion, runner-up, third place and semi-finalists are derived here, never asked.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from collector.competitions.slots import Decided, qualified_thirds
from collector.competitions.standings import MatchResult, TableRow, table_for
from collector.forecasters.baselines.simulate import assign_thirds
from collector.records import (
    Competition,
    Event,
    KnockoutSlot,
    TournamentForecast,
    advancement_rounds,
)


class BracketError(ValueError):
    """The forecast's group matches cannot produce tables (a fixture missing, doubled or foreign)."""


@dataclass(frozen=True)
class GroupFixture:
    group: str
    home: str
    away: str


def group_fixtures(competition: Competition, events: list[Event] | tuple[Event, ...] = ()) -> list[GroupFixture]:
    """Every group pairing once, in the registered event's orientation when there is one."""
    registered = {frozenset((e.home_team, e.away_team)): e for e in events if e.group and not e.knockout}
    out = []
    for group in competition.groups:
        for i, a in enumerate(group.teams):
            for b in group.teams[i + 1:]:
                event = registered.get(frozenset((a, b)))
                home, away = (event.home_team, event.away_team) if event else (a, b)
                out.append(GroupFixture(group.name, home, away))
    return out


def predicted_tables(competition: Competition, payload: TournamentForecast) -> dict[str, list[TableRow]]:
    """Each group's table from the forecast's group scores; :class:`BracketError` names what is wrong."""
    results: dict[str, list[MatchResult]] = defaultdict(list)
    members = {g.name: set(g.teams) for g in competition.groups}
    for m in payload.group_matches:
        if m.group not in members or not {m.home, m.away} <= members[m.group]:
            raise BracketError(f"group match {m.home}-{m.away}: not a pairing of group {m.group}")
        results[m.group].append(MatchResult(m.home, m.away, m.score.home, m.score.away))
    tables = {}
    for group in competition.groups:
        expected = len(group.teams) * (len(group.teams) - 1) // 2
        if len(results[group.name]) != expected:
            raise BracketError(f"group {group.name}: {len(results[group.name])} matches forecast, {expected} expected")
        tables[group.name] = table_for(competition, group.teams, results[group.name])
    return tables


def real_tables(task) -> dict[str, list[TableRow]]:
    """The real group tables from ``task.history`` (results known before ``task.now``); KeyError while a
    group is incomplete (the ``groups_complete`` horizon is only scheduled once they all are)."""
    comp = task.competition
    results: dict[str, list[MatchResult]] = {g.name: [] for g in comp.groups}
    for known in task.history:
        event, score = known.event, known.outcome.score_90
        if event.group in results and not event.knockout and score is not None:
            results[event.group].append(MatchResult(event.home_team, event.away_team, score.home, score.away))
    tables = {}
    for g in comp.groups:
        if len(results[g.name]) != len(g.teams) * (len(g.teams) - 1) // 2:
            raise KeyError(f"group {g.name} is not complete at {task.now.isoformat()}")
        tables[g.name] = table_for(comp, g.teams, results[g.name])
    return tables


def _third_slots(competition: Competition) -> list[tuple[int, str, set[str]]]:
    return [(k.match_number, side, set(rule[1:].split("/")))
            for k in sorted(competition.knockout_slots, key=lambda k: k.match_number)
            for side, rule in (("home", k.home_rule), ("away", k.away_rule)) if rule.startswith("3")]


def third_placements(competition: Competition, tables: dict[str, list[TableRow]]) -> dict[tuple[int, str], str]:
    """(match, side) -> the third-placed team the allocation puts there."""
    qualified = qualified_thirds(competition, Decided(tables=tables, groups=len(competition.groups))) or []
    slots = _third_slots(competition)
    placed: dict[tuple[int, str], str] = {}
    for match, side, _ in slots:
        group = competition.third_placed_in("".join(qualified), match) if competition.best_third_table else None
        if group is None:
            placed = {}
            break
        placed[(match, side)] = group
    if not placed:
        placed = assign_thirds(slots, qualified)
    return {slot: tables[group][2].team for slot, group in placed.items()}


def _rule_team(rule: str, tables, thirds, results: dict[int, tuple[str, str]], match: int, side: str) -> str | None:
    if rule[0] in "12":
        return tables[rule[1:]][int(rule[0]) - 1].team
    if rule[0] == "3":
        return thirds.get((match, side))
    decided = results.get(int(rule[1:]))
    if decided is None:
        return None
    return decided[0] if rule[0] == "W" else decided[1]


def slots_in_order(competition: Competition) -> list[KnockoutSlot]:
    order = {s.id: s.order for s in competition.stages}
    return sorted(competition.knockout_slots, key=lambda k: (order.get(k.stage, 0), k.match_number))


def expected_pairings(
    competition: Competition, tables: dict[str, list[TableRow]], results: dict[int, tuple[str, str]]
) -> dict[int, tuple[str, str]]:
    """Match number -> (home, away) for every knockout match the tables and ``results`` decide."""
    thirds = third_placements(competition, tables)
    pairings = {}
    for slot in slots_in_order(competition):
        m = slot.match_number
        home = _rule_team(slot.home_rule, tables, thirds, results, m, "home")
        away = _rule_team(slot.away_rule, tables, thirds, results, m, "away")
        if home is not None and away is not None:
            pairings[m] = (home, away)
    return pairings


def pairing_mismatches(competition: Competition, payload: TournamentForecast,
                       tables: dict[str, list[TableRow]] | None = None) -> list[str]:
    """What is wrong with the knockout answers against the pairings the code produces (empty: none).

    ``tables``: the group tables the bracket starts from (default: those of the payload's own
    group matches; at ``groups_complete``, the real ones). Each line names the match, the rule,
    the expected pairing and the answered one, so a repair prompt can quote it.
    """
    if tables is None:
        try:
            tables = predicted_tables(competition, payload)
        except BracketError as exc:
            return [str(exc)]
    results = {m.match_number: (m.advances, m.away if m.advances == m.home else m.home)
               for m in payload.knockout_matches}
    expected = expected_pairings(competition, tables, results)
    problems = []
    for slot in slots_in_order(competition):
        want = expected.get(slot.match_number)
        got = payload.knockout(slot.match_number)
        if got is None:
            problems.append(f"match {slot.match_number} ({slot.home_rule} v {slot.away_rule}): missing; expected "
                            + (f"{want[0]} v {want[1]}" if want else "its pairing"))
        elif want is not None and (got.home, got.away) != want:
            problems.append(f"match {slot.match_number} ({slot.home_rule} v {slot.away_rule}): expected "
                            f"{want[0]} v {want[1]}, got {got.home} v {got.away}")
        elif got.stage != slot.stage:
            problems.append(f"match {slot.match_number}: stage {got.stage!r}, expected {slot.stage!r}")
    known = {s.match_number for s in competition.knockout_slots}
    problems += [f"match {m.match_number}: not a knockout match of {competition.id}"
                 for m in payload.knockout_matches if m.match_number not in known]
    return problems


@dataclass(frozen=True)
class Places:
    """What a saved bracket says about the end of the tournament (derived, never asked)."""

    champion: str | None
    runner_up: str | None
    third: str | None
    semifinalists: tuple[str, ...]


def derived_places(competition: Competition, payload: TournamentForecast) -> Places:
    rounds = advancement_rounds(competition)
    by_stage = defaultdict(list)
    for m in payload.knockout_matches:
        by_stage[m.stage].append(m)
    final = by_stage.get(rounds[-1], []) if rounds else []
    champion = final[0].advances if len(final) == 1 else None
    runner = (final[0].away if champion == final[0].home else final[0].home) if champion else None
    third_stage = next((s.id for s in competition.stages if s.knockout and s.id not in rounds
                        and s.id in by_stage), None)
    third = by_stage[third_stage][0].advances if third_stage else None
    semis = by_stage.get(rounds[-2], []) if len(rounds) >= 2 else []
    return Places(champion, runner, third, tuple(sorted(t for m in semis for t in (m.home, m.away))))
