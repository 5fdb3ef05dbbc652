"""``tick``: one scheduler pass (sync, due forecasts, missed windows, outcomes, manifest)."""

from __future__ import annotations

import argparse
from pathlib import Path

from collector.archive.folder import check_archive_dir
from collector.commandline import (
    INSTANT_HELP,
    add_clock_option,
    add_data_dir_option,
    finish,
    parse_utc_instant,
    resolve_clock,
)
from collector.competitions.loader import use_definitions_dir
from collector.config import DEFAULT_CONFIG, load_config
from collector.datasource import unreadable_data
from collector.errors import ConfigError, UsageError
from collector.schedule.cron import parse_cron
from collector.schedule.tick import run_tick


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("tick", help="one pass: sync fixtures, request due forecasts, write outcomes",
                            description=(
                                "One collector pass: sync fixtures, register questions, request "
                                "every due forecast, write missed records, sync outcomes and write "
                                "the tick manifest."
                            ))
    parser.add_argument("--now", type=parse_utc_instant, default=None,
                        help=f"the tick time ({INSTANT_HELP}; default: the current time)")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="arena configuration (default: prematch.toml)")
    parser.add_argument("--archive", type=Path, default=Path("archive"),
                        help="archive folder, created if missing (default: archive)")
    add_data_dir_option(parser)
    add_clock_option(parser)
    parser.add_argument("--schedule", default=None, metavar="CRON",
                        help="the cron expression of the scheduled run that started this tick (the workflow passes "
                        "github.event.schedule); the manifest records when it last fired and how late the tick began")
    return parser


def run(args: argparse.Namespace) -> int:
    check_archive_dir(args.archive, may_be_missing=True)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if args.schedule:
        parse_cron(args.schedule)  # a malformed expression is a wrong use (exit 2), before any work
    if config.competitions_folder() is not None:  # a fork's definitions ([arena] competitions_dir)
        use_definitions_dir(config.competitions_folder())
    check_some_source(config.competitions, args.data_dir)
    return finish(run_tick(config, args.archive, args.now, args.data_dir, resolve_clock(args), schedule=args.schedule))


def check_some_source(competitions, data_dir) -> None:
    """Before a tick writes anything: the fixtures of at least one followed competition can be read.

    When none can (no network and no data folder, a wrong ``--data-dir``), the tick stops with one
    line (exit 1) instead of writing competition records and a manifest that look like a pass.
    One unreadable source among readable ones is reported by the tick itself, which goes on.
    """
    from collector.schedule.replay import fixtures_or_reason

    reasons = []
    for cid in competitions:
        reason = fixtures_or_reason(cid, data_dir)[2]
        if reason is None:
            return
        reasons.append(reason)
    what = "the fixtures of any followed competition (" + ", ".join(competitions) + ")"
    raise unreadable_data(what, reasons[0] if reasons else "none is followed", data_dir)
