"""The shared shape of ``python -m collector`` and ``python -m builder``.

Each command lives in ``<package>/commands/<module>.py`` and exposes ``add_parser(subparsers)``
(which registers the command, with help text on every option) and ``run(args) -> int``.
Only the module of the command being run is imported; ``--help`` imports them all.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from datetime import UTC, datetime

from collector.errors import PROBLEM_PREFIX, Problem, RunReport, UsageError

EXIT_DONE, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def build_parser(prog: str, description: str, package: str, modules: list[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in modules:
        module = importlib.import_module(f"{package}.commands.{name}")
        command = module.add_parser(sub)
        command.set_defaults(_run=module.run)
    return parser


def run_program(prog: str, description: str, package: str, modules: list[str], argv: list[str]) -> int:
    """Parse ``argv`` and run the chosen command; returns its exit code."""
    chosen = argv[0].replace("-", "_") if argv else ""
    needed = [chosen] if chosen in modules else modules  # unknown or help: let argparse list them all
    parser = build_parser(prog, description, package, needed)
    args = parser.parse_args(argv)  # a bad option exits 2 here (argparse)
    try:
        return args._run(args)
    except UsageError as exc:
        print(f"{prog.split()[-1]} {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE


def print_problems(problems: list[Problem]) -> None:
    """Every problem on stderr, one line each, behind the one prefix."""
    for problem in problems:
        print(f"{PROBLEM_PREFIX}{problem}", file=sys.stderr)


def finish(report: RunReport, *, quiet_summary: bool = False) -> int:
    """Print a run's summary (stdout) and problems (stderr); exit 0 when clean, 1 with problems."""
    if not quiet_summary:
        for line in report.summary_lines():
            print(line)
    print_problems(report.problems)
    return EXIT_PROBLEMS if report.problems else EXIT_DONE


def parse_utc_instant(value: str) -> datetime:
    """An ISO 8601 time with its UTC offset (``Z`` allowed), as UTC; argparse ``type=`` for --until."""
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an ISO 8601 timestamp") from None
    if parsed.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{value!r} needs a UTC offset, e.g. 2026-06-14T00:00Z")
    return parsed.astimezone(UTC)
