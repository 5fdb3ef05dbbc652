"""``replay``: run the real scheduler over a finished competition on a simulated clock, into a new git repo."""

from __future__ import annotations

import argparse
from pathlib import Path

from collector.commandline import (
    INSTANT_HELP,
    add_config_option,
    add_data_dir_option,
    finish,
    new_folder,
    parse_utc_instant,
)
from collector.competitions import list_competitions
from collector.competitions.loader import check_competition_ids
from collector.errors import ConfigError, UsageError
from collector.forecasters.baselines import BASELINES, OPT_IN_BASELINES


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("replay", help="replay a finished competition tick by tick into a new git repository",
                            description=(
                                "Replay a finished competition on a simulated clock with the real "
                                "scheduler, one git commit per tick, into a new repository; every "
                                "record is marked clock=replay."
                            ))
    parser.add_argument("competition", metavar="COMPETITION",
                        help=f"competition id: {', '.join(list_competitions())}, or one of the folder named by "
                             "--config ([arena] competitions_dir)")
    parser.add_argument("--out", type=Path, required=True, help="new (or empty) folder for the replay's git repository")
    add_data_dir_option(parser)
    add_config_option(parser, "arena configuration to take horizons, windows, baselines, endpoint agents and its "
                              "[arena] competitions_dir from (LLMs are dropped)")
    parser.add_argument("--until", type=parse_utc_instant, default=None,
                        help=f"stop after the tick at this simulated time ({INSTANT_HELP})")
    parser.add_argument("--baselines", default=",".join(BASELINES),
                        help=f"comma-separated baselines when no --config is given (default: {','.join(BASELINES)}; "
                             f"also: {','.join(OPT_IN_BASELINES)})")
    parser.add_argument("--odds", type=Path, action="append", default=[],
                        help="odds file for the market forecaster (football-data.co.uk .csv: odds snapshots at "
                             "each horizon and closing, every bookmaker, not the Avg/Max summaries; or The Odds API "
                             ".json, every bookmaker); repeatable")
    parser.add_argument("--margin", choices=("proportional", "power", "shin"), default="proportional",
                        help="margin-removal method of the market forecaster, .csv and .json --odds alike: each "
                             "bookmaker's latest quote before the forecast time has its margin removed by this "
                             "method, then the median across bookmakers is taken per outcome and renormalised "
                             "(LLM-SoccerArena App. E; default: proportional, its eq. 2)")
    return parser


def run(args: argparse.Namespace) -> int:
    from collector.schedule.replay import market_forecaster, replay

    check_competition_ids(args.config, [args.competition])
    baselines = [b for b in args.baselines.split(",") if b]
    unknown = [b for b in baselines if b not in BASELINES + OPT_IN_BASELINES]
    if unknown:
        raise UsageError(f"--baselines: unknown {', '.join(unknown)} "
                         f"(known: {', '.join(BASELINES + OPT_IN_BASELINES)})")
    with new_folder(args.out):  # removed again when the replay fails (unreadable data, a bad --config, Ctrl-C)
        try:
            csv_files = [p for p in args.odds if p.suffix.lower() == ".csv"]
            json_files = [p for p in args.odds if p.suffix.lower() != ".csv"]
            if csv_files and json_files:
                raise UsageError("--odds: football-data.co.uk .csv files or The Odds API .json files, not both")
            if csv_files:
                from collector.forecasters.baselines.market_snapshot import (
                    SnapshotMarketForecaster,
                )

                market = SnapshotMarketForecaster(method=args.margin)
            else:
                market = market_forecaster(args.competition, json_files, args.margin) if json_files else None
            report = replay(args.competition, args.out, args.data_dir, config_path=args.config, until=args.until,
                            baselines=baselines, market=market, odds_files=csv_files)
        except ConfigError as exc:  # --config, or a competition definition
            raise UsageError(str(exc)) from None
    return finish(report)
