"""Derive a competition definition (the project's own TOML config) from openfootball files.

``prematch define-competition`` uses this to write the shipped definitions, and a
fork uses it for another league. The definition holds ids, names, codes, aliases, groups,
stages, knockout slot rules, tie-breakers and where the fixtures come from; it is reviewed
and committed by hand, and never contains match data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from collector.competitions.teams import slugify
from collector.datasource import DataSource
from collector.errors import ConfigError

# Names other sources use for the 2026 teams (international-results, football-data.org,
# the Appendix-F candidate list of seeds/000, FIFA's own spellings).
NATIONAL_ALIASES: dict[str, list[str]] = {
    "USA": ["United States", "United States of America", "USMNT"],
    "Czech Republic": ["Czechia"],
    "Bosnia & Herzegovina": ["Bosnia-Herzegovina", "Bosnia and Herzegovina"],
    "DR Congo": ["Congo DR", "Democratic Republic of the Congo", "Congo-Kinshasa"],
    "Cape Verde": ["Cape Verde Islands", "Cabo Verde"],
    "Turkey": ["Türkiye", "Turkiye"],
    "Ivory Coast": ["Côte d'Ivoire", "Cote d'Ivoire"],
    "South Korea": ["Korea Republic", "Republic of Korea", "Korea, South"],
    "Iran": ["IR Iran", "Islamic Republic of Iran"],
    "Curaçao": ["Curacao"],
    "Netherlands": ["Holland"],
    "Saudi Arabia": ["KSA"],
}

# The 2026 hosts and the cities of their venues (as openfootball names them, a venue's prefix).
HOST_CITIES_2026: dict[str, tuple[str, ...]] = {
    "mex": ("Mexico City", "Guadalajara", "Monterrey"),
    "can": ("Toronto", "Vancouver"),
    "usa": ("Atlanta", "Boston", "Dallas", "Houston", "Kansas City", "Los Angeles", "Miami",
            "New York", "Philadelphia", "San Francisco", "Seattle"),
}

WORLD_CUP_STAGES = [
    ("group", "Group stage", False, ["Matchday"]),
    ("round-of-32", "Round of 32", True, ["Round of 32"]),
    ("round-of-16", "Round of 16", True, ["Round of 16"]),
    ("quarter-final", "Quarter-finals", True, ["Quarter-final", "Quarter-finals"]),
    ("semi-final", "Semi-finals", True, ["Semi-final", "Semi-finals"]),
    ("third-place", "Match for third place", True, ["Match for third place", "Third place"]),
    ("final", "Final", True, ["Final"]),
]


@dataclass(frozen=True)
class LeagueSpec:
    id: str
    file: str
    time_zone: str
    football_data_code: str
    relegation_places: int
    tie_breakers: tuple[str, ...]


_GD_FIRST = ("points", "goal_difference", "goals_for", "head_to_head")
_H2H_FIRST = ("points", "head_to_head", "goal_difference", "goals_for")
LEAGUES = {
    "en-1-2025-26": LeagueSpec("en-1-2025-26", "openfootball/leagues-2025-26/en.1.json", "Europe/London", "PL", 3, _GD_FIRST),
    "de-1-2025-26": LeagueSpec("de-1-2025-26", "openfootball/leagues-2025-26/de.1.json", "Europe/Berlin", "BL1", 2, _GD_FIRST),
    "es-1-2025-26": LeagueSpec("es-1-2025-26", "openfootball/leagues-2025-26/es.1.json", "Europe/Madrid", "PD", 3, _H2H_FIRST),
    "it-1-2025-26": LeagueSpec("it-1-2025-26", "openfootball/leagues-2025-26/it.1.json", "Europe/Rome", "SA", 3, _H2H_FIRST),
    "fr-1-2025-26": LeagueSpec(
        "fr-1-2025-26", "openfootball/leagues-2025-26/fr.1.json", "Europe/Paris", "FL1", 2,
        ("points", "goal_difference", "head_to_head", "goals_for"),
    ),
}

_SLOT_LINE = re.compile(r"\((\d+)\).*##\s*(\S+)\s+v\s+(\S+)")
_STAGE_LINE = re.compile(r"^▪\s*(.+?)\s*$")


def _json(data: DataSource, relative: str) -> Any:
    try:
        return orjson.loads(data.read_bytes(relative))
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"{data.describe(relative)}: not valid JSON ({exc})") from None


def define_world_cup(data: DataSource) -> dict[str, Any]:
    """The ``worldcup-2026`` definition from worldcup.teams.json, worldcup.groups.json, cup_finals.txt."""
    base = "openfootball/worldcup-2026"
    teams = _json(data, f"{base}/worldcup.teams.json")
    groups = _json(data, f"{base}/worldcup.groups.json")["groups"]
    by_name = {t["name"]: t["fifa_code"].lower() for t in teams}
    label_to_stage = {label: sid for sid, _, _, labels in WORLD_CUP_STAGES for label in labels}
    slots = parse_slots(data.read_bytes(f"{base}/cup_finals.txt").decode("utf-8"), label_to_stage)
    return {
        "id": "worldcup-2026",
        "name": "FIFA World Cup 2026",
        "edition": "2026",
        "format": "tournament",
        "time_zone": "UTC",
        "best_third_placed": 8,
        "best_third_allocation": "fifa-wc-48",  # FIFA's Annex C (allocations/fifa-wc-48.toml)
        "host_nations": list(HOST_CITIES_2026),
        "stage_opening_by": "stage",
        "tie_breakers": ["points", "head_to_head", "goal_difference", "goals_for", "fair_play", "drawing_of_lots"],
        "definition_source": "openfootball worldcup.json 2026 (teams, groups) and worldcup 2026--usa/cup_finals.txt",
        "source": {"adapter": "openfootball", "file": f"{base}/worldcup.json", "football_data_code": "WC",
                   "squads": f"{base}/worldcup.squads.json"},
        "stages": [_stage(i, sid, name, ko, labels) for i, (sid, name, ko, labels) in enumerate(WORLD_CUP_STAGES)],
        "groups": [
            {"name": g["name"].removeprefix("Group ").strip(), "teams": [by_name[n] for n in g["teams"]]}
            for g in groups
        ],
        "teams": [_national_team(t) for t in teams],
        "knockout_slots": slots,
        "venue_countries": {city: team for team, cities in HOST_CITIES_2026.items() for city in cities},
    }


def _stage(order: int, sid: str, name: str, knockout: bool, labels: list[str]) -> dict[str, Any]:
    return {"id": sid, "name": name, "knockout": knockout, "order": order, "source_rounds": labels}


def _national_team(t: dict[str, Any]) -> dict[str, Any]:
    aliases = [a for a in [t.get("name_normalised"), *NATIONAL_ALIASES.get(t["name"], [])] if a]
    return {
        "id": t["fifa_code"].lower(),
        "name": t["name"],
        "code": t["fifa_code"],
        "group": t.get("group"),
        "confederation": t.get("confed"),
        "aliases": list(dict.fromkeys(aliases)),
    }


def parse_slots(text: str, label_to_stage: dict[str, str]) -> list[dict[str, Any]]:
    """Knockout slot rules from cup_finals.txt lines such as ``(74) ... ## 1E v 3A/B/C/D/F``."""
    stage = None
    slots = []
    for line in text.splitlines():
        heading = _STAGE_LINE.match(line.strip())
        if heading:
            stage = label_to_stage.get(heading.group(1))
            continue
        found = _SLOT_LINE.search(line)
        if found:
            if stage is None:
                raise ConfigError(f"cup_finals.txt: match {found.group(1)} appears before a known stage heading")
            number, home, away = found.groups()
            slots.append({"match_number": int(number), "stage": stage, "home_rule": home, "away_rule": away})
    return slots


