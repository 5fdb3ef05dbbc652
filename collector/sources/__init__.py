"""Fixture and result sources behind one interface (:class:`~collector.sources.base.Source`)."""

from __future__ import annotations

from collector.competitions import Definition
from collector.datasource import DataSource
from collector.errors import ConfigError
from collector.sources.base import MatchStatus, Source, SourceBatch, SourceMatch

ADAPTERS = ("openfootball", "football-data")


def source_for(definition: Definition, data: DataSource, adapter: str | None = None) -> Source:
    """The adapter a competition's definition names (or ``adapter`` to override it)."""
    name = adapter or definition.source.adapter
    if name == "openfootball":
        from collector.sources.openfootball import OpenfootballSource

        return OpenfootballSource(definition, data)
    if name == "football-data":
        from collector.sources.football_data import FootballDataSource

        return FootballDataSource(definition)
    raise ConfigError(f"{definition.path}: unknown source adapter {name!r} (known: {', '.join(ADAPTERS)})")


__all__ = ["ADAPTERS", "MatchStatus", "Source", "SourceBatch", "SourceMatch", "source_for"]
