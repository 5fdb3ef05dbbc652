"""``tick``: one scheduler pass (sync, due forecasts, missed windows, outcomes, manifest)."""

from __future__ import annotations

import argparse
import os
from datetime import UTC, datetime
from pathlib import Path

from collector.config import DEFAULT_CONFIG, load_config
from collector.errors import ConfigError
from collector.records import Clock
from collector.tick import run_tick


def _utc(value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--now {value!r} is not an ISO 8601 timestamp") from None
    if parsed.tzinfo is None:
        raise argparse.ArgumentTypeError(f"--now {value!r} needs a UTC offset, e.g. 2026-06-10T12:00Z")
    return parsed.astimezone(UTC)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("tick", help="one pass: sync fixtures, request due forecasts, write outcomes")
    parser.add_argument("--now", type=_utc, default=None, help="the tick time, ISO 8601 with offset (default: now)")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="arena configuration (default: prematch.toml)")
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder (default: archive)")
    parser.add_argument(
        "--data-dir", type=Path, default=os.environ.get("PREMATCH_DATA_DIR"),
        help="local data folder instead of the public URLs (default: $PREMATCH_DATA_DIR)",
    )
    parser.add_argument("--replay", action="store_true", help="mark records as produced on a simulated clock")
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"error: {exc}")
        return 2
    clock = Clock.REPLAY if args.replay else Clock.LIVE
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
