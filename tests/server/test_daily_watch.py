"""The daily deal's glue on its own (server/daily_watch.py): the day turns at midnight on the wall
clock, even while the store fails, from the deal drawn a day ahead."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from server.daily_watch import DailyWatch, seconds_to_midnight
from server.store import SqliteStore, StoreUnavailable
from server.store.daily_rows import day_row, next_day, utc_day

if TYPE_CHECKING:
    from pathlib import Path

    from core.daily import DailyDeal

DAY_S = 86_400.0


class Lobby:
    """The lobby core as the watch sees it: what it was told."""

    def __init__(self) -> None:
        self.deals: list[DailyDeal] = []

    def daily_deal(self, deal: DailyDeal) -> None:
        self.deals.append(deal)


class Down:
    """A store that answers nothing."""

    async def run(self, script: Any) -> Any:
        raise StoreUnavailable("the store is down")

    async def read(self, *arguments: Any) -> Any:
        raise StoreUnavailable("the store is down")


def test_seconds_to_midnight() -> None:
    assert seconds_to_midnight(DAY_S * 20_000) == DAY_S
    assert seconds_to_midnight(DAY_S * 20_000 - 0.25) == 0.25
    assert utc_day(DAY_S * 20_000 - 0.25) == "2024-10-03"
    assert utc_day(DAY_S * 20_000) == "2024-10-04"


async def test_the_day_turns_at_midnight_while_the_store_is_down(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite3")
    await store.open()
    offset = 0.0
    server = SimpleNamespace(store=store, lobby=Lobby())
    watch = DailyWatch(server, wall=lambda: time.time() + offset, poll=0.01)  # type: ignore[arg-type]
    await watch.begin()
    today = watch.today()
    (deal,) = server.lobby.deals
    drawn = await day_row(store, today)
    assert drawn is not None and (deal.date, deal.seed) == (today, drawn.seed)
    ahead = await day_row(store, next_day(today))
    assert ahead is not None  # committed a day before it begins

    server.store = Down()
    offset += DAY_S
    watch.start()
    try:

        async def turned() -> None:
            while watch.today() != next_day(today):
                watch.told.clear()
                await watch.told.wait()

        await asyncio.wait_for(turned(), 5)
    finally:
        await watch.close()
        await store.close()
    new = server.lobby.deals[-1]
    assert (new.date, new.seed, new.best, new.board) == (ahead.day, ahead.seed, None, ())
