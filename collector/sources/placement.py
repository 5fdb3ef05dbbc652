"""Place a source's knockout matches onto a format's slots (for ``define-competition``).

Each knockout match of the source is tied to one slot of the format, stage by stage:

* by its teams, when the source has the results that decide the slot (a finished or running
  tournament): the match whose two teams are the ones the slot's rules yield from the
  source's own results (:func:`collector.competitions.slots.rule_teams`), either way round;
* by order, when the teams are not decided yet (a future tournament): the format's slots in
  number order against the source's matches in number order, else in kickoff order (date,
  time, then the order of the file) — the order and dates of the knockout matches.

A two-legged tie's legs are placed in date order (the first leg is the earlier match of the
pair), and a ``W`` rule of the tie reads its winner on aggregate from both legs.
Match numbers are the source's when it has them (rules are rewritten to them), else the
format's. A match of a source without numbers is tied to its slot at run time by its local
date and position on that date (``source_date``, ``source_index``). Matches that fit no slot
are returned by label, and no definition is written from a partial placement.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from collector.competitions.formats import Format
from collector.competitions.slots import Decided, group_table, league_table, rule_teams
from collector.competitions.standings import MatchResult
from collector.records import Competition
from collector.sources.base import SourceMatch
from collector.sources.bracket import by_date_order, winner_and_loser
from collector.sources.legs import pair_legs
from collector.sources.source_bracket import derive_bracket


def decided_from(matches: list[SourceMatch], competition: Competition) -> Decided:
    """Every complete group table of the source (knockout winners are added while placing)."""
    tables = {}
    for group in competition.groups:
        results = [MatchResult(m.home_team, m.away_team, m.score_90.home, m.score_90.away) for m in matches
                   if m.group == group.name and not m.knockout and m.status.has_result and m.score_90
                   and m.home_team and m.away_team]
        table = group_table(competition, group.name, results)
        if table is not None:
            tables[group.name] = table
    league = None if competition.groups else league_table(competition, [
        MatchResult(m.home_team, m.away_team, m.score_90.home, m.score_90.away) for m in matches
        if not m.knockout and m.status.has_result and m.score_90 and m.home_team and m.away_team])
    return Decided(tables, {}, len(competition.groups), league)


def _fits(match: SourceMatch, home: set[str], away: set[str]) -> str | None:
    """'straight' or 'swapped' when the match's teams are the rule teams, else None."""
    if match.home_team in home and match.away_team in away:
        return "straight"
    if match.home_team in away and match.away_team in home:
        return "swapped"
    return None


def _by_order(matches: list[SourceMatch], indices: list[int], positions: dict[int, int]) -> list[int]:
    return sorted(indices, key=lambda i: (matches[i].match_number is None, matches[i].match_number or 0,
                                          matches[i].kickoff_date, positions[i]))


def place_knockouts(matches: list[SourceMatch], competition: Competition, fmt: Format) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str], list[str]]:
    """(knockout slots, best-third table, problems, notes) of the definition; ``competition`` has the format's slots.

    A cup with groups and single matches takes its bracket from the source
    (:mod:`collector.sources.source_bracket`); leagues with play-offs and two-legged ties are
    placed on the format's bracket (module docstring).
    """
    decided = decided_from(matches, competition)
    per_stage: dict[str, list[int]] = defaultdict(list)
    for i, m in enumerate(matches):
        if m.knockout and m.stage in fmt.stages():
            per_stage[m.stage].append(i)
    positions = {i: pos for indices in by_date_order(matches).values() for pos, i in enumerate(indices)}
    if competition.groups and not fmt.first_legs:
        return _from_source(matches, competition, fmt, decided, positions, per_stage)
    placed: dict[int, tuple[int, str]] = {}  # format number -> (source index, orientation)
    problems: list[str] = []
    for stage in fmt.stages():
        slots = [s for s in fmt.slots if s[1] == stage]
        left = _by_order(matches, list(per_stage.get(stage, [])), positions)  # a tie's first leg before its second
        if len(left) != len(slots):
            problems.append(f"stage {stage}: the format {fmt.id} has {len(slots)} matches, the source {len(left)}")
        for number, _, home_rule, away_rule in slots:
            home = rule_teams(home_rule, competition, decided, number)
            away = rule_teams(away_rule, competition, decided, number)
            if home is None or away is None:
                continue
            fit = next(((i, f) for i in left for f in [_fits(matches[i], home, away)] if f), None)
            if fit is not None:
                placed[number] = fit
                left.remove(fit[0])
                pair = _winner(matches, placed, number, competition, fmt)
                if pair is not None:
                    decided.knockouts[number] = pair
        free = [s for s in slots if s[0] not in placed]
        ordered = _by_order(matches, left, positions)
        if free and all(matches[i].home_team is None or matches[i].away_team is None for i in ordered):
            for slot, i in zip(free, ordered, strict=False):  # teams not decided yet: order and dates
                placed[slot[0]] = (i, "straight")
            ordered = ordered[len(free):]
        problems += [f"could not place {matches[i].label}: its teams {matches[i].home_team} v "
                     f"{matches[i].away_team} are not what any free slot of {stage} in format {fmt.id} yields "
                     f"({', '.join(f'{h} v {a}' for _, _, h, a in free) or 'none left'})" for i in ordered]
    return _slots(matches, fmt, placed, positions), _table(fmt, placed, matches), problems, []


