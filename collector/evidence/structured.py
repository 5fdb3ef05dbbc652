"""The structured parts of an evidence package: form, head-to-head, table, rest and travel.

National teams' form, head-to-head and last venue come from ``international-results/
results.csv`` (read through the baselines' reader, :mod:`collector.forecasters.baselines.results`);
a row dated D counts only when D is at least 39 h 15 before the package's lock (the file
gives *local* dates and no kickoff times: the baselines' rule, ``LOCAL_DATE_SLACK``). League
teams' form comes from the outcomes recorded in the archive before the lock. The group or
league table counts only outcomes recorded before the lock, of matches that kicked off before it.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from collector.archive.layout import outcome_path
from collector.archive.reader import Archive
from collector.competitions.loader import load_definition
from collector.competitions.standings import MatchResult, table_for
from collector.datasource import DataSource
from collector.errors import SourceError
from collector.forecasters.baselines.base import LOCAL_DATE_SLACK
from collector.forecasters.baselines.results import (
    RESULTS_CSV,
    canonical,
    read_data_text,
)
from collector.records import (
    Clock,
    Competition,
    CompetitionFormat,
    Event,
    HeadToHead,
    PastMatch,
    Provenance,
    RestTravel,
    Squad,
    StandingRow,
    Standings,
    TeamForm,
)
from collector.sources.openfootball import read_squads


@dataclass(frozen=True)
class Row:
    """One results.csv row, with names folded as the baselines fold them."""

    day: date
    home: str
    away: str
    home_goals: int
    away_goals: int
    tournament: str
    city: str
    country: str
    neutral: bool

    def seen_by(self, team: str) -> PastMatch:
        home = self.home == team
        venue = "neutral" if self.neutral else "home" if home else "away"
        return PastMatch(
            date=self.day, opponent=self.away if home else self.home, venue=venue, tournament=self.tournament,
            goals_for=self.home_goals if home else self.away_goals,
            goals_against=self.away_goals if home else self.home_goals,
            city=self.city or None, country=self.country or None,
        )  # fmt: skip


_ROWS: dict[str, tuple[Row, ...]] = {}


def result_rows(data_dir: Path | str | None) -> tuple[Row, ...]:
    """Every played row of results.csv, oldest first (parsed once per data folder); SourceError names the line."""
    key = str(data_dir)
    if key not in _ROWS:
        rows = []
        for line, raw in enumerate(csv.DictReader(io.StringIO(read_data_text(data_dir, RESULTS_CSV))), start=2):
            try:
                if raw["home_score"] in ("", "NA") or raw["away_score"] in ("", "NA"):
                    continue
                rows.append(Row(date.fromisoformat(raw["date"]), canonical(raw["home_team"]),
                                canonical(raw["away_team"]), int(raw["home_score"]), int(raw["away_score"]),
                                raw["tournament"], raw["city"], raw["country"],
                                raw["neutral"].strip().upper() == "TRUE"))  # fmt: skip
            except (KeyError, ValueError, AttributeError) as exc:
                raise SourceError(f"{RESULTS_CSV} line {line}: cannot read row {raw!r}: {exc}") from None
        rows.sort(key=lambda r: r.day)
        _ROWS[key] = tuple(rows)
    return _ROWS[key]


def last_usable_day(lock: datetime) -> date:
    """The newest results.csv date usable at ``lock`` (a local date D may end D+1 14:30 UTC)."""
    return (lock - LOCAL_DATE_SLACK).date()


def team_names(competition: Competition, team_id: str) -> set[str]:
    team = competition.team(team_id)
    return {canonical(n) for n in (team.name, *team.aliases)}


_BY_TEAM: dict[str, dict[str, list[Row]]] = {}


def rows_by_team(data_dir: Path | str | None) -> dict[str, list[Row]]:
    """results.csv rows by (folded) team name, oldest first: each package looks up two teams, not 49,000 rows."""
    key = str(data_dir)
    if key not in _BY_TEAM:
        index: dict[str, list[Row]] = {}
        for row in result_rows(data_dir):
            index.setdefault(row.home, []).append(row)
            if row.away != row.home:
                index.setdefault(row.away, []).append(row)
        _BY_TEAM[key] = index
    return _BY_TEAM[key]


def _csv_matches(index: dict[str, list[Row]], names: set[str], cut: date) -> list[tuple[str, Row]]:
    """(the name the team carries in the row, row) for the team's rows dated at or before ``cut``, newest first."""
    found = {id(r): r for name in names for r in index.get(name, ()) if r.day <= cut}
    ordered = sorted(found.values(), key=lambda r: r.day, reverse=True)
    return [(r.home if r.home in names else r.away, r) for r in ordered]


