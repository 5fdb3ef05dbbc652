"""What one tick works with: :class:`TickContext`, made by the conductor
(:func:`collector.schedule.tick.run_tick_async`) and handed to every step."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from collector.archive.reader import Archive
from collector.archive.write.writer import ArchiveWriter
from collector.config import ArenaConfig
from collector.forecasters.tasks import Budget
from collector.records import Clock
from collector.schedule.scheduler import KeyLocks
from collector.schedule.tick_report import TickReport


@dataclass(frozen=True)
class TickContext:
    """What one tick works with, made once by :func:`run_tick_async` and handed to every step.

    The fields never change; ``archive`` (kept current by ``writer``), ``report`` and
    ``budget`` are filled as the tick goes.
    """

    config: ArenaConfig
    archive: Archive  # the in-memory view of the archive
    writer: ArchiveWriter
    now: datetime  # the tick's (real or simulated) time: what is due, what is knowable
    clock: Clock  # live or replay, stamped on every record
    timer: Callable[[], datetime]  # ``now`` advanced by real time (request times, the tick's time limit)
    data_dir: Path | str | None
    budget: Budget  # the spending cap, shared by the forecasters
    locks: KeyLocks  # at-most-once claims of forecast keys
    gate: asyncio.Semaphore  # bounds the forecasts in flight
    stop: datetime  # no new forecast starts after this
    report: TickReport
    evidence: dict = field(default_factory=dict)  # (competition, event, horizon) -> its written package
