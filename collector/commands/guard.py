"""``guard``: fail when a change modifies or deletes an existing archive file (for pull requests)."""

from __future__ import annotations

import argparse
from pathlib import Path

from collector.audit.gitlog import check_repository
from collector.audit.guard import check_changes
from collector.commandline import finish


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("guard", help="fail if HEAD modifies or deletes archive files that exist at BASE",
                            description=(
                                "Fail (exit 1) if the commits since BASE modify, rename or delete "
                                "an archive file that exists at BASE, or add one that does not "
                                "validate; regenerated archive/schema files are allowed. Each "
                                "problem is one 'problem:' line on stderr."
                            ))
    parser.add_argument("--base", required=True, help="the branch or commit the change is compared to, e.g. origin/main")
    parser.add_argument("--head", default="HEAD",
                        help="the commit judged (default: HEAD); it need not be checked out, so a pull "
                        "request's commits fetched as data are judged by the base branch's code")
    parser.add_argument("--repo", type=Path, default=Path("."),
                        help="the top folder of the git repository (default: .)")
    parser.add_argument(
        "--archive-path", default="archive", help="the archive folder inside the repository (default: archive)"
    )
    return parser


def run(args: argparse.Namespace) -> int:
    check_repository(args.repo, args.archive_path)
    return finish(check_changes(args.repo, args.base, args.archive_path, args.head))
