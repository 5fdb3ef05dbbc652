"""``prematch score``: print the leaderboard computed from an archive (JSON or a table)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from builder.score.options import LSA_DEFAULTS, PREMATCH_V1
from builder.score.scoring import score_archive
from builder.score.types import clean
from collector.archive.folder import check_archive_dir
from collector.archive.reader import load_archive
from collector.commandline import finish
from collector.errors import Problem, UsageError

CHOICES = {"lsa": LSA_DEFAULTS, "prematch_v1": PREMATCH_V1}
TABLE_COLUMNS = (  # headed by the ids of the --json keys and the registry (builder/score/definitions.py)
    ("forecaster", "forecaster", "{}"),
    ("access", "access", "{}"),
    ("strategy", "strategy", "{}"),
    ("horizon", "horizon", "{}"),
    ("clock", "clock", "{}"),
    ("N", "n", "{}"),
    ("coverage", "coverage", "{:.2f}"),
    ("brier", "brier", "{:.4f}"),
    ("95% CI", "brier_ci", "{}"),
    ("log_loss", "log_loss", "{:.4f}"),
    ("rps", "rps", "{:.4f}"),
    ("accuracy", "accuracy", "{:.3f}"),
    ("exact", "exact", "{:.3f}"),
    ("points", "points", "{:.2f}"),
    ("ranked", "ranked", "{}"),
)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("score", help="score an archive and print the leaderboard",
                            description=(
                                "Print the leaderboard computed from an archive, as a table or as "
                                "JSON."
                            ))
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder to score (default: archive)")
    parser.add_argument("--competition", default=None, help="score only this competition id (default: all)")
    parser.add_argument("--json", action="store_true", help="print the leaderboard rows as JSON")
    parser.add_argument("--all", action="store_true",
                        help="with --json, print the whole analysis (forecasts, tests, calibration, ...)")
    parser.add_argument("--matched", action="store_true",
                        help="matched view: only events every ranked forecaster of the condition forecast")
    parser.add_argument("--horizon", default=None, help="show only this horizon (e.g. t_minus_24h)")
    parser.add_argument("--access", default=None, help="show only this access (closed_book or open_book)")
    parser.add_argument("--strategy", default=None, help="show only this strategy")
    parser.add_argument("--no-tests", action="store_true", help="skip permutation tests (faster)")
    parser.add_argument("--choices", choices=sorted(CHOICES), default="lsa",
                        help="analysis choices: lsa = LLM-SoccerArena's (5 confidence groups, JS divergence in "
                             "nats, Fisher-z correlations, studentized intervals; the default), prematch_v1 = "
                             "Prematch's earlier ones (terciles, bits, pooled correlation, percentile intervals)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when the archive has invalid records (they are reported and skipped either way)")
    return parser


@dataclass
class ScoreReport:
    """The leaderboard rows shown; problems: every archive file skipped, every outcome not scored."""

    rows: list[dict]
    problems: list[Problem] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        return format_table(self.rows).split("\n")


def run(args: argparse.Namespace) -> int:
    check_archive_dir(args.archive)
    archive = load_archive(args.archive)
    known = set(archive.competitions) | {f.competition_id for f in archive.forecasts}
    if args.competition is not None and args.competition not in known:
        listed = ", ".join(sorted(known)) or "none"
        raise UsageError(f"no competition {args.competition!r} in {args.archive} (known: {listed})")
    scores = score_archive(archive, args.competition, inference_tests=not args.no_tests and args.all,
                           options=CHOICES[args.choices])
    rows = [r.flat() for r in (scores.matched if args.matched else scores.leaderboard)]
    unscored = [_problem(text) for text in scores.problems[len(archive.problems):]]  # after the archive's own
    report = ScoreReport([r for r in rows if _selected(r, args)], list(archive.problems) + unscored)
    if args.json:
        document = scores.to_dict() if args.all else clean(report.rows)
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    return finish(report, quiet_summary=args.json, fail_on_problems=args.strict)


def _problem(text: str) -> Problem:
    """A scoring problem (``Scores.problems`` holds ``"path: message"`` strings) as a Problem."""
    path, _, message = text.partition(": ")
    return Problem(path, message)


def _selected(row: dict, args: argparse.Namespace) -> bool:
    return all(getattr(args, f) in (None, row[f]) for f in ("horizon", "access", "strategy"))


def format_table(rows: list[dict]) -> str:
    """A plain-text table of leaderboard rows; replay rows are marked by their clock column."""
    if not rows:
        return "no scored forecasts"
    cells = [[h for h, _, _ in TABLE_COLUMNS]]
    for row in rows:
        row = {**row, "brier_ci": _ci(row.get("brier_low"), row.get("brier_high"))}
        cells.append([_fmt(fmt, row.get(key)) for _, key, fmt in TABLE_COLUMNS])
    widths = [max(len(r[i]) for r in cells) for i in range(len(TABLE_COLUMNS))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells)


def _ci(low, high) -> str:
    return "-" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def _fmt(fmt: str, value) -> str:
    return "-" if value is None else fmt.format(value)
