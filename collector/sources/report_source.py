"""The one interface of match-report sources (lineups, events, statistics after a match).

A report source answers, for registered events that have finished, the fields of
:class:`~collector.records.match_report.MatchReport` it has (values of the report's own
models), with the raw payloads it read. A field it does not report is absent (no data); an
empty tuple is a confirmed "nothing happened". A match or field it cannot use becomes a
:class:`~collector.errors.Problem` naming the source, the match and the field; the others
are still returned. openfootball's goals reach reports through the result sync
(:mod:`collector.fixtures.match_reports`); API-Football and football-data.org's unfolded
match resources through this interface.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from collector.errors import Problem
from collector.records import Competition, Event


@dataclass
class ReportParts:
    """What one source reported about one match."""

    source: str
    retrieved_at: datetime
    fields: dict[str, Any] = field(default_factory=dict)  # MatchReport field -> value
    payload: dict[str, Any] = field(default_factory=dict)  # the raw responses read, verbatim


@dataclass
class ReportBatch:
    source: str
    parts: dict[str, ReportParts] = field(default_factory=dict)  # by event id
    problems: list[Problem] = field(default_factory=list)


class ReportSource(Protocol):
    name: str

    def fetch_reports(self, competition: Competition, events: list[Event]) -> ReportBatch: ...
