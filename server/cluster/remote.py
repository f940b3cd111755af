"""A player's connection that lives on another worker, as the glue of their home sees it.

A player's *home* is the worker whose lobby core holds them (docs/design.md,
"Several workers"). When their socket is on another worker, the home keeps a
:class:`RemoteConn` in its place: it queues frames exactly as a socket's
outbox does (barriers included, so nothing is announced before it is on disk)
and hands what it would write to the bus, to the worker that holds the
socket, which writes the bytes as they are. Closing it asks that worker to
close the socket with the same code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import encode_bytes
from protocol.close_codes import CloseCode
from server.transport.outbox import Outbox, Wire

from .to_socket import Close, Outbound

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable

    from core.identity import Identity
    from core.limits import RateLimiter
    from protocol import ServerMessage
    from server.transport.outbox import Writer

    from .to_socket import ToSocket

__all__ = ["RemoteConn"]


class RemoteConn(Outbox):
    """A connection on worker ``worker``, known there as ``conn_id``."""

    __slots__ = (
        "_closing_with",
        "_send",
        "close_code",
        "conn_id",
        "hello_timer",
        "ip",
        "ip_rank",
        "let_go",
        "limiter",
        "player",
        "rank",
        "replaced",
        "sent",
        "waiting",
        "worker",
    )

    def __init__(
        self,
        conn_id: str,
        worker: str,
        ip: str,
        *,
        limiter: RateLimiter,
        queue: int,
        writer: Writer,
        send: Callable[[str, ToSocket], None],
    ) -> None:
        super().__init__(queue, writer)
        self.conn_id, self.worker, self.ip = conn_id, worker, ip
        self.limiter = limiter
        """Never limits: the worker with the socket applies the rate limit."""
        self._send = send
        self.player: Identity | None = None
        self.replaced = self.let_go = False
        self.waiting: list[str] | None = None
        self.hello_timer: asyncio.TimerHandle | None = None
        self.close_code: int | None = None
        self.rank = self.ip_rank = 0
        self._closing_with: tuple[int, str] | None = None
        self.sent = 0
        """Writes sent to the socket (:class:`Outbound`), to hold against what it heard."""

    def __repr__(self) -> str:
        return f"RemoteConn({self.conn_id!r}, {self.worker!r})"

    @property
    def outbox(self) -> RemoteConn:
        return self

    def send(self, message: ServerMessage) -> None:
        self.push(encode_bytes(message))

    def close(self, code: int, reason: str) -> None:
        """Have the socket closed with ``code``, once everything queued before has gone."""
        if self._closing_with is None and not self.closing:
            self._closing_with = (code, reason)
            self.enqueue(Wire(b""))  # the end of the stream: write_end, in its turn

    # -- the Outbox's side -----------------------------------------------------

    def write_bytes(self, data: bytes) -> None:
        self.sent += 1
        self._send(self.worker, Outbound(self.conn_id, data))

    def write_end(self) -> None:
        code, reason = self._closing_with or (CloseCode.NORMAL_CLOSURE, "")
        self._send(self.worker, Close(self.conn_id, code, reason))

    def overflowed(self) -> None:
        self.cut_off()

    def cut_off(self) -> None:
        if not self.closing:
            self.drop()
            self._send(self.worker, Close(self.conn_id, CloseCode.INTERNAL_ERROR, ""))
