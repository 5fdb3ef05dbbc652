"""The Atom feed (RFC 4287) of results and leaderboard changes: ``feed.xml``, one entry per finished match.

Each entry is one match's result, the Brier score of each forecaster's forecasts of it (the mean
over its scored cells, from the build's scores), and the running leader: the forecaster with the
lowest mean Brier over every scored match forecast up to that result, and whether the lead changed.
Entries follow the order the results were recorded; ids are stable tag URIs, so a reader sees a
match once. Links are relative to ``site_url`` when the arena names one, else to the site's root.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from datetime import datetime

from builder.site.links import match_path

ATOM = "http://www.w3.org/2005/Atom"
FEED = "feed.xml"


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def finished_matches(archive) -> list[tuple]:
    """(event, outcome) of every match with a result, in the order the results were recorded."""
    done = [(archive.events[key], outcome) for key, outcome in archive.outcomes.items()
            if key in archive.events and outcome.status.has_result and outcome.score_90 is not None]
    return sorted(done, key=lambda pair: (pair[1].recorded_at, pair[0].competition_id, pair[0].id))


def _briers(scores) -> dict[tuple[str, str], dict[str, list[float]]]:
    """(competition, event) -> forecaster -> the Brier scores of its scored forecasts of that match."""
    out: dict = defaultdict(lambda: defaultdict(list))
    for row in scores.forecasts:
        value = row.measures.get("brier")
        if value is not None and value == value:
            out[(row.competition_id, row.event_id)][row.forecaster].append(float(value))
    return out


def _add(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
    if text is not None:
        element.text = text
    return element


def _team(archive, competition_id: str, team_id: str) -> str:
    competition = archive.competitions.get(competition_id)
    try:
        return competition.team(team_id).name if competition is not None else team_id
    except KeyError:
        return team_id


def atom_feed(archive, scores, commit: str, site_url: str | None = None) -> bytes:
    """The feed's bytes (UTF-8, with the XML declaration)."""
    base = (site_url or "").rstrip("/") + "/" if site_url else ""
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    _add(feed, "title", "Prematch: results and leaderboard changes")
    _add(feed, "id", "tag:prematch.invalid,2026:feed")
    _add(feed, "link", href=f"{base}{FEED}", rel="self")
    _add(feed, "author").append(_name("Prematch"))
    matches, briers = finished_matches(archive), _briers(scores)
    _add(feed, "updated", _stamp(matches[-1][1].recorded_at) if matches else "1970-01-01T00:00:00Z")
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    leader = None
    for event, outcome in matches:
        mine = briers.get((event.competition_id, event.id), {})
        for forecaster, values in mine.items():
            totals[forecaster][0] += sum(values)
            totals[forecaster][1] += len(values)
        ranked = sorted((t / n, f) for f, (t, n) in totals.items() if n)
        before, leader = leader, (ranked[0][1] if ranked else None)
        _entry(feed, archive, event, outcome, mine, ranked, before, base)
    ET.indent(feed)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8") + b"\n"


def _name(text: str) -> ET.Element:
    element = ET.Element(f"{{{ATOM}}}name")
    element.text = text
    return element


def _entry(feed, archive, event, outcome, mine: dict, ranked: list, before: str | None, base: str) -> None:
    home, away = _team(archive, event.competition_id, event.home_team), _team(archive, event.competition_id, event.away_team)
    score = f"{outcome.score_90.home}-{outcome.score_90.away}"
    entry = _add(feed, "entry")
    _add(entry, "title", f"{home} {score} {away} ({event.competition_id}, {event.stage})")
    _add(entry, "id", f"tag:prematch.invalid,2026:result/{event.competition_id}/{event.id}")
    _add(entry, "updated", _stamp(outcome.recorded_at))
    _add(entry, "link", href=f"{base}{match_path(event.competition_id, event.id)}", rel="alternate")
    lines = [f"Result after 90 minutes: {home} {score} {away}" + (" (replay)" if outcome.clock.value == "replay" else "")]
    if outcome.advancing_team:
        lines.append(f"Advancing: {_team(archive, event.competition_id, outcome.advancing_team)}")
    for forecaster in sorted(mine):
        values = mine[forecaster]
        lines.append(f"Brier of {forecaster}: {sum(values) / len(values):.4f} ({len(values)} forecast(s))")
    if ranked:
        mean, leader = ranked[0]
        change = "unchanged" if before == leader else (f"new, was {before}" if before else "first result")
        lines.append(f"Leader by running mean Brier: {leader} ({mean:.4f}; {change})")
    _add(entry, "content", "\n".join(lines), type="text")
