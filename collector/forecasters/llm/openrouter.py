"""The OpenRouter chat-completions client, on top of :class:`collector.http.ServiceClient`.

``OPENROUTER_API_KEY`` and ``OPENROUTER_BASE_URL`` (default ``https://openrouter.ai/api/v1``)
come from the environment; the key lives only in the ``Authorization`` header and is
redacted from anything kept. Retries (429 with ``Retry-After``, 5xx, timeouts, errors inside
an HTTP 200 body) never start past the caller's deadline. The request body is built by
:mod:`collector.forecasters.llm.protocol`; a provider that rejects the structured-output mode
is asked again one mode lower (``json_schema`` -> ``json_object`` -> none; role ``fallback``).
Router metadata is requested with the documented opt-in header, so the served provider and
the fallback attempts come from ``openrouter_metadata`` (the response has no top-level
``provider`` in the documented non-streaming shape).

Every HTTP attempt becomes an :class:`~collector.records.Attempt`: request body, verbatim
response text, response id, served model and provider, finish reason, usage (reasoning and
cached tokens, ``usage.cost``), latency to the last byte, and the tool trace.

A call's generation stats (``GET /generation?id=``) go through :meth:`OpenRouterClient.generation_stats`
alone, which keeps the first HTTP 200 ``{"data": {...}}`` answer for the client's life (one tick): the
forecaster's search look-up and the tick's statistics step (:mod:`collector.schedule.statistics`) fetch
each generation once a tick; a 404 or an error is not kept and is asked again.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
import orjson

from collector.config import OpenRouterSettings
from collector.errors import ConfigError
from collector.forecasters.llm.errors import classify, retry_decision
from collector.forecasters.llm.limits import sanitised_text
from collector.forecasters.llm.openrouter_answer import (
    body_error,
    count,
    message_content,
    parse_router_metadata,
    parse_tool_trace,
    parse_usage,
    text_or_none,
    usage_of,
)
from collector.forecasters.llm.protocol import mode_of, step_down
from collector.forecasters.llm.sanitise import kept_body
from collector.http import Exchange, RetryPolicy, ServiceCallFailed, ServiceClient
from collector.records import (
    Attempt,
    AttemptRole,
    ToolTrace,
)
from collector.records.attempt import AttemptTotals
from collector.redaction import identifier

try:  # httpcore tries `import sniffio` for every lock it makes; cache a missing module's absence once
    import sniffio  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    sys.modules.setdefault("sniffio", None)

DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"
KEY_ENV, URL_ENV = "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL"
REDACTED = "[redacted]"
# The documented opt-in for `openrouter_metadata` (both spellings appear in OpenRouter's docs).
METADATA_HEADERS = {"X-OpenRouter-Metadata": "enabled", "X-OpenRouter-Experimental-Metadata": "enabled"}
MODELS_MAX_BYTES = 64 * 1024 * 1024  # the whole models list is megabytes; a completion's cap would cut it


@dataclass
class ChatResult:
    """All attempts of one logical call, the final content, and the failure kind if it failed."""

    attempts: list[Attempt] = field(default_factory=list)
    content: str | None = None
    finish_reason: str | None = None
    failure: str | None = None  # None | "timeout" | "api_error"
    error: str | None = None
    error_kind: str | None = None  # collector.forecasters.llm.errors kinds

    @property
    def cost(self) -> float:
        return AttemptTotals.of(self.attempts).cost_usd or 0.0


class OpenRouterClient:
    """One client per tick; ``clock`` is the tick's (real or simulated) clock."""

    def __init__(
        self, api_key: str, base_url: str = DEFAULT_BASE_URL, *, settings: OpenRouterSettings | None = None,
        transport: httpx.AsyncBaseTransport | None = None, sleep: Callable = asyncio.sleep,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC), max_connections: int = 32,
        router_metadata: bool = True,
    ):  # fmt: skip
        if not api_key:
            raise ConfigError(f"{KEY_ENV} is not set; LLM forecasters need it in the environment")
        self.settings = settings or OpenRouterSettings()
        self._key = api_key
        s = self.settings
        headers = {"Authorization": f"Bearer {api_key}", "X-Title": "Prematch",
                   **(METADATA_HEADERS if router_metadata else {})}
        # the models list (hundreds of models, megabytes) through its own client, without the answers' cap
        self._models = ServiceClient(
            "openrouter", base_url.rstrip("/"), headers=headers, connect_timeout=s.connect_timeout_s,
            total_timeout=s.total_timeout_s, retry=RetryPolicy(max_attempts=s.max_attempts, base_delay=s.base_delay_s,
            max_delay=s.max_delay_s), transport=transport, sleep=sleep, clock=clock, max_connections=2,
            max_response_bytes=MODELS_MAX_BYTES,
        )  # fmt: skip
        self._service = ServiceClient(
            "openrouter", base_url.rstrip("/"),
            headers=headers,
            connect_timeout=s.connect_timeout_s, total_timeout=s.total_timeout_s,
            retry=RetryPolicy(max_attempts=s.max_attempts, base_delay=s.base_delay_s, max_delay=s.max_delay_s),
            transport=transport, sleep=sleep, clock=clock, max_connections=max_connections,
            max_response_bytes=s.max_response_bytes,
        )  # fmt: skip
        self.stopped: str | None = None  # why no more calls are made this tick (401, 402)
        self._sleep, self._clock = sleep, clock
        self._generations: dict[str, bytes] = {}  # generation id -> its stats' 200 body (at most one per call made)

    @classmethod
    def from_env(cls, settings: OpenRouterSettings | None = None, **kwargs: Any) -> OpenRouterClient:
        settings = settings or OpenRouterSettings()
        base = settings.base_url or os.environ.get(URL_ENV) or DEFAULT_BASE_URL
        return cls(os.environ.get(KEY_ENV, "").strip(), base, settings=settings, **kwargs)  # a pasted newline

    async def aclose(self) -> None:
        await self._service.aclose()
        await self._models.aclose()

    async def models(self, *, deadline: datetime) -> tuple[int | None, Any]:
        """``GET /models``: (HTTP status, parsed body or None), read whole up to :data:`MODELS_MAX_BYTES`."""
        status, content = await self._get("/models", deadline=deadline, service=self._models)
        return status, _parsed(content)

    def redact(self, text: str | None) -> str | None:
        """``text`` without the key in any encoding (:mod:`collector.redaction`)."""
        text = text.replace(self._key, REDACTED) if text and self._key in text else text
        return sanitised_text(text)

    async def chat(self, body: dict[str, Any], *, role: AttemptRole, deadline: datetime) -> ChatResult:
        """Send one logical call (with transport retries and the JSON-mode fallback)."""
        if self.stopped:
            return ChatResult(failure="api_error", error=f"not sent: {self.stopped}", error_kind="stopped")
        try:
            response, exchanges = await self._service.request(
                "POST", "/chat/completions", json=body, deadline=deadline, body_error=body_error,
                retryable=retry_decision,
            )  # fmt: skip
        except ServiceCallFailed as exc:
            result = ChatResult(attempts=self._attempts(exc.exchanges, body, role))
            found = classify(exc.exchanges[-1])
            result.error_kind = found.kind if found else None
            if found is not None and found.stops_tick:
                self.stopped = f"OpenRouter answered HTTP {exc.exchanges[-1].status} ({found.kind}); no further calls this tick"
            lower = step_down(mode_of(body))
            if lower is not None and _rejects_json_mode(exc.exchanges[-1]):
                plain = {k: v for k, v in body.items() if k != "response_format"}
                if lower == "json_object":
                    plain["response_format"] = {"type": "json_object"}
                retry = await self.chat(plain, role=AttemptRole.FALLBACK, deadline=deadline)
                retry.attempts[:0] = result.attempts
                return retry
            result.failure = "timeout" if exc.kind == "timeout" else "api_error"
            result.error = self.redact(str(exc))
            return result
        result = ChatResult(attempts=self._attempts(exchanges, body, role))
        try:  # the sanitised text, never the raw bytes
            message = orjson.loads(result.attempts[-1].response_text or "")["choices"][0]["message"]
        except (orjson.JSONDecodeError, TypeError, KeyError, IndexError) as exc:
            result.failure, result.error_kind = "api_error", "body"
            result.error = f"the answer cannot be read once sanitised ({type(exc).__name__})"
            return result
        result.content = self.redact(message_content(message) if isinstance(message, dict) else None)
        result.finish_reason = result.attempts[-1].finish_reason
        return result

    async def generation_search_results(self, generation_id: str, *, deadline: datetime, tries: int = 3,
                                        wait_s: float = 1.0) -> int | None:
        """``num_search_results`` of a call's generation stats (queryable a few seconds after the call:
        a 404 is asked again, ``tries`` times at most, never past ``deadline``); None when not known."""
        for attempt in range(tries):
            if attempt:
                await self._sleep(wait_s * attempt)
            if self._clock() >= deadline:
                return None
            status, payload = await self.generation_stats(generation_id, deadline=deadline)
            data = payload.get("data") if isinstance(payload, dict) else None
            if status == 200 and isinstance(data, dict):
                return count(data.get("num_search_results"))
            if status != 404:
                return None
        return None

    async def generation_stats(self, generation_id: str, *, deadline: datetime) -> tuple[int | None, Any]:
        """``GET /generation?id=``: (HTTP status, parsed body or None). The first HTTP 200 answer holding
        the documented ``{"data": {...}}`` object is kept (its bytes, parsed afresh for each caller) and
        answers every later ask of this client, so a generation is fetched once a tick; anything else
        (a 404 while the stats are not queryable yet, an error, another shape) is asked again next time."""
        kept = self._generations.get(generation_id)
        if kept is not None:
            return 200, orjson.loads(kept)
        status, content = await self._get("/generation", deadline=deadline, params={"id": generation_id})
        payload = _parsed(content)
        if status == 200 and isinstance(payload, dict) and isinstance(payload.get("data"), dict):
            self._generations[generation_id] = content
        return status, payload

    async def _get(self, path: str, *, deadline: datetime, params: dict[str, str] | None = None,
                   service: ServiceClient | None = None) -> tuple[int | None, bytes | None]:
        """GET ``path``: (HTTP status, body bytes or None when no answer was read)."""
        try:
            response, _ = await (service or self._service).request("GET", path, params=params, deadline=deadline)
        except ServiceCallFailed as exc:
            return (exc.exchanges[-1].status if exc.exchanges else None), None
        return response.status_code, response.content

    def _attempts(self, exchanges: list[Exchange], body: dict, role: AttemptRole) -> list[Attempt]:
        return [self._kept(ex, body, role if i == 0 else AttemptRole.RETRY) for i, ex in enumerate(exchanges)]

    def _kept(self, ex: Exchange, body: dict, role: AttemptRole) -> Attempt:
        """The attempt of ``ex``; when what the provider sent cannot be made into one (a field the
        contract refuses), the call is kept all the same: its times, status and an error naming why."""
        try:
            return self._attempt(ex, body, role)
        except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
            reason = f"the answer cannot be recorded as sent ({type(exc).__name__}); its body is withheld"
            return Attempt(role=role, started_at=ex.started_at, latency_ms=ex.latency_ms, request_body=body,
                           http_status=ex.status, error=reason, error_kind="body", usage=usage_of(ex.text))

    def _attempt(self, ex: Exchange, body: dict, role: AttemptRole) -> Attempt:
        fields: dict[str, Any] = {}
        text, data = kept_body(ex.text)  # parsed, then sanitised: every field below comes from the sanitised value
        if isinstance(data, dict):
            choices = data.get("choices") if isinstance(data.get("choices"), list) else []
            first = choices[0] if choices and isinstance(choices[0], dict) else {}
            message = first.get("message") if isinstance(first.get("message"), dict) else {}
            provider, fallbacks = parse_router_metadata(data.get("openrouter_metadata"))
            fields = {
                "response_id": text_or_none(data.get("id")),
                "served_model": text_or_none(data.get("model")),
                "provider": provider,
                "fallback_attempts": fallbacks,
                "finish_reason": text_or_none(first.get("finish_reason")),
                "usage": parse_usage(data.get("usage")),
                "tool_trace": parse_tool_trace(data, message) if first else ToolTrace(),
            }
        if not fields.get("response_id") and ex.headers.get("x-generation-id"):  # a call that timed out, say
            fields["response_id"] = identifier(ex.headers["x-generation-id"], "generation_id")
        return Attempt(
            role=role, started_at=ex.started_at, latency_ms=ex.latency_ms, request_body=body,
            http_status=ex.status, response_text=text, error=self.redact(ex.error),
            timed_out=ex.error_kind == "timeout" and (ex.latency_ms or 0) > 0,
            error_kind=found.kind if (found := classify(ex)) else None, response_truncated=ex.body_bytes is not None,
            response_bytes=ex.body_bytes, response_sha256=ex.body_sha256, **fields,
        )  # fmt: skip


def _parsed(content: bytes | None) -> Any:
    """``content`` parsed as JSON, or None when there is none or it is not JSON."""
    try:
        return orjson.loads(content) if content is not None else None
    except orjson.JSONDecodeError:
        return None


def _rejects_json_mode(exchange: Exchange) -> bool:
    if exchange.status not in (400, 404, 422) or not exchange.text:
        return False
    text = exchange.text.lower()
    words = ("response_format", "json mode", "json_object", "json_schema", "structured output")
    return any(word in text for word in words)
