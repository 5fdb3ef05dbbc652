"""``prematch paper-tables``: print each paper's main table computed from an archive.

LLM-SoccerArena Table 2, WorldCupArena Table 2 and Prophet Arena Table 2, in each paper's
own scales and column order (see :mod:`builder.score.paper_tables` for every definition).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import orjson

from builder.score.paper_tables import PaperTable, paper_tables
from builder.score.scoring import score_archive
from collector.archive.folder import check_archive_dir
from collector.archive.reader import load_archive
from collector.commandline import finish
from collector.errors import Problem, UsageError


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("paper-tables", help="print the papers' main tables computed from an archive",
                            description=(
                                "Print LLM-SoccerArena's Table 2, WorldCupArena's Table 2 and Prophet "
                                "Arena's Brier/ECE/return table computed from an archive, in each "
                                "paper's own scales and column order."
                            ))
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder to read (default: archive)")
    parser.add_argument("--competition", default=None, help="only this competition id (default: all)")
    parser.add_argument("--reference", default=None,
                        help="forecaster whose probabilities price Prophet Arena's bets "
                             "(default: market, else the ensemble or elo baseline as a stated stand-in)")
    parser.add_argument("--json", action="store_true", help="print the tables as JSON")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when the archive has invalid records (they are reported and skipped either way)")
    return parser


@dataclass
class TablesReport:
    tables: list[PaperTable]
    problems: list[Problem] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        lines: list[str] = []
        for table in self.tables:
            lines += [table.title, table.caption, *format_table(table), ""]
        return lines[:-1]


def run(args: argparse.Namespace) -> int:
    check_archive_dir(args.archive)
    archive = load_archive(args.archive)
    if args.competition is not None and args.competition not in archive.competitions:
        listed = ", ".join(sorted(archive.competitions)) or "none"
        raise UsageError(f"no competition {args.competition!r} in {args.archive} (known: {listed})")
    scores = score_archive(archive, args.competition, inference_tests=False)
    if not scores.forecasts:
        raise UsageError(f"{args.archive}: no scored match forecasts (forecasts with outcomes) to tabulate")
    if args.reference is not None and args.reference not in {r.forecaster for r in scores.forecasts}:
        raise UsageError(f"--reference {args.reference!r}: no scored forecasts by that forecaster")
    report = TablesReport(paper_tables(scores.forecasts, args.reference, scores.t5), list(archive.problems))
    if args.json:
        sys.stdout.buffer.write(orjson.dumps([asdict(t) for t in report.tables],
                                             option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    return finish(report, quiet_summary=args.json, fail_on_problems=args.strict)


def format_table(table: PaperTable) -> list[str]:
    cells = [list(table.columns)] + [list(r) for r in table.rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(table.columns))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
