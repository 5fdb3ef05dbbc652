"""Player identity: one scorer, however a source spells the name, counts once.

Names are compared token by token from the end (the family name first), after folding
accents and case (:func:`~collector.competitions.teams.normalise_name`): two names are the
same player when their tokens agree from the end until the shorter name runs out, a token
matching an equal token or its initial ("K." ~ "Kylian"). So "Mbappé", "K. Mbappé" and
"Kylian Mbappé" are one player; "Eden Hazard" and "Thorgan Hazard" are two, and a bare
"Hazard" matching both stays apart (ambiguous: never merged by guess).

A name is resolved, per team, by the competition's ``player_aliases`` (a spelling -> the one
name counted), then against the team's squad when the source has one (exactly one squad name
must match), else against the other names scored for that team (the fullest spelling wins).
"""

from __future__ import annotations

from collections.abc import Iterable

from collector.competitions.teams import normalise_name
from collector.records import Competition


def tokens(name: str) -> list[str]:
    return normalise_name(name).split()


def same_player(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` can be one player's name (see the module docstring)."""
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb:
        return False
    for x, y in zip(reversed(ta), reversed(tb), strict=False):
        if x == y or (len(x) == 1 and y.startswith(x)) or (len(y) == 1 and x.startswith(y)):
            continue
        return False
    return True


class PlayerIndex:
    """Canonical player names per team, from aliases, squads and the names seen."""

    def __init__(self, competition: Competition, squads: dict[str, list[str]] | None = None,
                 seen: Iterable[tuple[str, str]] = ()):
        self.aliases = {normalise_name(k): v for k, v in competition.player_aliases.items()}
        self.squads = squads or {}
        self.canonical: dict[str, list[str]] = {}
        by_team: dict[str, set[str]] = {}
        for team, name in seen:
            by_team.setdefault(team, set()).add(self._alias(name))
        for team, names in by_team.items():  # fullest spelling first, so shorter ones join it
            for name in sorted(names, key=lambda n: (-len(tokens(n)), -len(n), n)):
                self._place(team, name)

    def _alias(self, name: str) -> str:
        return self.aliases.get(normalise_name(name), name)

    def _squad_name(self, team: str, name: str) -> str | None:
        matches = [p for p in self.squads.get(team, ()) if same_player(p, name)]
        return matches[0] if len(matches) == 1 else None

    def _place(self, team: str, name: str) -> None:
        known = self.canonical.setdefault(team, [])
        if self._squad_name(team, name) is None and not any(same_player(k, name) for k in known):
            known.append(name)

    def resolve(self, team: str, name: str) -> str:
        """The one name counted for ``name`` scoring for ``team``."""
        name = self._alias(name)
        squad = self._squad_name(team, name)
        if squad is not None:
            return squad
        matches = [k for k in self.canonical.get(team, ()) if same_player(k, name)]
        return matches[0] if len(matches) == 1 else name
