"""The arena configuration (``prematch.toml``): what is followed, who forecasts, under which conditions.

Loaded with :mod:`tomllib` into frozen pydantic models; any bad key or value raises a
:class:`~collector.errors.ConfigError` that names the file and the key.

Horizon windows (all times relative to the target's kickoff ``K``, or a question's close):

* ``stage_opening``: opens once every pairing of the stage is registered (for leagues, of the
  matchday), but not earlier than ``max_lead_hours`` before the stage's first kickoff;
  closes ``close_before_minutes`` before that first kickoff (and never later than the
  event's own kickoff). Tournament questions use the same horizon, closing before the
  competition's first kickoff.
* ``t_minus_24h`` / ``t_minus_2h``: open at ``K - 24h`` / ``K - 2h`` (the scheduled time)
  and stay open ``window_minutes``; a tick every 15 minutes hits a window several times.

A window that closes while its key has no record yields a ``missed`` record.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from collector.config_sections import (
    EndpointSettings,
    EvidenceSettings,
    MarketsSettings,
    OddsSettings,
    ReportsSettings,
    TimestampSettings,
)
from collector.errors import ConfigError, did_you_mean, shortened
from collector.records import Access, Horizon, Strategy
from collector.records.base import SLUG_PATTERN, UtcDatetime

DEFAULT_CONFIG = Path("prematch.toml")
LLM_HORIZONS = (Horizon.STAGE_OPENING, Horizon.T_MINUS_24H, Horizon.T_MINUS_2H)


MAX_CONFIG_BYTES = 1024 * 1024  # a configuration is a page of settings: a bigger file is refused unread
MAX_DEPTH = 16  # tables and arrays nested deeper than any setting needs
MAX_FORECASTERS = 1000


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)  # every number finite


class StageOpeningWindow(_Model):
    max_lead_hours: Annotated[float, Field(gt=0)] = 168.0
    close_before_minutes: Annotated[float, Field(ge=0)] = 60.0


class OffsetWindow(_Model):
    window_minutes: Annotated[float, Field(gt=0)]

    def width(self) -> timedelta:
        return timedelta(minutes=self.window_minutes)


class Horizons(_Model):
    stage_opening: StageOpeningWindow = StageOpeningWindow()
    t_minus_24h: OffsetWindow = OffsetWindow(window_minutes=90)
    t_minus_2h: OffsetWindow = OffsetWindow(window_minutes=60)


OFFSETS = {Horizon.T_MINUS_24H: timedelta(hours=24), Horizon.T_MINUS_2H: timedelta(hours=2)}


class OpenRouterSettings(_Model):
    base_url: str | None = Field(default=None, description="overrides OPENROUTER_BASE_URL when set")
    connect_timeout_s: Annotated[float, Field(gt=0)] = Field(default=10.0, description="seconds to open a connection")
    total_timeout_s: Annotated[float, Field(gt=0)] = Field(default=180.0, description="seconds one call may take in all")
    max_attempts: Annotated[int, Field(ge=1, le=10)] = Field(
        default=3, description="calls of one forecast, the first included, on a transport failure or a retryable status")
    base_delay_s: Annotated[float, Field(ge=0)] = Field(
        default=2.0, description="the wait before the first retry, doubled at each next one")
    max_delay_s: Annotated[float, Field(ge=0)] = Field(
        default=60.0, description="the longest wait between retries (a Retry-After header included)")
    max_response_bytes: Annotated[int, Field(ge=1024)] = Field(
        default=262_144, description="bytes of a response body kept; the rest is cut (full length and SHA-256 noted)")


StructuredMode = Literal["json_schema", "json_object", "none"]


class SearchSettings(_Model):
    """The ``openrouter:web_search`` server tool, sent identically to every model under open book.

    Defaults follow LLM-SoccerArena's published request (its ``run-benchmark-predictions.ts``:
    ``max_results 3, max_total_results 6, search_context_size "low"``); the engine is explicit
    because the documented default ``auto`` gives GPT-5+, Claude 4+, Gemini 3 and Grok 4 their
    providers' own search (which ignores ``max_results``) and every other model Exa.
    """

    engine: Literal["exa", "native", "parallel", "firecrawl"] = "exa"
    max_results: Annotated[int, Field(ge=1, le=25)] = 3  # LLM-SoccerArena: 3 results per search
    max_total_results: Annotated[int, Field(ge=1, le=100)] = 6  # LLM-SoccerArena: 6 in total per request
    search_context_size: Literal["low", "medium", "high"] = "low"  # LLM-SoccerArena: low
    max_tool_calls: Annotated[int, Field(ge=1, le=30)] = 3  # server-tool steps per request (OpenRouter default 30)
    # OpenRouter's openrouter:web_search with engine exa: USD 0.007 per search request (openrouter.ai/tool/web-search,
    # read 2026-12; Exa's own list price is USD 7 per 1,000 search requests). The search step counts requests.
    price_per_search_usd: Annotated[float, Field(ge=0)] = 0.007


class ReasoningSettings(_Model):
    """OpenRouter's ``reasoning`` object: one of ``effort`` or ``max_tokens`` (documented: not both)."""

    effort: Literal["xhigh", "high", "medium", "low", "minimal", "none"] | None = Field(
        default=None, description="the reasoning effort asked for")
    max_tokens: Annotated[int, Field(ge=0)] | None = Field(default=None, description="a reasoning token budget instead")
    exclude: bool = Field(default=False, description="true: the model reasons but its reasoning is not returned")

    @model_validator(mode="after")
    def _one(self) -> ReasoningSettings:
        if (self.effort is None) == (self.max_tokens is None):
            raise ValueError("reasoning needs exactly one of 'effort' or 'max_tokens'")
        return self


