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
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import pytest
from websockets.frames import Opcode

from server.transport.connection import CLOSE_TIMEOUT, Connection
from server.transport.handler import ConnectionOptions
from server.transport.listener import ACCEPT_LOG_INTERVAL, AcceptErrors, Listener
from server.transport.logbudget import PER_ADDRESS, SUMMARY_INTERVAL, LogBudget
from server.transport.responses import http_response
from tests.integration.hostile_helpers import (
    eof_within,
    handshake_request,
    masked_frame,
    raw_handshake,
    read_frame,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from server.transport.connection import Request, Response


class Handler:
    """Upgrades every GET, echoes ``echo``, and writes down the rest.

    A request of another method is answered with its own method and body, at
    once, or through a future when its path is ``/later``.
    """

    def __init__(self) -> None:
        self.connections: list[Connection] = []
        self.messages: list[str | bytes] = []
        self.requests: list[Request] = []
        self.ended = asyncio.Event()

    def request(
        self, connection: Connection, request: Request
    ) -> Response | asyncio.Future[Response] | None:
        self.requests.append(request)
        if request.method == "GET":
            return None
        answer = http_response(HTTPStatus.OK, request.method.encode() + b" " + request.body, "a/b")
        if request.path != "/later":
            return answer
        later = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.05, later.set_result, answer)
        return later

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


async def _ask(port: int, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    answer = await eof_within(reader)
    writer.close()
    return answer


async def test_a_post_reaches_the_hook_with_its_method_headers_and_body(served: Any) -> None:
    listener, handler = served
    body = b'{"reason": "spam"}'
    answer = await _ask(
        listener.port,
        b"POST /api/admin/players/x/ban HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer s3cret\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
    )
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert answer.endswith(b"POST " + body)
    (request,) = handler.requests
    assert (request.method, request.path, request.body) == (
        "POST",
        "/api/admin/players/x/ban",
        body,
    )
    assert request.headers["Authorization"] == "Bearer s3cret"


async def test_a_chunked_body_arrives_whole_and_a_future_answer_is_sent(served: Any) -> None:
    listener, handler = served
    chunks = b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    request = b"PUT /later HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
    answer = await _ask(listener.port, request + chunks + b"GET / HTTP/1.1\r\n\r\n")
    assert answer.endswith(b"PUT abcde")
    assert [r.method for r in handler.requests] == ["PUT"]  # the second request is not read


async def test_a_get_keeps_websockets_parser_and_frames_sent_early_are_read(served: Any) -> None:
    listener, handler = served
    reader, writer = await asyncio.open_connection("127.0.0.1", listener.port)
    writer.write(handshake_request(listener.port) + masked_frame(b"echo"))
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 2.0)
    assert head.startswith(b"HTTP/1.1 101")
    assert await read_frame(reader) == (Opcode.TEXT.value, b"echo")
    (request,) = handler.requests
    assert (request.method, request.path, request.body) == ("GET", "/ws", b"")
    writer.close()


def test_the_log_budget_holds_each_address_to_a_few_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    budget = LogBudget(clock)
    caplog.set_level(logging.INFO, "flowergarden.server")
    for _ in range(100):
        budget.note("10.0.0.1", "noted %s", "a")
    budget.note("10.0.0.2", "noted %s", "b")
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["noted a"] * PER_ADDRESS + ["noted b"]
    clock.now = SUMMARY_INTERVAL
    budget.tick()
    assert caplog.records[-1].getMessage().startswith("left 95 line(s) about 1 address(es)")
    clock.now += 60.0  # an address gets a line a minute back
    budget.note("10.0.0.1", "noted %s", "again")
    assert caplog.records[-1].getMessage() == "noted again"


def test_a_bug_is_logged_with_its_traceback_once(caplog: pytest.LogCaptureFixture) -> None:
    budget = LogBudget(FakeClock())
    caplog.set_level(logging.INFO, "flowergarden.server")
    for _ in range(50):
        try:
            raise ValueError("a bug")
        except ValueError as exc:
            budget.bug("10.0.0.1", exc)
    (logged,) = caplog.records
    assert logged.exc_info is not None


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
