"""``prematch t5``: every full-tournament forecast scored as WorldCupArena's T5 (eq. 4).

One row per saved forecast (forecaster, condition, horizon) at each dated truth stage the
archive has reached (``--stages``) or only the latest; leagues get Kendall's τ, Spearman's ρ
and the champion, top-k and relegation hits once the season is over
(:mod:`builder.score.t5`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from builder.score.t5 import score_forecast, score_league
from collector.archive.folder import check_archive_dir
from collector.archive.reader import load_archive
from collector.commandline import finish
from collector.errors import Problem, UsageError
from collector.records import TournamentForecast

COLUMNS = ("forecaster", "access", "horizon", "stage", "known_at", "G", "A", "M", "H", "T5")


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("t5", help="score every full-tournament forecast (WorldCupArena T5)",
                            description=(
                                "Score every saved full-tournament forecast as WorldCupArena's T5 (eq. 4): "
                                "group order G, round-weighted advancement A and exact pairings M, champion H, "
                                "at each dated truth stage reached; leagues: Kendall's tau, Spearman's rho and "
                                "place hits of the predicted final table."
                            ))
    parser.add_argument("--archive", type=Path, default=Path("archive"), help="archive folder to read (default: archive)")
    parser.add_argument("--competition", default=None, help="only this competition id (default: all)")
    parser.add_argument("--stages", action="store_true", help="one row per truth stage (default: the latest only)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when the archive has invalid records (they are reported and skipped either way)")
    return parser


@dataclass
class T5Report:
    rows: list[dict[str, Any]]
    problems: list[Problem] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        if not self.rows:
            return ["no full-tournament forecast has a truth stage yet"]
        keys = list(self.rows[0])
        cells = [[_cell(r[k]) for k in keys] for r in self.rows]
        widths = [max(len(k), *(len(c[i]) for c in cells)) for i, k in enumerate(keys)]
        return ["  ".join(k.ljust(w) for k, w in zip(keys, widths, strict=True)).rstrip()] + [
            "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def _cup_rows(competition, forecast, events, outcomes, every: bool) -> list[dict[str, Any]]:
    scores = score_forecast(competition, forecast.payload, events, outcomes)
    return [dict(zip(COLUMNS, (forecast.forecaster, forecast.access.value, forecast.horizon.value, s.stage,
                               s.known_at.date().isoformat(), s.g, s.a, s.m, s.h, s.t5), strict=True))
            for s in (scores if every else scores[-1:])]


def _league_rows(competition, forecast, events, outcomes) -> list[dict[str, Any]]:
    s = score_league(competition, forecast.payload, events, outcomes)
    if s is None:
        return []
    return [{"forecaster": forecast.forecaster, "access": forecast.access.value, "horizon": forecast.horizon.value,
             "known_at": s.known_at.date().isoformat(), "kendall_tau": s.kendall_tau, "spearman_rho": s.spearman_rho,
             "champion": s.champion, "top_k": s.top_k, "relegation": s.relegation}]


def run(args: argparse.Namespace) -> int:
    check_archive_dir(args.archive)
    archive = load_archive(args.archive)
    if args.competition is not None and args.competition not in archive.competitions:
        listed = ", ".join(sorted(archive.competitions)) or "none"
        raise UsageError(f"no competition {args.competition!r} in {args.archive} (known: {listed})")
    rows: list[dict[str, Any]] = []
    for cid, competition in sorted(archive.competitions.items()):
        if args.competition not in (None, cid):
            continue
        events, outcomes = archive.events_of(cid), archive.outcomes_of(cid)
        for f in sorted(archive.forecasts_of(cid), key=lambda f: (f.forecaster, f.access.value, f.horizon.value)):
            if f.target_kind != "tournament" or not f.scorable or not isinstance(f.payload, TournamentForecast):
                continue
            if f.payload.format == "league":
                rows += _league_rows(competition, f, events, outcomes)
            else:
                rows += _cup_rows(competition, f, events, outcomes, args.stages)
    report = T5Report(rows, list(archive.problems))
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(report.rows, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    return finish(report, quiet_summary=args.json, fail_on_problems=args.strict)


__all__ = ["T5Report", "add_parser", "run"]
