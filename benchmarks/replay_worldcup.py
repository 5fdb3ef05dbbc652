"""Time the full 2026 World Cup replay (all baselines) and show where the time goes.

    python benchmarks/replay_worldcup.py --data-dir ../shared/data --out /tmp/wc-replay

Prints the replay summary and the shares of the wall time spent in the forecasters, in the
rest of each tick (sync, archive reads, scheduling, writing, manifests) and in git, all
measured in this one run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from collector.commandline import INSTANT_HELP, parse_utc_instant
from collector.schedule.replay import replay


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"), help="folder laid out like ../shared/data")
    parser.add_argument("--out", type=Path, required=True, help="new folder for the replay repository")
    parser.add_argument("--until", type=parse_utc_instant, default=None,
                        help=f"stop at this simulated time ({INSTANT_HELP}; default: the whole tournament)")
    args = parser.parse_args()
    summary = replay("worldcup-2026", args.out, args.data_dir, until=args.until, progress=lambda line: None)
    print("\n".join(summary.summary_lines()))
    total = summary.elapsed_s or 1.0
    rest = summary.tick_s - summary.forecast_s
    print(f"shares of wall time: forecasters {summary.forecast_s / total:.0%}, rest of the ticks {rest / total:.0%}, "
          f"git {summary.git_s / total:.0%}; per tick {total / max(summary.ticks, 1):.2f}s")


if __name__ == "__main__":
    main()
