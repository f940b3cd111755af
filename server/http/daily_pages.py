"""The daily deal's pages of the HTTP API: ``/api/daily``, ``/api/daily/DATE``, and the
streaks a profile shows.

PROTOCOL.md, "The daily deal" and "HTTP". Today is the day the lobby core was
told (:meth:`server.daily_watch.DailyWatch.today`), so the API and ``lobby.daily``
turn together. A day's commit is shown from the start; its seed only once the
day is over (earlier, anyone could deal the layout and plan a line before
racing it). A day to come is not shown at all, though its seed is drawn: it is
``404`` as a day nobody drew.
"""

from __future__ import annotations

import datetime
import re
import time
from typing import TYPE_CHECKING

from core.daily import DAILY_RULES
from server.store import daily_rows as stored

from .models import DailyAnswer, DailyLine

if TYPE_CHECKING:
    from collections.abc import Callable

    from server.store import Store

__all__ = ["BOARD_LIMIT", "DailyPages", "is_date", "utc_today"]

BOARD_LIMIT = 100
"""The board's races a day's page lists (PROTOCOL.md: the first 100)."""
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class DailyPages:
    """The daily deal's answers, read from ``store`` on the day ``today`` says it is."""

    def __init__(self, store: Store, today: Callable[[], str]) -> None:
        self._store, self._today = store, today

    async def today_page(self) -> DailyAnswer | None:
        """``GET /api/daily``: today's commit and board; None before the day is drawn."""
        row = await stored.day_row(self._store, self._today())
        return None if row is None else await self._page(row, revealed=False)

    async def day_page(self, date: str) -> DailyAnswer | None:
        """``GET /api/daily/DATE`` of a date :func:`is_date` took: a past day with its
        seed, today as ``/api/daily``; None for a day to come or one nobody drew."""
        today = self._today()
        row = None if date > today else await stored.day_row(self._store, date)
        return None if row is None else await self._page(row, revealed=date < today)

    async def streaks(self, player_id: str) -> stored.Streaks:
        """A player's streak as of today, and their best."""
        return await stored.streaks(self._store, player_id, self._today())

    async def _page(self, row: stored.DailyRow, *, revealed: bool) -> DailyAnswer:
        places = await stored.board(self._store, row.day, BOARD_LIMIT)
        players = await stored.results_count(self._store, row.day)
        board = [
            DailyLine(
                rank=rank,
                name=place.name,
                time_ms=place.time_ms,
                count=place.count,
                game_id=place.game_id,
            )
            for rank, place in zip(stored.ranks(places), places, strict=True)
        ]
        return DailyAnswer(
            date=row.day,
            commit=row.commit,
            seed=row.seed.hex() if revealed else None,
            rules=DAILY_RULES,
            players=players,
            board=board,
        )


def utc_today() -> str:
    """The UTC day it is by this machine's clock."""
    return stored.utc_day(time.time())


def is_date(text: str) -> bool:
    """Whether ``text`` is a day as the API takes it: ``YYYY-MM-DD``, and a real one."""
    if _DATE.fullmatch(text) is None:
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True
