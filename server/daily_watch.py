"""The day it is, on every worker: the daily deal's glue between the store and the lobby core.

Theory of operation
-------------------
The lobby core's daily desk (:mod:`core.daily`) has no calendar: it is told the
day (:class:`~core.daily.DailyDeal`: the date, the seed, the best clear so far,
the board) and decides the rest. :class:`DailyWatch` tells it, on each worker:

* At start, before any race is restored (a restored daily race ends on its
  day's board): today's and tomorrow's seeds are drawn if nobody drew them
  (:func:`server.store.daily_rows.draw`: a seed from ``secrets``, insert-if-absent,
  then read, so every worker deals from the same row and a day is committed a
  day before it begins), and today's deal, best clear and board are read.
* At 00:00 UTC by the wall clock (injected: ``wall``), every worker rolls over
  on its own: the core is told the new day, read a day ahead, at once, so a
  store that fails at midnight does not keep yesterday's deal (whose seed is
  about to be revealed) on the tables; the day after is drawn next. A race
  started before midnight keeps its day (:class:`~core.race_kind.RaceKind`)
  and ends on that day's board, which the desk keeps a day longer.
* Between, every :data:`POLL_S` seconds, the count of today's ranked races is
  read (one indexed query); when it moved (a race kept here or by another
  worker), the races kept since the last read and the best clear are read. So a clear made on
  one worker is the ghost on every worker within a poll, and the ranks that
  ``game_over.daily`` tells are the store's, give or take the races of that
  last poll.

A store that cannot answer leaves the desk as it was: the next round tries
again (before the first answer the desk refuses ``daily`` with ``unavailable``).
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import secrets
import time
from typing import TYPE_CHECKING

import engine
from core.daily import DailyDeal, DailyPlace
from server.loops import Loop, SaidOnce
from server.store import StoreError
from server.store import daily_rows as stored
from server.store.daily_rows import utc_day

if TYPE_CHECKING:
    from collections.abc import Callable

    from .app import GameServer

__all__ = ["MARGIN_S", "POLL_S", "DailyWatch", "seconds_to_midnight"]

log = logging.getLogger("flowergarden.server")

MARGIN_S = 60.0
"""How far before the latest race it has read a worker reads the board again (``_tell``)."""
POLL_S = 2.0
"""Seconds between two reads of the count of today's ranked races: how long a clear made on
another worker takes at most, and a little more, to be the ghost here."""


def seconds_to_midnight(wall: float) -> float:
    """Seconds from ``wall`` to the next 00:00 UTC."""
    now = datetime.datetime.fromtimestamp(wall, datetime.UTC)
    midnight = datetime.datetime.combine(
        now.date() + datetime.timedelta(days=1), datetime.time(), datetime.UTC
    )
    return (midnight - now).total_seconds()


class DailyWatch:
    """What one worker's lobby core knows of the daily deal (see the module docstring)."""

    def __init__(
        self, server: GameServer, *, wall: Callable[[], float] = time.time, poll: float = POLL_S
    ) -> None:
        self._server = server
        self._wall = wall
        self._poll = poll
        self._row: stored.DailyRow | None = None
        """The day's deal the lobby core was last told, or None before the store answered."""
        self._count = -1
        """How many ranked races the store had for it then."""
        self._places: dict[str, DailyPlace] = {}
        """Today's ranked races as read so far, by game id."""
        self._latest = 0.0
        """The latest ``ended`` among them (wall-clock seconds)."""
        self._next: stored.DailyRow | None = None
        """Tomorrow's deal, drawn and read a day ahead: at midnight the core is told the new
        day without waiting for the store."""
        self._watching: Loop | None = None
        self._failing = SaidOnce("daily: cannot read the day's deal now")
        self.told: asyncio.Event = asyncio.Event()
        """Set each time the lobby core is told the day (a test awaits it, clearing it)."""

    def today(self) -> str:
        """The day it is here: the one the lobby core knows, else the wall clock's."""
        return utc_day(self._wall()) if self._row is None else self._row.day

    async def begin(self) -> None:
        """Draw and read today's deal, before races are restored (a failing store: later)."""
        await self._round()

    def start(self) -> None:
        """Roll over at midnight and follow the board from now on."""
        self._watching = Loop("daily", self._watch, first=self._pause())
        self._watching.start()

    async def close(self) -> None:
        if self._watching is not None:
            await self._watching.stop()

    async def _watch(self) -> float:
        await self._round()
        return self._pause()

    def _pause(self) -> float:
        """Seconds to the next round: waking at midnight too, the rollover is the round after it."""
        return min(self._poll, seconds_to_midnight(self._wall()))

    async def _round(self) -> None:
        store = self._server.store
        try:
            day, row = utc_day(self._wall()), self._row
            if row is None or day != row.day:
                await self._roll(day)
            elif (count := await stored.results_count(store, day)) != self._count:
                await self._tell(row, count)
            tomorrow = stored.next_day(day)
            if self._next is None or self._next.day != tomorrow:
                self._next = await store.run(stored.draw(tomorrow, _fresh_seed()))
        except StoreError as exc:  # the next round tries again; said once
            self._failing.failed(exc)
        else:
            self._failing.succeeded()

    async def _roll(self, day: str) -> None:
        """A new day here: the core is told it, drawn a day ahead if it was (a new day's
        board is empty: the next poll reads what other workers kept meanwhile), else drawn
        now if nobody has, and read with its board."""
        ahead = self._next
        self._places, self._latest = {}, 0.0
        if ahead is not None and ahead.day == day:
            self._server.lobby.daily_deal(DailyDeal(day, ahead.seed))
            self._row, self._count = ahead, 0
            self.told.set()
            row = ahead
        else:
            row = await self._server.store.run(stored.draw(day, _fresh_seed()))
            await self._tell(row, await stored.results_count(self._server.store, day))
        log.info("daily: the deal of %s, commit %s", day, row.commit)

    async def _tell(self, row: stored.DailyRow, count: int) -> None:
        """Tell the lobby core the day of ``row``, with its board (of ``count`` races, the
        store said) and best clear as kept.

        Only the races kept since the last read, less :data:`MARGIN_S`, are read (a
        record's ``ended`` is its worker's wall clock, and records commit out of that
        order by as much as a batch waits); if fewer than ``count`` are known then, some
        came later than that (a store that was failing): the whole board is read.
        """
        store = self._server.store
        await self._read_places(row.day, self._latest - MARGIN_S)
        if len(self._places) < count:
            await self._read_places(row.day, 0.0)
        best = await stored.best(store, row.day)
        board = tuple(self._places.values())
        self._server.lobby.daily_deal(DailyDeal(row.day, row.seed, best, board))
        self._row, self._count = row, len(board)
        self.told.set()

    async def _read_places(self, day: str, since: float) -> None:
        for place, ended in await stored.since(self._server.store, day, since):
            self._places[place.game_id] = place
            self._latest = max(self._latest, ended)


def _fresh_seed() -> bytes:
    """A seed for a day nobody drew yet: the system's randomness, at the edge."""
    return secrets.token_bytes(engine.SEED_SIZE)
