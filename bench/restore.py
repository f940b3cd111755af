"""What races that outlive the process cost: ``python -m bench.restore [--races N]``.

A server keeps every live race as a journal (its start and every accepted
event) and rebuilds each one when it starts. This measures both sides on real
races: ``N`` mirror races of winnable deals are played by the race core, each
``--plays`` plays in (52 a seat clears it), and their journals written through
:class:`server.store.sqlite_store.SqliteStore` as the server writes them. Then:

- the journal's size per race: the growth of the SQLite file, WAL folded in;
- the time a :class:`server.app.GameServer` takes to start on that file,
  against one on an empty file: the time to restore ``N`` live races.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import engine
from core.events import Journaled, RaceStarted
from core.identity import Identity
from core.race import Race, SeatInfo
from protocol import Rules
from server.app import GameServer
from server.config import Settings
from server.store import SqliteStore

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "measure"]

RULES = Rules(deal="mirror", winnable_only=True)


def _journal(game_id: str, ids: tuple[str, str], plays: int) -> list[object]:
    """What a race of ``plays`` plays (seats in turn) asks the glue to journal."""
    dealer = engine.SeedDealer(int(game_id, 16).to_bytes(engine.SEED_SIZE, "big"))
    seats = (SeatInfo(ids[0], ids[0]), SeatInfo(ids[1], ids[1]))
    race = Race(game_id, seats, RULES, (dealer, dealer), idle_limit=60.0, grace=30.0)
    out: list[object] = list(race.start(0.0))
    for n in range(plays):
        seat = n % 2
        card = engine.greedy_plays(race.boards()[seat])[0]
        out += race.play(seat, card, 0.5 * (n + 1))
    return [item for item in out if isinstance(item, RaceStarted | Journaled)]


async def _write(path: Path, races: int, plays: int) -> int:
    """Write the journals of ``races`` races; the bytes they take."""
    store = SqliteStore(path)
    await store.open()
    for i in range(races):
        ids = (f"p{2 * i:015x}", f"p{2 * i + 1:015x}")
        for player_id in ids:
            await store.add_player(Identity(player_id, player_id, "h" + player_id, 1.0))
    await store.close()
    empty = path.stat().st_size
    store = SqliteStore(path)
    await store.open()
    for i in range(races):
        ids = (f"p{2 * i:015x}", f"p{2 * i + 1:015x}")
        writes = []
        for item in _journal(f"{i + 1:016x}", ids, plays):
            if isinstance(item, RaceStarted):
                writes.append(store.begin_race(item.start, time.time()))
            elif isinstance(item, Journaled):
                writes.append(store.journal(item.game_id, item.entry))
        await asyncio.gather(*writes)
    await store.close()  # folds the WAL into the file
    return path.stat().st_size - empty


async def _start_time(path: Path) -> float:
    settings = Settings(port=0, db=str(path), log_level="WARNING")
    server = GameServer(settings, SqliteStore(path))
    began = time.perf_counter()
    await server.start()
    took = time.perf_counter() - began
    await server.close()
    return took


def measure(races: int, plays: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-restore-") as folder:
        live, empty = Path(folder) / "live.sqlite3", Path(folder) / "empty.sqlite3"
        journal_bytes = asyncio.run(_write(live, races, plays))
        baseline = min(asyncio.run(_start_time(empty)) for _ in range(3))
        restoring = asyncio.run(_start_time(live))
    return {
        "races": races,
        "plays_each": plays,
        "journal_bytes_per_race": journal_bytes / races,
        "restore_s": restoring - baseline,
        "empty_start_s": baseline,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.restore", description=__doc__)
    parser.add_argument("--races", type=int, default=1000, help="live races (default 1000)")
    parser.add_argument("--plays", type=int, default=52, help="plays into each race (default 52)")
    args = parser.parse_args(argv)
    results = measure(args.races, args.plays)
    print(f"| {args.races} live races, {args.plays} plays each | |\n|---|---:|")
    print(f"| journal per race | {results['journal_bytes_per_race'] / 1024:.1f} KiB |")
    print(f"| time to restore them all at start | {results['restore_s'] * 1000:.0f} ms |")
    print()
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
