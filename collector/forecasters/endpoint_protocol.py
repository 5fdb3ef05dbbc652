"""The endpoint protocol: the task the arena POSTs to an outside agent, and the answer it expects back.

The task carries what an LLM of the same cell is asked: the match or question, the horizon,
the access condition's content (the exact prompt text; under ``evidence_package`` the frozen
evidence record too) and the JSON Schema of the answer. It never carries another forecaster's
answer, an outcome or a score: it is built from the task alone (:func:`task_body`).

The answer's ``answer`` is checked by the LLMs' validation (:mod:`collector.forecasters.llm.validation`),
with the same repair round and statuses. The models here are the published protocol:
``prematch schema --protocol docs/protocol`` writes their JSON Schema and the OpenAPI document
(:func:`protocol_documents`; a test fails when the committed files drift from the models).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from collector.forecasters.llm.answer_schema import match_schema, question_schema
from collector.forecasters.tasks import ForecastTask
from collector.records import AttemptRole, Competition, Prompt

PROTOCOL = "prematch-endpoint"
PROTOCOL_VERSION = "1.0"
"""Bumped (minor) for a compatible addition to the task, (major) for anything an agent must change for."""

Role = Literal["first", "repair"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TeamRef(_Model):
    id: str = Field(description="the team's stable id in the competition")
    name: str = Field(description="its display name (the one the prompt uses)")


class TaskMatch(_Model):
    id: str = Field(description="the event id")
    stage: str
    group: str | None = None
    home: TeamRef
    away: TeamRef
    kickoff_utc: datetime | None = Field(description="kickoff, UTC (null: only the date is known)")
    kickoff_date: str = Field(description="local calendar date at the venue, YYYY-MM-DD")
    knockout: bool = Field(description="true: extra time and penalties decide; advancement probabilities asked")


class TaskQuestion(_Model):
    id: str
    label: str
    meaning: str
    prediction_type: Literal["single_choice", "multi_choice_fixed_k"]
    k: int = Field(ge=1, description="how many teams the final picks hold")
    candidates: list[TeamRef] = Field(description="every team the answer's choices must list once")
    closes_at: datetime


class EndpointTask(_Model):
    """What the arena POSTs (``Content-Type: application/json``) to the agent's URL."""

    protocol: Literal["prematch-endpoint"] = PROTOCOL
    protocol_version: str = Field(default=PROTOCOL_VERSION, description="MAJOR.MINOR of this protocol")
    task_id: str = Field(description="competition/target/access/strategy/horizon/sample: the forecast key")
    role: Role = Field(description="first: the task; repair: the one repair round after an invalid answer")
    competition: TeamRef = Field(description="the competition's id and name")
    target_kind: Literal["match", "question"]
    match: TaskMatch | None = None
    question: TaskQuestion | None = None
    horizon: str = Field(description="stage_opening, t_minus_24h or t_minus_2h")
    access: str = Field(description="closed_book, open_book or evidence_package")
    strategy: str = Field(description="probabilistic_forecast or direct_score (or fine_grained)")
    sample: int = Field(ge=0)
    answer_by: datetime = Field(description="UTC: no answer is taken after this (the window's close or kickoff)")
    prompt: str = Field(description="the exact text an LLM of this cell is sent (a repair: the repair prompt, "
                                    "quoting the errors and the previous answer)")
    evidence: dict[str, JsonValue] | None = Field(
        default=None, description="evidence_package only: the frozen evidence record the prompt holds")
    answer_schema: dict[str, JsonValue] = Field(description="JSON Schema the answer object must satisfy")


class AgentInfo(_Model):
    name: Annotated[str, Field(min_length=1, max_length=100)] = Field(description="the agent's name")
    version: Annotated[str, Field(min_length=1, max_length=100)] = Field(description="the agent's version")


class EndpointAnswer(BaseModel):
    """What the agent answers: HTTP 200, ``application/json``, within the timeout and the size limit."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    protocol_version: str = Field(description="the protocol version the agent answers in (MAJOR must match)")
    agent: AgentInfo
    cost_usd: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = Field(
        default=None, description="what the answer cost the agent, USD (its own word; shown, never checked)")
    answer: dict[str, Any] = Field(description="the forecast: an object satisfying the task's answer_schema")


def answer_schema_for(task: ForecastTask) -> dict[str, Any]:
    """The JSON Schema an LLM of the task's cell is sent (strict structured outputs)."""
    if task.event is not None:
        if task.strategy.value == "fine_grained":
            from collector.forecasters.llm.fine_grained import fine_grained_schema

            return fine_grained_schema()
        return match_schema()
    return question_schema(task.question is None or task.question.k == 1)


