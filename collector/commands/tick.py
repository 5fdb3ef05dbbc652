"""``tick``: one scheduler pass (sync, due forecasts, missed windows, outcomes, manifest)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from collector.commands.sync import parse_now
from collector.config import DEFAULT_CONFIG, load_config
from collector.errors import ConfigError
from collector.records import Clock
from collector.schedule.tick import run_tick


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("tick", help="one pass: sync fixtures, request due forecasts, write outcomes",
                            description=(
                                "One collector pass: sync fixtures, register questions, request "
                                "every due forecast, write missed records, sync outcomes and write "
                                "the tick manifest."
                            ))
    parser.add_argument("--now", type=parse_now, default=None,
                        help="the tick time, ISO 8601 (UTC if no offset; default: now)")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="arena configuration (default: prematch.toml)")
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder (default: archive)")
    parser.add_argument(
        "--data-dir", type=Path, default=os.environ.get("PREMATCH_DATA_DIR"),
        help="local data folder instead of the public URLs (default: $PREMATCH_DATA_DIR)",
    )
    parser.add_argument("--clock", choices=[c.value for c in Clock], default=None,
                        help="mark records live or replay (default: replay when --now is given, else live)")
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"error: {exc}")
        return 2
    clock = Clock(args.clock) if args.clock else (Clock.REPLAY if args.now else Clock.LIVE)
    report = run_tick(config, args.archive, args.now, args.data_dir, clock)
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(report.statuses.items())) or "none"
    print(f"tick {report.now.isoformat()}: {len(report.written)} file(s) written")
    print(f"  forecasts due {report.due}, produced {report.produced}, missed {report.missed}, "
          f"deferred {report.deferred}, already claimed {report.locked}; spent {report.spent_usd:.4f} USD")
    print(f"  statuses: {statuses}")
    if report.manifest:
        print(f"  manifest: {report.manifest}")
    for problem in report.problems:
        print(f"problem: {problem}")
    return 1 if report.problems else 0
