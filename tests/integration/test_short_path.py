"""The short path: once the websocket is open, the connection cuts frames
itself and hands plain text messages to the glue without websockets' parser
(``server.transport.connection.Connection``), everything else to websockets' protocol.
These tests hold both paths to the same behaviour: order kept while a hello
waits and across the paths, frames cut short or behind a ping read whole and
in order, fragmented messages, invalid UTF-8 and frames websockets refuses
still judged by websockets, frames sent with the handshake request, a failing
handler still closing with 1011 and nothing else; and they check that plain
frames do skip the protocol, through its public ``receive_data``."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import pytest
from websockets.frames import Opcode

from fuzz.frames_fuzz import client_frame

from .conftest import TIMEOUT, fresh_name, legal
from .hostile_helpers import (
    handshake_request,
    masked_frame,
    raw_handshake,
    read_close_code,
    read_frame,
    write_at_once,
)

if TYPE_CHECKING:
    from server.app import GameServer


def _frame(message: dict[str, Any]) -> bytes:
    return masked_frame(json.dumps(message).encode())


def _lobby(request: int) -> bytes:
    return _frame({"type": "lobby", "id": request})


async def _replies(reader: Any, count: int) -> list[dict[str, Any]]:
    replies = []
    for _ in range(count):
        opcode, payload = await read_frame(reader)
        assert opcode == Opcode.TEXT.value
        replies.append(json.loads(payload))
    return replies


def _break_lobby_on(server: GameServer, monkeypatch: Any, kind: str) -> None:
    """Make the lobby raise, as a bug would, on every message of type ``kind``."""
    handle = server.lobby.handle

    def fails(player_id: str, message: Any, now: float) -> Any:
        if message.type == kind:
            raise RuntimeError("a bug in the lobby")
        return handle(player_id, message, now)

    monkeypatch.setattr(server.lobby, "handle", fails)


async def test_messages_written_with_hello_are_answered_in_order(server: GameServer) -> None:
    reader, writer = await raw_handshake(server.port)
    # The first twenty arrive while hello waits for the store: they wait,
    # then are handled in order; the next twenty are handled as they come.
    hello = _frame({"type": "hello", "name": fresh_name()})
    writer.write(hello + b"".join(_lobby(i) for i in range(20)))
    welcome, *first = await _replies(reader, 21)
    assert welcome["type"] == "welcome"
    writer.write(b"".join(_lobby(i) for i in range(20, 40)))
    second = await _replies(reader, 20)
    assert [(r["type"], r["id"]) for r in first + second] == [("lobby", i) for i in range(40)]
    writer.close()


async def _welcomed(server: GameServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A websocket opened by hand whose player has said hello and been welcomed."""
    reader, writer = await raw_handshake(server.port)
    writer.write(_frame({"type": "hello", "name": fresh_name()}))
    assert (await _replies(reader, 1))[0]["type"] == "welcome"
    return reader, writer


async def test_plain_text_frames_skip_the_protocol_and_others_do_not(
    server: GameServer, monkeypatch: Any
) -> None:
    reader, writer = await _welcomed(server)
    (connection,) = server._listener.connections  # type: ignore[union-attr]
    fed: list[bytes] = []
    receive_data = connection.protocol.receive_data

    def spy(data: bytes) -> None:
        fed.append(data)
        receive_data(data)

    monkeypatch.setattr(connection.protocol, "receive_data", spy)
    ping = masked_frame(b"hi", Opcode.PING.value)
    writer.write(_lobby(1) + ping + _lobby(2))
    frames = [await read_frame(reader) for _ in range(3)]
    assert [json.loads(p)["id"] for op, p in frames if op == Opcode.TEXT.value] == [1, 2]
    assert fed == [ping]
    writer.close()


async def test_frames_in_the_same_write_as_the_handshake_are_read_in_order(
    server: GameServer,
) -> None:
    # The protocol has read past the request: from then on it reads everything.
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    hello, first = _frame({"type": "hello", "name": fresh_name()}), _lobby(1)
    writer.write(handshake_request(server.port) + hello + first[:9])
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
    assert head.startswith(b"HTTP/1.1 101"), head
    assert (await _replies(reader, 1))[0]["type"] == "welcome"
    writer.write(first[9:] + _lobby(2))
    assert [r["id"] for r in await _replies(reader, 2)] == [1, 2]
    writer.close()


async def test_frames_cut_short_or_behind_a_ping_are_answered_in_order(
    server: GameServer,
) -> None:
    reader, writer = await _welcomed(server)
    padded = json.dumps({"type": "lobby", "id": 3}).encode().ljust(300)  # a 2-byte length
    ping = masked_frame(b"hi", Opcode.PING.value)
    data = _lobby(1) + ping + _lobby(2) + masked_frame(padded) + _lobby(4)
    # Cut inside a header, inside a payload and inside the ping.
    for start, stop in [(0, 1), (1, 10), (10, len(_lobby(1)) + 3), (len(_lobby(1)) + 3, None)]:
        writer.write(data[start:stop])
        await writer.drain()
    frames = [await read_frame(reader) for _ in range(5)]
    assert (Opcode.PONG.value, b"hi") in frames
    lobbies = [json.loads(payload) for opcode, payload in frames if opcode == Opcode.TEXT.value]
    assert [r["id"] for r in lobbies] == [1, 2, 3, 4]
    writer.close()


