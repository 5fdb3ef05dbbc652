"""``demo``: replay the 2026 World Cup into a fresh repository, build its site, verify it.

The three steps a new user would otherwise run by hand::

    python -m collector replay --competition worldcup-2026 --out DIR   # baselines, simulated clock
    python -m builder build --archive DIR/archive --out DIR/site
    python -m collector verify --repo DIR

Every record is marked ``clock = replay``: the demo shows the pipeline, never a prospective
result. No API key is needed (the forecasters are the built-in baselines).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from collector.commandline import parse_utc_instant
from collector.errors import PrematchError

COMPETITION = "worldcup-2026"


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "demo", help="replay the 2026 World Cup into a new repository, build its site and verify its history",
        description=(
            "Replay the 2026 World Cup with the built-in baselines (no API key) into a new git "
            "repository, one commit per tick on a simulated clock; build its site into OUT/site and"
            " verify its history."
        ),
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="new folder for the demo repository (its site goes to OUT/site)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=os.environ.get("PREMATCH_DATA_DIR"),
        help="local copy of the public data (default: $PREMATCH_DATA_DIR, else download from the public URLs)",
    )
    parser.add_argument(
        "--until",
        type=parse_utc_instant,
        default=None,
        help="stop the replay at this simulated UTC time, e.g. 2026-06-14T00:00Z (default: the whole tournament)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from builder.site.build import build_site
    from collector.audit.report import summary_text
    from collector.audit.verify import verify_repository
    from collector.schedule.replay import replay, summary_lines

    out: Path = args.out.resolve()
    try:
        _step(1, f"replaying {COMPETITION} on a simulated clock into {out} (one commit per tick)")
        replayed = replay(COMPETITION, out, args.data_dir, until=args.until, progress=print)
        print("\n".join(summary_lines(replayed)))
        _step(2, f"building the site into {out / 'site'}")
        built = build_site(out / "archive", out / "site", progress=lambda line: None)
        print(built.summary())
        _step(3, f"verifying the history of {out / 'archive'}")
        report = verify_repository(out)
    except PrematchError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 1
    print(summary_text(report, max_lines=10))
    _open_instructions(out)
    return 0 if report.ok and not replayed.problems else 1


def _step(number: int, text: str) -> None:
    print(f"\n[{number}/3] {text}", flush=True)


def _open_instructions(out: Path) -> None:
    print(
        "\nOpen the site:\n"
        f"  python -m http.server --directory {out / 'site'} 8000\n"
        "  then browse to http://localhost:8000/\n"
        f"Check the history again any time: python -m collector verify --repo {out}"
    )
