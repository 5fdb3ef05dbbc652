"""``costs``: the cost table of docs/run-your-own-arena.md, recomputed from the roster's prices and the protocol's limits."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from collector.commandline import finish
from collector.commands.models import _load
from collector.config import DEFAULT_CONFIG, load_config
from collector.errors import Problem
from collector.forecasters.llm.costs import (
    MATCH_DAYS,
    WORLD_CUP_QUESTIONS,
    ModelCost,
    model_costs,
    per_target,
)
from collector.forecasters.llm.models_api import parse_models


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("costs", help="print the cost table of the configured LLMs (markdown)",
                            description=(
                                "Compute what one forecast, one match and typical match days cost with the "
                                "configured LLMs, from the models API's list prices (or the forecasters' "
                                "`prices`) and the request protocol's search limits; see "
                                "collector/forecasters/llm/costs.py for the formula."
                            ))  # fmt: skip
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="arena configuration (default: prematch.toml)")
    parser.add_argument("--models-file", type=Path, default=None,
                        help="read a saved GET /api/v1/models response instead of asking OpenRouter")
    return parser


@dataclass
class CostReport:
    costs: list[ModelCost] = field(default_factory=list)
    match: tuple[int, float] = (0, 0.0)
    question: tuple[int, float] = (0, 0.0)
    problems: list[Problem] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        lines = ["| model | closed book | open book |", "|---|---|---|"]
        for m in self.costs:
            if m.closed is None:
                lines.append(f"| {m.forecaster} | prices unknown | prices unknown |")
            else:
                lines.append(f"| {m.forecaster} | USD {m.closed:.4f} | USD {m.open:.4f} |")
        n, usd = self.match
        lines += ["", f"one match: {n} LLM forecasts, USD {usd:.2f}", "",
                  "| match day | matches | LLM forecasts | about |", "|---|---|---|---|"]  # fmt: skip
        for label, matches in MATCH_DAYS:
            lines.append(f"| {label} | {matches} | {matches * n:,} | USD {matches * usd:,.0f} |")
        qn, qusd = self.question
        lines.append(f"| 2026 World Cup questions, once | {WORLD_CUP_QUESTIONS} | {WORLD_CUP_QUESTIONS * qn:,} "
                     f"| USD {WORLD_CUP_QUESTIONS * qusd:,.0f} |")  # fmt: skip
        return lines


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    payload, source = _load(args, config)
    models, problems = parse_models(payload, source)
    report = CostReport(costs=model_costs(config, models), problems=problems)
    report.match = per_target(config, report.costs)
    report.question = per_target(config, report.costs, question=True)
    report.problems += [Problem(config.source_path, f"{m.forecaster}: no prices (models API or `prices`)")
                        for m in report.costs if m.closed is None]  # fmt: skip
    return finish(report)


