"""``endpoint-check``'s work: send an agent the recorded tasks of each kind and name every protocol problem.

The recorded tasks (``endpoint_tasks/*.json`` beside this module) are real tasks of a World Cup replay:
a group match and a knockout (probabilistic and direct score), one under ``evidence_package``,
a single-choice and a fixed-k tournament question, and a repair round. Each file holds the task
as sent and the event or question it asks about, so the answer is judged by the very validation
a tick uses (:mod:`collector.forecasters.llm.validation`): transport (late, too large, an HTTP
error), the envelope (not JSON, not the protocol's answer, another major version) and the forecast.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import orjson

from collector.competitions import competition_from_definition, load_definition
from collector.config import ForecasterConfig
from collector.config_sections import EndpointSettings
from collector.errors import Problem, UsageError
from collector.forecasters.endpoint_client import EndpointClient
from collector.forecasters.llm.validation import (
    Checked,
    validate_match,
    validate_question,
)
from collector.records import AttemptRole, Clock, Event, ForecastStatus, Question

RECORDED = Path(__file__).parent / "endpoint_tasks"
ACCEPTED = frozenset({ForecastStatus.VALID, ForecastStatus.NORMALIZED})


@dataclass(frozen=True)
class RecordedTask:
    name: str
    task: dict
    event: Event | None
    question: Question | None


def recorded_tasks(folder: Path = RECORDED) -> list[RecordedTask]:
    """Every recorded task, in name order."""
    out = []
    for path in sorted(folder.glob("*.json")):
        data = orjson.loads(path.read_bytes())
        event = Event.model_validate_json(orjson.dumps(data["event"])) if data.get("event") else None
        question = Question.model_validate_json(orjson.dumps(data["question"])) if data.get("question") else None
        out.append(RecordedTask(path.stem, data["task"], event, question))
    return out


def _validated(recorded: RecordedTask, content: str | None) -> Checked:
    if recorded.event is not None:
        return validate_match(content, recorded.event)
    definition = load_definition(recorded.task["competition"]["id"])
    competition = competition_from_definition(definition, datetime.now(UTC), Clock.REPLAY)
    return validate_question(content, recorded.question, competition)


async def check_endpoint(url: str, *, token_env: str | None = None, timeout_s: float = 60.0,
                         transport: httpx.AsyncBaseTransport | None = None,
                         tasks: list[RecordedTask] | None = None) -> tuple[int, list[Problem]]:
    """(tasks sent, every problem found); a URL the arena cannot use is a :class:`UsageError`."""
    try:
        settings = EndpointSettings(url=url, token_env=token_env, timeout_s=timeout_s, max_attempts=1)
    except ValueError:
        raise UsageError(f"URL {url!r}: the arena asks https:// addresses, or http:// on this machine "
                         f"(127.0.0.1, localhost, [::1]); timeout {timeout_s} must be in (0, 600]") from None
    client = EndpointClient(ForecasterConfig(id="endpoint-check", type="endpoint", endpoint=settings),
                            transport=transport)
    chosen = recorded_tasks() if tasks is None else tasks
    problems: list[Problem] = []
    try:
        for recorded in chosen:
            problems += await _one(client, recorded, timeout_s)
    finally:
        await client.aclose()
    return len(chosen), problems


async def _one(client: EndpointClient, recorded: RecordedTask, timeout_s: float) -> list[Problem]:
    deadline = datetime.now(UTC) + timedelta(seconds=timeout_s + 5)
    body = {**recorded.task, "answer_by": deadline.isoformat().replace("+00:00", "Z")}
    role = AttemptRole.REPAIR if body.get("role") == "repair" else AttemptRole.FIRST
    result = await client.ask(body, role=role, deadline=deadline)
    where = f"task {recorded.name}"
    if result.failure:
        status = "timeout" if result.failure == "timeout" else f"api_error ({result.error_kind or 'failed'})"
        return [Problem(where, f"{status}: {result.error}")]
    problems = []
    last = result.attempts[-1]
    if last.error:
        problems.append(Problem(where, f"envelope: {last.error}"))
    checked = _validated(recorded, result.content)
    if checked.status not in ACCEPTED and not last.error:
        problems += [Problem(where, f"{checked.status.value}: {e}") for e in checked.errors] or [
            Problem(where, checked.status.value)]
    return problems


def run_check(url: str, **options) -> tuple[int, list[Problem]]:
    return asyncio.run(check_endpoint(url, **options))
