"""Hostile byte streams after hello: frames of every kind, cut anywhere by TCP.

Once a player has said hello the server reads plain text frames itself and
hands anything else to websockets from that frame on
(``server.transport.connection.Connection``). Each stream here mixes plain
messages with frames that take websockets' path (pings, pongs, fragments,
an 8-byte length) and frames websockets refuses (binary, unmasked, reserved
bits, invalid UTF-8, an unfinished fragmented message), written in pieces
cut at random. Whatever comes, the server either answers every ``lobby``
request in order or closes with the code its protocol documents for the
first frame it refuses, never fails (1011, or a connection dropped without a
close frame), logs no error, and serves a bystander throughout.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from websockets.frames import Opcode

from fuzz.frames_fuzz import client_frame

from .conftest import fresh_name
from .hostile_helpers import drawn, masked_frame, raw_handshake, read_frame

if TYPE_CHECKING:
    import asyncio

    from server.app import GameServer

STREAMS = 60

CLOSES = {"binary": 1003, "unmasked": 1002, "reserved bit": 1002, "not utf-8": 1007}
"""The frames the server refuses, and the close code each gets."""
UNFINISHED = 1002
"""A fragmented message cut off by any frame but its continuation."""
OVERTAKEN_BY: dict[str, set[str]] = {}
"""Later frames whose close may come first: none. The server cuts the stream
into frames itself and deals with each before reading the next, so the first
frame it refuses is the one whose close code the client gets: a binary
frame's close (1003) is sent at once, behind the answers already queued, and
a text frame that is not UTF-8 fails the connection (1007) before the frame
behind it is read."""


def _text(payload: bytes) -> bytes:
    return masked_frame(payload)


def _frame(kind: str, request: int, junk: str) -> bytes:
    lobby = json.dumps({"type": "lobby", "id": request}).encode()
    match kind:
        case "lobby":
            return _text(lobby)
        case "junk":  # answered with an error, not closed
            return _text(junk.encode())
        case "ping" | "pong":
            return masked_frame(b"hi", Opcode[kind.upper()].value)
        case "fragments":
            return masked_frame(lobby[:4], fin=False) + masked_frame(lobby[4:], Opcode.CONT.value)
        case "long length":
            return bytes([0x81, 0xFF]) + len(lobby).to_bytes(8, "big") + bytes(4) + lobby
        case "binary":
            return masked_frame(lobby, Opcode.BINARY.value)
        case "unmasked":
            return client_frame(lobby, mask=False)
        case "reserved bit":
            plain = _text(lobby)
            return bytes([plain[0] | 0x40]) + plain[1:]
        case "not utf-8":
            return _text(b'{"type": "lobby", "x": "\xff"}')
        case _:  # "unfinished": the start of a fragmented message
            return masked_frame(lobby[:4], fin=False)


KINDS = ["lobby"] * 6 + ["junk", "ping", "pong", "fragments", "long length"]
KINDS += [*CLOSES, "unfinished"]


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[str], bytes, list[int]]:
    """The kinds of its frames, the bytes, and where TCP cuts them."""
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=8))
    junk = draw(st.text(st.characters(exclude_categories=["Cs"]), max_size=12))
    data = b"".join(_frame(kind, i, junk) for i, kind in enumerate(kinds))
    data += _text(json.dumps({"type": "lobby", "id": "end"}).encode())
    cuts = draw(st.lists(st.integers(1, len(data) - 1), max_size=4, unique=True))
    return kinds, data, sorted(cuts)


def expected(kinds: list[str]) -> tuple[list[int], set[int | None]]:
    """The ``lobby`` ids answered before the first refused frame, and the close codes
    that may end the stream (None: none, ``end`` is answered).

    See ``OVERTAKEN_BY`` for why there may be more than one.
    """
    answered: list[int] = []
    for i, kind in enumerate(kinds):
        if kind == "unfinished":
            return answered, {UNFINISHED}  # whatever comes next, even "end"
        if kind in CLOSES:
            later = set(kinds[i + 1 :]) & OVERTAKEN_BY.get(kind, set())
            return answered, {CLOSES[kind], *(CLOSES.get(k, UNFINISHED) for k in later)}
        if kind in ("lobby", "fragments", "long length"):
            answered.append(i)
    return answered, {None}


async def outcome(reader: asyncio.StreamReader) -> tuple[list[int], int | None]:
    """The ``lobby`` ids answered, up to ``end``; and the close code, if closed."""
    answered: list[int] = []
    while True:
        opcode, payload = await read_frame(reader)
        if opcode == Opcode.CLOSE.value:
            return answered, int.from_bytes(payload[:2], "big")
        if opcode != Opcode.TEXT.value:
            continue  # the pong
        reply = json.loads(payload)
        if reply["type"] == "lobby" and reply.get("id") == "end":
            return answered, None
        if reply["type"] == "lobby":
            answered.append(reply["id"])


async def test_any_stream_of_frames_cut_anywhere_is_answered_or_closed_as_documented(
    server: GameServer, player: Any, caplog: Any
) -> None:
    caplog.set_level(logging.WARNING)
    bystander = await player(server)
    for number, (kinds, data, cuts) in enumerate(drawn(streams(), STREAMS)):
        reader, writer = await raw_handshake(server.port)
        writer.write(masked_frame(json.dumps({"type": "hello", "name": fresh_name()}).encode()))
        assert json.loads((await read_frame(reader))[1])["type"] == "welcome"
        for start, stop in zip([0, *cuts], [*cuts, len(data)], strict=True):
            writer.write(data[start:stop])
            await writer.drain()
        answered, code = await outcome(reader)
        want_answered, want_codes = expected(kinds)
        assert code in want_codes, kinds
        # A refused frame drops the answers still queued: what came is a prefix, in order.
        assert answered == want_answered[: len(answered)], kinds
        if code is None:
            assert answered == want_answered, kinds
        writer.close()
        if number % 10 == 0:  # the bystander keeps within its rate limit however many
            await bystander.send(type="lobby", id=number)
            assert (await bystander.recv("lobby"))["id"] == number
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
