"""The integration tests' players: a websocket client that keeps what it is told,
a race of two, and the board arithmetic to play one out (legal cards, a play applied).

Split from conftest.py, which re-exports every name here: tests import them from
``.conftest`` as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed

from protocol import decode_server

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

TIMEOUT = 5.0
"""How long a test waits for one message: far longer than any local round trip."""
RANKS = "A23456789TJQK"
WINNABLE = {"deal": "mirror", "winnable_only": True}

_names = itertools.count()


def fresh_name(prefix: str = "p") -> str:
    """A name no other player of the test session has."""
    return f"{prefix}{os.getpid() % 10000}x{next(_names)}"


# -- boards, as dicts off the wire ----------------------------------------------


def legal(board: dict[str, Any]) -> list[str]:
    """Cards playable on this board right now."""
    available = list(board["bouquet"]) + [bed[-1] for bed in board["beds"] if bed]
    foundations = board["foundations"]
    return [c for c in available if foundations[c[1]] == RANKS.index(c[0])]


def apply(board: dict[str, Any], card: str) -> dict[str, Any]:
    """The board after playing ``card`` (assumed legal)."""
    beds = [list(bed) for bed in board["beds"]]
    bouquet = [c for c in board["bouquet"] if c != card]
    for bed in beds:
        if bed and bed[-1] == card:
            bed.pop()
    foundations = dict(board["foundations"])
    foundations[card[1]] += 1
    return {
        **board,
        "beds": beds,
        "bouquet": bouquet,
        "foundations": foundations,
        "count": sum(foundations.values()),
    }


def buried(board: dict[str, Any]) -> str:
    """A card on the board that cannot be played now."""
    playable = set(legal(board))
    return next(bed[0] for bed in board["beds"] if len(bed) > 1 and bed[0] not in playable)


# -- clients --------------------------------------------------------------------


class Client:
    """One websocket client; every frame it receives is checked against the protocol.

    ``sock`` is its TCP socket, for what websockets' API does not do: several
    frames in one write (``hostile_helpers.write_at_once``), or the connection
    dropped without a closing handshake (:meth:`drop`).
    """

    def __init__(self, ws: ClientConnection, sock: socket.socket) -> None:
        self.ws = ws
        self.sock = sock
        self.welcome: dict[str, Any] = {}

    def drop(self) -> None:
        """End the TCP connection at once, without a closing handshake."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)

    @property
    def token(self) -> str:
        return str(self.welcome["token"])

    @property
    def player_id(self) -> str:
        return str(self.welcome["player_id"])

    @property
    def name(self) -> str:
        return str(self.welcome["name"])

    async def hello(self, name: str | None = None, **fields: Any) -> dict[str, Any]:
        """Say hello and expect ``welcome``."""
        await self.send(type="hello", name=name or fresh_name(), **fields)
        self.welcome = await self.recv("welcome")
        return self.welcome

    async def send(self, **fields: Any) -> None:
        await self.ws.send(json.dumps(fields))

    async def send_raw(self, frame: str | bytes) -> None:
        await self.ws.send(frame)

    async def recv(self, *types: str) -> dict[str, Any]:
        """The next message, which must be valid and of one of ``types`` (if any)."""
        frame = await asyncio.wait_for(self.ws.recv(), TIMEOUT)
        assert isinstance(frame, str), f"a binary frame from the server: {frame!r}"
        decode_server(frame)  # raises if the server sent something PROTOCOL.md does not allow
        message: dict[str, Any] = json.loads(frame)
        if types:
            assert message["type"] in types, f"expected {types}, got {message}"
        return message

    async def error(self, code: str, **fields: Any) -> dict[str, Any]:
        """The next message must be an ``error`` with this code (and these fields)."""
        message = await self.recv("error")
        assert message["code"] == code, message
        for key, value in fields.items():
            assert message.get(key) == value, (key, message)
        return message

    async def until(self, *types: str) -> list[dict[str, Any]]:
        """Every message up to and including the first of one of ``types``."""
        seen = []
        while True:
            message = await self.recv()
            seen.append(message)
            if message["type"] in types:
                return seen

    async def expect_close(self, code: int | None) -> list[dict[str, Any]]:
        """Read until the server closes with ``code`` (None: drops the connection, no
        close frame); the messages before the close."""
        seen = []
        try:
            while True:
                seen.append(await self.recv())
        except ConnectionClosed as closed:
            if code is None:
                assert closed.rcvd is None, f"closed with a close frame: {closed}"
            else:
                assert closed.rcvd is not None, f"closed without a close frame: {closed}"
                assert closed.rcvd.code == code, f"closed with {closed.rcvd.code}, not {code}"
        return seen

    async def quiet(self) -> None:
        """Assert that nothing is waiting: a round trip with ``lobby`` gets its reply first."""
        await self.send(type="lobby", id="quiet")
        message = await self.recv()
        assert message["type"] == "lobby", f"unexpected {message}"

    async def close(self) -> None:
        await self.ws.close()


@dataclass
class Race:
    """Two players in a race, as their ``game_start`` messages show it."""

    a: Client
    b: Client
    start_a: dict[str, Any]
    start_b: dict[str, Any]

    @property
    def game_id(self) -> str:
        return str(self.start_a["game_id"])

    @property
    def seat_a(self) -> int:
        return int(self.start_a["seat"])

    @property
    def seat_b(self) -> int:
        return int(self.start_b["seat"])

    def board_a(self) -> dict[str, Any]:
        return dict(self.start_a["boards"][self.seat_a])

    def board_b(self) -> dict[str, Any]:
        return dict(self.start_b["boards"][self.seat_b])


async def play_out(
    client: Client, board: dict[str, Any], limit: int = 52
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play up to ``limit`` legal cards one at a time; the board after and the ``played`` acks."""
    acks = []
    while legal(board) and len(acks) < limit:
        card = legal(board)[0]
        await client.send(type="play", card=card)
        ack = await client.recv("played")
        assert ack["card"] == card, ack
        acks.append(ack)
        board = apply(board, card)
    return board, acks
