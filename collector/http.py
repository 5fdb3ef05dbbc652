"""The one module through which Prematch reaches external services (httpx).

OpenRouter, football-data.org and any later service build a :class:`ServiceClient` with
their base URL and credentials (read from the environment by the caller, kept only in
request headers). Every call returns or raises with the full list of :class:`Exchange`
objects, one per HTTP attempt, so callers can record each attempt verbatim.

Retries: on timeouts, transport errors, 429 and 5xx, and on errors that a service returns
inside an HTTP 200 body (the caller supplies ``body_error`` to detect them); never on a body cut
at the client's limit (``max_response_bytes``, :data:`DEFAULT_MAX_RESPONSE_BYTES` unless the
client sets it: every service's bodies are read capped, the rest hashed, never held whole). ``Retry-After``
(seconds or an HTTP date) is honoured; exponential backoff with jitter otherwise. No retry
starts, and no wait extends, past the caller's ``deadline``.

Credentials: a header value that HTTP cannot carry (a secret pasted with a trailing newline,
a non-ASCII character) is a :class:`ConfigError` when the client is built, naming the header
but never its value; and the values of credential headers are scrubbed from every error text
(httpx and h11 messages quote offending header values and URLs verbatim).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from collector.errors import ConfigError, ProviderError
from collector.http_transport import pooled_transport, use_set_cookie_jar
from collector.redaction import redact, register_secret

RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024  # every service's bodies are cut here unless its client says less
SECRET_HEADERS = frozenset({"authorization", "x-auth-token", "x-api-key", "api-key", "cookie", "proxy-authorization",
                            "x-apisports-key"})
REDACTED = "[redacted]"
KEPT_URLS = 32


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 60.0
    jitter: float = 0.25


@dataclass
class Exchange:
    """One HTTP attempt: what was sent (never the headers) and what came back."""

    started_at: datetime
    latency_ms: float | None = None
    status: int | None = None
    text: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    error_kind: str | None = None  # timeout | transport | http | body | None
    error: str | None = None
    body_bytes: int | None = None  # the whole body's length, when it was cut at the client's limit
    body_sha256: str | None = None  # and its SHA-256 (of every byte received)

    @property
    def ok(self) -> bool:
        return self.error_kind is None


class ServiceCallFailed(ProviderError):
    """All attempts failed; ``exchanges`` holds each of them, ``kind`` the last failure kind."""

    def __init__(self, service: str, message: str, exchanges: list[Exchange], kind: str):
        super().__init__(f"{service}: {message}")
        self.service = service
        self.exchanges = exchanges
        self.kind = kind


def retry_after_seconds(value: str | None, now: datetime) -> float | None:
    """Parse a Retry-After header: delta seconds or an HTTP date; None when absent or unusable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