def _team(competition: Competition, team_id: str) -> TeamRef:
    try:
        return TeamRef(id=team_id, name=competition.team(team_id).name)
    except KeyError:
        return TeamRef(id=team_id, name=team_id)


def _match(task: ForecastTask) -> TaskMatch | None:
    event, competition = task.event, task.competition
    if event is None:
        return None
    return TaskMatch(id=event.id, stage=event.stage, group=event.group, home=_team(competition, event.home_team),
                     away=_team(competition, event.away_team), kickoff_utc=event.kickoff_utc,
                     kickoff_date=event.kickoff_date.isoformat(), knockout=event.knockout)


def _question(task: ForecastTask) -> TaskQuestion | None:
    q = task.question
    if q is None:
        return None
    return TaskQuestion(id=q.id, label=q.label, meaning=q.meaning, prediction_type=q.prediction_type.value, k=q.k,
                        candidates=[_team(task.competition, c) for c in q.candidates], closes_at=q.closes_at)


def task_id(task: ForecastTask) -> str:
    return "/".join((task.competition.id, task.target_id, task.access.value, task.strategy.value,
                     task.horizon.value, str(task.sample)))


def task_body(task: ForecastTask, prompt_text: str, role: AttemptRole, answer_by: datetime,
              first_prompt: Prompt | None = None) -> dict[str, Any]:
    """The JSON body of one call: built from the task alone (no other forecaster's answer can reach it)."""
    evidence = task.evidence.model_dump(mode="json") if task.evidence is not None else None
    body = EndpointTask(
        task_id=task_id(task), role="repair" if role is AttemptRole.REPAIR else "first",
        competition=TeamRef(id=task.competition.id, name=task.competition.name), target_kind=task.target_kind,
        match=_match(task), question=_question(task), horizon=task.horizon.value, access=task.access.value,
        strategy=task.strategy.value, sample=task.sample, answer_by=answer_by, prompt=prompt_text,
        evidence=evidence, answer_schema=answer_schema_for(task),
    )  # fmt: skip
    return body.model_dump(mode="json")


def protocol_schemas() -> dict[str, dict[str, Any]]:
    """The published documents: the task's and the answer's JSON Schema, and the OpenAPI document."""
    task, answer = EndpointTask.model_json_schema(), EndpointAnswer.model_json_schema()
    for schema, name in ((task, "task"), (answer, "answer")):
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["$id"] = f"https://prematch.invalid/protocol/{PROTOCOL}-{PROTOCOL_VERSION}/{name}.schema.json"
    return {"task.schema.json": task, "answer.schema.json": answer, "openapi.json": _openapi(task, answer)}


def _openapi(task: dict, answer: dict) -> dict[str, Any]:
    components = {**task.get("$defs", {}), **answer.get("$defs", {})}  # the published schemas stay whole
    strip = {"$schema", "$id", "$defs"}
    task_c = {k: v for k, v in task.items() if k not in strip}
    answer_c = {k: v for k, v in answer.items() if k not in strip}

    def moved(value: dict) -> dict:  # the refs point at #/$defs/...: OpenAPI keeps them under components/schemas
        return orjson.loads(orjson.dumps(value).decode().replace("#/$defs/", "#/components/schemas/"))

    schemas = {name: moved(s) for name, s in components.items()}
    schemas["EndpointTask"], schemas["EndpointAnswer"] = moved(task_c), moved(answer_c)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Prematch endpoint protocol", "version": PROTOCOL_VERSION,
                 "description": "The task Prematch POSTs to an outside forecasting agent at each horizon, and the "
                                "answer it expects (docs/enter-your-agent.md)."},
        "paths": {"/": {"post": {
            "summary": "Answer one forecast task",
            "description": "The path is the agent's configured URL. An optional bearer token (the forecaster's "
                           "token_env) is sent in Authorization, to this URL only.",
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/EndpointTask"}}}},
            "responses": {"200": {"description": "the forecast", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/EndpointAnswer"}}}}},
            "security": [{"bearer": []}, {}],
        }}},
        "components": {"schemas": schemas, "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    }


def protocol_documents() -> dict[str, bytes]:
    """File name -> the stable bytes of each published protocol document."""
    return {name: orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
            for name, doc in sorted(protocol_schemas().items())}
