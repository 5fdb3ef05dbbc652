"""The competition's squads (name and position of every player), as forecasters may know them.

Read from the definition's openfootball squads file (published before the tournament, so
knowable at any forecast time) through :func:`collector.sources.openfootball.read_squads`
(team ids resolved as the result sync does). None when the definition names no squads file
or it cannot be read; the fine-grained prompt and validation then say so.
"""

from __future__ import annotations

import json
from pathlib import Path

from collector.competitions import load_definition
from collector.datasource import DataSource
from collector.errors import PrematchError
from collector.records import Competition
from collector.sources.openfootball import read_squads

Squads = dict[str, list[tuple[str, str]]]
"""Team id -> [(player name, position GK/DF/MF/FW)]."""


_SQUADS: dict[tuple[str, str], Squads | None] = {}


def squads_of(competition: Competition, data_dir: Path | str | None = None) -> Squads | None:
    """Each team's squad (name, position) from the definition's squads file, None without one."""
    key = (competition.id, str(data_dir))
    if key not in _SQUADS:
        _SQUADS[key] = _read_squads(competition, data_dir)
    return _SQUADS[key]


def _read_squads(competition: Competition, data_dir: Path | str | None) -> Squads | None:
    try:
        definition = load_definition(competition.id)
        if not definition.source.squads:
            return None
        data = DataSource(data_dir)
        document = json.loads(data.read_bytes(definition.source.squads))
    except (PrematchError, ValueError):
        return None
    names, _ = read_squads(definition, data, competition)
    positions = {(p["name"]): p.get("pos") or "?" for team in document if isinstance(team, dict)
                 for p in team.get("players", []) if isinstance(p, dict) and isinstance(p.get("name"), str)}
    return {team: [(n, positions.get(n, "?")) for n in players] for team, players in (names or {}).items()} or None