async def test_a_frame_cut_short_is_never_read_from_its_middle(server: GameServer) -> None:
    reader, writer = await _welcomed(server)
    # The id's last bytes, from the second byte of U+E045 (EE 81 85) on, read
    # as a whole frame of their own: 81 85 (text, masked, 5 bytes), the mask
    # AAAA and five bytes. Masked with zeros, the payload goes out as it is.
    payload = json.dumps({"type": "lobby", "id": "\ue045" + "A" * 9}, ensure_ascii=False).encode()
    frame = bytes([0x81, 0x80 | len(payload)]) + bytes(4) + payload
    cut = frame.index(b"\xee\x81\x85") + 1
    writer.write(_lobby(0) + frame[:cut])
    assert (await _replies(reader, 1))[0]["id"] == 0  # so the server has read the cut
    writer.write(frame[cut:])
    assert (await _replies(reader, 1))[0]["id"] == "\ue045" + "A" * 9
    writer.close()


async def test_a_frame_cut_after_its_header_is_never_read_from_its_payload(
    server: GameServer,
) -> None:
    reader, writer = await _welcomed(server)
    # Cut after the mask: the connection holds the header until the payload
    # comes. The payload looks like a whole frame, but is a text message
    # that is not UTF-8, which the connection fails with 1007.
    payload = bytes([0x81, 0x85]) + b"A" * 9
    frame = bytes([0x81, 0x80 | len(payload)]) + bytes(4) + payload
    writer.write(_lobby(0) + frame[:6])
    assert (await _replies(reader, 1))[0]["id"] == 0  # so the server has read the cut
    writer.write(frame[6:])
    opcode, close = await read_frame(reader)
    assert (opcode, int.from_bytes(close[:2], "big")) == (Opcode.CLOSE.value, 1007)
    writer.close()


async def test_a_text_frame_inside_a_fragmented_message_closes_1002(server: GameServer) -> None:
    reader, writer = await _welcomed(server)
    # Between frames, but inside a message: only a continuation may come, and
    # a whole text frame, plain as it is, goes to websockets, which refuses it.
    writer.write(_lobby(0) + masked_frame(b'{"type":', fin=False))
    assert (await _replies(reader, 1))[0]["id"] == 0  # so the server has read the start
    writer.write(_lobby(1))
    assert await read_close_code(reader) == 1002
    writer.close()


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (client_frame(b'{"type":"lobby"}', mask=False), 1002),
        (client_frame(b'{"type":"lobby"}', rsv=4), 1002),
        (masked_frame(b" " * 4097), 1009),  # the default --max-message is 4096
    ],
    ids=["unmasked", "reserved bit", "over the limit"],
)
async def test_frames_websockets_refuses_after_hello_close_the_connection(
    server: GameServer, frame: bytes, code: int
) -> None:
    assert server.settings.max_message == 4096
    reader, writer = await _welcomed(server)
    writer.write(_lobby(1) + frame)  # a plain frame first, so the short path reads the write
    assert await read_close_code(reader) == code
    writer.close()


async def test_a_fragmented_message_after_hello_is_read_whole_and_in_order(
    server: GameServer,
) -> None:
    reader, writer = await _welcomed(server)
    text = json.dumps({"type": "lobby", "id": "whole"}).encode()
    writer.write(
        masked_frame(text[:5], fin=False)
        + masked_frame(text[5:12], Opcode.CONT.value, fin=False)
        + masked_frame(text[12:], Opcode.CONT.value)
        + _lobby(2)
    )
    replies = await _replies(reader, 2)
    assert [r["id"] for r in replies] == ["whole", 2]
    writer.close()


async def test_text_that_is_not_utf8_after_hello_closes_1007(server: GameServer) -> None:
    reader, writer = await _welcomed(server)
    writer.write(masked_frame(b'{"type": "lobby", "x": "\xff"}'))
    assert await read_close_code(reader) == 1007
    writer.close()


async def test_a_failing_handler_closes_1011_and_the_server_goes_on(
    server: GameServer, monkeypatch: Any, player: Any
) -> None:
    bystander = await player(server)
    reader, writer = await _welcomed(server)
    _break_lobby_on(server, monkeypatch, "cancel")
    # The lobby request behind the failing one, in the same write, gets no answer.
    writer.write(_frame({"type": "cancel"}) + _lobby(1))
    opcode, payload = await read_frame(reader)
    assert opcode == Opcode.CLOSE.value
    assert int.from_bytes(payload[:2], "big") == 1011
    writer.close()
    await bystander.send(type="lobby", id="still")
    assert (await bystander.recv("lobby"))["id"] == "still"


async def test_nothing_more_is_handled_after_a_failing_message(
    server: GameServer, monkeypatch: Any, race: Any
) -> None:
    racing = await race(server)
    _break_lobby_on(server, monkeypatch, "redeal")
    card = legal(racing.board_a())[0]
    # The play right behind the failing message, in the same write, is not made.
    write_at_once(
        racing.a, json.dumps({"type": "redeal"}), json.dumps({"type": "play", "card": card})
    )
    assert await racing.a.expect_close(1011) == []
    assert (await racing.b.recv())["type"] == "opponent_away"