def define_league(data: DataSource, spec: LeagueSpec) -> dict[str, Any]:
    """A league definition from an openfootball football.json season file."""
    season = _json(data, spec.file)
    names = sorted({m[k] for m in season["matches"] for k in ("team1", "team2")})
    country, _, rest = spec.id.partition("-1-")
    return {
        "id": spec.id,
        "name": season.get("name", spec.id),
        "edition": rest.replace("-", "/", 1) if rest else spec.id,
        "format": "league",
        "time_zone": spec.time_zone,
        "relegation_places": spec.relegation_places,
        "stage_opening_by": "matchday",
        "tie_breakers": list(spec.tie_breakers),
        "definition_source": f"openfootball football.json 2025-26/{spec.file.rsplit('/', 1)[-1]}",
        "source": {"adapter": "openfootball", "file": spec.file, "football_data_code": spec.football_data_code},
        "stages": [_stage(0, "regular-season", "Regular season", False, ["Matchday"])],
        "teams": [{"id": slugify(n), "name": n, "aliases": []} for n in names],
    }


def define_competition(competition_id: str, data: DataSource) -> dict[str, Any]:
    if competition_id == "worldcup-2026":
        return define_world_cup(data)
    if competition_id in LEAGUES:
        return define_league(data, LEAGUES[competition_id])
    raise ConfigError(f"no generator for {competition_id!r}; known: worldcup-2026, {', '.join(LEAGUES)}")
