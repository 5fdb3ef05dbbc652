"""OpenRouter's models API (``GET /api/v1/models``) read against the arena's roster and protocol.

Documented fields used: ``id``, ``canonical_slug`` (the permanent versioned slug that
``version`` in ``prematch.toml`` and every forecast must equal), ``supported_parameters``,
``expiration_date`` (an ISO date, or null) and ``pricing`` (USD per token as decimal strings:
``prompt``, ``completion``, ``web_search``, ...). A model is *unusable* for the protocol when
it is unknown, expired, or lacks a parameter its settings need
(:func:`collector.forecasters.llm.protocol.required_parameters`; with ``require_parameters``
no provider would serve it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from collector.config import ArenaConfig
from collector.errors import Problem
from collector.forecasters.llm.protocol import required_parameters, resolve


@dataclass(frozen=True)
class ModelInfo:
    id: str
    canonical_slug: str | None
    supported_parameters: frozenset[str]
    expiration_date: date | None
    prompt_per_mtok: float | None  # USD per million tokens
    completion_per_mtok: float | None


def _per_mtok(value: Any) -> float | None:
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return float(number * 1_000_000) if number.is_finite() and number >= 0 else None


def parse_models(payload: Any, source: str) -> tuple[dict[str, ModelInfo], list[Problem]]:
    """Models by id from the documented ``{"data": [...]}``; a malformed entry is a problem, not a crash."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        return {}, [Problem(source, 'not the models API\'s {"data": [...]} document')]
    models, problems = {}, []
    for i, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            problems.append(Problem(source, f"data[{i}]: a model without a string id"))
            continue
        expiry, raw = None, entry.get("expiration_date")
        if isinstance(raw, str):
            try:
                expiry = date.fromisoformat(raw[:10])
            except ValueError:
                problems.append(Problem(source, f"data[{i}] {entry['id']}: expiration_date {raw!r} is not a date"))
        params = entry.get("supported_parameters") if isinstance(entry.get("supported_parameters"), list) else []
        pricing = entry.get("pricing") if isinstance(entry.get("pricing"), dict) else {}
        models[entry["id"]] = ModelInfo(
            id=entry["id"],
            canonical_slug=entry.get("canonical_slug") if isinstance(entry.get("canonical_slug"), str) else None,
            supported_parameters=frozenset(p for p in params if isinstance(p, str)),
            expiration_date=expiry,
            prompt_per_mtok=_per_mtok(pricing.get("prompt")), completion_per_mtok=_per_mtok(pricing.get("completion")),
        )  # fmt: skip
    return models, problems


@dataclass
class ModelRow:
    """One configured LLM against the models API."""

    forecaster: str
    model: str
    info: ModelInfo | None
    missing: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def check_roster(config: ArenaConfig, models: dict[str, ModelInfo], today: date) -> list[ModelRow]:
    """Every enabled LLM: known, not expired, every needed parameter supported, version = canonical slug."""
    rows = []
    for cfg in config.enabled_forecasters():
        if cfg.type != "llm":
            continue
        info = models.get(cfg.model)
        row = ModelRow(cfg.id, cfg.model, info)
        if info is None:
            row.problems.append(f"model {cfg.model!r} is not in OpenRouter's models list")
            rows.append(row)
            continue
        needed = set().union(*(required_parameters(resolve(config, cfg, a)) for a in (cfg.access or config.access)))
        taken = set(info.supported_parameters)
        if "max_completion_tokens" in taken:  # the output limit is then sent under that name
            taken.add("max_tokens")
        row.missing = sorted(needed - taken)
        if row.missing:
            row.problems.append(f"lacks parameter(s) the protocol sends: {', '.join(row.missing)}")
        if info.expiration_date is not None and info.expiration_date <= today:
            row.problems.append(f"expired on {info.expiration_date.isoformat()}")
        if info.canonical_slug is not None and cfg.version != info.canonical_slug:
            row.problems.append(f"version {cfg.version!r} is not the canonical slug {info.canonical_slug!r}")
        rows.append(row)
    return rows
