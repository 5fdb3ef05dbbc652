"""``verify``: check the archive's git history (append-only, timing, manifests) and report it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from collector.audit.anchors import parse_anchor
from collector.audit.gitlog import check_repository
from collector.audit.report import report_json
from collector.audit.rewrites import COMMIT
from collector.audit.verify import verify_repository
from collector.commandline import finish
from collector.errors import UsageError


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
        help="re-validate every blob instead of reusing results cached in .git/prematch (keyed by blob id); "
        "the commits verified in this clone before are then neither checked nor noted",
    )
    parser.add_argument(
        "--anchor", action="append", default=[], metavar="SHA256[@COMMIT]", type=_anchor,
        help="a manifest SHA-256 noted somewhere public (the site's Audit page shows the latest, with the "
        "commit that held it): check it is in the history and report what it pins; with @COMMIT, that "
        "commit must still be in the history and hold the manifest; repeatable; exit 1 if not",
    )  # fmt: skip
    parser.add_argument(
        "--checkpoint", action="append", default=[], metavar="COMMIT", type=_commit,
        help="a commit of this history verified before (an earlier run's HEAD, noted anywhere): exit 1, "
        "naming it, if the history no longer holds it (rewritten); repeatable. Commits verified in this "
        "clone are checked without it (.git/prematch/verified-heads.json)",
    )  # fmt: skip
    parser.add_argument(
        "--tsa-roots", action="append", type=Path, default=None, metavar="PATH",
        help="a PEM file AUTHORITY.pem, or a folder of them, with the roots (and intermediates) each "
        "time-stamping authority's tokens must chain to: a token filed as TICK.AUTHORITY.tsr is checked "
        "against AUTHORITY's certificates only; repeatable (default: collector/audit/tsa_roots)",
    )  # fmt: skip
    return parser


def _anchor(text: str) -> str:
    try:
        return parse_anchor(text)
    except Exception as exc:  # argparse turns this into a usage error (exit 2)
        raise argparse.ArgumentTypeError(str(exc)) from None


def _commit(text: str) -> str:
    value = text.strip().lower()
    if not COMMIT.fullmatch(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a commit id (7 to 40 hexadecimal digits)")
    return value


def run(args: argparse.Namespace) -> int:
    check_repository(args.repo, args.archive_path)
    for path in args.tsa_roots or []:
        if not path.exists():
            raise UsageError(f"--tsa-roots {path}: no such file or folder")
    report = verify_repository(args.repo, args.archive_path, use_cache=not args.no_cache,
                               tsa_roots=args.tsa_roots, anchors=args.anchor, checkpoints=args.checkpoint)
    for note in report.cache_notes:  # a cache that could not be read was ignored: the report is a full run's
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(report_json(report), option=orjson.OPT_INDENT_2) + b"\n")
    return finish(report, quiet_summary=args.json)
