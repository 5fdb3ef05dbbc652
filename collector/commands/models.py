"""``models``: the configured LLMs against OpenRouter's models API (canonical slug, parameters, expiry, prices)."""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

from collector.commandline import finish
from collector.config import DEFAULT_CONFIG, load_config
from collector.errors import Problem, UsageError
from collector.forecasters.llm.models_api import ModelRow, check_roster, parse_models
from collector.forecasters.llm.openrouter import OpenRouterClient


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("models", help="check the configured LLMs against OpenRouter's models API",
                            description=(
                                "Print, for each configured LLM, its canonical slug, whether it supports every "
                                "parameter the request protocol sends (structured outputs, tools, reasoning, "
                                "temperature), its expiration date and its prices. With --check, exit 1 when a "
                                "model is unknown, expired, lacks a parameter, or its version is not the "
                                "canonical slug (every tick runs the same check itself)."
                            ))  # fmt: skip
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="arena configuration (default: prematch.toml)")
    parser.add_argument("--models-file", type=Path, default=None,
                        help="read a saved GET /api/v1/models response instead of asking OpenRouter")
    parser.add_argument("--check", action="store_true", help="exit 1 when any configured model is unusable")
    return parser


@dataclass
class ModelsReport:
    rows: list[ModelRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    source: str = ""
    checked: bool = False

    def summary_lines(self) -> list[str]:
        lines = [f"{len(self.rows)} configured LLM(s) against {self.source}"]
        for r in self.rows:
            if r.info is None:
                lines.append(f"  {r.forecaster:32} {r.model}: UNKNOWN")
                continue
            i = r.info
            price = (f"USD {i.prompt_per_mtok:g}/{i.completion_per_mtok:g} per M in/out"
                     if i.prompt_per_mtok is not None and i.completion_per_mtok is not None else "prices unknown")
            params = "all protocol parameters" if not r.missing else "LACKS " + ",".join(r.missing)
            expiry = i.expiration_date.isoformat() if i.expiration_date else "no expiry"
            lines.append(f"  {r.forecaster:32} {i.canonical_slug or '?'}: {params}; {expiry}; {price}")
            if r.problems and not self.checked:
                lines += [f"    note: {p}" for p in r.problems]
        return lines


def _load(args: argparse.Namespace, config) -> tuple[object, str]:
    if args.models_file is not None:
        try:
            return orjson.loads(args.models_file.read_bytes()), str(args.models_file)
        except (OSError, orjson.JSONDecodeError) as exc:
            raise UsageError(f"--models-file {args.models_file}: cannot read it as JSON: {exc}") from None

    async def fetch():
        client = OpenRouterClient.from_env(config.openrouter, router_metadata=False)
        try:
            deadline = datetime.now(UTC) + timedelta(seconds=config.openrouter.total_timeout_s)
            return await client.models(deadline=deadline)
        finally:
            await client.aclose()

    status, payload = asyncio.run(fetch())
    return (payload if status == 200 else {"status": status}), "GET /api/v1/models"


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    payload, source = _load(args, config)
    models, problems = parse_models(payload, source)
    report = ModelsReport(source=source, problems=problems, checked=args.check)
    report.rows = check_roster(config, models, datetime.now(UTC).date())
    if args.check:
        where = config.source_path
        report.problems += [Problem(f"{where}: {r.forecaster}", p) for r in report.rows for p in r.problems]
    return finish(report)
