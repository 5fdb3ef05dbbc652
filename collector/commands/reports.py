"""``reports``: add lineups, events and statistics to the match reports from a report source."""

from __future__ import annotations

import argparse
import os
from datetime import UTC, datetime
from pathlib import Path

from collector.archive.folder import check_archive_dir
from collector.archive.reader import load_archive
from collector.archive.write.writer import ArchiveWriter
from collector.commandline import (
    INSTANT_HELP,
    Done,
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
    parser.add_argument("--competition", default=None, metavar="ID",
                        help=f"competition id: {', '.join(list_competitions())} (api-football without it: every "
                        "competition of the configuration's [reports] api_football_leagues)")
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
    parser.add_argument("--config", type=Path, default=None,
                        help="arena configuration whose [reports] names API-Football's league per competition "
                        "(default: prematch.toml when present)")
    return parser


def run(args: argparse.Namespace) -> int:
    check_archive_dir(args.archive)
    if args.competition is None:
        return _configured(args)
    return finish(_one(args, load_archive(args.archive), args.competition))


def _settings(args: argparse.Namespace):
    from collector.config import DEFAULT_CONFIG, load_config

    path = args.config or (DEFAULT_CONFIG if DEFAULT_CONFIG.exists() else None)
    return load_config(path).reports if path is not None else None


def _configured(args: argparse.Namespace) -> int:
    """Every competition of ``[reports] api_football_leagues``; nothing (exit 0) without API_FOOTBALL_KEY."""
    from collector.sources.api_football import API_KEY_ENV

    if args.source != "api-football":
        raise UsageError("--competition is required with --source football-data")
    settings = _settings(args)
    leagues = settings.api_football_leagues if settings is not None else {}
    if not leagues:
        raise UsageError("no --competition, and the configuration's [reports] api_football_leagues is empty")
    if not os.environ.get(API_KEY_ENV, "").strip():
        return finish(Done([f"reports: {API_KEY_ENV} is not set: API-Football is off ({len(leagues)} "
                            "competition(s) configured)"]))
    archive, done = load_archive(args.archive), Done()
    for cid, league in sorted(leagues.items()):
        args.league, args.season = league, settings.api_football_season.get(cid)
        report = _one(args, archive, cid)
        done.lines += report.summary_lines()
        done.problems += report.problems
    return finish(done)


def _one(args: argparse.Namespace, archive, cid: str):
    competition = archive.competitions.get(cid)
    if args.source == "api-football":
        from collector.sources.api_football import BASE_URL, APIFootballSource

        if args.league is None:
            raise UsageError("--league is required with --source api-football and --competition (without "
                             "--competition the configuration's [reports] api_football_leagues are asked)")
        season = args.season or int((competition.edition if competition else "0")[:4] or 0)
        source = APIFootballSource(args.league, season, base_url=os.environ.get("API_FOOTBALL_BASE_URL", BASE_URL))
    else:
        from collector.sources.football_data import BASE_URL as FD_URL
        from collector.sources.football_data_reports import FootballDataReportSource

        source = FootballDataReportSource(load_definition(cid),
                                          base_url=os.environ.get("FOOTBALL_DATA_BASE_URL", FD_URL))
    definition = load_definition(cid)
    squads = None
    if competition is not None and definition.source.squads:  # names are checked against the squads
        from collector.datasource import DataSource
        from collector.sources.openfootball import read_squads

        squads, _ = read_squads(definition, DataSource(args.data_dir), competition)
    return collect_reports(ArchiveWriter(args.archive, archive), archive, cid, source,
                           now=args.now or datetime.now(UTC), clock=resolve_clock(args), squads=squads)
