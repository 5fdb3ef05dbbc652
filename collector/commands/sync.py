"""``sync``: register a competition's fixtures and write the outcomes that are due at ``--now``."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from collector.archive.folder import check_archive_dir
from collector.commandline import (
    INSTANT_HELP,
    add_clock_option,
    add_config_option,
    add_data_dir_option,
    finish,
    parse_utc_instant,
    resolve_clock,
)
from collector.competitions import list_competitions, load_definition
from collector.competitions.loader import check_competition_ids
from collector.datasource import DataSource
from collector.errors import PrematchError, Problem
from collector.fixtures.sync import sync_competition
from collector.fixtures.sync_report import SyncReport
from collector.sources import ADAPTERS, source_for


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("sync", help="register fixtures and write due outcomes and question resolutions",
                            description=(
                                "Register a competition's fixtures and write the outcomes and "
                                "question resolutions that are due, from what was knowable at "
                                "--now."
                            ))
    parser.add_argument("--competition", action="append", required=True, metavar="ID",
                        help=f"competition id (repeatable; 'all' for every one): {', '.join(list_competitions())} "
                             "or one of the folder named by --config")
    parser.add_argument("--now", type=parse_utc_instant, default=None,
                        help=f"the time to sync as of ({INSTANT_HELP}; default: the current time); "
                             "only what was knowable then is written")
    add_clock_option(parser)
    parser.add_argument("--archive", type=Path, default=Path("archive"),
                        help="archive folder, created if missing (default: archive)")
    add_data_dir_option(parser)
    add_config_option(parser)
    parser.add_argument("--source", choices=ADAPTERS, default=None,
                        help="override the competition's source adapter (football-data needs FOOTBALL_DATA_API_KEY)")
    return parser


@dataclass
class SyncRun:
    """One ``sync`` command: a report per competition; problems once each, in the order met."""

    reports: list[SyncReport] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def add(self, report: SyncReport) -> None:
        self.reports.append(report)
        self.problems += [p for p in report.problems if p not in self.problems]

    def summary_lines(self) -> list[str]:
        return [line for report in self.reports for line in report.summary_lines()]


def run(args: argparse.Namespace) -> int:
    check_archive_dir(args.archive, may_be_missing=True)
    now = args.now or datetime.now(UTC)
    clock = resolve_clock(args)
    check_competition_ids(args.config, args.competition)
    ids = list_competitions() if "all" in args.competition else args.competition
    result = SyncRun()
    for competition_id in ids:
        try:
            source = source_for(load_definition(competition_id), DataSource(args.data_dir), args.source)
        except PrematchError as exc:
            result.problems.append(Problem(competition_id, str(exc)))
            continue
        result.add(sync_competition(args.archive, competition_id, now=now, data_dir=args.data_dir,
                                    clock=clock, source=source))
    return finish(result)
