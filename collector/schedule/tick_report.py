"""What one tick did: the files it wrote, its counts, its problems and the time of each phase.

:class:`TickReport` is filled by :func:`collector.schedule.tick.run_tick_async` as the tick goes and
printed by ``prematch tick`` (:meth:`TickReport.summary_lines`).
"""

from __future__ import annotations

import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from collector.audit.tsa_client import StampReport
from collector.errors import Problem


@dataclass
class TickReport:
    now: datetime
    ended_at: datetime | None = None  # the tick's clock when it ended (``now`` plus the real time it took)
    written: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    due: int = 0
    produced: int = 0
    missed: int = 0
    deferred: int = 0
    retried: int = 0  # of the produced, retries of a transport failure (a new revision of the key)
    locked: int = 0
    spent_usd: float = 0.0
    statuses: Counter = field(default_factory=Counter)
    manifest: str | None = None
    adopted: int = 0  # files of earlier, interrupted ticks the manifest adopted
    stamps: StampReport | None = None  # RFC 3161 tokens asked for (live ticks with authorities configured)
    statistics: int = 0  # attempt statistics records written (OpenRouter's generation stats)
    llm_records: int = 0  # LLM forecast records written after at least one call
    llm_failed: int = 0  # of which every call failed (api_error, timeout)
    temp_removed: int = 0  # temporary files of dead writers removed
    evidence: int = 0  # evidence packages written (before the forecasts that use them)
    odds: int = 0  # odds snapshots and closing market forecasts written (collector/schedule/odds.py)
    binary: int = 0  # binary market events, their forecasts and resolutions (collector/schedule/binary_events.py)

    notes: list[str] = field(default_factory=list)  # what was left out on purpose (a source without its key)
    seconds: dict[str, float] = field(default_factory=dict)  # wall-clock time per phase

    @property
    def ok(self) -> bool:
        return not self.problems

    @contextmanager
    def phase(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = time.perf_counter() - start

    def summary_lines(self) -> list[str]:
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items())) or "none"
        lines = [
            f"tick {self.now.isoformat()}: {len(self.written)} file(s) written",
            f"  forecasts due {self.due}, produced {self.produced}, missed {self.missed}, deferred {self.deferred}, "
            f"already claimed {self.locked}, retried {self.retried}; spent {self.spent_usd:.4f} USD",
            f"  statuses: {statuses}",
        ]
        counted = ((self.evidence, "  evidence packages written: {}"),
                   (self.statistics, "  attempt statistics written: {}"),
                   (self.odds, "  odds snapshots and closing market forecasts written: {}"),
                   (self.binary, "  binary market events, forecasts and resolutions written: {}"),
                   (self.temp_removed, "  removed {} temporary file(s) of dead writers"),
                   (self.manifest, "  manifest: {}"),
                   (self.adopted, "  the manifest adopts {} file(s) of earlier ticks that stopped before their manifest"))
        lines += [text.format(value) for value, text in counted if value]  # only what this tick did
        if self.stamps is not None and self.stamps.summary_line():
            lines.append(self.stamps.summary_line())
        return lines + [f"  note: {note}" for note in self.notes]
