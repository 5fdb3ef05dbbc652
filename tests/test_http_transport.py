"""The service client's transport pieces answer as httpx's defaults do: the one-pass pool makes
httpcore's decisions for every mix of connection states, and cookies a server sets are still kept
and sent back (a response without ``Set-Cookie`` leaves the jar as it was)."""

from __future__ import annotations

import asyncio
import random
import socket
import struct

import httpcore
import httpx
import pytest
from httpcore._backends.anyio import AnyIOStream

from collector.http import KEPT_URLS, RetryPolicy, ServiceCallFailed, ServiceClient
from collector.http_transport import (
    LinearPool,
    SetCookieJar,
    _SocketOnce,
    pooled_transport,
)

ORIGINS = [httpcore.Origin(b"http", b"a.example", 80), httpcore.Origin(b"http", b"b.example", 80)]


class FakeConnection:
    """A pooled connection with fixed answers; ``name`` tells pools apart after a copy."""

    def __init__(self, name: str, origin, closed: bool, expired: bool, idle: bool, available: bool):
        self.name, self.origin = name, origin
        self.closed, self.expired, self.idle, self.available = closed, expired, idle, available

    def is_closed(self) -> bool:
        return self.closed

    def has_expired(self) -> bool:
        return self.expired

    def is_idle(self) -> bool:
        return self.idle

    def is_available(self) -> bool:
        return self.available

    def can_handle_request(self, origin) -> bool:
        return origin == self.origin


class FakeRequest:
    def __init__(self, name: str, origin, queued: bool):
        self.name = name
        self.request = type("R", (), {"url": type("U", (), {"origin": origin})()})()
        self.connection = None if queued else "busy"

    def is_queued(self) -> bool:
        return self.connection is None

    def assign_to_connection(self, connection) -> None:
        self.connection = connection


def _pool(cls, rng_seed: int):
    """A pool of ``cls`` in a random state (the same state for the same seed)."""
    rng = random.Random(rng_seed)
    pool = cls.__new__(cls)
    pool._connections = [FakeConnection(f"c{i}", rng.choice(ORIGINS), rng.random() < 0.1, rng.random() < 0.1,
                                        rng.random() < 0.5, rng.random() < 0.5) for i in range(rng.randint(0, 12))]
    pool._requests = [FakeRequest(f"r{i}", rng.choice(ORIGINS), rng.random() < 0.6) for i in range(rng.randint(0, 8))]
    pool._max_connections = rng.randint(1, 14)
    pool._max_keepalive_connections = rng.randint(0, 14)
    made = iter(range(100))
    pool.create_connection = lambda origin: FakeConnection(f"new{next(made)}", origin, False, False, False, False)
    return pool


def _outcome(pool, closing) -> tuple:
    names = lambda connections: [c.name for c in connections]  # noqa: E731
    assigned = [(r.name, getattr(r.connection, "name", r.connection)) for r in pool._requests]
    return names(pool._connections), names(closing), assigned


@pytest.mark.slow
def test_the_one_pass_pool_decides_as_httpcore_does():
    branches = set()
    for seed in range(2000):  # closed, expired, surplus idle; reused, new, an idle one replaced, none
        theirs, ours = _pool(httpcore.AsyncConnectionPool, seed), _pool(LinearPool, seed)
        expected = _outcome(theirs, httpcore.AsyncConnectionPool._assign_requests_to_connections(theirs))
        assert _outcome(ours, ours._assign_requests_to_connections()) == expected, seed
        branches.add((bool(expected[1]), any(name.startswith("new") for name in expected[0])))
    assert len(branches) == 4


def test_an_untested_httpcore_series_keeps_its_own_pool(monkeypatch):
    monkeypatch.setattr(httpcore, "__version__", "1.1.0")
    assert type(pooled_transport(httpx.Limits(max_connections=4))._pool) is httpcore.AsyncConnectionPool
    monkeypatch.setattr(httpcore, "__version__", "1.0.99")
    assert type(pooled_transport(httpx.Limits(max_connections=4))._pool) is LinearPool


