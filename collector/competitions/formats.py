"""The built-in catalogue of competition formats (``collector/competitions/formats/*.toml``).

A format is data: how many groups of which size, how many best thirds go through, the
tie-breakers, and the knockout slots (``[number, stage, home rule, away rule]`` in the
format's own numbering) with, for formats with best thirds, the official allocation table:
``best_third_allocation`` names a table of :mod:`collector.competitions.allocation` (the
regulations' own, checked and cited), or a fork writes one inline (``best_third_matches``: the
matches a qualified third can play; ``best_third_table``: per set of qualified groups, the group
whose third plays each of those matches, in that order). ``two_legged = [[1, 2]]`` makes slots 1
and 2 the first and second leg of one tie (their rules the other way round); a ``W2`` rule is
the tie's winner on aggregate (:mod:`collector.competitions.ties`).
``define-competition`` maps a source's matches onto a format's slots; the result is written
into the competition's definition, which the runtime then reads (it never reads formats).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collector.competitions.allocation import allocation_rows, load_allocation
from collector.errors import ConfigError

FORMATS_DIR = Path(__file__).resolve().parent / "formats"


@dataclass(frozen=True)
class Format:
    id: str
    description: str
    groups: int
    group_size: int
    best_third_placed: int
    tie_breakers: tuple[str, ...]
    slots: tuple[tuple[int, str, str, str], ...]
    best_third_table: tuple[dict[str, Any], ...]  # the Competition's best_third_table rows
    best_third_allocation: str | None = None  # the id of the official table (allocations/), if any
    first_legs: tuple[tuple[int, int], ...] = ()  # two-legged ties: (second leg, first leg) slot numbers

    def stages(self) -> list[str]:
        """Knockout stage ids in order of the format's numbering."""
        return list(dict.fromkeys(stage for _, stage, _, _ in self.slots))

    def slot_dicts(self) -> list[dict[str, Any]]:
        legs = dict(self.first_legs)
        return [{"match_number": n, "stage": s, "home_rule": h, "away_rule": a,
                 **({"first_leg": legs[n]} if n in legs else {})} for n, s, h, a in self.slots]


def list_formats() -> list[str]:
    return sorted(p.stem for p in FORMATS_DIR.glob("*.toml"))


def load_format(format_id: str) -> Format:
    path = FORMATS_DIR / f"{format_id}.toml"
    if not path.is_file():
        raise ConfigError(f"unknown format {format_id!r} (known: {', '.join(list_formats())})")
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    matches = raw.get("best_third_matches", [])
    table = tuple(
        {"groups": groups, "assignments": [{"match_number": m, "group": g} for m, g in zip(matches, thirds, strict=True)]}
        for groups, thirds in raw.get("best_third_table", [])
    )
    slots = tuple((int(n), str(s), str(h), str(a)) for n, s, h, a in raw["slots"])
    allocation = raw.get("best_third_allocation")
    if allocation is not None:
        if table:
            raise ConfigError(f"{path}: best_third_allocation and an inline best_third_table: give one")
        dicts = [{"match_number": n, "stage": s, "home_rule": h, "away_rule": a} for n, s, h, a in slots]
        table = tuple(allocation_rows(load_allocation(str(allocation)), dicts))
    return Format(
        id=format_id, description=raw["description"], groups=raw["groups"], group_size=raw["group_size"],
        best_third_placed=raw["best_third_placed"], tie_breakers=tuple(raw["tie_breakers"]),
        slots=slots, best_third_table=table, best_third_allocation=allocation,
        first_legs=tuple((int(second), int(first)) for first, second in raw.get("two_legged", [])),
    )


def guess_format(groups: int, group_size: int, stages: set[str], two_legged: frozenset[str] = frozenset()) -> str | None:
    """The catalogue format a source's shape fits, or None (then ``--format`` must name one).

    ``two_legged``: the stages where the source shows the same two teams twice.
    """
    if groups == 0 and two_legged == {"semi-final"} and stages == {"semi-final", "final"}:
        return "league-playoffs-4-two-legs"
    if groups == 0:
        return {frozenset(): "league", frozenset({"semi-final", "final"}): "league-playoffs-4"}.get(frozenset(stages))
    third = "third-place" in stages
    if (groups, group_size, two_legged) == (4, 4, {"quarter-final", "semi-final"}) and not third:
        return "cup-16-two-legs"
    return {
        (8, 4, True): "cup-32", (8, 4, False): "cup-32-no-third",
        (6, 4, False): "cup-24-euro", (6, 4, True): "cup-24-wc",
        (4, 4, False): "cup-16", (4, 4, True): "cup-16-third", (12, 4, True): "cup-48",
    }.get((groups, group_size, third))
