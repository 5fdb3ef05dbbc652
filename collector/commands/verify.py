"""``verify``: check the archive's git history (append-only, timing, manifests) and report it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from collector.audit.report import report_json, summary_text
from collector.audit.verify import verify_repository
from collector.errors import ArchiveError


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "verify",
        help="check from git history that every record was appended, never changed, and forecasts predate kickoff",
        description=(
            "Check from the git history of the archive that every record was only ever added, never"
            " changed, and that every forecast was committed before its kickoff and its result. "
            "Exit 1 on any violation."
        ),
    )
    parser.add_argument("--repo", type=Path, default=Path("."), help="the git repository to check (default: .)")
    parser.add_argument(
        "--archive-path", default="archive", help="the archive folder inside the repository (default: archive)"
    )
    parser.add_argument("--json", action="store_true", help="print the full report (every record, every finding) as JSON")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="re-validate every blob instead of reusing results cached in .git/prematch (keyed by blob id)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        report = verify_repository(args.repo, args.archive_path, use_cache=not args.no_cache)
    except ArchiveError as exc:
        print(f"verify: {exc}", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(report_json(report), option=orjson.OPT_INDENT_2) + b"\n")
    else:
        print(summary_text(report))
    return 0 if report.ok else 1
