"""``verify``: check the archive's git history (append-only, timing, manifests) and report it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from collector.audit.gitlog import check_repository
from collector.audit.report import report_json
from collector.audit.verify import verify_repository
from collector.commandline import finish


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "verify",
        help="check from git history that every record was appended, never changed, and forecasts predate kickoff",
        description=(
            "Check from the git history of the archive that every record was only ever added, never"
            " changed, and that every forecast was committed before its kickoff and its result. "
            "Each violation is one 'problem:' line on stderr; exit 1 on any violation."
        ),
    )
    parser.add_argument("--repo", type=Path, default=Path("."),
                        help="the top folder of the git repository to check (default: .)")
    parser.add_argument(
        "--archive-path", default="archive", help="the archive folder inside the repository (default: archive)"
    )
    parser.add_argument("--json", action="store_true",
                        help="print the full report (every record, every finding) as JSON on stdout")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="re-validate every blob instead of reusing results cached in .git/prematch (keyed by blob id)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    check_repository(args.repo, args.archive_path)
    report = verify_repository(args.repo, args.archive_path, use_cache=not args.no_cache)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(report_json(report), option=orjson.OPT_INDENT_2) + b"\n")
    return finish(report, quiet_summary=args.json)
