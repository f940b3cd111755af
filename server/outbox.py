"""A bounded queue of outgoing frames per connection, written by a callback, not a task.

The cores never wait for a socket: the glue pushes each frame here and
returns at once. The first frame pushed to an empty queue asks the
:class:`Writer` for a write (one ``loop.call_soon`` shared by all receivers),
which hands every queued frame to the socket in a single ``transport.write``:
what one pass of the event loop produced for a receiver (a player's own
``played`` and their opponent's, say) goes out together. A
receiver that cannot keep up fills its queue, and is then cut off (the
transport aborted: a close frame could not get through a full buffer anyway),
so one slow reader never stalls a race or grows memory.

Why not ``await ws.send(frame)`` in a task per connection: that costs an
asynchronous context manager, a drain and a system call per frame, and a task
with two events per idle connection. Profiled under load, it was the largest
cost of the server after websockets' own reading. Frames go through
websockets' sans-I/O protocol exactly as :func:`websockets.asyncio.server.broadcast`
writes them, and frames are bytes, encoded once for all their receivers.

Backpressure: when the socket's buffer is over websockets' high-water mark
(the connection is ``paused``), frames stay queued until it drains; a queue
that reaches its limit meanwhile cuts the receiver off, as before.

A frame may wait on a *barrier*: a future that must be done before the frame
is written. The glue uses it to hold ``game_over`` back until the race is on
disk, without holding back anything else on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from websockets.protocol import State

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

__all__ = ["Outbox", "Writer"]

log = logging.getLogger("flowergarden.server")


class Writer:
    """Runs the writes of every outbox that has frames, once per pass of the event loop.

    One scheduled callback for all receivers, rather than one per receiver.
    """

    __slots__ = ("_due", "_scheduled")

    def __init__(self) -> None:
        self._due: list[Outbox] = []
        self._scheduled = False

    def want(self, outbox: Outbox) -> None:
        self._due.append(outbox)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._run)

    def _run(self) -> None:
        self._scheduled = False
        due, self._due = self._due, []
        for outbox in due:
            outbox.write()


class Outbox:
    """Frames waiting to be written to one websocket."""

    __slots__ = (
        "_closed",
        "_drainer",
        "_flushed",
        "_frames",
        "_limit",
        "_scheduled",
        "_stalled",
        "_writer",
        "_ws",
        "overflowed",
    )

    def __init__(self, ws: ServerConnection, limit: int, writer: Writer | None = None) -> None:
        self._ws = ws
        self._writer = Writer() if writer is None else writer
        self._limit = limit
        # A list, not a deque: an empty deque takes 760 bytes, and most
        # connections, idle ones included, have nothing queued.
        self._frames: list[tuple[bytes, asyncio.Future[None] | None]] = []
        self._scheduled = False
        """A write is due on the event loop."""
        self._stalled = False
        """Waiting for a barrier or for the socket to drain; that wait schedules the write."""
        self._drainer: asyncio.Task[None] | None = None
        self._flushed: asyncio.Future[None] | None = None
        self._closed = False
        self.overflowed = False

    def push(self, frame: bytes, barrier: asyncio.Future[None] | None = None) -> None:
        """Queue ``frame`` (UTF-8 JSON text); cut the connection off if its queue is full."""
        if self.overflowed or self._closed:
            return
        if len(self._frames) >= self._limit:
            self.overflowed = True
            self._frames.clear()
            log.warning("dropping a receiver that does not keep up (%s)", self._ws.remote_address)
            self._ws.transport.abort()
            self._settle()
            return
        self._frames.append((frame, barrier))
        if not self._scheduled and not self._stalled:
            self._scheduled = True
            self._writer.want(self)

    async def close(self) -> None:
        """Stop writing; frames not yet written are dropped."""
        self._closed = True
        self._frames.clear()
        self._settle()
        if self._drainer is not None:
            self._drainer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._drainer

    async def flush(self) -> None:
        """Wait until every queued frame has been handed to the socket (or writing stopped)."""
        if not self._frames or self._closed:
            return
        if self._flushed is None:
            self._flushed = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._flushed)

    def write(self) -> None:
        """Hand the queued frames to the socket, up to a barrier not yet done or a full buffer."""
        self._scheduled = False
        frames, ws = self._frames, self._ws
        if self._closed or self._stalled:
            return
        if ws.protocol.state is not State.OPEN:
            frames.clear()  # closing: nothing more goes out, as a send would raise
        protocol = ws.protocol
        # Without extensions (no permessage-deflate) a server's text frame is
        # a header and the payload, unmasked: built here, it skips a Frame
        # object and its serialisation per frame.
        plain = not protocol.extensions
        data = protocol.data_to_send()  # anything websockets queued goes first
        written = 0
        for frame, barrier in frames:
            if barrier is not None and not barrier.done():
                self._stall()
                barrier.add_done_callback(self._resume)
                break
            if ws.paused:
                self._stall()
                self._drainer = asyncio.ensure_future(self._drain())
                break
            written += 1
            if plain:
                data.append(_text_header(len(frame)))
                data.append(frame)
            else:
                protocol.send_text(frame)
                data.extend(protocol.data_to_send())
        del frames[:written]
        if data:
            ws.transport.write(b"".join(data))
        if not frames:
            self._settle()

    def _stall(self) -> None:
        self._stalled = True

    def _resume(self, _: object = None) -> None:
        """The barrier is done or the socket has drained: write in this same callback.

        Not through the :class:`Writer`: that would be one more pass of a busy
        event loop before a ``game_over`` goes out.
        """
        self._stalled = False
        if not self._scheduled and not self._closed:
            self.write()

    async def _drain(self) -> None:
        # The connection is paused: websockets resumes it when the socket's
        # buffer falls under its low-water mark, or when the connection is lost.
        with contextlib.suppress(Exception):
            await self._ws.drain()
        self._drainer = None
        self._resume()

    def _settle(self) -> None:
        """Nothing is queued any more: wake whoever waits in :meth:`flush`."""
        if self._flushed is not None:
            if not self._flushed.done():
                self._flushed.set_result(None)
            self._flushed = None


def _text_header(length: int) -> bytes:
    """The header of an unmasked, unfragmented text frame (RFC 6455, 5.2) of ``length`` bytes."""
    if length < 126:
        return bytes((0x81, length))
    if length < 0x10000:
        return b"\x81\x7e" + length.to_bytes(2, "big")
    return b"\x81\x7f" + length.to_bytes(8, "big")