def _form(team_id: str, matches: list[PastMatch], provenance: Provenance) -> TeamForm:
    return TeamForm(team_id=team_id, provenance=provenance, matches=tuple(matches),
                    form="".join(m.result for m in matches))


def national_parts(competition: Competition, event: Event, lock: datetime, data_dir, recent: int, meetings: int,
                   retrieved_at: datetime) -> tuple[list[TeamForm], HeadToHead, list[RestTravel]]:  # fmt: skip
    """Form, head-to-head and rest of two national teams from results.csv, before the lock."""
    rows, cut = rows_by_team(data_dir), last_usable_day(lock)
    provenance = Provenance(source=f"{RESULTS_CSV} (rows dated <= {cut.isoformat()})", retrieved_at=retrieved_at)
    forms, rest, seen = [], [], {}
    for team_id in (event.home_team, event.away_team):
        matches = _csv_matches(rows, team_names(competition, team_id), cut)
        seen[team_id] = matches
        forms.append(_form(team_id, [r.seen_by(name) for name, r in matches[:recent]], provenance))
        rest.append(_rest(team_id, matches[0][1] if matches else None, event, lock, provenance))
    away = team_names(competition, event.away_team)
    h2h = [r.seen_by(name) for name, r in seen[event.home_team] if (r.away if r.home == name else r.home) in away]
    return forms, _head_to_head(h2h[:meetings], provenance), rest


def _rest(team_id: str, last: Row | None, event: Event, lock: datetime, provenance: Provenance) -> RestTravel:
    if last is None:
        return RestTravel(team_id=team_id, provenance=provenance, venue=event.venue)
    return RestTravel(team_id=team_id, provenance=provenance, last_match=last.day, venue=event.venue,
                      rest_days=max(0, (event.kickoff_date - last.day).days), last_city=last.city or None,
                      last_country=last.country or None)  # fmt: skip


def _head_to_head(matches: list[PastMatch], provenance: Provenance) -> HeadToHead:
    results = [m.result for m in matches]
    return HeadToHead(provenance=provenance, matches=tuple(matches), home_wins=results.count("W"),
                      draws=results.count("D"), away_wins=results.count("L"))  # fmt: skip


def known_results(archive: Archive, competition_id: str, lock: datetime) -> list[tuple[Event, MatchResult, str]]:
    """The competition's results known at ``lock``: recorded before it, of matches that kicked off before it."""
    out = []
    for event_id, outcome in archive.results_before(competition_id, lock).items():
        event = archive.events.get((competition_id, event_id))
        if (event is None or event.kickoff_utc is None or event.kickoff_utc >= lock or outcome.score_90 is None
                or outcome.recorded_at >= lock):  # fmt: skip
            continue
        score = outcome.score_90
        out.append((event, MatchResult(event.home_team, event.away_team, score.home, score.away),
                    outcome_path(competition_id, event_id, outcome.revision)))  # fmt: skip
    out.sort(key=lambda item: item[0].kickoff_utc)
    return out