class ServiceClient:
    """An async client for one service: base URL, fixed headers, timeouts, retries."""

    def __init__(
        self,
        service: str,
        base_url: str,
        *,
        headers: dict[str, str] | None = None,
        connect_timeout: float = 10.0,
        total_timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        max_connections: int = 32,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ):
        self.service = service
        self.max_response_bytes = max_response_bytes  # the bytes of a body kept; the rest is hashed, not kept
        self._secrets = _secrets(service, headers or {})
        self.retry = retry or RetryPolicy()
        self.total_timeout = total_timeout
        self._sleep = sleep
        self._clock = clock
        self._urls: dict[str, httpx.URL] = {}  # path -> the client's URL for it (see _build)
        limits = httpx.Limits(max_connections=max_connections)
        self._client = httpx.AsyncClient(
            base_url=base_url,
            headers=headers or {},
            timeout=httpx.Timeout(total_timeout, connect=connect_timeout),
            transport=transport or pooled_transport(limits),
            limits=limits,
        )
        use_set_cookie_jar(self._client)

    async def __aenter__(self) -> ServiceClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        deadline: datetime | None = None,
        body_error: Callable[[httpx.Response], str | None] | None = None,
        retry_body_errors: bool = True,
        content: bytes | None = None,
        content_type: str | None = None,
        retryable: Callable[[Exchange], bool | None] | None = None,
    ) -> tuple[httpx.Response, list[Exchange]]:
        """Send with retries; return the successful response and every exchange made.

        ``content`` sends raw bytes (with ``content_type``) instead of a JSON body.
        ``retryable(exchange)`` may overrule the default decision for a failed exchange (None: keep it).
        """
        exchanges: list[Exchange] = []
        attempt = 0
        body: dict[str, Any] = {"json": json}
        if content is not None:
            body = {"content": content, "headers": {"content-type": content_type or "application/octet-stream"}}
        while True:
            attempt += 1
            exchange, response = await self._once(method, path, body, params, deadline, body_error)
            exchanges.append(exchange)
            if exchange.ok and response is not None:
                return response, exchanges
            retryable_now = exchange.error_kind in {"timeout", "transport"} or (
                exchange.error_kind == "http" and exchange.status in RETRY_STATUSES
            ) or (exchange.error_kind == "body" and retry_body_errors and exchange.body_bytes is None)  # a cut body would come again
            decided = retryable(exchange) if retryable is not None else None
            retryable_now = decided if decided is not None else retryable_now
            exchange.error = self.scrub(exchange.error)
            if not retryable_now or attempt >= self.retry.max_attempts:
                raise ServiceCallFailed(self.service, exchange.error or "failed", exchanges, exchange.error_kind or "")
            delay = self._delay(attempt, exchange)
            if deadline is not None and self._clock().timestamp() + delay >= deadline.timestamp():
                raise ServiceCallFailed(
                    self.service,
                    f"{exchange.error}; no retry: the next attempt would start after the deadline",
                    exchanges,
                    exchange.error_kind or "",
                )
            await self._sleep(delay)

    def scrub(self, text: str | None) -> str | None:
        """``text`` with every credential header value redacted, in every encoding (:mod:`collector.redaction`)."""
        if text:
            for secret in self._secrets:
                if secret in text:
                    text = text.replace(secret, REDACTED)
        return redact(text)

    def _delay(self, attempt: int, exchange: Exchange) -> float:
        hinted = retry_after_seconds(exchange.headers.get("retry-after"), self._clock())
        if hinted is not None:
            return min(hinted, self.retry.max_delay)
        backoff = min(self.retry.base_delay * 2 ** (attempt - 1), self.retry.max_delay)
        return backoff * (1 + random.uniform(0, self.retry.jitter))

    async def _once(self, method, path, body, params, deadline, body_error):
        started = self._clock()
        timeout = self.total_timeout
        if deadline is not None:
            remaining = (deadline - started).total_seconds()
            if remaining <= 0:
                exchange = Exchange(started_at=started, error_kind="timeout", error="deadline already passed")
                return exchange, None
            timeout = min(timeout, remaining)
        t0 = time.perf_counter()
        response = None  # sent streamed: the headers (X-Generation-Id) are kept even if the body times out
        try:
            async with asyncio.timeout(timeout):
                request = self._build(method, path, params, body)
                response = await self._client.send(request, stream=True)  # headers kept even if the body times out
                response, full, digest = await self._capped(request, response)
        except (TimeoutError, httpx.TimeoutException):
            latency = (time.perf_counter() - t0) * 1000
            headers = _kept(response.headers) if response is not None else {}
            if response is not None:
                await response.aclose()
            error = f"no complete answer within {timeout:.1f}s"
            return Exchange(started, latency, headers=headers, error_kind="timeout", error=error), None
        except httpx.HTTPError as exc:
            latency = (time.perf_counter() - t0) * 1000
            if response is not None:
                await response.aclose()
            return Exchange(started, latency, error_kind="transport", error=f"{type(exc).__name__}: {exc}"), None
        latency = (time.perf_counter() - t0) * 1000
        exchange = Exchange(
            started_at=started,
            latency_ms=latency,
            status=response.status_code,
            text=response.text,
            headers=_kept(response.headers),
        )
        if full is not None:
            exchange.body_bytes, exchange.body_sha256 = full, digest
            exchange.error_kind = "body"
            exchange.error = (f"response body of {full} bytes cut at the limit of {self.max_response_bytes} "
                              f"bytes (SHA-256 {digest})")
            return exchange, None
        if response.status_code >= 400:
            exchange.error_kind = "http"
            exchange.error = f"HTTP {response.status_code}: {_snippet(response.text)}"
            return exchange, None
        if body_error is not None:
            problem = body_error(response)
            if problem:
                exchange.error_kind = "body"
                exchange.error = problem
                return exchange, None
        return exchange, response

    def _build(self, method: str, path: str, params: dict[str, Any] | None, body: dict[str, Any]) -> httpx.Request:
        """The client's request for ``path``; the URL it makes of a path without query parameters is kept
        and handed back for that path (an absolute URL, which the client takes as it is: the same URL, the
        same request, without parsing and joining the path to the base URL again), for the first
        ``KEPT_URLS`` paths (a client asking for one path per match keeps no more)."""
        if params is not None:
            return self._client.build_request(method, path, params=params, **body)
        request = self._client.build_request(method, self._urls.get(path, path), **body)
        if len(self._urls) < KEPT_URLS:
            self._urls.setdefault(path, request.url)
        return request

    async def _capped(self, request: httpx.Request, response: httpx.Response) -> tuple[httpx.Response, int | None, str | None]:
        """The streamed ``response`` with at most ``max_response_bytes`` of its body; when cut, the full
        length and SHA-256."""
        try:
            limit = self.max_response_bytes
            if limit is None or _declared_within(response.headers, limit):
                await response.aread()  # h11 delivers no byte past a declared Content-Length
                return response, None, None
            kept, total, digest = bytearray(), 0, hashlib.sha256()
            async for chunk in response.aiter_bytes():
                total += len(chunk)
                digest.update(chunk)
                if len(kept) < limit:
                    kept += chunk[: limit - len(kept)]
        finally:
            await response.aclose()
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in ("content-encoding", "content-length")]
        cut = httpx.Response(response.status_code, headers=headers, content=bytes(kept), request=request)
        return cut, (total if total > limit else None), (digest.hexdigest() if total > limit else None)