class RoutingSettings(_Model):
    """OpenRouter's ``provider`` preferences (provider routing)."""

    order: tuple[str, ...] = Field(default=(), description="providers to try first, in this order")
    allow_fallbacks: bool = Field(default=True, description="false: only the providers in `order`")
    require_parameters: bool = True  # else a provider that lacks response_format silently drops it
    quantizations: tuple[str, ...] = Field(default=(), description="only providers serving these quantizations")


class Prices(_Model):
    """USD per million tokens (the models API's ``pricing`` times 1e6)."""

    prompt_per_mtok: Annotated[float, Field(ge=0)] = Field(description="USD per million input tokens")
    completion_per_mtok: Annotated[float, Field(ge=0)] = Field(description="USD per million output tokens")


class ProtocolSettings(_Model):
    """The request protocol of the arena: the same search and output settings for every model.

    ``max_tokens`` 5,000 and ``temperature`` 0 are LLM-SoccerArena's published settings;
    the reasoning default is effort ``medium`` (OpenRouter's documented scale, sent explicitly so
    no model reasons at its own default); ``temperature`` is only sent to models that honour it.
    """

    max_tokens: Annotated[int, Field(ge=64)] = 5000  # LLM-SoccerArena: 5,000 output tokens
    temperature: Annotated[float, Field(ge=0, le=2)] | None = 0.0  # LLM-SoccerArena: temperature 0
    structured_outputs: StructuredMode = "json_schema"
    search: SearchSettings = SearchSettings()
    reasoning: ReasoningSettings = ReasoningSettings(effort="medium")
    routing: RoutingSettings = RoutingSettings()
    router_metadata: bool = True  # ask for `openrouter_metadata` (served provider, fallbacks)
    timeout_cost_estimate_usd: Annotated[float, Field(ge=0)] = 0.05  # per timed-out call without known prices


