"""``replay``: run the real scheduler over a finished competition on a simulated clock, into a new git repo."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from collector.commandline import parse_utc_instant
from collector.errors import PrematchError
from collector.forecasters.baselines import BASELINES


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("replay", help="replay a finished competition tick by tick into a new git repository",
                            description=(
                                "Replay a finished competition on a simulated clock with the real "
                                "scheduler, one git commit per tick, into a new repository; every "
                                "record is marked clock=replay."
                            ))
    parser.add_argument("competition", help="competition id, e.g. worldcup-2026 or en-1-2025-26")
    parser.add_argument("--out", type=Path, required=True, help="new folder for the replay's git repository")
    parser.add_argument(
        "--data-dir", type=Path, default=os.environ.get("PREMATCH_DATA_DIR"),
        help="local data folder instead of the public URLs (default: $PREMATCH_DATA_DIR)",
    )
    parser.add_argument("--config", type=Path, default=None,
                        help="arena configuration to take horizons, windows and baselines from (LLMs are dropped)")
    parser.add_argument("--until", type=parse_utc_instant, default=None,
                        help="stop after the tick at this simulated time (ISO 8601)")
    parser.add_argument("--baselines", default=",".join(BASELINES),
                        help=f"comma-separated baselines when no --config is given (default: {','.join(BASELINES)})")
    parser.add_argument("--odds", type=Path, action="append", default=[],
                        help="odds file for the market forecaster (football-data.co.uk .csv or "
                             "The Odds API .json); repeatable")
    parser.add_argument("--margin", choices=("proportional", "power", "shin"), default="shin",
                        help="margin-removal method for --odds (default: shin)")
    return parser


def run(args: argparse.Namespace) -> int:
    from collector.schedule.replay import market_forecaster, replay, summary_lines

    try:
        market = market_forecaster(args.competition, args.odds, args.margin) if args.odds else None
        summary = replay(args.competition, args.out, args.data_dir, config_path=args.config, until=args.until,
                         baselines=[b for b in args.baselines.split(",") if b], market=market)
    except PrematchError as exc:
        print(f"error: {exc}")
        return 2
    for line in summary_lines(summary):
        print(line)
    for problem in summary.problems[:20]:
        print(f"problem: {problem}")
    return 1 if summary.problems else 0
