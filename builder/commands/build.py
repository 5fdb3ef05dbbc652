"""``python -m builder build``: render the static site from an archive into a folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from builder.site.build import build_site
from collector.errors import PrematchError


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("build", help="render the static site (leaderboard, matches, charts, data) from an archive",
                            description=(
                                "Render the static site (leaderboard, matches, questions, bracket, "
                                "forecasters, charts, data) from an archive into a folder."
                            ))
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder to read (default: archive)")
    parser.add_argument("--out", type=Path, default=Path("site"),
                        help="output folder; replaced if it holds a previous build (default: site)")
    parser.add_argument("--commit", default=None,
                        help="commit id to print on the site (default: git rev-parse HEAD of the archive folder)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when archive files fail validation (they are left out either way)")
    parser.add_argument("--quiet", action="store_true", help="print only the final summary")
    return parser


def run(args: argparse.Namespace) -> int:
    progress = (lambda _line: None) if args.quiet else (lambda line: print(line, flush=True))
    try:
        report = build_site(args.archive, args.out, commit=args.commit, progress=progress)
    except PrematchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(report.summary())
    return 1 if args.strict and report.problems else 0
