"""One websocket as the glue sees it, and the small helpers that frame replies.

:class:`Conn` pairs a websocket with its outbox, rate limiter and player;
:class:`GameConnection` is the websocket, with a short path for messages once
a player has said hello; :func:`tracked` makes its class that lets shutdown
see connections still in their opening handshake.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.frames import Frame, Opcode
from websockets.http11 import Response

from protocol import Error, encode_bytes

from .outbox import Outbox

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable
    from http import HTTPStatus

    from websockets.protocol import Event

    from protocol import RequestId, ServerMessage

    from .identity import Identity
    from .limits import RateLimiter
    from .outbox import Writer

__all__ = [
    "CLOSE_TIMEOUT",
    "Conn",
    "GameConnection",
    "error",
    "ip_of",
    "json_response",
    "tracked",
    "with_id",
]

CLOSE_TIMEOUT = 3.0
"""Seconds a closing handshake may take before the TCP connection is aborted
(websockets' default is 10): a peer that does not answer a close frame within
it is not coming back, and holds its slot and a shutdown meanwhile."""


class GameConnection(ServerConnection):
    """A websocket that can hand complete text messages straight to a callback.

    websockets queues every message and wakes the connection's handler task
    to read it: a queue, a future and a task switch per message. Once
    :attr:`on_text` is set (the glue sets it when the player has said hello,
    after which handling a message never waits), a text message that arrives
    in one frame with nothing queued ahead of it goes to ``on_text`` from
    ``data_received``, in order. Everything else takes websockets' own path
    to the handler: fragmented and binary messages, invalid UTF-8 (which
    websockets answers with 1007), and any message behind one still queued.
    ``on_text`` runs inside asyncio's ``data_received`` and must not raise.
    Keeping that order reads websockets' own queue (``recv_messages.frames``),
    so ``tests/integration/test_short_path.py`` holds both paths to the same
    behaviour whenever websockets is upgraded.
    """

    on_text: Callable[[str], None] | None = None

    def process_event(self, event: Event) -> None:
        on_text = self.on_text
        if (
            on_text is None
            or type(event) is not Frame
            or event.opcode is not Opcode.TEXT
            or not event.fin
            or len(self.recv_messages.frames)
        ):
            super().process_event(event)
            return
        try:
            text = str(event.data, "utf-8")
        except UnicodeDecodeError:
            super().process_event(event)
            return
        on_text(text)


def tracked(connections: set[ServerConnection]) -> type[GameConnection]:
    """A :class:`GameConnection` that is in ``connections`` while its TCP connection is open.

    websockets' ``Server`` lists a connection only once its opening handshake
    is done; shutting down must also see those still in it.
    """

    class Tracked(GameConnection):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            connections.add(self)

        def connection_lost(self, exc: Exception | None) -> None:
            connections.discard(self)
            super().connection_lost(exc)

    return Tracked


class Conn:
    """One websocket and what the glue knows of it."""

    __slots__ = ("closing", "ip", "limiter", "outbox", "player", "replaced", "ws")

    def __init__(
        self, ws: GameConnection, send_queue: int, limiter: RateLimiter, writer: Writer
    ) -> None:
        self.ws = ws
        self.ip = ip_of(ws)
        self.outbox = Outbox(ws, send_queue, writer)
        self.limiter = limiter
        self.player: Identity | None = None
        self.replaced = False
        """A newer connection took this one's player: it is closing with 4000."""
        self.closing = False
        """The server is closing this connection (1003, 1008): its frames are dropped."""

    def send(self, message: ServerMessage) -> None:
        self.outbox.push(encode_bytes(message))


def error(code: str, message: str, request_id: RequestId | None) -> Error:
    return Error.model_validate({"code": code, "message": message, "id": request_id})


def with_id(frame: bytes, message: ServerMessage, request_id: RequestId) -> bytes:
    """``frame`` (the encoding of ``message``) with the request's ``id`` added.

    Appending the member to the shared frame saves a copy of the model and a
    second encoding for every request that carries an id.
    """
    if message.id is not None:  # pragma: no cover - the cores never set one
        return encode_bytes(message.model_copy(update={"id": request_id}))
    return b'%s,"id":%s}' % (frame[:-1], json.dumps(request_id).encode())


def ip_of(ws: ServerConnection) -> str:
    address = ws.remote_address
    return str(address[0]) if address else "?"


def json_response(status: HTTPStatus, body: object) -> Response:
    data = (json.dumps(body) + "\n").encode()
    headers = Headers([("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
    return Response(status.value, status.phrase, headers, data)