def _from_source(matches, competition, fmt, decided, positions, per_stage):
    bracket = derive_bracket(matches, competition, fmt, decided, positions, per_stage)
    slots = []
    for i, (home, away) in bracket.rules.items():
        slot: dict[str, Any] = {"match_number": bracket.numbers[i], "stage": matches[i].stage,
                                "home_rule": home, "away_rule": away}
        if matches[i].match_number is None:
            slot["source_date"] = matches[i].kickoff_date.isoformat()
            slot["source_index"] = positions[i]
        slots.append(slot)
    numbers = {fmt_number: bracket.numbers[i] for i, fmt_number in bracket.format_slot.items()}
    table = [{"groups": row["groups"],
              "assignments": [{"match_number": numbers[a["match_number"]], "group": a["group"]}
                              for a in row["assignments"] if a["match_number"] in numbers]}
             for row in fmt.best_third_table]
    return sorted(slots, key=lambda s: s["match_number"]), table, bracket.problems, bracket.notes


def _winner(matches: list[SourceMatch], placed, number: int, competition: Competition, fmt: Format):
    """(winner, loser) of format match ``number``; of a second leg: its tie's, from both placed legs."""
    first = dict(fmt.first_legs).get(number)
    if first is None:
        return winner_and_loser(matches[placed[number][0]])
    if first not in placed:
        return None
    legs = [replace(matches[placed[first][0]], match_number=first), replace(matches[placed[number][0]], match_number=number)]
    second = next((m for m in pair_legs(legs, competition)[0] if m.leg == 2), None)
    return None if second is None else winner_and_loser(second)


def _number(matches: list[SourceMatch], placed: dict[int, tuple[int, str]], fmt_number: int) -> int:
    i = placed[fmt_number][0]
    return matches[i].match_number if matches[i].match_number is not None else fmt_number


def _rewrite(rule: str, matches, placed) -> str:
    if rule[0] in "WL" and int(rule[1:]) in placed:
        return f"{rule[0]}{_number(matches, placed, int(rule[1:]))}"
    return rule


def _slots(matches, fmt: Format, placed, positions) -> list[dict[str, Any]]:
    out = []
    for number, stage, home_rule, away_rule in fmt.slots:
        if number not in placed:
            continue
        i, orientation = placed[number]
        rules = [_rewrite(home_rule, matches, placed), _rewrite(away_rule, matches, placed)]
        if orientation == "swapped":
            rules.reverse()
        slot: dict[str, Any] = {"match_number": _number(matches, placed, number), "stage": stage,
                                "home_rule": rules[0], "away_rule": rules[1]}
        first = dict(fmt.first_legs).get(number)
        if first is not None and first in placed:
            slot["first_leg"] = _number(matches, placed, first)
        if matches[i].match_number is None:
            slot["source_date"] = matches[i].kickoff_date.isoformat()
            slot["source_index"] = positions[i]
        out.append(slot)
    return sorted(out, key=lambda s: s["match_number"])


def _table(fmt: Format, placed, matches) -> list[dict[str, Any]]:
    return [{"groups": row["groups"],
             "assignments": [{"match_number": _number(matches, placed, a["match_number"]), "group": a["group"]}
                             for a in row["assignments"] if a["match_number"] in placed]}
            for row in fmt.best_third_table]
