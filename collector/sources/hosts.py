"""Host nations (and the results file's team names) of a tournament, from the international results file.

``international-results/results.csv`` gives, per international match, the country it was
played in (and a neutral flag). A tournament's source matches are found there by date and
teams; a country that is also a team of the competition is a host. One country: the host
nations play at home wherever they play (``host_nations``). Several countries: each source
venue is mapped to its country's team (``venue_countries``) — which needs venues in the source;
without them the command says what a person must add.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from collector.competitions.teams import normalise_name
from collector.datasource import DataSource
from collector.errors import SourceError

RESULTS = "international-results/results.csv"


def _team_name(team: Any) -> str:
    """A match's team as a name (openfootball gives a string, or an object with ``name``)."""
    return str(team.get("name") or "") if isinstance(team, dict) else str(team or "")


def _rows(data: DataSource, first: str, last: str) -> list[dict[str, str]]:
    text = data.read_bytes(RESULTS).decode("utf-8")
    return [r for r in csv.DictReader(io.StringIO(text)) if first <= r.get("date", "") <= last]


def _learn_aliases(teams: list[dict[str, Any]], raw: list[dict[str, Any]], rows: list[dict[str, str]],
                   ids: dict[str, str], team_of: dict[str, str]) -> None:
    """The results file's name of a team it spells otherwise ("Soviet Union" / "Russia"), as an alias.

    Learned from a match of the tournament whose date and other team agree: on that date the
    results file has exactly one match of the other team, against a name the competition
    does not know yet.
    """
    by_date: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        by_date.setdefault(r["date"], []).append(r)
    learned: dict[str, str] = {}
    for m in raw:
        a, b = (team_of.get(_team_name(m.get(k))) for k in ("team1", "team2"))
        for known, other in ((a, b), (b, a)):
            if known is None or other is None:
                continue
            found = [r[side] for r in by_date.get(str(m.get("date")), []) for mine, side in
                     (("home_team", "away_team"), ("away_team", "home_team"))
                     if ids.get(normalise_name(r[mine])) == known and normalise_name(r[side]) not in ids]
            if len(found) == 1:
                learned.setdefault(other, found[0])
    for team in teams:
        name = learned.get(team["id"])
        if name and name not in team["aliases"]:
            team["aliases"] = [*team["aliases"], name]
            ids[normalise_name(name)] = team["id"]


def derive_hosts(data: DataSource, teams: list[dict[str, Any]], raw: list[dict[str, Any]],
                 team_of: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """(definition fields ``host_nations``/``venue_countries``, what a person must add)."""
    dates = sorted(str(m.get("date")) for m in raw if m.get("date"))
    if not dates:
        return {}, ["to add: host_nations: the source gives no dates to look its matches up by"]
    try:
        rows = _rows(data, dates[0], dates[-1])
    except SourceError:
        return {}, [f"to add: host_nations: the team ids of the host nations ({RESULTS} not available)"]
    ids = {normalise_name(n): t["id"] for t in teams for n in (t["name"], *t.get("aliases", []))}
    _learn_aliases(teams, raw, rows, ids, team_of)
    by_key = {(r["date"], frozenset((ids.get(normalise_name(r["home_team"])), ids.get(normalise_name(r["away_team"]))))): r
              for r in rows}
    countries: dict[str, str | None] = {}  # ground (or "") -> host team id of the country it is in
    seen = set()
    for m in raw:
        pair = frozenset(team_of.get(_team_name(m.get(k))) for k in ("team1", "team2"))
        row = by_key.get((str(m.get("date")), pair))
        if row is None or None in pair:
            continue
        seen.add(row["country"])
        countries[str(m.get("ground") or "")] = ids.get(normalise_name(row["country"]))
    hosts = sorted({t for t in countries.values() if t})
    if not seen:
        return {}, [f"to add: host_nations: none of the matches is in {RESULTS} (club competition?)"]
    if len(seen) == 1:
        return ({"host_nations": hosts} if hosts else {}), []
    venues = {g: t for g, t in countries.items() if g and t}
    if "" in countries:
        return {}, [f"to add: venue_countries: the matches were played in {len(seen)} countries but the source "
                    "names no venues; without them every match counts as neutral ground"]
    return {"host_nations": hosts, "venue_countries": venues}, []
