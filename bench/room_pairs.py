"""The players of ``--pairing rooms`` (:mod:`bench.loadgen`): one opponent each for the
whole run, in a room of their own, then rematches (:class:`RoomRacer`), set up a
few pairs at a time (:class:`Openings`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import TYPE_CHECKING, Any, ClassVar

from .clients import Racer

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["ROOMS_AT_ONCE", "Openings", "RoomRacer"]

CREATE = b'{"type":"create_room","rules":{"deal":"mirror","winnable_only":true}}'
JOIN = b'{"type":"join_room","code":"%s"}'
REMATCH = b'{"type":"rematch"}'
CANCEL = b'{"type":"cancel"}'
RETRY_S = 0.05
"""A join may reach the other worker before the room's owner is listed in Redis (and
then count as a wrong code): try again."""
REOPEN_AFTER = 10
"""Failed joins after which the room is opened again: its listing in Redis may have failed."""
JOIN_TIMEOUT_S = 2.0
"""A join unanswered this long is tried again: a worker whose Redis call failed answers nothing."""
ROOMS_AT_ONCE = 20
"""Pairs of ``--pairing rooms`` setting up their room at once (:class:`Openings`)."""


class Openings:
    """The pairs of ``--pairing rooms`` waiting to open their room, :data:`ROOMS_AT_ONCE`
    at a time: each pair set up costs the servers calls to Redis, which a worker
    does not queue when too many are under way (bench/README.md, "Several workers")."""

    def __init__(self) -> None:
        self.waiting: deque[RoomRacer] = deque()
        self.opening = 0

    def ask(self, creator: RoomRacer) -> None:
        self.waiting.append(creator)
        self._next()

    def done(self) -> None:
        self.opening -= 1
        self._next()

    def _next(self) -> None:
        while self.opening < ROOMS_AT_ONCE and self.waiting:
            self.opening += 1
            self.waiting.popleft().write(CREATE)


class RoomRacer(Racer):
    """A player with one opponent for the whole run (``--pairing rooms``).

    Quick match pairs whoever is waiting, so two players on one worker may
    meet even when half the players are on each. Here player ``2k`` opens a
    room with the quick match's rules, player ``2k + 1`` joins it by its
    code, and after each ``game_over`` both ask for a ``rematch``, which
    starts the next race with the same two players in the same worker's
    core. With two URLs the even players are on the first and the odd ones
    on the second: every race of the pair lives with the first player, and
    the second one's socket is proxied to it for the whole run.

    A join that fails (the room not listed in Redis yet, or a call to Redis
    that failed) or goes unanswered is tried again, later each time; after
    :data:`REOPEN_AFTER` failures the room is opened again.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.code: bytes | None = None
        """The room this (odd) player joins, until its first race starts."""
        self.tries = 0
        """Joins sent: the number of the one whose answer is awaited."""
        self.misses = 0

    def start(self) -> None:
        if self.welcomed and self.index % 2 == 0:
            self.gen.openings.ask(self)

    def next_race(self) -> None:
        if self.seat >= 0:  # not before a first race: there is nothing to rematch
            self.write(REMATCH)

    def join(self, code: bytes) -> None:
        if code == self.code and not self.gen.stopping:
            self.tries += 1
            self.write(JOIN % code)
            loop = asyncio.get_running_loop()
            loop.call_later(JOIN_TIMEOUT_S, self._unanswered, code, self.tries)

    def _unanswered(self, code: bytes, tries: int) -> None:
        if self.code == code and self.tries == tries:
            self._failed(code)

    def _failed(self, code: bytes) -> None:
        self.misses += 1
        if self.misses % REOPEN_AFTER:
            delay = min(1.0, RETRY_S * self.misses)  # less load on a server in trouble
            asyncio.get_running_loop().call_later(delay, self.join, code)
        else:  # the partner closes its room and opens another
            self.code = None
            self.gen.clients[self.index - 1].write(CANCEL)

    def _room(self, message: dict[str, object]) -> None:
        partner = self.gen.clients[self.index + 1]
        assert isinstance(partner, RoomRacer)
        partner.code = str(message["code"]).encode()
        partner.join(partner.code)

    def _cancelled(self, message: dict[str, object]) -> None:
        if self.seat < 0 and not self.gen.stopping:
            self.write(CREATE)

    def _start_room(self, message: dict[str, object]) -> None:
        if self.seat < 0 and self.index % 2 == 0:
            self.gen.openings.done()
        self.code = None
        self._game_start(message)

    def _error_room(self, message: dict[str, object]) -> None:
        code = self.code
        if code is not None and message.get("code") in ("room_not_found", "rate_limited"):
            self.tries += 1  # answered: the timer of this join does nothing
            self._failed(code)
        elif message.get("code") != "busy":  # busy: a join or room answered late, no fault
            self._error(message)

    _handlers: ClassVar[dict[str, Callable[[Any, dict[str, object]], None]]] = {
        **Racer._handlers,
        "room": _room,
        "cancelled": _cancelled,
        "game_start": _start_room,
        "error": _error_room,
    }