class ForecasterConfig(_Model):
    """One forecaster: an OpenRouter LLM (``model`` + canonical ``version``), a built-in baseline, or an
    outside agent behind an ``endpoint``."""

    id: Annotated[str, Field(pattern=SLUG_PATTERN)] = Field(description="the forecaster's id in every record and page")
    type: Literal["llm", "baseline", "endpoint"] = Field(
        description="an OpenRouter LLM, a built-in baseline named by `id`, or an outside agent behind `endpoint`")
    model: str | None = Field(default=None, description="OpenRouter model id (llm)")
    version: str | None = Field(
        default=None, description="the model's canonical slug, checked against what answers (llm; `prematch models --check`)")
    enabled: bool = Field(default=True, description="false: no longer asked; its records stay")
    since: UtcDatetime | None = Field(default=None, description="no missed records for windows before this")
    access: tuple[Access, ...] | None = Field(default=None, description="its access conditions (default: the arena's)")
    strategies: tuple[Strategy, ...] | None = Field(default=None, description="its strategies (default: the arena's)")
    # The per-model part of the request protocol (collector/forecasters/llm/protocol.py); None = the arena's.
    routing: RoutingSettings | None = Field(default=None, description="provider routing for this model")
    reasoning: ReasoningSettings | None = Field(default=None, description="reasoning setting for this model")
    reasoning_supported: bool = Field(default=True, description="false: no `reasoning` is sent (not a reasoning model)")
    honours_temperature: bool = Field(default=True, description="false: no `temperature` is sent (the model ignores it)")
    structured_outputs: StructuredMode | None = Field(default=None, description="json_schema, json_object or none")
    prices: Prices | None = Field(default=None, description="list prices, for the cost estimate of a timed-out call")
    options: dict[str, str | int | float | bool] = Field(default_factory=dict, description="a baseline's own settings")
    endpoint: EndpointSettings | None = Field(default=None, description="type endpoint: where and how it is asked")

    @model_validator(mode="after")
    def _llm_fields(self) -> ForecasterConfig:
        if self.type == "llm" and (not self.model or not self.version):
            raise ValueError(f"LLM forecaster {self.id!r} needs 'model' (OpenRouter id) and 'version'")
        if (self.type == "endpoint") != (self.endpoint is not None):
            raise ValueError(f"forecaster {self.id!r}: an [forecasters.endpoint] table is given with type "
                             "'endpoint', and only then")
        return self


class ArenaConfig(_Model):
    competitions: tuple[Annotated[str, Field(pattern=SLUG_PATTERN)], ...] = Field(
        min_length=1, description="competition definitions followed (collector/competitions/*.toml or competitions_dir)")
    access: tuple[Access, ...] = Field(default=(Access.CLOSED_BOOK, Access.OPEN_BOOK), description="access conditions asked")
    strategies: tuple[Strategy, ...] = Field(
        default=(Strategy.DIRECT_SCORE, Strategy.PROBABILISTIC_FORECAST), description="prompt strategies asked")
    horizons: tuple[Horizon, ...] = Field(default=LLM_HORIZONS, description="horizons before kickoff at which LLMs are asked")
    samples: Annotated[int, Field(ge=1, le=20)] = 1
    concurrency: Annotated[int, Field(ge=1, le=256)] = 16
    spending_cap_usd: Annotated[float, Field(ge=0)] = 10.0
    max_tick_minutes: Annotated[float, Field(gt=0)] = 25.0
    max_record_bytes: Annotated[int, Field(ge=4096, le=50_000_000)] = Field(
        default=16 * 1024 * 1024, description="the writer refuses a record file larger than this (GitHub: 100 MB)")
    questions: bool = True
    prompt_set: Literal["prematch_v1", "lsa_v1"] = Field(
        default="prematch_v1",
        description="prompts and sum rule: prematch_v1, or lsa_v1 = LLM-SoccerArena App. F verbatim "
                    "(collector/forecasters/llm/prompting.py)")
    collect_from: UtcDatetime | None = Field(default=None, description="UTC; no missed records for windows before it")
    windows: Horizons = Horizons()
    openrouter: OpenRouterSettings = OpenRouterSettings()
    protocol: ProtocolSettings = ProtocolSettings()
    forecasters: tuple[ForecasterConfig, ...] = Field(default=(), max_length=MAX_FORECASTERS)
    # Where the arena is published: the site links each record to it (builder/site/provenance.py)
    # and names both on its Audit page.
    repository_url: Annotated[str, Field(pattern=r"^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~-]+)+/?$")] | None = Field(
        default=None, description="the arena's public git repository")
    site_url: Annotated[str, Field(pattern=r"^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~-]*)*$")] | None = Field(
        default=None, description="where the arena's site is published")
    timestamps: TimestampSettings = TimestampSettings()
    evidence: EvidenceSettings = EvidenceSettings()
    odds: OddsSettings = OddsSettings()
    reports: ReportsSettings = ReportsSettings()
    markets: MarketsSettings = MarketsSettings()
    source_path: str = "prematch.toml"
    # a fork's competition definitions, relative to the configuration file
    competitions_dir: str | None = Field(default=None, description="folder of a fork's competition definitions")

    def competitions_folder(self) -> Path | None:
        """``[arena] competitions_dir`` resolved against the configuration file's folder."""
        if self.competitions_dir is None:
            return None
        return (Path(self.source_path).parent / self.competitions_dir).resolve()

    @model_validator(mode="after")
    def _consistent(self) -> ArenaConfig:
        ids = Counter(f.id for f in self.forecasters)
        duplicates = sorted(i for i, n in ids.items() if n > 1)
        if duplicates:
            raise ValueError(f"forecaster ids must be unique, repeated: {duplicates}")
        if Horizon.CLOSING in self.horizons:
            raise ValueError("horizon 'closing' is for market odds only")
        return self

    def enabled_forecasters(self) -> tuple[ForecasterConfig, ...]:
        return tuple(f for f in self.forecasters if f.enabled)

    def conditions_for(self, forecaster: ForecasterConfig) -> tuple[tuple[Access, Strategy], ...]:
        access = forecaster.access or self.access
        strategies = forecaster.strategies or self.strategies
        return tuple((a, s) for a in access for s in strategies)

    def owes_since(self, forecaster_since: datetime | None) -> datetime | None:
        stamps = [t for t in (self.collect_from, forecaster_since) if t is not None]
        return max(stamps) if stamps else None


