"""``status``: counts of competitions, events, outcomes and forecasts in an archive, by status."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from collector.archive.reader import Archive, load_archive


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("status", help="count competitions, events, outcomes and forecasts by status",
                            description=(
                                "Count the competitions, events, outcomes, forecasts (by status) "
                                "and questions an archive holds."
                            ))
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder (default: archive)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a text summary")
    return parser


def summarise(archive: Archive) -> dict[str, Any]:
    """Per competition: events, outcomes and forecasts by status; questions and resolutions."""
    per: dict[str, dict[str, Any]] = {}
    for cid in sorted(archive.competitions):
        per[cid] = {
            "events": _by(e.status.value for e in archive.events_of(cid)),
            "outcomes": _by(o.status.value for o in archive.outcomes_of(cid).values()),
            "forecasts": _by(f.status.value for f in archive.forecasts_of(cid)),
            "questions": len(archive.questions_of(cid)),
            "resolutions": len(archive.resolutions_of(cid)),
        }
    return {
        "competitions": len(archive.competitions),
        "events": len(archive.events),
        "outcomes": len(archive.outcomes),
        "forecasts": len(archive.forecasts),
        "by_competition": per,
        "problems": [str(p) for p in archive.problems],
    }


def _by(values) -> dict[str, int]:
    counts = Counter(values)
    return {"total": sum(counts.values()), **dict(sorted(counts.items()))}


def run(args: argparse.Namespace) -> int:
    summary = summarise(load_archive(args.archive))
    if args.json:
        sys.stdout.write(orjson.dumps(summary, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode())
    else:
        print(f"{summary['competitions']} competitions, {summary['events']} events, "
              f"{summary['outcomes']} outcomes, {summary['forecasts']} forecasts")
        for cid, s in summary["by_competition"].items():
            parts = [f"{k} " + " ".join(f"{n}={c}" for n, c in v.items()) for k, v in s.items() if isinstance(v, dict)]
            print(f"  {cid}: " + "; ".join(parts) + f"; questions {s['questions']}, resolved {s['resolutions']}")
        for problem in summary["problems"]:
            print(f"problem: {problem}", file=sys.stderr)
    return 1 if summary["problems"] else 0
