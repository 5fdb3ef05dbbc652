"""Load the shipped competition definitions (``collector/competitions/*.toml``).

A definition is the project's own configuration: the :class:`Competition` record's fields
plus a ``[source]`` table (which adapter, which file, the football-data.org code) and, per
stage, the source's round labels (``source_rounds``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from collector.errors import ConfigError
from collector.records import Clock, Competition

DEFINITIONS_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class SourceConfig:
    adapter: str  # "openfootball" | "football-data"
    file: str | None = None  # relative data-file name for openfootball
    football_data_code: str | None = None


@dataclass(frozen=True)
class Definition:
    """A parsed definition: the record's fields, where fixtures come from, round labels per stage."""

    id: str
    fields: dict[str, Any]
    source: SourceConfig
    round_labels: dict[str, tuple[str, ...]]  # stage id -> source round labels (prefixes)
    path: Path

    def stage_for_round(self, label: str) -> str | None:
        """The stage id for a source round label (``Round of 32``, ``Matchday 3``), or None."""
        for stage_id, labels in self.round_labels.items():
            if any(label == known or label.startswith(known + " ") for known in labels):
                return stage_id
        return None


def list_competitions() -> list[str]:
    """Ids of every shipped competition definition."""
    return sorted(p.stem for p in DEFINITIONS_DIR.glob("*.toml"))


def load_definition(competition_id: str) -> Definition:
    path = DEFINITIONS_DIR / f"{competition_id}.toml"
    if not path.is_file():
        known = ", ".join(list_competitions())
        raise ConfigError(f"unknown competition {competition_id!r} (known: {known})")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    try:
        source = SourceConfig(**raw.pop("source"))
        fields = dict(raw)
        fields["source"] = fields.pop("definition_source")
        stages = [dict(s) for s in fields.get("stages", [])]
        labels = {s["id"]: tuple(s.pop("source_rounds", ())) for s in stages}
        fields["stages"] = stages
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"{path}: missing or malformed entry {exc}") from None
    return Definition(id=competition_id, fields=fields, source=source, round_labels=labels, path=path)


def competition_from_definition(definition: Definition, recorded_at: datetime, clock: Clock) -> Competition:
    try:
        return Competition.model_validate(
            {**definition.fields, "recorded_at": recorded_at, "clock": clock}, strict=False
        )
    except ValidationError as exc:
        raise ConfigError(f"{definition.path}: invalid competition definition: {exc}") from None


def load_competition(competition_id: str, recorded_at: datetime, clock: Clock = Clock.LIVE) -> Competition:
    """The :class:`Competition` record for a shipped definition, stamped ``recorded_at``."""
    return competition_from_definition(load_definition(competition_id), recorded_at, clock)
