"""``guard``: fail when a change modifies or deletes an existing archive file (for pull requests)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from collector.audit.guard import check_changes
from collector.errors import ArchiveError


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("guard", help="fail if HEAD modifies or deletes archive files that exist at BASE",
                            description=(
                                "Fail (exit 1) if the commits since BASE modify, rename or delete "
                                "an archive file that exists at BASE, or add one that does not "
                                "validate; regenerated archive/schema files are allowed."
                            ))
    parser.add_argument("--base", required=True, help="the branch or commit the change is compared to, e.g. origin/main")
    parser.add_argument("--repo", type=Path, default=Path("."), help="the git repository (default: .)")
    parser.add_argument(
        "--archive-path", default="archive", help="the archive folder inside the repository (default: archive)"
    )
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        problems, added = check_changes(args.repo, args.base, args.archive_path)
    except ArchiveError as exc:
        print(f"guard: {exc}", file=sys.stderr)
        return 2
    if problems:
        print(f"guard: {len(problems)} problem(s) in the archive changes since {args.base}:")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print(f"guard: OK, {added} archive file(s) added since {args.base}, none modified or deleted")
    return 0
