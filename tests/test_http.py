"""collector.http and its callers: a credential never reaches an error text, a log line or a record.

A secret pasted with a trailing newline is the common case: httpx/h11 then fail with
"Illegal header value b'Bearer <key>\\n'", quoting the key. These tests use a real local
HTTP server on 127.0.0.1 so that the real transport (not a mock) builds the request.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from collector.competitions import load_competition, load_definition
from collector.errors import ConfigError
from collector.forecasters.llm.openrouter import OpenRouterClient
from collector.http import ServiceCallFailed, ServiceClient
from collector.sources.football_data import FootballDataSource

SECRET = "sk-or-v1-SECRET-0123456789abcdef"


class _Ok(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        body = self.headers.get("Authorization", "").encode() + b"|" + self.headers.get("X-Auth-Token", "").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def local_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _get(base: str, headers: dict[str, str]) -> str:
    async def go() -> str:
        async with ServiceClient("svc", base, headers=headers) as client:
            response, _ = await client.request("GET", "/", deadline=datetime.now(UTC) + timedelta(seconds=10))
            return response.text

    return asyncio.run(go())


@pytest.mark.parametrize("bad", [SECRET + "\n", SECRET + "\r\nX-Other: y", SECRET + " ", SECRET + "é"])
@pytest.mark.parametrize("header", ["Authorization", "X-Auth-Token"])
def test_a_header_value_http_cannot_carry_is_a_config_error_without_the_value(local_server, header, bad):
    value = f"Bearer {bad}" if header == "Authorization" else bad
    with pytest.raises(ConfigError) as err:
        _get(local_server, {header: value})
    assert header in str(err.value)
    assert SECRET not in str(err.value) and SECRET not in repr(err.value)


def test_good_credentials_are_sent(local_server):
    assert _get(local_server, {"Authorization": f"Bearer {SECRET}"}) == f"Bearer {SECRET}|"


def test_credential_values_are_scrubbed_from_transport_errors():
    """Whatever an httpx error message quotes (here the request's own headers), the key is redacted."""

    def leaky(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot send {dict(request.headers)!r}", request=request)

    async def go() -> ServiceCallFailed:
        headers = {"Authorization": f"Bearer {SECRET}"}
        transport = httpx.MockTransport(leaky)
        options = {"headers": headers, "transport": transport, "sleep": _no_sleep}
        async with ServiceClient("svc", "http://127.0.0.1:9", **options) as c:
            with pytest.raises(ServiceCallFailed) as err:
                await c.request("GET", "/")
            return err.value

    failure = asyncio.run(go())
    texts = [str(failure), repr(failure)] + [e.error or "" for e in failure.exchanges]
    assert len(failure.exchanges) == 4 and "ConnectError" in texts[0] and "[redacted]" in texts[0]
    assert all(SECRET not in t for t in texts)


async def _no_sleep(_: float) -> None:
    return None


def test_keys_from_the_environment_lose_a_pasted_newline(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", SECRET + "\n")
    monkeypatch.setenv("FOOTBALL_DATA_API_KEY", f"  {SECRET}\r\n")
    client = OpenRouterClient.from_env()
    try:
        assert client._key == SECRET
    finally:
        asyncio.run(client.aclose())
    assert FootballDataSource(load_definition("en-1-2025-26")).api_key == SECRET


def test_a_key_with_junk_inside_is_a_config_error_naming_the_variable_not_the_key(monkeypatch):
    monkeypatch.setenv("FOOTBALL_DATA_API_KEY", SECRET + "\nmore")
    definition = load_definition("en-1-2025-26")
    competition = load_competition("en-1-2025-26", datetime(2025, 8, 1, tzinfo=UTC))
    batch = FootballDataSource(definition).fetch(competition)
    assert len(batch.problems) == 1 and "X-Auth-Token" in batch.problems[0].message
    assert SECRET not in str(batch.problems[0])


class _Clock:
    """A simulated clock that the fake sleep moves forward."""

    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.mark.parametrize("retry_after", ["30", "9.5", "10"])
def test_no_retry_starts_at_or_after_the_deadline(retry_after):
    """The hard guard inside the client: a Retry-After reaching the deadline (kickoff) ends the call."""
    clock = _Clock(datetime(2026, 6, 11, 18, 59, 50, tzinfo=UTC))
    kickoff = datetime(2026, 6, 11, 19, 0, tzinfo=UTC)
    calls: list[datetime] = []

    def busy(request: httpx.Request) -> httpx.Response:
        calls.append(clock.now)
        return httpx.Response(429, headers={"Retry-After": retry_after}, text="slow down")

    async def go() -> ServiceCallFailed | None:
        transport = httpx.MockTransport(busy)
        async with ServiceClient("svc", "http://127.0.0.1:9", transport=transport, sleep=clock.sleep, clock=clock) as c:
            try:
                await c.request("GET", "/", deadline=kickoff)
            except ServiceCallFailed as exc:
                return exc
        return None

    failure = asyncio.run(go())
    assert failure is not None and all(t < kickoff for t in calls)
    if float(retry_after) >= 10:
        assert len(calls) == 1 and "no retry: the next attempt would start after the deadline" in str(failure)
    else:
        assert len(calls) == 2 and calls[1] == kickoff - timedelta(seconds=0.5)  # one retry still fits


def test_an_attempt_never_starts_once_the_deadline_has_passed():
    clock = _Clock(datetime(2026, 6, 11, 19, 0, tzinfo=UTC))
    transport = httpx.MockTransport(lambda request: pytest.fail("a request was sent at kickoff"))

    async def go() -> ServiceCallFailed:
        async with ServiceClient("svc", "http://127.0.0.1:9", transport=transport, sleep=clock.sleep, clock=clock) as c:
            with pytest.raises(ServiceCallFailed) as err:
                await c.request("GET", "/", deadline=clock.now)
            return err.value

    failure = asyncio.run(go())
    assert failure.kind == "timeout" and failure.exchanges[0].error == "deadline already passed"
