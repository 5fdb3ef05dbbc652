"""Pooled connections: reused while the server keeps them open, dropped when it hangs up (checked
from the socket looked up once per connection), over real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio

import httpx

from collector.http import ServiceClient
from collector.http_transport import _SocketOnceBackend, pooled_transport

RESPONSE = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 12\r\n\r\n{\"ok\": true}"


class Server:
    """Answers each request on a connection; ``hang_up`` closes a connection after its first answer."""

    def __init__(self, hang_up: bool):
        self.hang_up, self.connections, self.requests = hang_up, 0, 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while await reader.readuntil(b"\r\n\r\n"):
                self.requests += 1
                writer.write(RESPONSE)
                await writer.drain()
                if self.hang_up:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


async def _exchange(hang_up: bool) -> tuple[Server, list[int]]:
    server = Server(hang_up)
    listener = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    attempts = []
    async with ServiceClient("test", f"http://127.0.0.1:{port}") as client:
        for _ in range(3):
            response, exchanges = await client.request("GET", "/ping")
            assert response.json() == {"ok": True}
            attempts.append(len(exchanges))
            await asyncio.sleep(0.05)  # the server's hang-up reaches the client's socket
    listener.close()
    await listener.wait_closed()
    return server, attempts


def test_a_kept_alive_connection_is_reused():
    server, attempts = asyncio.run(_exchange(hang_up=False))
    assert server.requests == 3 and server.connections == 1 and attempts == [1, 1, 1]


def test_a_connection_the_server_closed_is_not_reused():
    server, attempts = asyncio.run(_exchange(hang_up=True))
    # each request found the previous connection readable (hung up), so opened a new one: no failed attempt
    assert server.requests == 3 and server.connections == 3 and attempts == [1, 1, 1]


def test_the_pool_looks_each_socket_up_once():
    transport = pooled_transport(httpx.Limits(max_connections=4))
    assert isinstance(transport._pool._network_backend, _SocketOnceBackend)