def test_the_service_client_uses_the_one_pass_pool_and_the_set_cookie_jar():
    transport = pooled_transport(httpx.Limits(max_connections=4))
    assert type(transport._pool) is LinearPool
    client = ServiceClient("test", "http://127.0.0.1:9")
    assert type(client._client.cookies) is SetCookieJar
    stream = type("Stream", (), {"extra": lambda self, attribute, default=None: default})()
    assert _SocketOnce(AnyIOStream(stream))._bytes is stream  # reads and writes go to anyio's stream directly


async def _cookie_exchange(answers: list[bytes]) -> list[bytes]:
    """Each request's Cookie header (b"" when none), the server answering ``answers`` in turn."""
    seen: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                cookie = [line for line in head.split(b"\r\n") if line.lower().startswith(b"cookie:")]
                seen.append(cookie[0].split(b":", 1)[1].strip() if cookie else b"")
                extra = answers[len(seen) - 1]
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n" + extra + b"\r\n{}")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    async with ServiceClient("test", f"http://127.0.0.1:{port}") as client:
        for _ in answers:
            await client.request("GET", "/ping")
    listener.close()
    await listener.wait_closed()
    return seen


def test_a_cookie_the_server_sets_is_sent_back_and_kept_over_answers_without_one():
    answers = [b"", b"set-cookie: session=abc; Path=/\r\n", b"", b"", b"Set-Cookie: session=xyz; Path=/\r\n", b""]
    seen = asyncio.run(_cookie_exchange(answers))
    assert seen == [b"", b"", b"session=abc", b"session=abc", b"session=abc", b"session=xyz"]


def test_a_kept_url_sends_the_same_request_as_a_fresh_one():
    seen: list[tuple[str, str, bytes]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append((str(request.url), request.headers["host"], request.content))
        return httpx.Response(200, json={})

    async def run() -> ServiceClient:
        client = ServiceClient("test", "http://example.test/api/v1", transport=httpx.MockTransport(answer))
        for _ in range(2):
            await client.request("POST", "/chat/completions", json={"a": 1})
            await client.request("GET", "/generation", params={"id": "g1"})
            await client.request("GET", "models?x=1")
        for i in range(40):  # one path per match: at most KEPT_URLS are kept
            await client.request("GET", f"/v4/matches/{i}")
        await client.aclose()
        return client

    client = asyncio.run(run())
    first = [("http://example.test/api/v1/chat/completions", "example.test", b'{"a":1}'),
             ("http://example.test/api/v1/generation?id=g1", "example.test", b""),
             ("http://example.test/api/v1/models?x=1", "example.test", b"")]  # fmt: skip
    assert seen[:6] == first + first
    assert [url for url, _, _ in seen[6:]] == [f"http://example.test/api/v1/v4/matches/{i}" for i in range(40)]
    assert len(client._urls) == KEPT_URLS


async def _failed_exchanges(mode: str, transport: httpx.AsyncBaseTransport | None) -> list[tuple]:
    """The exchanges of one request to a server that fails in ``mode``: (error kind, error text) each."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"partial\":")
            await writer.drain()
            if mode == "hang":
                await asyncio.sleep(2)  # cancelled when the test's loop ends
            elif mode == "reset":
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    client = ServiceClient("test", f"http://127.0.0.1:{port}", total_timeout=0.3, transport=transport,
                           retry=RetryPolicy(max_attempts=2, base_delay=0.01))  # fmt: skip
    try:
        await client.request("GET", "/ping")
    except ServiceCallFailed as exc:
        found = [(e.error_kind, e.error) for e in exc.exchanges]
    finally:
        await client.aclose()
        listener.close()
        await listener.wait_closed()
    return found


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["hang", "close", "reset"])
def test_a_failing_server_gives_the_same_exchanges_as_through_httpx_own_transport(mode):
    ours = asyncio.run(_failed_exchanges(mode, None))
    theirs = asyncio.run(_failed_exchanges(mode, httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=32))))
    assert len(ours) == 2 and ours == theirs
    assert {kind for kind, _ in ours} == {"timeout" if mode == "hang" else "transport"}
