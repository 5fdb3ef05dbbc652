"""What every forecaster implements, LLM or built-in: a task in, one forecast record out.

The scheduler decides *which* forecast keys are due and builds a :class:`ForecastTask` for
each; a :class:`Forecaster` turns the task into a :class:`~collector.records.Forecast`
(whatever happened: a valid forecast, an invalid answer, an API error). The scheduler
writes it. Forecasters never write to the archive and never see outcomes: ``history``
holds only what was knowable strictly before ``task.now``.

The scheduler hands out :class:`ScheduledTask` (a task with the close of its window); a
forecaster that does not attempt a task this tick raises :class:`Deferred`; :class:`Budget`
is the tick's spending cap, shared by the forecasters that pay for their calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from collector.errors import PrematchError
from collector.records import (
    Access,
    Clock,
    Competition,
    Event,
    Evidence,
    EvidenceRef,
    ForecasterType,
    Horizon,
    OddsSnapshot,
    Outcome,
    Question,
    Strategy,
)

FULL_TOURNAMENT = "full-tournament"
"""The target id of a full-tournament forecast (one per competition, horizon and forecaster)."""


@dataclass(frozen=True)
class KnownResult:
    """A result knowable before the request time (for baselines fitted on earlier matches)."""

    event: Event
    outcome: Outcome


@dataclass(frozen=True)
class ForecastTask:
    """One due forecast key, with everything a forecaster may use."""

    competition: Competition
    access: Access
    strategy: Strategy
    horizon: Horizon
    sample: int
    scheduled_at: datetime
    now: datetime  # the (real or simulated) request time
    deadline: datetime  # kickoff, or the question's close: nothing may be requested after it
    clock: Clock
    event: Event | None = None
    question: Question | None = None
    fixtures: Sequence[Event] = ()  # every registered event of the competition (for questions)
    history: Sequence[KnownResult] = field(default=())  # results of this competition before `now`
    evidence: Evidence | None = None  # evidence_package: the frozen package of (event, horizon), as written
    evidence_ref: EvidenceRef | None = None  # its archive path and the SHA-256 of its file's bytes
    full_tournament: bool = False  # the whole competition (collector.records.tournament), no event or question
    odds: Sequence[OddsSnapshot] = field(default=())  # the event's odds snapshots of this horizon (market)

    @property
    def target_kind(self) -> str:
        if self.full_tournament:
            return "tournament"
        return "match" if self.event is not None else "question"

    @property
    def target_id(self) -> str:
        if self.full_tournament:
            return FULL_TOURNAMENT
        if self.event is not None:
            return self.event.id
        assert self.question is not None
        return self.question.id


class Deferred(PrematchError):
    """The forecast was not attempted this tick (spending cap reached, or too late); no record."""


@dataclass
class Budget:
    """The spending cap of one tick: no new LLM call starts once ``spent >= cap``."""

    cap: float
    spent: float = 0.0

    def allows(self) -> bool:
        return self.spent < self.cap

    def add(self, amount: float) -> None:
        self.spent += amount


@dataclass(frozen=True)
class ScheduledTask(ForecastTask):
    """A forecast task with the close of its window (no request may start or run past it)."""

    window_closes: datetime | None = None

    @property
    def request_deadline(self) -> datetime:
        return min(self.deadline, self.window_closes) if self.window_closes else self.deadline


@runtime_checkable
class Forecaster(Protocol):
    """A configured forecaster. ``conditions`` lists the (access, strategy) cells it answers."""

    id: str
    type: ForecasterType
    version: str
    conditions: tuple[tuple[Access, Strategy], ...]

    async def forecast(self, task: ForecastTask):  # -> collector.records.Forecast
        ...
