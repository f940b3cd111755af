"""The short path: once a player has said hello, whole text messages skip
websockets' queue (``server.connection.GameConnection``). These tests hold the
two paths to the same behaviour: order kept across the switch, fragmented
messages and invalid UTF-8 still handled by websockets, a failing handler
still closing with 1011 and nothing else."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from websockets.frames import Opcode

from .conftest import fresh_name, legal
from .hostile_helpers import (
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
    # The first twenty arrive while hello waits for the store: they queue,
    # then go through the handler; the next twenty take the short path.
    hello = _frame({"type": "hello", "name": fresh_name()})
    writer.write(hello + b"".join(_lobby(i) for i in range(20)))
    welcome, *first = await _replies(reader, 21)
    assert welcome["type"] == "welcome"
    writer.write(b"".join(_lobby(i) for i in range(20, 40)))
    second = await _replies(reader, 20)
    assert [(r["type"], r["id"]) for r in first + second] == [("lobby", i) for i in range(40)]
    writer.close()


async def test_a_fragmented_message_after_hello_is_read_whole_and_in_order(
    server: GameServer,
) -> None:
    reader, writer = await raw_handshake(server.port)
    writer.write(_frame({"type": "hello", "name": fresh_name()}))
    assert (await _replies(reader, 1))[0]["type"] == "welcome"
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
    reader, writer = await raw_handshake(server.port)
    writer.write(_frame({"type": "hello", "name": fresh_name()}))
    assert (await _replies(reader, 1))[0]["type"] == "welcome"
    writer.write(masked_frame(b'{"type": "lobby", "x": "\xff"}'))
    assert await read_close_code(reader) == 1007
    writer.close()


async def test_a_failing_handler_closes_1011_and_the_server_goes_on(
    server: GameServer, monkeypatch: Any, player: Any
) -> None:
    bystander = await player(server)
    reader, writer = await raw_handshake(server.port)
    writer.write(_frame({"type": "hello", "name": fresh_name()}))
    assert (await _replies(reader, 1))[0]["type"] == "welcome"
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
