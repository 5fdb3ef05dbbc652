"""What every forecaster implements, LLM or built-in: a task in, one forecast record out.

The scheduler decides *which* forecast keys are due and builds a :class:`ForecastTask` for
each; a :class:`Forecaster` turns the task into a :class:`~collector.records.Forecast`
(whatever happened: a valid forecast, an invalid answer, an API error). The scheduler
writes it. Forecasters never write to the archive and never see outcomes: ``history``
holds only what was knowable strictly before ``task.now``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from collector.records import (
    Access,
    Clock,
    Competition,
    Event,
    ForecasterType,
    Horizon,
    Outcome,
    Question,
    Strategy,
)


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

    @property
    def target_kind(self) -> str:
        return "match" if self.event is not None else "question"

    @property
    def target_id(self) -> str:
        if self.event is not None:
            return self.event.id
        assert self.question is not None
        return self.question.id


@runtime_checkable
class Forecaster(Protocol):
    """A configured forecaster. ``conditions`` lists the (access, strategy) cells it answers."""

    id: str
    type: ForecasterType
    version: str
    conditions: tuple[tuple[Access, Strategy], ...]

    async def forecast(self, task: ForecastTask):  # -> collector.records.Forecast
        ...
