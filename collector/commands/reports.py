"""``reports``: add lineups, events and statistics to the match reports from a report source."""

from __future__ import annotations

import argparse
import os
from datetime import UTC, datetime
from pathlib import Path

from collector.archive.folder import check_archive_dir
from collector.archive.reader import load_archive
from collector.archive.writer import ArchiveWriter
from collector.commandline import (
    INSTANT_HELP,
    add_clock_option,
    add_data_dir_option,
    finish,
    parse_utc_instant,
    resolve_clock,
)
from collector.competitions import list_competitions, load_definition
from collector.errors import UsageError
from collector.fixtures.match_reports import collect_reports

SOURCES = ("api-football", "football-data")


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("reports", help="add lineups, events and statistics to match reports from a source",
                            description="Ask a match-report source about every registered match with a recorded "
                                        "outcome and write each report that gains a field (a new revision).")
    parser.add_argument("--competition", required=True, metavar="ID",
                        help=f"competition id: {', '.join(list_competitions())}")
    parser.add_argument("--source", choices=SOURCES, required=True,
                        help="api-football (API_FOOTBALL_KEY; its daily request limit is honoured) or "
                             "football-data (FOOTBALL_DATA_API_KEY; unfolded lineups, bookings, substitutions, goals)")
    parser.add_argument("--league", type=int, default=None,
                        help="API-Football league id (e.g. 1 for the World Cup); api-football only")
    parser.add_argument("--season", type=int, default=None,
                        help="API-Football season (default: the competition's edition year); api-football only")
    parser.add_argument("--now", type=parse_utc_instant, default=None,
                        help=f"the time the reports are recorded at ({INSTANT_HELP}; default: the current time)")
    add_clock_option(parser)
    add_data_dir_option(parser)
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder (default: archive)")
    return parser


def run(args: argparse.Namespace) -> int:
    check_archive_dir(args.archive)
    archive = load_archive(args.archive)
    competition = archive.competitions.get(args.competition)
    if args.source == "api-football":
        from collector.sources.api_football import BASE_URL, APIFootballSource

        if args.league is None:
            raise UsageError("--league is required with --source api-football")
        season = args.season or int((competition.edition if competition else "0")[:4] or 0)
        source = APIFootballSource(args.league, season, base_url=os.environ.get("API_FOOTBALL_BASE_URL", BASE_URL))
    else:
        from collector.sources.football_data import BASE_URL as FD_URL
        from collector.sources.football_data_reports import FootballDataReportSource

        source = FootballDataReportSource(load_definition(args.competition),
                                          base_url=os.environ.get("FOOTBALL_DATA_BASE_URL", FD_URL))
    definition = load_definition(args.competition)
    squads = None
    if competition is not None and definition.source.squads:  # names are checked against the squads
        from collector.datasource import DataSource
        from collector.sources.openfootball import read_squads

        squads, _ = read_squads(definition, DataSource(args.data_dir), competition)
    report = collect_reports(ArchiveWriter(args.archive, archive), archive, args.competition, source,
                             now=args.now or datetime.now(UTC), clock=resolve_clock(args), squads=squads)
    return finish(report)
