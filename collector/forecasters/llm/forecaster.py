"""The LLM forecaster: prompt, call OpenRouter, validate, repair once, build the Forecast record.

Every attempt (first call and its transport retries, the JSON-mode fallback, a truncation
retry, the repair call) is kept in the record with its own usage, cost and latency. An open-book
answer that reports no server-tool use has its generation stats asked at once (whether it searched);
the client keeps them, and the tick's statistics step writes its record from them without asking again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime

from collector.config import ArenaConfig, ForecasterConfig
from collector.forecasters.llm.answer_schema import (
    match_schema,
    question_schema,
    schema_name,
)
from collector.forecasters.llm.evidence_prompt import evidence_match_prompt
from collector.forecasters.llm.fine_grained import (
    fine_grained_prompt,
    fine_grained_repair_prompt,
    fine_grained_schema,
    validate_fine_grained,
)
from collector.forecasters.llm.limits import same_model, sanitised_text
from collector.forecasters.llm.observed import (
    estimated_cost,
    needs_generation_search,
    search_report,
    with_generation_search,
)
from collector.forecasters.llm.openrouter import ChatResult, OpenRouterClient
from collector.forecasters.llm.prompting import (
    match_prompt,
    match_repair_prompt,
    prompt_names,
    prompt_set,
    question_prompt,
    question_repair_prompt,
)
from collector.forecasters.llm.protocol import (
    build_body,
    mode_of,
    resolve,
    settings_sha256,
)
from collector.forecasters.llm.validation import (
    Checked,
    validate_match,
    validate_question,
)
from collector.forecasters.squads import squads_of
from collector.forecasters.tasks import Budget, Deferred, ForecastTask, ScheduledTask
from collector.records import (
    Access,
    Attempt,
    AttemptRole,
    Forecast,
    ForecasterType,
    ForecastStatus,
    Prompt,
    RequestProtocol,
    Strategy,
    StructuredOutput,
    Validation,
)


def _fine(task: ForecastTask) -> bool:
    """A match task of the fine_grained strategy (players, events, statistics too)."""
    return task.event is not None and task.strategy is Strategy.FINE_GRAINED


class LLMForecaster:
    """Implements :class:`collector.forecasters.tasks.Forecaster` for one configured OpenRouter model."""

    type = ForecasterType.LLM

    def __init__(
        self, cfg: ForecasterConfig, arena: ArenaConfig, client: OpenRouterClient, budget: Budget,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC), data_dir=None,
    ):  # fmt: skip
        self.id, self.version, self.model = cfg.id, cfg.version, cfg.model
        self.cfg, self.arena, self.client, self.budget, self.clock = cfg, arena, client, budget, clock
        self.conditions = arena.conditions_for(cfg)
        self.prompts = prompt_set(arena.prompt_set)  # prematch.toml [arena] prompt_set
        self.max_tokens = arena.protocol.max_tokens
        self.limit_parameter = "max_tokens"  # max_completion_tokens where the models API lists it (tick's model check)
        self.settings = {a: resolve(arena, cfg, a) for a in Access}
        self.data_dir = data_dir  # where the squads file of a fine_grained prompt is read
        self.answers_tournament = bool(cfg.options.get("full_tournament", False))  # opt-in (llm/full_tournament.py)
        self.answers_league_table = False  # the LLM full-tournament task covers cups only

    async def forecast(self, task: ScheduledTask) -> Forecast:
        deadline = getattr(task, "request_deadline", task.deadline)
        if self.client.stopped:
            raise Deferred(f"{self.id}: {self.client.stopped}")
        if not self.budget.allows():
            raise Deferred(f"{self.id}: spending cap of {self.budget.cap} USD reached for this tick")
        if self.clock() >= deadline:
            raise Deferred(f"{self.id}: {task.target_id} is past its deadline {deadline.isoformat()}")
        attempts: list[Attempt] = []
        prompt = None if task.full_tournament else self._prompt(task)
        try:
            if task.full_tournament:
                from collector.forecasters.llm.full_tournament import (
                    forecast_full_tournament,
                )

                return await forecast_full_tournament(self, task, deadline, attempts)
            return await self._answer(task, prompt, attempts, deadline)
        except (Deferred, asyncio.CancelledError):
            raise
        except Exception as exc:  # noqa: BLE001 - whatever an answer does to the code, the calls made are recorded
            if not attempts:
                raise
            problem = f"the answer could not be processed: {type(exc).__name__}: {sanitised_text(str(exc))}"
            return self._record(task, prompt, attempts, ForecastStatus.API_ERROR, Validation(errors=(problem,)))

    async def _answer(self, task: ScheduledTask, prompt: Prompt, attempts: list[Attempt], deadline) -> Forecast:
        """The first call, a truncation retry, validation and at most one repair: the record they make."""
        first = await self._call(prompt.text, task, AttemptRole.FIRST, self.max_tokens, attempts, deadline)
        if first.failure:
            status = ForecastStatus.TIMEOUT if first.failure == "timeout" else ForecastStatus.API_ERROR
            return self._record(task, prompt, attempts, status, Validation(errors=(first.error or "failed",)))
        content = first.content
        if first.finish_reason == "length" and self.budget.allows():
            more = await self._call(prompt.text, task, AttemptRole.TRUNCATION_RETRY, self.max_tokens * 2, attempts, deadline)
            if not more.failure:
                content = more.content
        checked = self._validate(task, content)
        if checked.ok:
            return self._record(task, prompt, attempts, checked.status, _validation(checked), checked)
        return await self._repair(task, prompt, attempts, checked, content, deadline)

    async def _repair(self, task, prompt, attempts, checked: Checked, content, deadline) -> Forecast:
        """At most one repair call that quotes the errors and repeats the match or question context."""
        if not self.budget.allows() or self.clock() >= deadline:
            note = "no repair call: spending cap reached" if not self.budget.allows() else "no repair call: deadline"
            return self._record(task, prompt, attempts, checked.status, _validation(checked, extra=[note]))
        if _fine(task):
            text = fine_grained_repair_prompt(task.competition, task.event, checked.errors, content or "",
                                              self.prompts, squads_of(task.competition, self.data_dir))
        elif task.event is not None:
            text = match_repair_prompt(task.competition, task.event, checked.errors, content or "", self.prompts)
        else:
            text = question_repair_prompt(task.competition, task.question, checked.errors, content or "",
                                          self.prompts)
        repaired = await self._call(text, task, AttemptRole.REPAIR, self.max_tokens, attempts, deadline)
        if repaired.failure:
            extra = [f"repair call failed: {repaired.error}"]
            return self._record(task, prompt, attempts, checked.status, _validation(checked, extra=extra))
        second = self._validate(task, repaired.content)
        if not second.ok:
            extra = [f"after repair: {e}" for e in second.errors]
            validation = _validation(checked, extra=extra, repaired=True)
            return self._record(task, prompt, attempts, ForecastStatus.INVALID_AFTER_REPAIR, validation)
        status = ForecastStatus.REPAIRED_AND_NORMALIZED if second.normalized else ForecastStatus.REPAIRED
        # original_sums always describe the first answer; the repaired answer's sums sit beside them
        diagnostics = {**second.diagnostics, "status_before_repair": checked.status.value,
                       "repaired_sums": dict(second.original_sums)}
        validation = Validation(
            errors=tuple(checked.errors), original_sums=checked.original_sums, normalized=second.normalized,
            repaired=True, diagnostics=diagnostics,
        )  # fmt: skip
        return self._record(task, prompt, attempts, status, validation, second)

    def _prompt(self, task: ForecastTask) -> Prompt:
        if task.access is Access.EVIDENCE_PACKAGE:  # fail closed: no frozen package, no request
            if task.event is None or task.evidence is None or task.evidence_ref is None:
                raise Deferred(f"{self.id}: no evidence package for {task.target_id} {task.horizon.value}")
            return evidence_match_prompt(task.competition, task.event, task.strategy, task.evidence,
                                         task.evidence_ref, self.prompts)
        if _fine(task):
            return fine_grained_prompt(task.competition, task.event, task.access, self.prompts,
                                       squads_of(task.competition, self.data_dir))
        if task.event is not None:
            return match_prompt(task.competition, task.event, task.access, task.strategy, self.prompts)
        return question_prompt(task.competition, task.question, task.fixtures, task.access, task.strategy,
                               self.prompts)

    def _validate(self, task: ForecastTask, content: str | None) -> Checked:
        if _fine(task):
            return validate_fine_grained(content, task.event, squads_of(task.competition, self.data_dir))
        if task.event is not None:
            return validate_match(content, task.event)
        return validate_question(content, task.question, task.competition,
                                 enforce_fixed_k_sum=self.prompts.enforce_fixed_k_sum,
                                 names=prompt_names(task.competition, self.prompts))

    async def _call(self, text, task, role, max_tokens, attempts: list[Attempt], deadline,
                    schema: dict | None = None, name: str | None = None) -> ChatResult:
        """One call (and its transport retries); ``schema``/``name``: another answer's (the full-tournament task)."""
        single = task.question is None or task.question.k == 1
        if schema is None:
            schema = match_schema() if task.event is not None else question_schema(single)
            schema = fine_grained_schema() if _fine(task) else schema
        body = build_body(
            self.model, [{"role": "user", "content": text}], self.settings[task.access], schema=schema,
            schema_name=name or schema_name(task.target_kind, single), max_tokens=max_tokens,
            limit_parameter=self.limit_parameter,
        )  # fmt: skip
        result = await self.client.chat(body, role=role, deadline=deadline)
        await self._search_from_generation(result, body, deadline)
        estimate = 0.0
        for i, attempt in enumerate(result.attempts):  # billed although unanswered: counted at once
            if attempt.timed_out:
                cost = estimated_cost(self.arena.protocol, self.cfg.prices, attempt.request_body, text)
                result.attempts[i] = attempt.model_copy(update={"estimated_cost_usd": cost})
                estimate += cost
        attempts.extend(result.attempts)
        self.budget.add(result.cost + estimate)
        return result

    async def _search_from_generation(self, result: ChatResult, body: dict, deadline) -> None:
        """An open-book answer that reports no server-tool use: its generation stats' ``num_search_results``
        tell whether it searched (a second source; :func:`collector.forecasters.llm.observed.with_generation_search`).
        The client keeps the stats it got for the tick's statistics step (one fetch per generation)."""
        for i, attempt in enumerate(result.attempts):
            if needs_generation_search(body, attempt) and attempt.response_id:
                found = await self.client.generation_search_results(attempt.response_id, deadline=deadline)
                if found is not None:
                    result.attempts[i] = with_generation_search(attempt, found)

    def _record(self, task, prompt, attempts, status, validation, checked: Checked | None = None) -> Forecast:
        requested = attempts[0].started_at if attempts else None
        settings = self.settings[task.access]
        answered = [a for a in attempts if a.http_status == 200]
        protocol = RequestProtocol(
            sha256=settings_sha256(settings), settings=settings,
            structured_output=StructuredOutput(mode_of(answered[-1].request_body if answered else {})),
        )  # fmt: skip
        served = next((a.served_model for a in reversed(attempts) if a.http_status == 200 and a.served_model), None)
        if requested is not None and requested >= task.deadline:  # the hard guard, once more
            raise Deferred(f"{self.id}: request for {task.target_id} would start at or after kickoff")
        return Forecast(
            recorded_at=self.clock(), clock=task.clock, competition_id=task.competition.id,
            target_kind=task.target_kind, target_id=task.target_id, forecaster=self.id,
            forecaster_type=ForecasterType.LLM, model=self.model, model_version=self.version,
            access=task.access, strategy=task.strategy, horizon=task.horizon, sample=task.sample,
            kickoff_utc=task.deadline, scheduled_at=task.scheduled_at, requested_at=requested,
            lead_time_minutes=(task.deadline - requested).total_seconds() / 60 if requested else None,
            status=status, prompt=prompt, attempts=tuple(attempts), validation=validation,
            payload=checked.payload if checked is not None else None,
            protocol=protocol, search=search_report(task.access, attempts) if answered else None,
            served_model=served, served_model_differs=not same_model(self.model, served),
            evidence=task.evidence_ref if task.access is Access.EVIDENCE_PACKAGE else None,
        )  # fmt: skip


def _validation(checked: Checked, extra: list[str] | None = None, repaired: bool = False) -> Validation:
    return Validation(
        errors=tuple(checked.errors + (extra or [])), original_sums=checked.original_sums,
        normalized=checked.normalized, repaired=repaired, diagnostics=checked.diagnostics,
    )  # fmt: skip
