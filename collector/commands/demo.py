"""``demo``: replay the 2026 World Cup with every condition into a fresh repository, build its site, verify it.

The replay runs the built-in baselines, the market (from a synthetic three-bookmaker odds
file) and three demo LLMs that the real OpenRouter client asks on a local server
(:mod:`collector.schedule.demo_arena`, recipe in docs/demo.md): closed book, open book and the evidence
package, full-tournament and fine-grained tasks. Then, as a new user would by hand::

    prematch build --archive DIR/archive --out DIR/site
    prematch verify --repo DIR

Every record is marked ``clock = replay`` and every demo LLM's id starts with ``demo.``: the
demo shows the product, never a prospective result or a real model. No API key, no network.

A first run cannot mislead: the data is read before anything is printed or created, and
without it the demo exits 1 with one line saying what is missing and how to provide it. A
failed run leaves no folder behind; a folder a previous demo made (it carries
``.git/prematch-demo``) is replaced, anything else is refused.
"""

from __future__ import annotations

import argparse
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from collector.commandline import (
    INSTANT_HELP,
    add_data_dir_option,
    check_new_folder,
    finish,
    new_folder,
    parse_utc_instant,
)
from collector.errors import Problem

COMPETITION = "worldcup-2026"
MARKER = ".git/prematch-demo"  # written into a finished demo's repository: a later demo may replace it
INPUTS = "demo"  # OUT/demo: the synthetic odds file the replay reads


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "demo", help="replay the 2026 World Cup with demo LLMs into a new repository, build its site and verify it",
        description=(
            "Replay the 2026 World Cup into a new git repository, one commit per tick on a simulated "
            "clock, with the built-in baselines, a market from a synthetic odds file and three demo LLMs "
            "answered by a local server (no API key, no network; recipe in docs/demo.md); build its "
            "site into OUT/site and verify its history."
        ),
    )
    parser.add_argument(
        "--out", type=Path, required=True,
        help="new (or empty) folder for the demo repository, or one a previous demo made (it is replaced); "
             "its site goes to OUT/site"
    )
    add_data_dir_option(parser)
    parser.add_argument(
        "--until",
        type=parse_utc_instant,
        default=None,
        help=f"stop the replay at this simulated time ({INSTANT_HELP}; default: the whole tournament)",
    )
    return parser


@dataclass
class DemoReport:
    """The problems of the three steps (replay, build, verify), and how to look at the result."""

    out: Path
    problems: list[Problem] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        site = self.out / "site"
        return [
            "",
            "Open the site:",
            f"  python -m http.server --directory {site} 8000",
            "  then browse to http://localhost:8000/",
            f"Check the history again any time: prematch verify --repo {self.out}",
        ]


def run(args: argparse.Namespace) -> int:
    from builder.site.build import build_site
    from collector.audit.verify import verify_repository
    from collector.schedule.replay import knowable_times

    out: Path = args.out.resolve()
    previous = (out / MARKER).is_file()
    if not previous:
        check_new_folder(out)
    knowable_times(COMPETITION, args.data_dir)  # the data first: without it, one line and nothing made
    if previous:
        print(f"replacing the previous demo in {out}")
        shutil.rmtree(out)
    report = DemoReport(out)
    with new_folder(out):  # removed again if a step raises
        _step(1, f"replaying {COMPETITION} on a simulated clock into {out} (one commit per tick), "
                 "its LLMs the demo models of a local server")
        replayed = _replay(out, args)
        (out / MARKER).write_text(f"{COMPETITION}\n", encoding="utf-8")
        _show(replayed, report)
        _step(2, f"building the site into {out / 'site'}")
        _show(build_site(out / "archive", out / "site", progress=lambda line: None), report)
        _step(3, f"verifying the history of {out / 'archive'}")
        _show(verify_repository(out), report)
    return finish(report)


def _replay(out: Path, args: argparse.Namespace):
    """The replay with the demo arena: its inputs in OUT/demo, its LLM server up while it runs."""
    from collector.forecasters.baselines.market_snapshot import SnapshotMarketForecaster
    from collector.forecasters.llm.demo_server import LocalOpenRouter
    from collector.schedule.demo_arena import demo_config, prepare, tick_llms
    from collector.schedule.replay import replay

    (out / INPUTS).mkdir(parents=True)
    prepared = prepare(COMPETITION, args.data_dir, out / INPUTS / "odds.csv")
    print(f"demo inputs: reference model for {len(prepared.recipe.table)} matches, synthetic odds file "
          f"{prepared.odds_file} ({prepared.odds_rows} matches, 3 bookmakers)", flush=True)
    with LocalOpenRouter(prepared.recipe) as server:
        print(f"demo LLM server on {server.base_url} (models: "
              f"{', '.join(m['id'] for m in prepared.recipe.models())})", flush=True)
        return replay(COMPETITION, out, args.data_dir, until=args.until, progress=print,
                      config=demo_config(COMPETITION, prepared.odds_file),
                      market=SnapshotMarketForecaster(method="proportional"),
                      llms=tick_llms(server.base_url, args.data_dir), keep=(INPUTS,))


def _step(number: int, text: str) -> None:
    print(f"\n[{number}/3] {text}", flush=True)


def _show(step, report: DemoReport) -> None:
    """A step's summary now; its problems with the others at the end."""
    print("\n".join(step.summary_lines()), flush=True)
    report.problems += step.problems
