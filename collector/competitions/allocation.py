"""Official best-third allocation tables as data (``collector/competitions/allocations/*.toml``).

When the best third-placed teams of several groups go through, the regulations fix in a table
which third plays which group winner, for every set of groups whose thirds qualify. A table
file names its columns by the group winner (``1B``), not by match number, so one table serves
every edition of a format whatever its numbering; ``eligible`` is, per column, the slot label
the regulations print (``3A/D/E/F``). Each file cites its source.

:func:`load_allocation` checks a table mechanically (every row a valid matching within the
stated eligibility, every combination of groups exactly once, the number of rows the binomial
coefficient); :func:`allocation_rows` binds it to a competition's knockout slots (the slot whose
rules are the column's winner and its label) and yields the ``best_third_table`` rows of the
:class:`~collector.records.Competition`, which registration
(:func:`collector.competitions.slots.rule_teams`) and the simulator read.

Tables present: ``uefa-euro-24`` (Euro 2020 and 2024; Euro 2016 paired its thirds otherwise) and ``fifa-wc-48`` (World Cup 2026). The
FIFA table of the 24-team World Cups 1986-1994 is not here: no authoritative copy was found,
so those competitions carry no table (registration then accepts any qualified third of a
slot's groups, and the simulator says in its inputs that it uses the first valid assignment).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from itertools import combinations
from math import comb
from pathlib import Path
from typing import Any

from collector.errors import ConfigError
from collector.records import Competition

ALLOCATIONS_DIR = Path(__file__).resolve().parent / "allocations"


@dataclass(frozen=True)
class Allocation:
    id: str
    description: str
    source: str
    groups: str  # every group of the format, e.g. "ABCDEF"
    qualified: int  # how many thirds go through
    columns: tuple[str, ...]  # the group winner each column's third plays, e.g. ("1B", "1C", "1E", "1F")
    eligible: tuple[str, ...]  # per column, the regulations' label of the slot, e.g. "3A/D/E/F"
    rows: tuple[tuple[str, str], ...]  # (qualified groups, the group whose third plays each column)


def list_allocations() -> list[str]:
    return sorted(p.stem for p in ALLOCATIONS_DIR.glob("*.toml"))


def load_allocation(allocation_id: str, folder: Path = ALLOCATIONS_DIR) -> Allocation:
    """A checked table; :class:`ConfigError` naming the file and the first fault otherwise."""
    path = folder / f"{allocation_id}.toml"
    if not path.is_file():
        raise ConfigError(f"unknown best-third allocation table {allocation_id!r} "
                          f"(known: {', '.join(list_allocations()) or 'none'})")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        table = Allocation(
            id=allocation_id, description=str(raw["description"]), source=str(raw["source"]),
            groups=str(raw["groups"]), qualified=int(raw["qualified"]), columns=tuple(raw["columns"]),
            eligible=tuple(raw["eligible"]), rows=tuple((str(g), str(t)) for g, t in raw["rows"]),
        )
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: not a best-third table ({type(exc).__name__}: {exc})") from None
    problems = table_problems(table)
    if problems:
        raise ConfigError(f"{path}: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    return table


def table_problems(table: Allocation) -> list[str]:
    """Every way ``table`` is not a complete official table (empty when it is one)."""
    problems = []
    if len(table.columns) != table.qualified or len(table.eligible) != table.qualified:
        problems.append(f"{len(table.columns)} columns and {len(table.eligible)} labels for {table.qualified} thirds")
        return problems
    allowed = [set(label.removeprefix("3").split("/")) for label in table.eligible]
    seen: dict[str, int] = {}
    for n, (groups, thirds) in enumerate(table.rows, start=1):
        where = f"row {n} ({groups})"
        if groups != "".join(sorted(set(groups))) or len(groups) != table.qualified or set(groups) - set(table.groups):
            problems.append(f"{where}: not {table.qualified} distinct groups of {table.groups} in alphabetical order")
            continue
        if groups in seen:
            problems.append(f"{where}: the combination is also row {seen[groups]}")
        seen[groups] = n
        if sorted(thirds) != sorted(groups):
            problems.append(f"{where}: {thirds} does not place each qualified group once")
        for column, label, group, ok in zip(table.columns, table.eligible, thirds, allowed, strict=False):
            if group not in ok:
                problems.append(f"{where}: the third of group {group} cannot play {column} (slot {label})")
    expected = comb(len(table.groups), table.qualified)
    missing = ["".join(c) for c in combinations(table.groups, table.qualified) if "".join(c) not in seen]
    if len(seen) != expected or missing:
        problems.append(f"{len(seen)} combinations, {expected} expected; missing: {', '.join(missing[:5]) or 'none'}")
    return problems


def _column_slots(table: Allocation, slots: list[dict[str, Any]]) -> list[int]:
    """Per column, the match number of the slot ``1B v 3A/D/E/F`` (either way round)."""
    numbers = []
    for column, label in zip(table.columns, table.eligible, strict=True):
        found = [s["match_number"] for s in slots if {s["home_rule"], s["away_rule"]} == {column, label}]
        if len(found) != 1:
            raise ConfigError(f"best-third table {table.id}: {len(found)} knockout slots read {column} v {label}; "
                              "the table does not fit this bracket")
        numbers.append(int(found[0]))
    return numbers


def allocation_rows(table: Allocation, slots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The competition's ``best_third_table`` rows: the table bound to the match numbers of ``slots``."""
    numbers = _column_slots(table, slots)
    return [{"groups": groups, "assignments": [{"match_number": m, "group": g} for m, g in zip(numbers, thirds,
                                                                                              strict=True)]}
            for groups, thirds in table.rows]


def allocation_inputs(competition: Competition) -> dict[str, str]:
    """What a forecast of ``competition`` used to place qualified thirds (for its ``inputs``); {} without thirds."""
    if not competition.best_third_placed or not competition.groups:
        return {}
    combos = comb(len(competition.groups), competition.best_third_placed)
    rows = len(competition.best_third_table)
    if rows == combos:
        return {"best_third_allocation": f"the official table of the definition ({rows} combinations)"}
    if rows:
        return {"best_third_allocation": f"the official table for {rows} of {combos} combinations; for the others "
                                         "the first valid assignment in match-number order (not the official one)"}
    return {"best_third_allocation": "no official table in the definition: the first valid assignment in "
                                     "match-number order (an approximation, not the official allocation)"}
