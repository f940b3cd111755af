"""A bounded queue of outgoing frames per connection, written by a callback, not a task.

The cores never wait for a socket: the glue pushes each frame here and
returns at once. The first frame queued on an empty :class:`Outbox` asks the
:class:`Writer` for a write (one ``loop.call_soon`` shared by every
connection), which hands every queued frame to the socket in a single write:
what one pass of the event loop produced for a receiver (a player's own
``played`` and their opponent's, say) goes out together.

Everything the server writes on a websocket goes through the queue, the
protocol's own pongs and close frames too (as :class:`Wire` bytes), so that
whatever a client makes the server say counts against one limit. A receiver
that cannot keep up fills its queue, and is then cut off (the connection is
aborted: a close frame could not get through a full buffer anyway), so one
slow reader never stalls a race or grows memory. While asyncio has paused the
connection (its socket buffer is full) frames stay queued.

A frame may wait on a *barrier*: a future that must be done before the frame
is written, and everything behind it waits too. The glue uses it to hold
``game_over`` back until the race is on disk, without holding back anything
else on the event loop. A barrier that fails (the write it stands for was
not made) fails closed: its frame is never written.

Why not a task per connection awaiting ``send``: that costs a drain and a
system call per frame, and a task per idle connection. Profiled under load,
it was the largest cost of the server after the frame parser.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .frames import text_header

__all__ = ["Held", "Outbox", "Wire", "Writer"]

log = logging.getLogger("flowergarden.server")


class Writer:
    """Writes every outbox that has frames queued, once per pass of the event loop."""

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
            try:
                outbox.write()
            except Exception:  # a bug: the other receivers still get their frames
                log.exception("writing to a connection failed")
                outbox.cut_off()


class Wire:
    """Bytes ready for the socket (a pong, a close frame); ``b""`` ends the stream."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


class Held:
    """A queued frame that waits until ``barrier`` is done."""

    __slots__ = ("barrier", "frame")

    def __init__(self, frame: bytes | Wire, barrier: asyncio.Future[Any]) -> None:
        self.frame, self.barrier = frame, barrier


class Outbox:
    """Frames waiting to be written to one connection.

    A plain ``bytes`` item is the payload of a text frame, framed as it is
    written (a server's frames are not masked). The connection supplies the
    socket: :meth:`write_bytes`, :meth:`write_end` and what to do on overflow.
    """

    __slots__ = (
        "_blocked", "_ended", "_limit", "_lost", "_paused", "_queue", "_scheduled", "_writer",
        "closing",
    )  # fmt: skip

    def __init__(self, limit: int, writer: Writer) -> None:
        self._limit, self._writer = limit, writer
        # A list, not a deque: an empty deque takes 760 bytes, and most
        # connections, idle ones included, have nothing queued.
        self._queue: list[bytes | Wire | Held] = []
        # _ended: the stream was ended (write_end); nothing can follow it.
        self._scheduled = self._paused = self._blocked = self._ended = self._lost = False
        self.closing = False
        """Nothing more is queued: a close frame is, or the connection is gone."""

    # The connection's side.

    def write_bytes(self, data: bytes) -> None:
        raise NotImplementedError

    def write_end(self) -> None:
        """End the stream (half-close the TCP connection)."""
        raise NotImplementedError

    def overflowed(self) -> None:
        """The queue is full: the connection is to be cut off."""
        raise NotImplementedError

    def cut_off(self) -> None:
        """End the connection at once: nothing more can be written to it."""
        raise NotImplementedError

    # The queue.

    def push(self, frame: bytes, barrier: asyncio.Future[Any] | None = None) -> None:
        """Queue a text frame (UTF-8 ``frame``), behind ``barrier`` if there is one."""
        if not self.closing:
            self.enqueue(frame if barrier is None else Held(frame, barrier))

    def enqueue(self, item: bytes | Wire | Held) -> None:
        if self._ended:  # the protocol's late words (the peer's close answered) go nowhere
            return
        queue = self._queue
        if len(queue) >= self._limit:
            self.overflowed()
            return
        queue.append(item)
        if not (self._scheduled or self._paused or self._blocked):
            self._scheduled = True
            self._writer.want(self)

    def drop(self) -> None:
        """Nothing queued will be written, nor anything queued later."""
        self.closing = True
        self._lost = self._lost or bool(self._queue)
        self._queue.clear()

    def unread(self) -> None:
        """What went out never reached its reader (a socket on another worker was gone
        first): as if it had never been written."""
        self._lost = True

    @property
    def undelivered(self) -> bool:
        """Whether frames were queued that never reached the reader: never written, still
        waiting (behind a write, say), or :meth:`unread`. A ``game_over`` among them,
        maybe, that the player never had."""
        return self._lost or bool(self._queue)

    def discard(self) -> None:
        """Nothing queued so far will be written (its barriers may never lift); later
        frames, a close frame among them, will."""
        self._queue.clear()
        self._blocked = False

    def pause(self) -> None:
        self._paused = True

    def resume(self) -> None:
        self._paused = False
        if self._queue and not self._scheduled:
            self._scheduled = True
            self._writer.want(self)

    def write(self) -> None:
        """Write what is queued, up to a barrier not yet done, in one write."""
        self._scheduled = False
        if self._paused or self._blocked:
            return
        queue, chunks, written, end = self._queue, [], 0, False
        for queued in queue:
            item = queued
            if isinstance(item, Held):
                barrier = item.barrier
                if not barrier.done():
                    self._blocked = True
                    barrier.add_done_callback(self._unblock)
                    break
                if barrier.cancelled() or barrier.exception() is not None:
                    written += 1  # fails closed: what was not recorded is never announced
                    continue
                item = item.frame
            written += 1
            if isinstance(item, bytes):
                chunks.append(text_header(len(item)))
                chunks.append(item)
            elif item.data:
                chunks.append(item.data)
            else:  # nothing is queued after the end of the stream
                end = True
                break
        del queue[:written]
        if chunks:
            self.write_bytes(b"".join(chunks))
        if end:
            self.closing = self._ended = True
            queue.clear()
            self.write_end()

    def _unblock(self, _: object) -> None:
        """The barrier is done: write in this same callback, not a pass of the loop later.

        Through the :class:`Writer` it would be one more pass of a busy event
        loop before a ``game_over`` goes out.
        """
        self._blocked = False
        if not self._scheduled:
            self.write()
