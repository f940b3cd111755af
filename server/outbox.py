"""A bounded queue of outgoing frames per connection, and the task that drains it.

The cores never wait for a socket: the glue pushes each frame here and
returns at once. A receiver that cannot keep up fills its queue, and is then
cut off (the transport aborted: a close frame could not get through a full
buffer anyway), so one slow reader never stalls a race or grows memory.

A frame may wait on a *barrier*: a future that the writer awaits before
sending it. The glue uses it to hold ``game_over`` back until the race is
on disk, without holding back anything else on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import TYPE_CHECKING

from websockets.exceptions import ConnectionClosed

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

__all__ = ["Outbox"]

log = logging.getLogger("flowergarden.server")


class Outbox:
    """Frames waiting to be written to one websocket."""

    __slots__ = ("_empty", "_frames", "_limit", "_ready", "_task", "_ws", "overflowed")

    def __init__(self, ws: ServerConnection, limit: int) -> None:
        self._ws = ws
        self._limit = limit
        self._frames: deque[tuple[str, asyncio.Future[None] | None]] = deque()
        self._ready = asyncio.Event()
        self._empty = asyncio.Event()
        self._empty.set()
        self._task = asyncio.create_task(self._drain())
        self.overflowed = False

    def push(self, frame: str, barrier: asyncio.Future[None] | None = None) -> None:
        """Queue ``frame``; cut the connection off if its queue is full."""
        if self.overflowed:
            return
        if len(self._frames) >= self._limit:
            self.overflowed = True
            self._frames.clear()
            log.warning("dropping a receiver that does not keep up (%s)", self._ws.remote_address)
            self._ws.transport.abort()
            return
        self._frames.append((frame, barrier))
        self._empty.clear()
        self._ready.set()

    async def close(self) -> None:
        """Stop the writer; frames not yet written are dropped."""
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def flush(self) -> None:
        """Wait until every queued frame has been handed to the socket (or the writer stopped)."""
        if not self._task.done():
            await self._empty.wait()

    async def _drain(self) -> None:
        frames, ws = self._frames, self._ws
        try:
            while True:
                await self._ready.wait()
                while frames:
                    frame, barrier = frames[0]
                    if barrier is not None:
                        # The store logs its own failures; the race is over either way.
                        with contextlib.suppress(Exception):
                            await asyncio.shield(barrier)
                    await ws.send(frame)
                    frames.popleft()
                self._ready.clear()
                self._empty.set()
        except ConnectionClosed:
            frames.clear()
        finally:
            self._empty.set()
