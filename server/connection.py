"""One websocket as the glue sees it, and the small helpers that frame replies.

:class:`Conn` pairs a websocket with its outbox, rate limiter and player;
:class:`GameConnection` is the websocket, with a short path for messages once
a player has said hello; :func:`tracked` makes its class that lets shutdown
see connections still in their opening handshake.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import Protocol, State
from websockets.streams import StreamReader

from protocol import Error, encode_bytes

from .frames import plain_texts
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

    websockets parses every frame with generator-based coroutines, queues
    every message and wakes the connection's handler task to read it: a
    queue, a future and a task switch per message. Once :attr:`on_text` is
    set (the glue sets it when the player has said hello, after which
    handling a message never waits), a whole text message goes to
    ``on_text`` from ``data_received``, in order, by one of two ways:

    * bytes that arrive while websockets' parser waits between frames, with
      nothing of theirs buffered or queued, are read by
      :func:`~server.frames.plain_texts` up to the first frame that is not a
      plain text message; the rest, from that frame on, goes to websockets;
    * a text message that websockets parsed, in one frame and with nothing
      queued ahead of it, is taken from its event.

    Everything else takes websockets' own path to the handler: control,
    fragmented and binary frames, invalid UTF-8 (which websockets answers
    with 1007), and any message behind one still queued. ``on_text`` runs
    inside asyncio's ``data_received`` and must not raise.

    Knowing that the parser waits between frames, and keeping that order,
    reads websockets' internals (its parser's generators, its reader's
    buffer, ``recv_messages.frames``), as they are from websockets 16 on
    (``pyproject.toml`` pins the range the tests have passed on; websockets
    15 named them otherwise). ``tests/integration/test_short_path.py`` holds
    both ways to websockets' behaviour and checks that the first is taken,
    whenever websockets is upgraded; should the internals change, the server
    keeps working on websockets' own path, slower.
    """

    on_text: Callable[[str], None] | None = None
    _seen_between_frames = False
    """The parser was seen waiting between frames and has not been fed since.

    Only ``super().data_received`` feeds it (and ``eof_received``, after which
    no data comes), so while this holds only the connection's state, which
    closing changes, needs checking again. Profiled, checking everything per
    read cost more than reading the frame.
    """

    def forget_handshake(self) -> None:
        """Drop the opening handshake's headers, once it is over.

        Nothing reads them again, and they were 3 KiB of the 19 that an idle
        player's connection takes (bench/README.md, item 20). The request
        itself stays, with its path: websockets takes a connection without
        one for a connection still in its handshake.
        """
        if self.request is not None:
            self.request = dataclasses.replace(self.request, headers=Headers())
        self.response = None

    def data_received(self, data: bytes) -> None:
        on_text = self.on_text
        if on_text is not None and (
            (self._seen_between_frames and self.protocol.state is State.OPEN)
            or self.between_frames()
        ):
            self._seen_between_frames = True
            texts, used = plain_texts(data, self.protocol.max_message_size)
            for text in texts:
                on_text(text)
            if used == len(data):
                return
            data = data[used:]
        self._seen_between_frames = False
        super().data_received(data)

    def between_frames(self) -> bool:
        """Whether websockets' parser waits for a frame's first byte, nothing pending.

        In the open state its parser is ``ServerProtocol.parse``, which has
        handed over to ``Protocol.parse``; between frames that waits in
        ``StreamReader.at_eof`` with an empty buffer.
        """
        protocol = self.protocol
        try:
            if (
                protocol.state is not State.OPEN
                or protocol.extensions
                or protocol.current_size is not None  # in a fragmented message
                or protocol.reader.buffer
                or len(self.recv_messages.frames)
            ):
                return False
            # Generators, typed as Generator, which has no gi_ attributes.
            outer: Any = protocol.parser
            inner: Any = outer.gi_yieldfrom
        except AttributeError:  # a websockets with other internals: its own path, slower
            return False
        while inner is not None and inner.gi_yieldfrom is not None:
            outer, inner = inner, inner.gi_yieldfrom
        return inner is not None and inner.gi_code is _AT_EOF and outer.gi_code is _PARSE

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


_AT_EOF = StreamReader.at_eof.__code__
_PARSE = Protocol.parse.__code__


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


def with_id(frame: bytes, request_id: RequestId) -> bytes:
    """``frame``, a message's encoding without an ``id`` (the cores never set
    one), with the request's ``id`` added as its last member.

    Appending the member to the shared frame saves a copy of the model and a
    second encoding for every request that carries an id.
    """
    return b'%s,"id":%s}' % (frame[:-1], json.dumps(request_id).encode())


def ip_of(ws: ServerConnection) -> str:
    address = ws.remote_address
    return str(address[0]) if address else "?"


def json_response(status: HTTPStatus, body: object) -> Response:
    data = (json.dumps(body) + "\n").encode()
    headers = Headers([("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
    return Response(status.value, status.phrase, headers, data)
