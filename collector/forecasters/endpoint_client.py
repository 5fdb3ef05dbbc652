"""The HTTP side of an endpoint forecaster: one :class:`collector.http.ServiceClient` per agent URL.

The token (from the environment variable the forecaster names) lives only in this client's
``Authorization`` header, so it is sent to the configured URL and nowhere else (redirects are
not followed), and the HTTP client registers it as a secret: every kept text is sanitised of it.
Failures are classified as an LLM's are (:mod:`collector.forecasters.llm.errors`): a late answer
is a timeout, a body cut at ``max_response_bytes`` an ``oversized`` API error, 401 stops the agent's
calls for the tick. A 200 answer is unpacked: its ``answer`` object becomes the content the LLMs'
validation reads; a body that is not the protocol's answer is handed on as it is, so the validation
names what is wrong (``invalid_json``, ``invalid_schema``) and the repair round follows.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import orjson
from pydantic import ValidationError

from collector.config import ForecasterConfig
from collector.errors import ConfigError
from collector.forecasters.endpoint_protocol import PROTOCOL_VERSION, EndpointAnswer
from collector.forecasters.llm.errors import classify, retry_decision
from collector.forecasters.llm.openrouter import ChatResult
from collector.forecasters.llm.sanitise import kept_body
from collector.http import Exchange, RetryPolicy, ServiceCallFailed, ServiceClient
from collector.records import Attempt, AttemptRole
from collector.redaction import register_secret, sanitised_text


@dataclass
class Unpacked:
    """A 200 body read as the protocol's answer: the content to validate, and why the envelope failed."""

    content: str | None
    answer: EndpointAnswer | None = None
    problem: str | None = None


def unpack(text: str | None) -> Unpacked:
    """The answer object of a 200 body as JSON text, or the body itself with the envelope's problem."""
    try:
        data = orjson.loads(text or "")
    except orjson.JSONDecodeError:
        return Unpacked(text, problem="the body is not JSON")
    try:
        answer = EndpointAnswer.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        return Unpacked(text, problem=f"not the protocol's answer: field {where}: {first['msg']}")
    major = answer.protocol_version.split(".", 1)[0]
    if major != PROTOCOL_VERSION.split(".", 1)[0]:
        return Unpacked(text, problem=f"protocol_version {answer.protocol_version[:20]!r}: this arena speaks "
                                      f"{PROTOCOL_VERSION}")
    return Unpacked(orjson.dumps(answer.answer).decode(), answer=answer)


class EndpointClient:
    """Asks one agent; ``calls`` counts this tick's calls (the forecaster resets it at each tick)."""

    def __init__(self, cfg: ForecasterConfig, *, transport: httpx.AsyncBaseTransport | None = None,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC), sleep: Callable = asyncio.sleep):
        settings = cfg.endpoint
        if settings is None:
            raise ConfigError(f"forecaster {cfg.id}: type endpoint needs an [forecasters.endpoint] table")
        token = os.environ.get(settings.token_env, "").strip() if settings.token_env else ""
        if settings.token_env and not token:
            raise ConfigError(f"forecaster {cfg.id}: {settings.token_env} is not set in the environment")
        headers = {"User-Agent": f"prematch-endpoint/{PROTOCOL_VERSION}"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
            register_secret(token)  # at once: the pool (and its own registration) is made at the first call
        self.url, self.max_calls, self.calls = settings.url, settings.max_calls_per_tick, 0
        self.stopped: str | None = None
        self._make = lambda: ServiceClient(
            f"endpoint {cfg.id}", settings.url, headers=headers, connect_timeout=min(10.0, settings.timeout_s),
            total_timeout=settings.timeout_s, retry=RetryPolicy(max_attempts=settings.max_attempts, base_delay=1.0,
            max_delay=10.0), transport=transport, sleep=sleep, clock=clock, max_connections=16,
            max_response_bytes=settings.max_response_bytes,
        )  # fmt: skip
        self._service: ServiceClient | None = None  # made at the first call of each tick

    def new_tick(self) -> None:
        """A new tick: the call count and a stop start again, with a fresh connection pool (each tick of a
        replay runs its own event loop, and the tick closes the client when it ends)."""
        self.calls, self.stopped, self._service = 0, None, None

    async def aclose(self) -> None:
        if self._service is not None:
            await self._service.aclose()

    async def ask(self, body: dict[str, Any], *, role: AttemptRole, deadline: datetime) -> ChatResult:
        """POST one task (with transport retries); the result as an LLM call's, content unpacked."""
        if self.stopped:
            return ChatResult(failure="api_error", error=f"not sent: {self.stopped}", error_kind="stopped")
        if self._service is None:
            self._service = self._make()
        self.calls += 1  # counted when sent (before any wait), so concurrent tasks see it at once
        try:
            _, exchanges = await self._service.request("POST", self.url, json=body, deadline=deadline,
                                                       retryable=retry_decision)
        except ServiceCallFailed as exc:
            self.calls += max(0, len(exc.exchanges) - 1)  # the transport retries
            result = ChatResult(attempts=[self._attempt(ex, body, role, i) for i, ex in enumerate(exc.exchanges)])
            found = classify(exc.exchanges[-1]) if exc.exchanges else None
            result.error_kind = found.kind if found else None
            if found is not None and found.stops_tick:
                self.stopped = f"the agent answered HTTP {exc.exchanges[-1].status} ({found.kind}); no more calls this tick"
            result.failure = "timeout" if exc.kind == "timeout" else "api_error"
            result.error = sanitised_text(str(exc))
            return result
        self.calls += len(exchanges) - 1
        attempts = [self._attempt(ex, body, role, i) for i, ex in enumerate(exchanges)]
        unpacked = unpack(attempts[-1].response_text)
        if unpacked.problem:
            attempts[-1] = attempts[-1].model_copy(update={"error": unpacked.problem, "error_kind": "body"})
        return ChatResult(attempts=attempts, content=sanitised_text(unpacked.content))

    def _attempt(self, ex: Exchange, body: dict[str, Any], role: AttemptRole, index: int) -> Attempt:
        text, _ = kept_body(ex.text)  # parsed, then sanitised: a token echoed in any form is cut out
        found = classify(ex)
        return Attempt(
            role=role if index == 0 else AttemptRole.RETRY, started_at=ex.started_at, latency_ms=ex.latency_ms,
            request_body=body, http_status=ex.status, response_text=text, error=sanitised_text(ex.error),
            timed_out=ex.error_kind == "timeout" and (ex.latency_ms or 0) > 0,
            error_kind=found.kind if found else None, response_truncated=ex.body_bytes is not None,
            response_bytes=ex.body_bytes, response_sha256=ex.body_sha256,
        )  # fmt: skip