def league_parts(archive: Archive, event: Event, lock: datetime, recent: int, meetings: int,
                 retrieved_at: datetime) -> tuple[list[TeamForm], HeadToHead, list[RestTravel]]:  # fmt: skip
    """Form, head-to-head and rest of two league teams from the season's outcomes in the archive."""
    known = known_results(archive, event.competition_id, lock)[::-1]
    provenance = Provenance(source=f"archive: {event.competition_id} outcomes recorded before the lock",
                            retrieved_at=retrieved_at)
    forms, rest = [], []
    for team_id in (event.home_team, event.away_team):
        mine = [(e, r) for e, r, _ in known if team_id in (r.home, r.away)]
        forms.append(_form(team_id, [_seen(e, r, team_id) for e, r in mine[:recent]], provenance))
        last = mine[0][0] if mine else None
        rest.append(RestTravel(team_id=team_id, provenance=provenance, venue=event.venue,
                               last_match=last.kickoff_date if last else None, last_city=last.venue if last else None,
                               rest_days=max(0, (event.kickoff_date - last.kickoff_date).days) if last else None))
    pair = {event.home_team, event.away_team}
    h2h = [_seen(e, r, event.home_team) for e, r, _ in known if {r.home, r.away} == pair]
    return forms, _head_to_head(h2h[:meetings], provenance), rest


def _seen(event: Event, result: MatchResult, team_id: str) -> PastMatch:
    home = result.home == team_id
    return PastMatch(date=event.kickoff_date, opponent=result.away if home else result.home,
                     venue="home" if home else "away", tournament=event.stage, city=event.venue,
                     goals_for=result.home_goals if home else result.away_goals,
                     goals_against=result.away_goals if home else result.home_goals)  # fmt: skip


def standings(archive: Archive, competition: Competition, event: Event, lock: datetime,
              retrieved_at: datetime) -> Standings | None:  # fmt: skip
    """The event's group table (tournaments) or the league table, from results known at the lock."""
    if competition.format is CompetitionFormat.TOURNAMENT:
        group = next((g for g in competition.groups if g.name == event.group), None)
        if group is None:
            return None  # a knockout match: no table
        teams, label = group.teams, f"Group {group.name}"
    else:
        teams, label = tuple(t.id for t in competition.teams), competition.name
    known = [(e, r) for e, r, _ in known_results(archive, competition.id, lock)
             if e.stage == event.stage and (competition.format is not CompetitionFormat.TOURNAMENT
                                             or e.group == event.group)]  # fmt: skip
    table = table_for(competition, teams, [r for _, r in known])
    rows = tuple(StandingRow(team_id=r.team, played=r.played, won=r.won, drawn=r.drawn, lost=r.lost,
                             goals_for=r.goals_for, goals_against=r.goals_against, points=r.points) for r in table)
    provenance = Provenance(source=f"archive: {competition.id} outcomes recorded before the lock",
                            retrieved_at=retrieved_at)
    return Standings(provenance=provenance, table=label, rows=rows, results_counted=len(known))


def squads(competition: Competition, event: Event, data_dir, clock: Clock,
           retrieved_at: datetime) -> tuple[list[Squad], str | None]:  # fmt: skip
    """Both teams' squads from the definition's squads file, and a note when the part stays empty.

    Only a live tick reads them: a file read now is knowable now, but a replay would read today's
    squads at a simulated earlier time (late call-ups and replacements included), so it leaves
    the part empty (fail closed).
    """
    if clock is not Clock.LIVE:
        return [], "squads: left out of replays (the squads file is read today, after the simulated lock)"
    definition = load_definition(competition.id)
    if not definition.source.squads:
        return [], "squads: the competition's definition names no squads file"
    data = DataSource(data_dir)
    found, problems = read_squads(definition, data, competition)
    if found is None:
        return [], "squads: " + (problems[0].message if problems else "unreadable")
    provenance = Provenance(source=data.describe(definition.source.squads), retrieved_at=retrieved_at)
    out = [Squad(team_id=t, provenance=provenance, players=tuple(found[t]))
           for t in (event.home_team, event.away_team) if t in found]
    missing = [t for t in (event.home_team, event.away_team) if t not in found]
    return out, f"squads: none listed for {', '.join(missing)}" if missing else None
