"""``sync``: register a competition's fixtures and write the outcomes that are due at ``--now``."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from collector.competitions import list_competitions, load_definition
from collector.datasource import DataSource
from collector.errors import PrematchError
from collector.fixtures.sync import sync_competition
from collector.records import Clock
from collector.sources import ADAPTERS, source_for


def parse_now(text: str) -> datetime:
    """ISO date or date-time; a value without offset is read as UTC."""
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO date/time: {text!r} (e.g. 2026-07-20T12:00Z)") from None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("sync", help="register fixtures and write due outcomes and question resolutions",
                            description=(
                                "Register a competition's fixtures and write the outcomes and "
                                "question resolutions that are due, from what was knowable at "
                                "--now."
                            ))
    parser.add_argument("--competition", action="append", required=True, metavar="ID",
                        help=f"competition id (repeatable; 'all' for every one): {', '.join(list_competitions())}")
    parser.add_argument("--now", type=parse_now, default=None,
                        help="the time to sync as of (ISO, UTC if no offset; default: the current time); "
                             "only what was knowable then is written")
    parser.add_argument("--clock", choices=[c.value for c in Clock], default=None,
                        help="mark records live or replay (default: replay when --now is given, else live)")
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder (default: archive)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="local data folder laid out like shared/data (default: $PREMATCH_DATA_DIR, else the public URLs)")
    parser.add_argument("--source", choices=ADAPTERS, default=None,
                        help="override the competition's source adapter (football-data needs FOOTBALL_DATA_API_KEY)")
    return parser


def run(args: argparse.Namespace) -> int:
    now = args.now or datetime.now(UTC)
    clock = Clock(args.clock) if args.clock else (Clock.REPLAY if args.now else Clock.LIVE)
    ids = list_competitions() if "all" in args.competition else args.competition
    failed = False
    for competition_id in ids:
        try:
            source = source_for(load_definition(competition_id), DataSource(args.data_dir), args.source)
        except PrematchError as exc:
            print(f"problem: {competition_id}: {exc}", file=sys.stderr)
            failed = True
            continue
        report = sync_competition(args.archive, competition_id, now=now, data_dir=args.data_dir,
                                  clock=clock, source=source)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(report.counts.items())) or "nothing new"
        print(f"{competition_id} @ {now.isoformat()} ({clock.value}): {counts}")
        for problem in report.problems:
            print(f"problem: {problem}", file=sys.stderr)
        failed = failed or bool(report.problems)
    return 1 if failed else 0
