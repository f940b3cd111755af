"""Stand-ins for what the real server cannot be made to do on demand, on real sockets.

* :class:`ScriptedServer`: a websocket server on port 0 that answers each
  request with the protocol messages a test's script returns: the server as it
  behaves when its store fails (``unavailable``), or after a restart that could
  not restore a race;
* :func:`tcp_server`: a plain TCP server on port 0 whose connections a handler
  serves: an HTTP server answering 404, a peer that never answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import ServerConnection, serve

from protocol import encode

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

    from protocol import ServerMessage


class ScriptedServer:
    """``script(connection, request)``: the answers to ``request`` on the ``connection``-th
    connection (0, 1, ...); :attr:`requests` keeps every request as (connection, type), and
    :attr:`received` each one whole; :meth:`push` sends messages no request asked for."""

    def __init__(self, script: Callable[[int, dict[str, Any]], Sequence[ServerMessage]]) -> None:
        self.script = script
        self.requests: list[tuple[int, str]] = []
        self.received: list[dict[str, Any]] = []
        self.connections: list[ServerConnection] = []
        self.url = ""

    async def _handle(self, ws: ServerConnection) -> None:
        index = len(self.connections)
        self.connections.append(ws)
        with contextlib.suppress(Exception):  # the client going away ends the script
            async for frame in ws:
                request = json.loads(frame)
                self.requests.append((index, request["type"]))
                self.received.append(request)
                for message in self.script(index, request):
                    await ws.send(encode(message))

    async def push(self, *messages: ServerMessage, connection: int = -1) -> None:
        """Send ``messages`` on a connection (the last one by default), as the server would."""
        for message in messages:
            await self.connections[connection].send(encode(message))

    def sent(self, kind: str) -> list[dict[str, Any]]:
        """Every request of type ``kind`` the client sent, in order."""
        return [request for request in self.received if request["type"] == kind]

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[ScriptedServer]:
        async with serve(self._handle, "127.0.0.1", 0) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            self.url = f"ws://127.0.0.1:{port}/ws"
            yield self


@contextlib.asynccontextmanager
async def tcp_server(
    handle: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
) -> AsyncIterator[tuple[int, list[asyncio.StreamWriter]]]:
    """A TCP server on loopback: its port, and every connection's writer (closed at the end)."""
    writers: list[asyncio.StreamWriter] = []

    async def serve_one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        with contextlib.suppress(Exception):
            await handle(reader, writer)

    server = await asyncio.start_server(serve_one, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], writers
    finally:
        server.close()
        for writer in writers:
            writer.close()
        await server.wait_closed()