def header_int(headers, name: str, high: int) -> tuple[int | None, str | None]:
    """Header ``name`` as an integer in 0..``high``: (value, None); (None, None) when absent; (None, the
    problem naming the header and its value) when it is anything else (``1e30``, ``-3``, ``12abc``)."""
    raw = headers.get(name)
    if raw is None:
        return None, None
    text = raw.strip()
    if text.isascii() and text.isdigit() and int(text) <= high:
        return int(text), None
    return None, f"header {name}: {_snippet(raw, 40)!r} is not an integer from 0 to {high}; ignored"


def _declared_within(headers: httpx.Headers, limit: int) -> bool:
    """True when the body is uncompressed and declares a Content-Length within ``limit``: it can be
    read whole (the HTTP parser stops at the declared length), with no copy and no hash per chunk.
    A compressed body could inflate past any limit, so it is always read capped."""
    declared = headers.get("content-length", "")
    return declared.isdigit() and int(declared) <= limit and headers.get("content-encoding", "identity") == "identity"


def _secrets(service: str, headers: dict[str, str]) -> list[str]:
    """The strings to scrub from error texts; a header value HTTP cannot carry is a ConfigError."""
    found: list[str] = []
    for name, value in headers.items():
        if not isinstance(value, str) or not all(" " <= c <= "~" or c == "\t" for c in value) or value != value.strip():
            raise ConfigError(
                f"{service}: the value of header {name} cannot be sent over HTTP (non-ASCII or control "
                "character, or surrounding whitespace); check the environment variable it comes from"
            )
        if name.lower() in SECRET_HEADERS and value:
            token = value.split(" ", 1)[-1]  # "Bearer <key>": the key alone, too
            found += [value, token] if len(token) >= 8 else [value]
            register_secret(token)  # the process-wide sanitiser (collector.redaction) removes it from records
    return sorted(set(found), key=len, reverse=True)


_KEPT_HEADERS = frozenset(
    {"retry-after", "content-type", "x-requests-available-minute", "x-requestcounter-reset", "x-generation-id",
     "x-requests-remaining", "x-requests-used", "x-requests-last"}  # the last three: The Odds API's credits
)


def _kept(headers: httpx.Headers) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items() if k.lower() in _KEPT_HEADERS}


def _snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
