"""The demo arena: its configuration, its synthetic odds file, and each tick's demo LLMs.

:func:`prepare` reads the competition's fixtures, fits the recipe's reference model
(:mod:`collector.forecasters.demo_recipe`) and writes the odds file; :func:`demo_config` is the arena the
replay runs (the built-in baselines, the odds-derived market, and the demo models under closed
book, open book and the evidence package, one of them also full-tournament and one also
fine-grained); :func:`tick_llms` gives each tick the real OpenRouter client pointed at the demo
server with the demo models' forecasters.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from collector.config import ArenaConfig, parse_config
from collector.forecasters.demo_recipe import (
    GATHERER,
    MODELS,
    VERSION,
    Recipe,
    reference_table,
    write_odds_csv,
)
from collector.forecasters.llm.forecaster import LLMForecaster
from collector.forecasters.llm.openrouter import OpenRouterClient
from collector.forecasters.roster import Roster
from collector.forecasters.tasks import Budget
from collector.schedule.tick import tick_clock

DEMO_KEY = "prematch-demo-server-needs-no-key"  # sent to the local server only; not a secret of anything
BASELINES = ("uniform", "base_rate", "elo", "dixon_coles", "ensemble", "squad_form")
ACCESS = ("closed_book", "open_book", "evidence_package")
HORIZONS = ("stage_opening", "t_minus_24h")  # two of the three: the contrast between horizons, at two thirds the time
# Per demo model: access conditions, strategies, options (see docs/demo.md).
CELLS = {
    "demo.atlas": (ACCESS, ("probabilistic_forecast",), {}),
    "demo.bolt": (("closed_book", "open_book"), ("probabilistic_forecast",), {"full_tournament": True}),
    "demo.cirrus": (ACCESS, ("probabilistic_forecast", "fine_grained"), {}),
}


@dataclass(frozen=True)
class Prepared:
    recipe: Recipe
    odds_file: Path
    odds_rows: int


def prepare(competition_id: str, data_dir, odds_file: Path) -> Prepared:
    """The recipe's reference table and the synthetic odds file, from the competition's fixtures."""
    from collector.schedule.replay import read_fixtures

    competition, batch = read_fixtures(competition_id, data_dir)
    table = reference_table(competition, batch.matches, data_dir)
    rows = write_odds_csv(odds_file, competition, batch.matches, table)
    return Prepared(Recipe(table, {t.id: t.name for t in competition.teams}), odds_file, rows)


def demo_config(competition_id: str, odds_file: Path) -> ArenaConfig:
    """The demo arena's configuration (every LLM a demo model of the local server)."""
    llms = [{"id": m.id, "type": "llm", "model": m.model, "version": f"{m.model}@{VERSION}",
             "access": list(CELLS[m.id][0]), "strategies": list(CELLS[m.id][1]), "options": CELLS[m.id][2]}
            for m in MODELS]  # fmt: skip
    data = {
        "arena": {"competitions": [competition_id], "access": list(ACCESS), "strategies": ["probabilistic_forecast"],
                  "horizons": list(HORIZONS), "spending_cap_usd": 1000.0, "concurrency": 32},
        "evidence": {"gatherer": {"id": "demo-gatherer", "model": GATHERER, "items": 3}},
        "odds": {"sources": ["football-data-co-uk"], "files": [str(odds_file)]},
        "forecasters": [{"id": b, "type": "baseline"} for b in BASELINES] + llms,
    }  # fmt: skip
    return parse_config(data, "demo arena")


def tick_llms(base_url: str, data_dir=None):
    """A function giving each replay tick the demo models' forecasters and their own client."""

    def make(config: ArenaConfig, now) -> Roster:
        clock = tick_clock(now)  # started before the tick's own timer: no request precedes an evidence lock
        client = OpenRouterClient(DEMO_KEY, base_url, settings=config.openrouter, clock=clock,
                                  max_connections=config.concurrency, router_metadata=config.protocol.router_metadata)
        budget = Budget(config.spending_cap_usd)
        forecasters = [LLMForecaster(f, config, client, budget, clock, data_dir) for f in config.enabled_forecasters()
                       if f.type == "llm"]
        return Roster(forecasters=forecasters, client=client)

    return make
