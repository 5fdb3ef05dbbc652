"""httpx's own transport and cookie jar, with the same behaviour for less CPU per request.

:class:`collector.http.ServiceClient` sends through :func:`pooled_transport` and keeps its cookies in
:class:`SetCookieJar`. Each piece answers exactly what httpx's or httpcore's default answers; only
work whose result is known in advance is skipped:

- a pooled connection looks its socket up once for the pool's "did the server hang up?" check
  (:class:`_SocketOnce`), instead of through anyio's typed attributes and a ``getpeername`` call;
- the pool assigns requests to connections in one pass over its connections (:class:`LinearPool`)
  where httpcore 1.0's loop counts every connection again for each idle one (quadratic);
- a response with no ``Set-Cookie`` header is not turned into urllib request and response objects
  for a cookie jar that has nothing to take from it (:class:`SetCookieJar`);
- every transport verifies TLS with one context per process (:func:`tls_context`): reading the CA
  bundle is done once, not for each client a tick (or each tick of a replay) makes.

Should httpx hold its pool or its cookies elsewhere one day, its defaults stay in place.
"""

from __future__ import annotations

import functools
import select
import ssl
from typing import Any

import anyio
import httpcore
import httpx
from httpcore._backends.anyio import AnyIOStream


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default verifying TLS context (certifi's CA bundle), made once and shared by every transport."""
    return httpx.create_ssl_context()


def pooled_transport(limits: httpx.Limits) -> httpx.AsyncHTTPTransport:
    """httpx's own transport, whose pool assigns in one pass and whose connections look their socket up once.

    Before assigning each request, httpcore asks every idle pooled connection whether its
    socket turned readable (the server hung up); its anyio stream finds the raw socket through
    anyio's typed attributes, a dict of lookups with a ``getpeername`` system call, every time:
    most of the client's own CPU at 16 forecasts in flight. The answer is the same; only the
    lookup is kept.
    """
    transport = httpx.AsyncHTTPTransport(limits=limits, verify=tls_context())
    pool = getattr(transport, "_pool", None)
    if isinstance(pool, httpcore.AsyncConnectionPool) and hasattr(pool, "_network_backend"):
        pool._network_backend = _SocketOnceBackend()
    if type(pool) is httpcore.AsyncConnectionPool and _pool_has_known_state(pool) and _tested_httpcore():
        pool.__class__ = LinearPool  # same state, same answers; only the assignment loop differs
    return transport


TESTED_HTTPCORE = "1.0."
"""The httpcore series whose pool :class:`LinearPool` was checked against (``tests/test_http_transport.py``
compares their decisions): another version keeps its own pool, whatever its internals look like."""


def _tested_httpcore(version: str | None = None) -> bool:
    """Whether the installed httpcore (or ``version``) is of the series :class:`LinearPool` mirrors."""
    return (httpcore.__version__ if version is None else version).startswith(TESTED_HTTPCORE)


def _pool_has_known_state(pool: httpcore.AsyncConnectionPool) -> bool:
    """Whether the pool keeps the state :meth:`LinearPool._assign_requests_to_connections` reads."""
    names = ("_connections", "_requests", "_max_connections", "_max_keepalive_connections", "create_connection")
    return all(hasattr(pool, name) for name in names)


class LinearPool(httpcore.AsyncConnectionPool):
    """httpcore's connection pool, assigning queued requests in one pass over the connections.

    The decisions are httpcore 1.0's, taken in the same order with the same checks of each
    connection (closed, expired, idle; then per queued request the first available connection,
    a new one below the limit, or an idle one replaced). Two things are not repeated: httpcore
    counts the connections by building a list of every connection's idle flag once for each
    connection it looks at (``len`` of that list is the number of connections), and it lists
    every available and every idle connection where only the first of each is used.
    """

    def _assign_requests_to_connections(self) -> list[httpcore.AsyncConnectionInterface]:
        closing: list[httpcore.AsyncConnectionInterface] = []
        for connection in list(self._connections):
            if connection.is_closed():
                self._connections.remove(connection)
            elif connection.has_expired():
                self._connections.remove(connection)
                closing.append(connection)
            elif connection.is_idle() and len(self._connections) > self._max_keepalive_connections:
                self._connections.remove(connection)
                closing.append(connection)
        for pool_request in [request for request in self._requests if request.is_queued()]:
            self._assign(pool_request, closing)
        return closing

    def _assign(self, pool_request, closing: list) -> None:
        """Give one queued request a connection, as httpcore's loop body does."""
        origin = pool_request.request.url.origin
        available = next((c for c in self._connections if c.can_handle_request(origin) and c.is_available()), None)
        if available is not None:
            pool_request.assign_to_connection(available)
            return
        if len(self._connections) < self._max_connections:
            connection = self.create_connection(origin)
            self._connections.append(connection)
            pool_request.assign_to_connection(connection)
            return
        idle = next((c for c in self._connections if c.is_idle()), None)
        if idle is not None:
            self._connections.remove(idle)
            closing.append(idle)
            connection = self.create_connection(origin)
            self._connections.append(connection)
            pool_request.assign_to_connection(connection)


class SetCookieJar(httpx.Cookies):
    """httpx's cookie jar, which looks at a response only when it sets a cookie.

    httpx hands every response to :mod:`http.cookiejar` through urllib request and response
    adapters; with no ``Set-Cookie`` or ``Set-Cookie2`` header the jar makes no cookie and keeps
    nothing (it only notes the time, which it notes again before each use).
    """

    def extract_cookies(self, response: httpx.Response) -> None:
        headers = response.headers
        if "set-cookie" in headers or "set-cookie2" in headers:
            super().extract_cookies(response)


def use_set_cookie_jar(client: httpx.AsyncClient) -> None:
    """Keep ``client``'s cookies (none yet) in a :class:`SetCookieJar`, if httpx keeps them where expected."""
    if type(getattr(client, "_cookies", None)) is httpx.Cookies:
        client._cookies = SetCookieJar(client._cookies.jar)


class _SocketOnceBackend(httpcore.AsyncNetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return _SocketOnce(await self._inner.connect_tcp(host, port, timeout, local_address, socket_options))

    async def connect_unix_socket(self, path, timeout=None, socket_options=None):
        return _SocketOnce(await self._inner.connect_unix_socket(path, timeout, socket_options))

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _SocketOnce(httpcore.AsyncNetworkStream):
    """A pooled connection's stream that answers "is the socket readable?" from the socket it looked up once.

    Reads and writes go straight to anyio's byte stream with httpcore's exception mapping (an ended
    stream reads as b""; a broken or closed one is a ``ReadError`` or ``WriteError``) but without
    the anyio cancel scope httpcore opens around each of them for the read and write timeouts: the
    service client bounds every exchange with its own timeout (``asyncio.timeout``), never longer
    than those (both are its total timeout), so theirs could not fire first. A stream that is not
    httpcore's anyio stream is used through its own methods, timeouts and all.
    """

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner
        self._socket = inner.get_extra_info("socket")
        self._bytes = inner._stream if type(inner) is AnyIOStream else None  # anyio's byte stream

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._bytes is None:
            return await self._inner.read(max_bytes, timeout)
        try:
            return await self._bytes.receive(max_bytes=max_bytes)
        except anyio.EndOfStream:
            return b""
        except TimeoutError as exc:
            raise httpcore.ReadTimeout(exc) from exc
        except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            raise httpcore.ReadError(exc) from exc

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if self._bytes is None:
            return await self._inner.write(buffer, timeout)
        if not buffer:
            return
        try:
            await self._bytes.send(item=buffer)
        except TimeoutError as exc:
            raise httpcore.WriteTimeout(exc) from exc
        except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            raise httpcore.WriteError(exc) from exc

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> httpcore.AsyncNetworkStream:
        return _SocketOnce(await self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            return _readable(self._socket)
        return self._inner.get_extra_info(info)


def _readable(sock) -> bool:
    """Would ``recv`` return at once (data, or the b"" of a hang-up)? A closed or missing socket counts as readable."""
    fd = -1 if sock is None else sock.fileno()
    if fd < 0:
        return True
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))
