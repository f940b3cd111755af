"""One connection as the glue sees it, and the small helpers that frame replies.

:class:`Conn` is a :class:`~server.transport.connection.Connection` with what the glue
knows of it: its rate limiter, its player once welcomed, and the messages that
wait while its ``hello`` waits for the store.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from protocol import Error, encode_bytes
from server.transport.connection import Connection

if TYPE_CHECKING:
    import asyncio

    from core.identity import Identity
    from core.limits import RateLimiter
    from protocol import RequestId, ServerMessage
    from server.transport.handler import Host

__all__ = ["Conn", "error", "with_id"]


class Conn(Connection):
    """A connection to the race server."""

    __slots__ = (
        "conn_id",
        "from_home",
        "hello_timer",
        "let_go",
        "limiter",
        "player",
        "proxy",
        "replaced",
        "waiting",
    )

    def __init__(self, host: Host, limiter: RateLimiter) -> None:
        super().__init__(host)
        self.limiter = limiter
        self.player: Identity | None = None
        self.replaced = False
        """A newer connection took this one's player: it is closing with 4000."""
        self.let_go = False
        """The server is closing this connection (1003, 1008, 1011): its messages are dropped."""
        self.waiting: list[str] | None = None
        """Messages admitted while a ``hello`` waits for the store, in order (None: none waits)."""
        self.hello_timer: asyncio.TimerHandle | None = None
        self.proxy: str | None = None
        """The worker that is this player's home, when not this one (server/cluster/cluster.py)."""
        self.conn_id = ""
        """Its name on the bus, once it has been proxied."""
        self.from_home = 0
        """The writes its home sent it, proxied (server/cluster/links.py)."""

    def send(self, message: ServerMessage) -> None:
        self.push(encode_bytes(message))


def error(code: str, message: str, request_id: RequestId | None) -> Error:
    return Error.model_validate({"code": code, "message": message, "id": request_id})


def with_id(frame: bytes, request_id: RequestId) -> bytes:
    """``frame``, a message's encoding without an ``id`` (the cores never set
    one), with the request's ``id`` added as its last member.

    Appending the member to the shared frame saves a copy of the model and a
    second encoding for every request that carries an id.
    """
    return b'%s,"id":%s}' % (frame[:-1], json.dumps(request_id).encode())
