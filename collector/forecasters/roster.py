"""Build the configured forecasters: a tick's OpenRouter LLMs and baselines, a replay's baselines and market."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from collector.config import ArenaConfig
from collector.errors import ConfigError, PrematchError, Problem, ProblemsFound
from collector.forecasters.baselines import BASELINES, build_baseline
from collector.forecasters.llm.forecaster import LLMForecaster
from collector.forecasters.llm.openrouter import OpenRouterClient
from collector.forecasters.tasks import Budget
from collector.records import Competition, ForecasterType


@dataclass
class Roster:
    forecasters: list[Any] = field(default_factory=list)
    client: OpenRouterClient | None = None
    problems: list[Problem] = field(default_factory=list)

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()
        for forecaster in self.forecasters:  # endpoint forecasters: one client per agent
            if getattr(forecaster, "type", None) is ForecasterType.ENDPOINT:
                await forecaster.client.aclose()


def build_roster(
    config: ArenaConfig, *, budget: Budget, clock: Callable[[], datetime], data_dir: Path | str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Roster:  # fmt: skip
    """Every enabled forecaster; a missing API key or unknown baseline is a problem, not a crash."""
    roster = Roster()
    llms = [f for f in config.enabled_forecasters() if f.type == "llm"]
    if llms:
        try:
            roster.client = OpenRouterClient.from_env(
                config.openrouter, transport=transport, clock=clock, max_connections=config.concurrency,
                router_metadata=config.protocol.router_metadata,
            )
        except ConfigError as exc:
            roster.problems.append(Problem(config.source_path, f"LLM forecasters skipped: {exc}"))
        else:
            roster.forecasters += [LLMForecaster(f, config, roster.client, budget, clock, data_dir) for f in llms]
    for f in config.enabled_forecasters():
        if f.type != "baseline":
            continue
        try:  # a baseline's model modules are imported when it is built: a missing one is a problem
            roster.forecasters.append(build_baseline(f.options.get("baseline", f.id), data_dir, id=f.id))
        except (ImportError, PrematchError, TypeError) as exc:
            roster.problems.append(Problem(config.source_path, f"forecaster {f.id}: {exc}"))
    forecasters, problems = build_endpoints(config, clock=clock, data_dir=data_dir, transport=transport)
    roster.forecasters += forecasters
    roster.problems += problems
    return roster


def build_endpoints(
    config: ArenaConfig, *, clock: Callable[[], datetime] | None, data_dir: Path | str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> tuple[list, list[Problem]]:  # fmt: skip
    """Every enabled ``endpoint`` forecaster with its own client; a missing token is a problem, not a crash.

    ``clock`` None: each follows its tasks' simulated time (a replay builds them once for every tick).
    """
    from collector.forecasters.endpoint import EndpointForecaster
    from collector.forecasters.endpoint_client import EndpointClient

    built, problems = [], []
    for f in config.enabled_forecasters():
        if f.type != "endpoint":
            continue
        holder: list = []
        try:
            client = EndpointClient(f, transport=transport, clock=clock or (lambda h=holder: h[0].clock()))
        except ConfigError as exc:
            problems.append(Problem(config.source_path, f"endpoint forecaster skipped: {exc}"))
            continue
        forecaster = EndpointForecaster(f, config, client, clock, data_dir)
        holder.append(forecaster)  # the client's clock is the forecaster's (simulated in a replay)
        built.append(forecaster)
    return built, problems


@dataclass(frozen=True)
class ForecasterSpec:
    """What the scheduler needs to know about a forecaster, without a client or a fitted model."""

    id: str
    type: ForecasterType
    version: str
    conditions: tuple
    model: str | None = None
    answers_tournament: bool = False  # gets full-tournament slots (collector.schedule.tournament_slots)
    answers_league_table: bool = True  # ... for leagues too (LLMs: cups only)


def forecaster_specs(config: ArenaConfig, data_dir: Path | str | None = None) -> list[ForecasterSpec]:
    """Scheduling view of every enabled forecaster (for ``next_due_after``; no API key needed)."""
    specs = []
    for f in config.enabled_forecasters():
        if f.type == "endpoint":
            specs.append(ForecasterSpec(f.id, ForecasterType.ENDPOINT, f.version or "undeclared",
                                        tuple(c for c in config.conditions_for(f) if c[1].value != "fine_grained"),
                                        answers_league_table=False))
            continue
        if f.type == "llm":
            specs.append(ForecasterSpec(f.id, ForecasterType.LLM, f.version, config.conditions_for(f), f.model,
                                        answers_tournament=bool(f.options.get("full_tournament", False)),
                                        answers_league_table=False))
            continue
        try:
            built = build_baseline(f.options.get("baseline", f.id), data_dir, id=f.id)
        except (ImportError, PrematchError, TypeError):
            continue
        specs.append(ForecasterSpec(f.id, built.type, built.version, tuple(built.conditions),
                                    answers_tournament=getattr(built, "answers_tournament", False)))
    return specs


def build_baselines(config: ArenaConfig, data_dir: Path | str | None = None) -> list:
    """Every enabled baseline, built once (a replay reuses their per-date fits); an unknown one raises."""
    return [build_baseline(f.options.get("baseline", f.id), data_dir, id=f.id) for f in config.enabled_forecasters()
            if f.type == "baseline"]


def check_baseline_data(competition: Competition, data_dir: Path | str | None = None) -> None:
    """Read the results the baselines fit on before a replay starts; :class:`SourceError` if they cannot be read.

    Tournaments of national teams fit on ``international-results/results.csv``; leagues fit on
    their own earlier results (in the archive), so they need no other file.
    """
    from collector.forecasters.baselines.results import international_results
    from collector.records import CompetitionFormat

    if competition.format is CompetitionFormat.TOURNAMENT:
        international_results(data_dir)


def market_forecaster(competition: Competition, odds_files: Sequence[Path], method: str):
    """The ``market`` forecaster from odds files; any unreadable row raises, with every problem named."""
    from collector.forecasters.baselines.market import MarketForecaster, load_quotes

    quotes, problems = load_quotes(odds_files, competition)
    if problems:
        raise ProblemsFound(problems)
    return MarketForecaster(quotes, method=method)


__all__ = [
    "BASELINES",
    "ForecasterSpec",
    "Roster",
    "build_baselines",
    "build_endpoints",
    "build_roster",
    "check_baseline_data",
    "forecaster_specs",
    "market_forecaster",
]
