"""Team names to team ids, through a competition's alias table.

Sources spell teams differently (``USA`` / ``United States``, ``Czech Republic`` /
``Czechia``, ``Côte d'Ivoire`` / ``Ivory Coast``). A competition lists every alias per team;
:func:`resolve_team` matches a name exactly, then in a normalised form (accents folded, case
and punctuation ignored), and otherwise raises :class:`SourceError` naming the source, the
match and the closest known teams.
"""

from __future__ import annotations

import difflib
import re
import unicodedata

from collector.errors import SourceError
from collector.records import Competition

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def ascii_fold(name: str) -> str:
    """``FC Bayern München`` -> ``FC Bayern Munchen`` (accents dropped, other letters kept)."""
    name = name.replace("ß", "ss").replace("ø", "o").replace("Ø", "O").replace("ł", "l")
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")


def slugify(name: str) -> str:
    """The project's team-id form: ASCII-folded, lowercase, non-alphanumerics -> '-'."""
    return _NON_ALNUM.sub("-", ascii_fold(name).lower()).strip("-")


def normalise_name(name: str) -> str:
    """A comparison key: folded, lowercase, words separated by single spaces, '&' read as 'and'."""
    folded = ascii_fold(name).lower().replace("&", " and ")
    return _NON_ALNUM.sub(" ", folded).strip()


_BY_IDENTITY: dict[tuple[str, int], tuple[Competition, dict]] = {}


def _per_competition(kind: str, competition: Competition, build) -> dict:
    """Memoise ``build(competition)`` by object identity.

    Hashing a frozen Competition hashes all its teams on every lookup; identity is enough, and
    the stored reference keeps the id from being reused while the entry lives.
    """
    key = (kind, id(competition))
    entry = _BY_IDENTITY.get(key)
    if entry is None or entry[0] is not competition:
        if len(_BY_IDENTITY) > 256:
            _BY_IDENTITY.clear()
        entry = _BY_IDENTITY[key] = (competition, build(competition))
    return entry[1]


def name_index(competition: Competition) -> dict[str, str]:
    """Every normalised name, alias, code and id of the competition's teams -> team id (memoised)."""
    return _per_competition("index", competition, _build_index)


def _build_index(competition: Competition) -> dict[str, str]:
    index: dict[str, str] = {}
    for team in competition.teams:
        for name in (team.id, team.name, team.code or "", *team.aliases):
            if name:
                index.setdefault(normalise_name(name), team.id)
    return index


# Words that clubs' names carry or drop from one source to the next ("Liverpool" / "Liverpool FC").
CLUB_AFFIXES = frozenset({"fc", "afc", "cf", "sc", "ac", "ssc", "as", "us", "rc", "rcd", "cd", "ud", "sd", "ca", "club", "calcio"})


def _bare(normalised: str) -> str:
    return " ".join(w for w in normalised.split() if w not in CLUB_AFFIXES and not w.isdigit())


def _bare_index(competition: Competition) -> dict[str, str | None]:
    """Names without club affixes -> team id, or None where two teams would share the key."""
    return _per_competition("bare", competition, _build_bare_index)


def _build_bare_index(competition: Competition) -> dict[str, str | None]:
    index: dict[str, str | None] = {}
    for team in competition.teams:
        for name in {_bare(normalise_name(n)) for n in (team.name, *team.aliases)}:
            if name:
                index[name] = team.id if index.get(name, team.id) == team.id else None
    return index


def closest_teams(competition: Competition, name: str, n: int = 3) -> list[str]:
    """Display names of the teams whose names or aliases are closest to ``name``."""
    by_norm = {normalise_name(a): t.name for t in competition.teams for a in (t.name, *t.aliases)}
    hits = difflib.get_close_matches(normalise_name(name), list(by_norm), n=n * 2, cutoff=0.0)
    out: list[str] = []
    for hit in hits:
        if by_norm[hit] not in out:
            out.append(by_norm[hit])
    return out[:n]


def find_team(competition: Competition, name: str) -> str | None:
    """The team id for ``name`` or None (exact alias first, then without club affixes if unambiguous)."""
    key = normalise_name(name)
    found = name_index(competition).get(key)
    if found is None and competition.format.value == "league":
        found = _bare_index(competition).get(_bare(key))
    return found


def resolve_team(competition: Competition, name: str, *, source: str = "?", match: str = "?") -> str:
    """The team id for ``name``; :class:`SourceError` names source, match and the closest teams."""
    found = find_team(competition, name)
    if found is not None:
        return found
    closest = ", ".join(closest_teams(competition, name)) or "none"
    raise SourceError(
        f"{source}: match {match}: unknown team {name!r:.80} in {competition.id} (closest known: {closest})"
    )