def _keys_at(loc: tuple) -> list[str]:
    """The keys the table at ``loc`` (a validation error's location, from the arena) may hold."""
    model: type[BaseModel] | None = ArenaConfig
    for part in loc:
        if model is None or isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        model = _model_in(field.annotation) if field is not None else None
    return list(model.model_fields) if model is not None else []


def _model_in(annotation) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (itself, or inside tuple, list, dict, Optional, Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for m in map(_model_in, get_args(annotation)) if m is not None), None)


def _where(loc: tuple) -> str:
    return ".".join(str(p) for p in loc) or "(top level)"


def parse_config(data: dict, source: str) -> ArenaConfig:
    """Validate a parsed TOML document; ConfigError names the file, the key and the value."""
    arena = dict(data.get("arena", {}))
    known = {"arena", "windows", "openrouter", "protocol", "forecasters", "timestamps", "evidence", "odds", "markets",
             "reports"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{source}: unknown top-level key(s) {unknown}" + did_you_mean(unknown[0], known))
    for section in sorted(known - {"arena"}):
        if section in data:
            arena[section] = data[section]
    arena["source_path"] = source
    try:
        return ArenaConfig.model_validate(arena)
    except ValidationError as exc:
        parts = []
        for err in exc.errors()[:8]:
            loc = _where(err["loc"])
            if loc.startswith(("competitions", "access", "strategies", "horizons", "samples", "concurrency", "prompt_set")):
                loc = f"arena.{loc}"
            unknown = err["type"] == "extra_forbidden"  # a mistyped key: the closest key of its table, if any
            hint = did_you_mean(str(err["loc"][-1]), _keys_at(err["loc"][:-1])) if unknown else ""
            parts.append(f"key {loc}: {err['msg']}{hint} (value {shortened(repr(err.get('input')))})")
        raise ConfigError(f"{source}: " + "; ".join(parts)) from None


def load_config(path: Path | str | None = None) -> ArenaConfig:
    """Read ``prematch.toml`` (or ``path``); raise ConfigError naming the file and key on any problem."""
    target = Path(path) if path is not None else DEFAULT_CONFIG
    return parse_config(read_toml(target, "the arena configuration"), str(target))


def read_toml(target: Path, what: str) -> dict:
    """A TOML file of at most :data:`MAX_CONFIG_BYTES`, nested at most :data:`MAX_DEPTH` deep; ConfigError
    in one line naming the file otherwise."""
    try:
        with open(target, "rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{target}: cannot read {what}: {exc.strerror}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{target}: {what} is larger than {MAX_CONFIG_BYTES} bytes; not read")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{target}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{target}: not valid TOML: nested too deeply") from None
    depth = _depth(data)
    if depth > MAX_DEPTH:
        raise ConfigError(f"{target}: tables or arrays nested {depth} deep, more than {MAX_DEPTH}")
    return data


def _depth(value, level: int = 0) -> int:
    """How deep tables and arrays nest in ``value`` (counting stops past :data:`MAX_DEPTH`)."""
    if level > MAX_DEPTH or not isinstance(value, dict | list):
        return level
    items = value.values() if isinstance(value, dict) else value
    return max((_depth(v, level + 1) for v in items), default=level + 1)
