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
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from collector.errors import ConfigError
from collector.records import Access, Horizon, Strategy
from collector.records.base import SLUG_PATTERN, UtcDatetime

DEFAULT_CONFIG = Path("prematch.toml")
LLM_HORIZONS = (Horizon.STAGE_OPENING, Horizon.T_MINUS_24H, Horizon.T_MINUS_2H)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


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
    connect_timeout_s: Annotated[float, Field(gt=0)] = 10.0
    total_timeout_s: Annotated[float, Field(gt=0)] = 180.0
    max_attempts: Annotated[int, Field(ge=1, le=10)] = 3
    base_delay_s: Annotated[float, Field(ge=0)] = 2.0
    max_delay_s: Annotated[float, Field(ge=0)] = 60.0
    max_tokens: Annotated[int, Field(ge=64)] = 4096
    temperature: float | None = None
    web_search_max_results: Annotated[int, Field(ge=1, le=25)] = 5


class ForecasterConfig(_Model):
    """One forecaster: an OpenRouter LLM (``model`` + canonical ``version``) or a built-in baseline."""

    id: Annotated[str, Field(pattern=SLUG_PATTERN)]
    type: Literal["llm", "baseline"]
    model: str | None = None
    version: str | None = None
    enabled: bool = True
    since: UtcDatetime | None = Field(default=None, description="no missed records for windows before this")
    access: tuple[Access, ...] | None = None
    strategies: tuple[Strategy, ...] | None = None
    max_tokens: Annotated[int, Field(ge=64)] | None = None
    json_mode: bool = True
    options: dict[str, str | int | float | bool] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _llm_fields(self) -> ForecasterConfig:
        if self.type == "llm" and (not self.model or not self.version):
            raise ValueError(f"LLM forecaster {self.id!r} needs 'model' (OpenRouter id) and 'version'")
        return self


class ArenaConfig(_Model):
    competitions: tuple[Annotated[str, Field(pattern=SLUG_PATTERN)], ...] = Field(min_length=1)
    access: tuple[Access, ...] = (Access.CLOSED_BOOK, Access.OPEN_BOOK)
    strategies: tuple[Strategy, ...] = (Strategy.DIRECT_SCORE, Strategy.PROBABILISTIC_FORECAST)
    horizons: tuple[Horizon, ...] = LLM_HORIZONS
    samples: Annotated[int, Field(ge=1, le=20)] = 1
    concurrency: Annotated[int, Field(ge=1, le=256)] = 16
    spending_cap_usd: Annotated[float, Field(ge=0)] = 10.0
    max_tick_minutes: Annotated[float, Field(gt=0)] = 25.0
    questions: bool = True
    collect_from: UtcDatetime | None = None
    windows: Horizons = Horizons()
    openrouter: OpenRouterSettings = OpenRouterSettings()
    forecasters: tuple[ForecasterConfig, ...] = ()
    # Where the arena is published: the site links each record to it (builder/site/provenance.py).
    repository_url: Annotated[str, Field(pattern=r"^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~-]+)+/?$")] | None = None
    site_url: Annotated[str, Field(pattern=r"^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~-]*)*$")] | None = None
    source_path: str = "prematch.toml"

    @model_validator(mode="after")
    def _consistent(self) -> ArenaConfig:
        ids = [f.id for f in self.forecasters]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
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


def _where(loc: tuple) -> str:
    return ".".join(str(p) for p in loc) or "(top level)"


def parse_config(data: dict, source: str) -> ArenaConfig:
    """Validate a parsed TOML document; ConfigError names the file, the key and the value."""
    arena = dict(data.get("arena", {}))
    unknown = sorted(set(data) - {"arena", "windows", "openrouter", "forecasters"})
    if unknown:
        raise ConfigError(f"{source}: unknown top-level key(s) {unknown}")
    for section in ("windows", "openrouter", "forecasters"):
        if section in data:
            arena[section] = data[section]
    arena["source_path"] = source
    try:
        return ArenaConfig.model_validate(arena)
    except ValidationError as exc:
        parts = []
        for err in exc.errors()[:8]:
            loc = _where(err["loc"])
            if loc.startswith(("competitions", "access", "strategies", "horizons", "samples", "concurrency")):
                loc = f"arena.{loc}"
            parts.append(f"key {loc}: {err['msg']} (value {err.get('input')!r:.80})")
        raise ConfigError(f"{source}: " + "; ".join(parts)) from None


def load_config(path: Path | str | None = None) -> ArenaConfig:
    """Read ``prematch.toml`` (or ``path``); raise ConfigError naming the file and key on any problem."""
    target = Path(path) if path is not None else DEFAULT_CONFIG
    try:
        raw = target.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{target}: cannot read the arena configuration: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{target}: not valid TOML: {exc}") from None
    return parse_config(data, str(target))
