"""The endpoint forecaster: the LLM forecaster's flow (validation, one repair round, statuses, every
attempt kept) with the call made to an outside agent in the endpoint protocol instead of OpenRouter.

Only the call and the record differ from :class:`~collector.forecasters.llm.forecaster.LLMForecaster`:
:meth:`EndpointForecaster._call` POSTs the task (:func:`collector.forecasters.endpoint_protocol.task_body`)
and :meth:`EndpointForecaster._record` writes ``forecaster_type = endpoint`` with the protocol version
and what the agent declared of itself. An agent costs the arena nothing, so it has a budget of its own
(the arena's spending cap never defers it); ``max_calls_per_tick`` bounds what a tick asks of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime

from collector.config import ArenaConfig, ForecasterConfig
from collector.forecasters.endpoint_client import EndpointClient, unpack
from collector.forecasters.endpoint_protocol import PROTOCOL_VERSION, task_body
from collector.forecasters.llm.forecaster import LLMForecaster
from collector.forecasters.llm.openrouter import ChatResult
from collector.forecasters.llm.prompting import prompt_set
from collector.forecasters.tasks import Budget, Deferred, ScheduledTask
from collector.records import (
    Access,
    Attempt,
    EndpointReport,
    Forecast,
    ForecasterType,
    Strategy,
)

UNDECLARED = "undeclared"


class EndpointForecaster(LLMForecaster):
    """Implements :class:`collector.forecasters.tasks.Forecaster` for one configured agent URL.

    ``clock`` None: the forecaster's clock is each task's (simulated) ``now`` (a replay builds it once, and
    dates each tick's commit at that instant: a later request time would disagree with it).
    """

    type = ForecasterType.ENDPOINT

    def __init__(self, cfg: ForecasterConfig, arena: ArenaConfig, client: EndpointClient,
                 clock: Callable[[], datetime] | None = None, data_dir=None):
        self.id, self.version, self.model = cfg.id, cfg.version or UNDECLARED, None
        self.cfg, self.arena, self.client, self.data_dir = cfg, arena, client, data_dir
        self.budget = Budget(math.inf)  # the arena pays nothing for an agent's answer
        self._follows_tasks = clock is None
        self.clock = clock or (lambda: datetime.now(UTC))
        self.conditions = tuple(c for c in arena.conditions_for(cfg) if c[1] is not Strategy.FINE_GRAINED)
        self.prompts = prompt_set(arena.prompt_set)
        self.max_tokens = arena.protocol.max_tokens
        self.answers_tournament = self.answers_league_table = False
        self._tick: datetime | None = None

    async def forecast(self, task: ScheduledTask) -> Forecast:
        self._follow(task)
        if self.client.calls >= self.client.max_calls:
            raise Deferred(f"{self.id}: {self.client.max_calls} calls made this tick (max_calls_per_tick)")
        return await super().forecast(task)

    def _follow(self, task: ScheduledTask) -> None:
        """A new tick: the call count starts again, and (in a replay) the clock follows the task's ``now``."""
        if task.now == self._tick:
            return
        self._tick = task.now
        self.client.new_tick()
        if self._follows_tasks:  # a replay's tick happens at one simulated instant, which its commit is dated at
            self.clock = lambda now=task.now: now

    async def _call(self, text, task, role, max_tokens, attempts: list[Attempt], deadline,
                    schema: dict | None = None, name: str | None = None) -> ChatResult:
        """One POST of the task (and its transport retries); every exchange joins ``attempts``."""
        body = task_body(task, text, role, deadline)
        result = await self.client.ask(body, role=role, deadline=deadline)
        attempts.extend(result.attempts)
        return result

    def _record(self, task, prompt, attempts, status, validation, checked=None) -> Forecast:
        requested = attempts[0].started_at if attempts else None
        if requested is not None and requested >= task.deadline:  # the hard guard, once more
            raise Deferred(f"{self.id}: request for {task.target_id} would start at or after kickoff")
        return Forecast(
            recorded_at=self.clock(), clock=task.clock, competition_id=task.competition.id,
            target_kind=task.target_kind, target_id=task.target_id, forecaster=self.id,
            forecaster_type=ForecasterType.ENDPOINT, model=None, model_version=self.version,
            access=task.access, strategy=task.strategy, horizon=task.horizon, sample=task.sample,
            kickoff_utc=task.deadline, scheduled_at=task.scheduled_at, requested_at=requested,
            lead_time_minutes=(task.deadline - requested).total_seconds() / 60 if requested else None,
            status=status, prompt=prompt, attempts=tuple(attempts), validation=validation,
            payload=checked.payload if checked is not None else None,
            evidence=task.evidence_ref if task.access is Access.EVIDENCE_PACKAGE else None,
            endpoint=declared(attempts),
        )  # fmt: skip


def declared(attempts) -> EndpointReport:
    """The protocol version, and the agent's name, version and cost from its last answer in the protocol."""
    for attempt in reversed(attempts):
        if attempt.http_status == 200 and (answer := unpack(attempt.response_text).answer) is not None:
            return EndpointReport(protocol_version=PROTOCOL_VERSION, name=answer.agent.name,
                                  version=answer.agent.version, cost_usd=answer.cost_usd)
    return EndpointReport(protocol_version=PROTOCOL_VERSION)
