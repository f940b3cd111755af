"""The load generator's connections (:mod:`bench.loadgen`): what each sends, and how it
reads what comes back.

Every connection keeps one request in flight and times it from the moment it
is written until its reply (:meth:`Client.send`, :meth:`Client.land`); the
shared counts and the window are the :class:`~bench.loadgen.Generator`'s.
An :class:`Echoer` sends a play-shaped frame and waits for its echo. A
:class:`Racer` is a player of the race server: ``hello``, ``seek`` with
``mirror`` and ``winnable_only``, the whole board played out (the engine's
first legal play each time, :class:`~bench.clearing.ClearingOrder`), then
``seek`` again. The players of ``--pairing rooms`` are
:class:`bench.room_pairs.RoomRacer`.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any, ClassVar

from picows import WSFrame, WSListener, WSMsgType, WSTransport

from .clearing import PLAY, ClearingOrder

if TYPE_CHECKING:
    from collections.abc import Callable

    from .generator import Generator

__all__ = ["ECHO_FRAME", "Client", "Echoer", "Racer"]

ECHO_FRAME = PLAY % b"QH"
"""What an echo connection sends: the size and shape of a race player's ``play``."""
PLAYED_PREFIX = b'{"type":"played",'
SEAT_KEY = b'"seat":'
ZERO = ord("0")
SEEK = b'{"type":"seek","rules":{"deal":"mirror","winnable_only":true}}'


class Client(WSListener):
    """One connection; the subclasses say what it sends."""

    def __init__(self, gen: Generator, index: int) -> None:
        super().__init__()
        self.gen = gen
        self.index = index
        self.transport: WSTransport | None = None
        self.sent_ns = 0
        self.waiting = False
        self.closed = False

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type == WSMsgType.TEXT:
            self.on_text(frame.get_payload_as_bytes())
        elif frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        self.closed = True
        if self.waiting:
            self.waiting = False
            self.gen.errors += 1
            self.gen.landed()

    def send(self, data: bytes) -> None:
        """Send one request and start its clock."""
        assert self.transport is not None
        self.waiting = True
        self.gen.in_flight += 1
        self.sent_ns = time.perf_counter_ns()
        self.write(data)

    def write(self, data: bytes) -> None:
        """One text frame."""
        assert self.transport is not None
        self.gen.sent += 1
        self.transport.send(WSMsgType.TEXT, data)

    def land(self) -> None:
        """The reply to the request in flight came back."""
        self.waiting = False
        self.gen.landed()

    def start(self) -> None:
        raise NotImplementedError

    def on_text(self, data: bytes) -> None:
        raise NotImplementedError


class Echoer(Client):
    def start(self) -> None:
        self.send(ECHO_FRAME)

    def on_text(self, data: bytes) -> None:
        self.gen.acknowledged(self.sent_ns)
        self.land()
        if not self.gen.stopping:
            self.send(ECHO_FRAME)


class Racer(Client):
    """A player: hello, seek, play the whole board, seek again."""

    def __init__(self, gen: Generator, index: int) -> None:
        super().__init__(gen, index)
        self.seat = -1
        self.order = ClearingOrder.NONE
        self.next = 0
        self.over = True
        self.welcomed = False

    def on_ws_connected(self, transport: WSTransport) -> None:
        super().on_ws_connected(transport)
        name = f"b{os.getpid() % 10_000}x{self.index}"
        self.write(json.dumps({"type": "hello", "name": name}).encode())

    def start(self) -> None:
        if self.welcomed:
            self.write(SEEK)

    def next_race(self) -> None:
        """After ``game_over``: seek again."""
        self.write(SEEK)

    def on_text(self, data: bytes) -> None:
        # Two of every three frames a player gets are ``played``: the server
        # writes them compact and in field order, so the seat is read from the
        # bytes (the server's frame for seat 0 or 1 is one of two shapes)
        # rather than parsing the JSON, keeping the generator cheap per frame.
        if data.startswith(PLAYED_PREFIX):
            at = data.find(SEAT_KEY)
            if at > 0:
                self._played_by(data[at + len(SEAT_KEY)] - ZERO)
                return
        message = json.loads(data)
        handler = self._handlers.get(message["type"])
        if handler is not None:
            handler(self, message)

    def _played(self, message: dict[str, object]) -> None:
        seat = message["seat"]
        assert isinstance(seat, int)
        self._played_by(seat)

    def _played_by(self, seat: int) -> None:
        if seat != self.seat or not self.waiting:
            return  # the opponent's play
        self.gen.acknowledged(self.sent_ns)
        self.land()
        self._play_next()

    def _play_next(self) -> None:
        if self.over or self.gen.stopping:
            return
        frame = self.order.frame(self.next)
        if frame is not None:
            self.next += 1
            self.send(frame)

    def _game_start(self, message: dict[str, object]) -> None:
        self.seat = message["seat"]  # type: ignore[assignment]
        boards: list[dict[str, object]] = message["boards"]  # type: ignore[assignment]
        # Both seats of a mirror race have the same layout, so they share one
        # order, worked out a play at a time as the faster seat needs it.
        game_id: str = message["game_id"]  # type: ignore[assignment]
        order = self.gen.orders.pop(game_id, None)
        if order is None:
            order = self.gen.orders[game_id] = ClearingOrder(boards[self.seat])
        self.order = order
        self.next, self.over = 0, False
        self._play_next()

    def _game_over(self, message: dict[str, object]) -> None:
        self.over = True
        self.gen.races += self.seat  # each race once: its seat 1 player counts it
        if not self.waiting and not self.gen.stopping:
            self.next_race()

    def _error(self, message: dict[str, object]) -> None:
        # The loser's last play may reach the server after the race ended:
        # its answer is game_over, which is no fault of the server's.
        if message.get("code") != "game_over":
            self.gen.errors += 1
        if self.waiting:
            self.land()
        if self.over and not self.gen.stopping:
            self.next_race()

    def _welcome(self, message: dict[str, object]) -> None:
        self.welcomed = True

    _handlers: ClassVar[dict[str, Callable[[Any, dict[str, object]], None]]] = {
        "played": _played,
        "game_start": _game_start,
        "game_over": _game_over,
        "error": _error,
        "welcome": _welcome,
    }
