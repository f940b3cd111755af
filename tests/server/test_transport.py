"""The transport without the game: a :class:`~server.transport.listener.Listener` on port 0
with a handler that records what it is told, and clients written by hand.

What the game server does on top (limits, close codes, the short path) is in
``tests/integration``; here are keepalive, the peer's end of the stream, the
closing deadline and the throttled ``accept()`` warnings.
"""

from __future__ import annotations

import asyncio
import errno
import logging
from typing import TYPE_CHECKING, Any

import pytest
from websockets.frames import Opcode

from server.transport.connection import CLOSE_TIMEOUT, Connection
from server.transport.handler import ConnectionOptions
from server.transport.listener import ACCEPT_LOG_INTERVAL, AcceptErrors, Listener
from tests.integration.hostile_helpers import eof_within, masked_frame, raw_handshake, read_frame

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from server.transport.connection import Request, Response


class Handler:
    """Upgrades every request, echoes ``echo``, and writes down the rest."""

    def __init__(self) -> None:
        self.connections: list[Connection] = []
        self.messages: list[str | bytes] = []
        self.ended = asyncio.Event()

    def request(self, connection: Connection, request: Request) -> Response | None:
        return None

    def opened(self, connection: Connection) -> None:
        self.connections.append(connection)

    def received(self, connection: Connection, message: str | bytes) -> None:
        self.messages.append(message)
        if message == "echo":
            connection.push(b"echo")

    def pinged(self, connection: Connection) -> None:
        self.messages.append("<ping>")

    def closed(self, connection: Connection) -> None:
        self.ended.set()


@pytest.fixture
async def served() -> AsyncIterator[tuple[Listener[Connection], Handler]]:
    handler = Handler()
    options = ConnectionOptions(max_size=4096, queue=16, open_timeout=5.0)
    listener = Listener(handler, Connection, options, max_connections=100, keepalive=0.05)
    await listener.start("127.0.0.1", 0)
    yield listener, handler
    await listener.close()


async def test_a_silent_client_is_pinged_then_cut_off(served: Any) -> None:
    listener, handler = served
    reader, writer = await raw_handshake(listener.port)
    opcode, _ = await read_frame(reader)  # silent for a round: pinged
    assert opcode == Opcode.PING.value
    assert await eof_within(reader, 2.0) == b""  # silent for another: gone
    await asyncio.wait_for(handler.ended.wait(), 2.0)
    writer.close()


async def test_a_client_that_answers_is_kept(served: Any) -> None:
    listener, handler = served
    reader, writer = await raw_handshake(listener.port)
    for _ in range(3):
        opcode, payload = await read_frame(reader)
        assert opcode == Opcode.PING.value
        writer.write(masked_frame(payload, Opcode.PONG.value))
    writer.write(masked_frame(b"echo"))
    while (frame := await read_frame(reader))[0] == Opcode.PING.value:
        writer.write(masked_frame(frame[1], Opcode.PONG.value))
    assert frame == (Opcode.TEXT.value, b"echo")
    assert not handler.ended.is_set()
    writer.close()


async def test_the_peer_ending_its_stream_ends_the_connection(served: Any) -> None:
    listener, handler = served
    reader, writer = await raw_handshake(listener.port)
    writer.write(masked_frame(b"last"))
    writer.write_eof()
    await asyncio.wait_for(handler.ended.wait(), 2.0)
    assert handler.messages == ["last"]
    assert await eof_within(reader) == b""  # no close frame: the stream had ended
    writer.close()


async def test_a_close_the_peer_never_answers_is_aborted_after_the_timeout(served: Any) -> None:
    listener, handler = served
    _, writer = await raw_handshake(listener.port)
    (connection,) = handler.connections
    started = asyncio.get_running_loop().time()
    connection.close(1001, "going")
    await asyncio.wait_for(connection.wait_closed(), CLOSE_TIMEOUT + 1.0)
    assert asyncio.get_running_loop().time() - started >= CLOSE_TIMEOUT - 0.1
    assert connection.close_code == 1006
    writer.close()


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _accept_failed(code: int = errno.EMFILE) -> dict[str, Any]:
    return {
        "message": "socket.accept() out of system resource",
        "exception": OSError(code, "Too many open files"),
    }


def test_accept_failures_are_logged_once_an_interval(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.new_event_loop()
    passed: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: passed.append(context))
    clock = FakeClock()
    errors = AcceptErrors(loop, clock)
    caplog.set_level(logging.DEBUG, "flowergarden.server")
    for now in (0.0, 1.0, 2.0, ACCEPT_LOG_INTERVAL + 0.5):
        clock.now = now
        errors(loop, _accept_failed())
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert warnings[0].startswith("accept() failed 1 time(s)")
    assert warnings[1].startswith("accept() failed 3 time(s)")
    errors(loop, {"message": "something else", "exception": ValueError()})
    errors(loop, _accept_failed(errno.ECONNABORTED))
    assert [c["message"] for c in passed] == [
        "something else",
        "socket.accept() out of system resource",
    ]
    loop.close()
