"""Competition definitions (one TOML file per competition) and team-name resolution."""

from collector.competitions.loader import (
    Definition,
    SourceConfig,
    competition_from_definition,
    list_competitions,
    load_competition,
    load_definition,
)
from collector.competitions.teams import (
    find_team,
    normalise_name,
    resolve_team,
    slugify,
)

__all__ = [
    "Definition",
    "SourceConfig",
    "competition_from_definition",
    "find_team",
    "list_competitions",
    "load_competition",
    "load_definition",
    "normalise_name",
    "resolve_team",
    "slugify",
]
