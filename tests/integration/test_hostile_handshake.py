"""Hostile clients at the edges of a connection: half a handshake, oversized and
binary frames, text that is not UTF-8, and a ``hello`` that never comes.

Each hostile connection is dealt with by its documented limit while
well-behaved players connected alongside are not disturbed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import struct

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.frames import Opcode

from .conftest import TIMEOUT, legal
from .hostile_helpers import (
    Lockstep,
    eof_within,
    handshake_request,
    masked_frame,
    raw_handshake,
    read_close_code,
    read_frame,
    watch,
)

MIB = 1 << 20


async def test_half_handshakes_are_dropped_in_time_while_others_race(start_server, race, player):
    server = await start_server(hello_timeout=1.0)  # also websockets' open_timeout
    stalled = []
    for _ in range(20):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /ws HTTP/1.1\r\nHost: x\r\n")  # and never the rest
        stalled.append((reader, writer))
    # Meanwhile a whole race, watched, goes as usual.
    racing = await race(server)
    spectator = await player(server)
    await watch(spectator, racing.game_id)
    await Lockstep(racing, [spectator]).finish()
    for reader, writer in stalled:
        assert await eof_within(reader) == b"", "the server answered half a request"
        writer.close()


async def test_a_handshake_sent_a_byte_at_a_time_still_opens(server, player):
    # The opposite case, so that the timeout above is not taken for impatience.
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    for byte in handshake_request(server.port):
        writer.write(bytes([byte]))
        await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
    assert head.startswith(b"HTTP/1.1 101"), head
    writer.close()
    await (await player(server)).quiet()


async def _send_ignoring_close(send: asyncio.Future[None] | asyncio.Task[None]) -> None:
    with contextlib.suppress(ConnectionClosed):
        await send


async def test_a_1_mib_frame_closes_1009(server, connect, player):
    bystander = await player(server)
    after_hello = await player(server)
    sending = asyncio.create_task(after_hello.send_raw("x" * MIB))
    assert await after_hello.expect_close(1009) == []
    await _send_ignoring_close(sending)
    before_hello = await connect(server)
    sending = asyncio.create_task(
        before_hello.send_raw(json.dumps({"type": "hello", "n": "x" * MIB}))
    )
    assert await before_hello.expect_close(1009) == []
    await _send_ignoring_close(sending)
    await bystander.quiet()


async def test_a_frame_that_claims_an_exabyte_closes_1009_at_once(server, player):
    bystander = await player(server)
    reader, writer = await raw_handshake(server.port)
    # FIN + text, masked, 64-bit length 2**60; then the mask key and no payload.
    writer.write(bytes([0x81, 0x80 | 127]) + struct.pack("!Q", 1 << 60) + b"\x00\x00\x00\x00")
    assert await read_close_code(reader) == 1009
    writer.close()
    await bystander.quiet()


async def test_a_message_fragmented_past_the_limit_closes_1009(server, player):
    bystander = await player(server)
    client = await player(server)
    sending = asyncio.create_task(client.ws.send(["x" * 1024] * 8))  # 8 frames, 8 KiB in all
    assert await client.expect_close(1009) == []
    await _send_ignoring_close(sending)
    await bystander.quiet()


async def test_a_racer_sending_binary_is_closed_1003_and_the_race_goes_on(
    start_server, race, player
):
    server = await start_server(grace=30)
    racing = await race(server)
    spectator = await player(server)
    await watch(spectator, racing.game_id)
    await racing.b.send_raw(b"")  # even empty
    assert await racing.b.expect_close(1003) == []
    await racing.a.recv("opponent_away")
    await spectator.quiet()  # spectators are not told of a racer's connection
    card = legal(racing.board_a())[0]
    await racing.a.send(type="play", card=card)
    played = await racing.a.recv("played")
    assert await spectator.recv("played") == played


async def test_text_that_is_not_utf8_closes_1007(server, player):
    # RFC 6455 (8.1) requires it: websockets fails the connection before the
    # decoder could answer bad_json (which is what protocol.decode says of such bytes).
    bystander = await player(server)
    reader, writer = await raw_handshake(server.port)
    writer.write(masked_frame(b'{"type": "lobby", "x": "\xff"}'))
    assert await read_close_code(reader) == 1007
    writer.close()
    await bystander.quiet()


async def test_a_burst_of_pings_is_answered_and_the_connection_lives(server, player):
    # Pings count as messages: a burst of 200 with 125-byte payloads is
    # answered with pongs and the connection lives (past it: test_hostile_resources.py).
    bystander = await player(server)
    reader, writer = await raw_handshake(server.port)
    writer.write(masked_frame(b"p" * 125, Opcode.PING.value) * 200)
    for _ in range(200):
        opcode, payload = await read_frame(reader)
        assert (opcode, payload) == (Opcode.PONG.value, b"p" * 125)
    writer.write(masked_frame(json.dumps({"type": "lobby", "id": 7}).encode()))
    opcode, payload = await read_frame(reader)
    assert json.loads(payload)["code"] == "hello_first"
    writer.close()
    await bystander.quiet()


async def test_hellos_that_never_come_are_closed_and_free_their_slots(
    start_server, connect, player
):
    server = await start_server(hello_timeout=0.5, max_connections_per_ip=10)
    welcomed = await player(server)
    silent = [await connect(server) for _ in range(8)]
    chatty = await connect(server)  # talks all the time, but never says hello
    with pytest.raises(InvalidStatus) as refused:
        await connect(server)
    assert refused.value.response.status_code == 429
    for i in range(5):
        await chatty.send(type="lobby", id=i)
        await chatty.error("hello_first", id=i)
    await chatty.expect_close(1008)
    for client in silent:
        assert await client.expect_close(1008) == []
    await welcomed.quiet()  # said hello in time: still here
    # Their slots are free again once the server has seen them go.
    async with asyncio.timeout(TIMEOUT):
        while True:
            try:
                late = await connect(server)
                break
            except InvalidStatus:
                continue
    await late.hello()
