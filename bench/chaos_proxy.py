"""A TCP proxy that cuts one worker off from Redis, and lets it back (:mod:`bench.chaos`).

Each worker of the fault harness reaches Redis through a :class:`Proxy` of
its own, so that one worker can lose Redis while PostgreSQL and its players
stay within its reach. :meth:`Proxy.cut` aborts every connection it carries
and aborts each new one as it comes (the worker sees resets, as with a
network that drops it); :meth:`Proxy.heal` lets connections through again.
Bytes go through as they come, in both directions: the proxy reads nothing.
"""

from __future__ import annotations

import asyncio
import contextlib

__all__ = ["Proxy"]

_CHUNK = 65536


class Proxy:
    """Forwards 127.0.0.1:``port`` to 127.0.0.1:``upstream``: ``await start()``, then ``cut``."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.port = 0
        self.open = True
        """Whether new connections go through (False between :meth:`cut` and :meth:`heal`)."""
        self.cuts = 0
        self._server: asyncio.Server | None = None
        self._pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._pumps: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        """The Redis URL through this proxy."""
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accepted, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def cut(self) -> None:
        """Abort every connection through the proxy, and every new one until :meth:`heal`."""
        self.open = False
        self.cuts += 1
        for client, upstream in list(self._pairs):
            client.transport.abort()
            upstream.transport.abort()
        self._pairs.clear()

    def heal(self) -> None:
        self.open = True

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        await asyncio.gather(*self._pumps, return_exceptions=True)

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.open:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:  # Redis itself is down (restarting): the worker sees it as it would
            writer.transport.abort()
            return
        if not self.open:  # cut while connecting
            writer.transport.abort()
            up_writer.transport.abort()
            return
        pair = (writer, up_writer)
        self._pairs.add(pair)
        pumps = [
            asyncio.create_task(_pump(reader, up_writer)),
            asyncio.create_task(_pump(up_reader, writer)),
        ]
        self._pumps.update(pumps)
        try:
            # Either side ending ends both: Redis gone, or the worker's connection closed.
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._pairs.discard(pair)
            writer.transport.abort()
            up_writer.transport.abort()
            await asyncio.gather(*pumps, return_exceptions=True)
            self._pumps.difference_update(pumps)


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy ``reader`` to ``writer`` until either ends."""
    with contextlib.suppress(OSError):
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
