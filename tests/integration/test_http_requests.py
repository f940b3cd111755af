"""Hostile and unusual HTTP requests on the game's port, over raw sockets.

Each is answered (or closed cleanly) with at most one short line in the log
and no traceback, however often a client repeats it; requests with a body
are read whole, up to their limit (server/transport/request.py).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from server.transport.logbudget import IN_ALL, PER_ADDRESS
from server.transport.request import MAX_BODY

from .hostile_helpers import eof_within

if TYPE_CHECKING:
    import pytest

    from server.app import GameServer

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"


async def exchange(server: GameServer, data: bytes) -> bytes:
    """Write ``data`` and read everything until the server ends the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(data)
    try:
        return await eof_within(reader)
    finally:
        writer.close()


def status_of(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:80]
    return int(answer[9:12])


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """Errors and tracebacks logged, but websockets' own debug lines (the server keeps
    its logger at WARNING: server/__main__.py)."""
    return [
        r
        for r in caplog.records
        if (r.exc_info or r.levelno >= logging.ERROR) and not r.name.startswith("websockets")
    ]


async def test_pipelined_requests_get_the_first_answered_and_nothing_in_the_log(
    server, caplog
) -> None:
    caplog.set_level(logging.INFO)
    answer = await exchange(server, HEALTHZ * 3)
    assert status_of(answer) == 200
    assert answer.count(b"HTTP/1.1 ") == 1, "one request per connection: the rest is not read"
    assert b"Connection: close" in answer
    api = await exchange(server, b"GET /api/leaderboard HTTP/1.1\r\nHost: t\r\n\r\n" + HEALTHZ)
    assert status_of(api) == 200
    assert b'"players"' in api
    assert tracebacks(caplog) == []


async def test_a_get_with_a_body_is_answered_400_with_one_line(server, caplog) -> None:
    caplog.set_level(logging.INFO)
    request = b"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello"
    answer = await exchange(server, request)
    assert status_of(answer) == 400
    assert b"body" in answer
    refused = [r for r in caplog.records if "refused an HTTP request" in r.getMessage()]
    assert len(refused) == 1
    assert tracebacks(caplog) == []


async def test_a_client_repeating_bad_requests_logs_a_bounded_number_of_lines(
    server, player, caplog
) -> None:
    caplog.set_level(logging.DEBUG)
    bad = [
        HEALTHZ + HEALTHZ,
        b"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello",
        b"GET / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi",  # no Host
        b"\x16\x03\x01\x02\x00 garbage\r\n\r\n",
    ]
    for _ in range(40):
        answers = await asyncio.gather(*(exchange(server, request) for request in bad))
        assert all(status_of(answer) in (200, 400) for answer in answers)
    lines = [r for r in caplog.records if r.name in ("flowergarden.server", "asyncio")]
    assert len(lines) <= PER_ADDRESS + 1, [r.getMessage() for r in lines]
    assert PER_ADDRESS < IN_ALL
    assert tracebacks(caplog) == []
    client = await player(server)  # and the server goes on
    await client.send(type="lobby")
    await client.recv("lobby")


async def test_a_post_is_read_whole_and_answered_405_on_a_read_only_path(server) -> None:
    body = b'{"reason": "test"}'
    request = (
        b"POST /api/leaderboard HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer x\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    answer = await exchange(server, request)
    assert status_of(answer) == 405
    assert b"Allow: GET, HEAD" in answer


async def test_a_body_past_the_limit_is_413_even_while_the_client_still_sends(server) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    size = 4 * 1024 * 1024
    writer.write(b"POST /api/x HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n" % size)
    writer.write(b"x" * (MAX_BODY + 1))
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert status_of(head) == 413
    writer.close()


async def test_a_chunked_body_past_the_limit_is_413(server) -> None:
    chunk = b"x" * 4096
    chunks = b"".join(b"1000\r\n" + chunk + b"\r\n" for _ in range(MAX_BODY // 4096 + 1))
    request = b"POST /api/x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks
    assert status_of(await exchange(server, request)) == 413


async def test_malformed_requests_of_other_methods_are_400(server) -> None:
    for request in (
        b"POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi",  # HTTP/1.1 without Host
        b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"PUT /\x01 HTTP/1.1\r\nHost: t\r\n\r\n",
    ):
        assert status_of(await exchange(server, request)) == 400, request


async def test_a_client_that_expects_100_continue_gets_it(server) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(
        b"POST /api/x HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n"
    )
    interim = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert status_of(interim) == 100
    writer.write(b"hi")
    final = await eof_within(reader)
    assert status_of(final) == 405
    writer.close()
