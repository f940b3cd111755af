"""The state the load generator's connections share (:mod:`bench.loadgen`): the window
and its counts, and the connections themselves, made by :meth:`Generator.client`.
"""

from __future__ import annotations

import asyncio
import time
from array import array
from typing import TYPE_CHECKING, Literal, TypeAlias

from .clients import Client, Echoer, Racer
from .room_pairs import Openings, RoomRacer

if TYPE_CHECKING:
    from .clearing import ClearingOrder

__all__ = ["Generator", "Mode", "Pairing"]

Mode: TypeAlias = Literal["race", "echo"]
Pairing: TypeAlias = Literal["seek", "rooms"]


class Generator:
    """The shared state of all connections: the window and its counts."""

    def __init__(
        self,
        mode: Mode,
        *,
        lockstep: bool = False,
        pairing: Pairing = "seek",
    ) -> None:
        self.mode = mode
        self.pairing = pairing
        self.sent = 0
        """Frames written, over the whole run."""
        self.lockstep = lockstep
        self.clients: list[Client] = []
        self.latencies = array("q")  # nanoseconds, round trips inside the window only
        self.recording = False
        self.stopping = False
        self.races = 0
        self.errors = 0
        self.in_flight = 0
        self.drained = asyncio.Event()
        self.orders: dict[str, ClearingOrder] = {}
        """A mirror race's plays, begun by its first player, for its second."""
        self.openings = Openings()

    def client(self, index: int) -> Client:
        client: Client
        if self.mode == "echo":
            client = Echoer(self, index)
        elif self.pairing == "rooms":
            client = RoomRacer(self, index)
        else:
            client = Racer(self, index)
        self.clients.append(client)
        return client

    def start(self, spread: float = 0.0) -> None:
        """Every client starts; the ``k``-th of ``n`` pairs of players ``k / n * spread`` s late."""
        loop = asyncio.get_running_loop()
        pairs = max(1, len(self.clients) // 2)
        for index, client in enumerate(self.clients):
            delay = (index // 2) / pairs * spread
            if delay > 0:
                loop.call_later(delay, client.start)
            else:
                client.start()

    def stop(self) -> None:
        """Send nothing new; ``drained`` is set once every reply has come back."""
        self.stopping = True
        if not self.in_flight:
            self.drained.set()

    def acknowledged(self, sent_ns: int) -> None:
        if self.recording:
            self.latencies.append(time.perf_counter_ns() - sent_ns)

    def landed(self) -> None:
        self.in_flight -= 1
        if self.stopping and not self.in_flight:
            self.drained.set()
