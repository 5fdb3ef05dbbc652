"""``status``: counts of competitions, events, outcomes and forecasts in an archive, by status."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from collector.archive.folder import check_archive_dir
from collector.archive.reader import Archive, load_archive
from collector.commandline import add_config_option, finish
from collector.competitions.loader import check_competition_ids
from collector.errors import Problem


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("status", help="count competitions, events, outcomes and forecasts by status",
                            description=(
                                "Count the competitions, events, outcomes, forecasts (by status) "
                                "and questions an archive holds; each file that does not load is "
                                "one 'problem:' line on stderr (exit 1)."
                            ))
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder (default: archive)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a text summary")
    add_config_option(parser)
    return parser


@dataclass
class StatusReport:
    """What an archive holds: totals, and per competition counts by status; every file left out."""

    competitions: int = 0
    events: int = 0
    outcomes: int = 0
    forecasts: int = 0
    by_competition: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The ``status --json`` document (problems as ``path: message`` strings)."""
        return {
            "competitions": self.competitions,
            "events": self.events,
            "outcomes": self.outcomes,
            "forecasts": self.forecasts,
            "by_competition": self.by_competition,
            "problems": [str(p) for p in self.problems],
        }

    def summary_lines(self) -> list[str]:
        lines = [f"{self.competitions} competitions, {self.events} events, "
                 f"{self.outcomes} outcomes, {self.forecasts} forecasts"]
        for cid, s in self.by_competition.items():
            parts = [f"{k} " + " ".join(f"{n}={c}" for n, c in v.items()) for k, v in s.items() if isinstance(v, dict)]
            lines.append(f"  {cid}: " + "; ".join(parts) + f"; questions {s['questions']}, resolved {s['resolutions']}")
        return lines


def summarise(archive: Archive) -> StatusReport:
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
    return StatusReport(len(archive.competitions), len(archive.events), len(archive.outcomes),
                        len(archive.forecasts), per, list(archive.problems))


def _by(values) -> dict[str, int]:
    counts = Counter(values)
    return {"total": sum(counts.values()), **dict(sorted(counts.items()))}


def run(args: argparse.Namespace) -> int:
    check_archive_dir(args.archive)
    check_competition_ids(args.config, [])  # a bad --config (or competitions_dir) is a usage error
    report = summarise(load_archive(args.archive))
    if args.json:
        sys.stdout.write(orjson.dumps(report.as_json(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode())
    return finish(report, quiet_summary=args.json)
