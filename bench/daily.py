"""What the daily deal's reads cost: ``python -m bench.daily [--races N]``.

Every worker reads the count of today's ranked races every two seconds, and,
when it moved, the races kept since its last read and the day's best clear
(server/daily_watch.py); ``GET /api/daily`` reads the first 100 of the board and the
count (server/http/daily_pages.py). This fills an SQLite store with ``N`` ranked races
of one day (52 cards each), then times each read: the median of 20, wall clock,
through :class:`server.store.sqlite_store.SqliteStore` on an event loop. Prints
a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from core.ghost import GHOST_ID
from core.identity import Identity
from core.race_kind import RaceKind
from core.race_log import FinishedRace, MoveRecord, RaceStart
from server.daily_watch import MARGIN_S
from server.store import SqliteStore
from server.store import daily_rows as daily

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

DAY = "2026-12-02"
ENDED = 1_000_000.0
"""The wall clock of the first race's end; each next one ends a second later."""


async def fill(store: SqliteStore, races: int) -> None:
    """``races`` players, each with one ranked daily race of :data:`DAY`, against the ghost."""
    await store.add_player(Identity(GHOST_ID, "BOT-Ghost", "hash-ghost", 1.0))
    for index in range(races):
        await store.add_player(Identity(f"p{index}", f"P{index}", f"hash-{index}", 1.0))
    writes = []
    for index in range(races):
        moves = tuple(MoveRecord(seq, 0, "1S", 0.1 * seq + index / 1000) for seq in range(52))
        record = FinishedRace(
            game_id=f"g{index}", rules_json="{}", dealing="sha256", seeds=("ab" * 32,) * 2,
            player_ids=(f"p{index}", GHOST_ID), started=0.0, ended=10.0, moves=moves,
            result="win", winner=0, reason="cleared", counts=(52, 10),
            kind=RaceKind(daily=DAY, ranked=True),
        )  # fmt: skip
        start = RaceStart(record.game_id, "{}", "sha256", record.seeds, record.player_ids, ("", ""))
        store.begin_race(start, 0.0)
        writes.append(store.record_race(record, 0.0, ENDED + index))
    await asyncio.gather(*writes)


async def timed(call: Callable[[], Awaitable[object]]) -> float:
    """The median of 20 calls, in milliseconds."""
    times = []
    for _ in range(20):
        began = time.perf_counter()
        await call()
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


async def main(races: int) -> None:
    with tempfile.TemporaryDirectory() as where:
        store = SqliteStore(Path(where) / "daily.sqlite3")
        await store.open()
        await fill(store, races)
        latest = ENDED + races - 1
        reads: list[tuple[str, Callable[[], Awaitable[object]]]] = [
            ("count (every poll)", lambda: daily.results_count(store, DAY)),
            ("races since the last read", lambda: daily.since(store, DAY, latest - MARGIN_S)),
            ("best clear (the ghost)", lambda: daily.best(store, DAY)),
            ("first 100 (GET /api/daily)", lambda: daily.board(store, DAY, 100)),
            ("whole board", lambda: daily.board(store, DAY)),
        ]
        print(f"| read, {races} ranked races that day | median ms |")
        print("|---|---:|")
        for name, call in reads:
            print(f"| {name} | {await timed(call):.2f} |")
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=10_000)
    asyncio.run(main(parser.parse_args().races))
