"""Hostile clients after the server's resources: pings that are never read,
connections that never finish their handshake, more connections than the
server takes, and more than the process has file descriptors for.

Each is held to its documented bound (docs/protocol-notes.md, "Limits" and
"Transport") while a well-behaved player is served alongside.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os

import pytest
from websockets.exceptions import InvalidStatus
from websockets.frames import Opcode

from core.limits import RateLimiter

from .conftest import TIMEOUT
from .hostile_helpers import (
    eof_within,
    handshake_request,
    masked_frame,
    raw_handshake,
    read_frame,
    shrink_send_buffers,
    split_frames,
)
from .test_transport import FakeClock

PING = masked_frame(b"p" * 125, Opcode.PING.value)


async def test_pings_count_as_messages_and_a_ping_flood_is_closed_1008(start_server, player):
    server = await start_server(clock=FakeClock())  # frozen: the bucket never refills
    bystander = await player(server)
    reader, writer = await raw_handshake(server.port)
    writer.write(PING * 500)  # past the burst and past the patience after it
    pongs, texts = 0, []
    while (frame := await read_frame(reader))[0] != Opcode.CLOSE.value:
        opcode, payload = frame
        if opcode == Opcode.PONG.value:
            pongs += 1
        else:
            texts.append(json.loads(payload))
    assert int.from_bytes(frame[1][:2], "big") == 1008
    assert [(m["type"], m["code"]) for m in texts] == [("error", "rate_limited")]
    assert pongs < 500
    writer.close()
    await bystander.quiet()


async def test_pongs_to_a_client_that_never_reads_count_against_its_queue(start_server, player):
    # The rate limit lifted, so that only the queue stands between the flood and memory.
    unlimited = RateLimiter(burst=10**9, rate=1e9)
    server = await start_server(send_queue=16, limiter=lambda: unlimited)
    shrink_send_buffers(server.port)
    bystander = await player(server)
    reader, writer = await raw_handshake(server.port, rcvbuf=4096)
    with contextlib.suppress(ConnectionError):
        for _ in range(10):  # 640 KB of pings, 640 KB of pongs the client never takes
            writer.write(PING * 500)
            await writer.drain()
    # Cut off: the connection ends (reset, so what was on its way may be lost
    # too) after a prefix of the pongs, and without a close frame.
    frames = split_frames(await eof_within(reader))
    assert {opcode for opcode, _ in frames} <= {Opcode.PONG.value}
    assert len(frames) < 5000
    writer.close()
    await bystander.quiet()


async def test_unfinished_handshakes_count_against_the_per_address_cap(start_server, connect):
    server = await start_server(max_connections_per_ip=3)
    silent = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(2)]
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(handshake_request(server.port)[:30])  # half a request, and no more
    silent.append((reader, writer))
    with pytest.raises(InvalidStatus) as refused:
        await connect(server)
    assert refused.value.response.status_code == 429
    silent.pop()[1].close()
    # The slot is free again once the server has seen the connection go.
    async with asyncio.timeout(TIMEOUT):
        while True:
            with contextlib.suppress(InvalidStatus):
                await (await connect(server)).hello()
                break
    for _, idle in silent:
        idle.close()


async def test_past_max_connections_new_ones_get_503_then_are_closed_unread(start_server, player):
    server = await start_server(max_connections=3)
    welcomed = await player(server)
    held = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(2)]
    # Full: a new connection is told so, /healthz included (it cannot take players).
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = await eof_within(reader)
    assert answer.startswith(b"HTTP/1.1 503"), answer
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["status"] == "full"
    writer.close()
    # A few more still get their 503; past those the server does not even read.
    held += [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(16)]
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(handshake_request(server.port))
    assert await eof_within(reader) == b""
    writer.close()
    await welcomed.quiet()
    for _, idle in held:
        idle.close()


def _open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


ACCEPT_FAILED = "accept() failed"
"""The server's own lines about it; asyncio's would say "out of system resource"."""


async def test_running_out_of_file_descriptors_is_logged_once_not_per_accept(
    cli_server, player, tmp_path
):
    limit = 64
    cli = await cli_server(tmp_path / "fds.sqlite3", "--log-level", "DEBUG", nofile=limit)
    room = limit - _open_files(cli.process.pid)
    held = [await asyncio.open_connection("127.0.0.1", cli.port) for _ in range(room + 8)]

    def failures() -> int:
        ours = sum(ACCEPT_FAILED in line for line in cli.log)
        return max(ours, sum("out of system resource" in line for line in cli.log))

    # asyncio tries the listening socket again every second: wait for two failures.
    await cli.logged(lambda: failures() >= 2)
    assert not [line for line in cli.log if "out of system resource" in line or "Traceback" in line]
    warnings = [line for line in cli.log if ACCEPT_FAILED in line and "WARNING" in line]
    assert len(warnings) == 1, warnings
    assert "file descriptors" in warnings[0]
    for _, writer in held:
        writer.close()
    # With descriptors free again, the server goes on.
    await (await player(cli.url)).quiet()
    assert await cli.stop() == 0
