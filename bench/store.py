"""What the store's writes cost: ``python -m bench.store [--quick]``.

Every race ends with a write, and its ``game_over`` waits for the commit;
every play is journaled, and its ``played`` waits for that commit. So the
store's cost per race and per play is part of every race. This times the
store's worker-side call (``server.store.sqlite.Database.write``):

- races of 104 moves (a mirror race of 52 plays a seat), one per transaction,
  as when races end one at a time, and all in one transaction, as when they
  end together and the store's worker takes them as one batch;
- journal entries, one per transaction and ``N`` per transaction (a batch);

and, beside them, journal entries through :class:`server.store.sqlite_store.SqliteStore`
on an event loop, ``N`` calls a loop pass sharing one future: the whole cost
of a play's journaling, the loop's side and the worker's.

Figures are CPU time per race or entry, the best of a few repeats, each on a
fresh file in a temporary directory: of the calling thread
(``time.thread_time``) for the worker-side call, of the process (both
threads, ``time.process_time``) through the store. Prints a Markdown table,
then, as its last line, one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from core.identity import Identity
from core.race_log import Entry, FinishedRace, MoveRecord, RaceStart
from server.store import SqliteStore
from server.store.batch import RecordToWrite, Writes
from server.store.sqlite import Database

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "measure"]

_files = itertools.count()

PLAYERS = (Identity("p-ann", "Ann", "hash-ann", 1.0), Identity("p-bob", "Bob", "hash-bob", 1.0))


def _race(rng: random.Random) -> FinishedRace:
    moves = tuple(
        MoveRecord(seq, seq % 2, "QH", seq * 0.1 + rng.random() / 10) for seq in range(1, 105)
    )
    return FinishedRace(
        game_id=f"{rng.getrandbits(64):016x}",
        rules_json='{"deal":"mirror","first":false,"redeals":0,"winnable_only":true}',
        dealing="sha256",
        seeds=(rng.randbytes(32).hex(),) * 2,
        player_ids=(PLAYERS[0].player_id, PLAYERS[1].player_id),
        started=0.0,
        ended=10.4,
        moves=moves,
        result="win",
        winner=0,
        reason="cleared",
        counts=(52, 51),
    )


START = RaceStart("g-live", "{}", "sha256", ("ab" * 32,) * 2, ("p-ann", "p-bob"), ("Ann", "Bob"))


def _entries(count: int) -> list[tuple[str, Entry]]:
    return [(START.game_id, Entry(seq, seq % 2, "QH", seq * 0.1)) for seq in range(1, count + 1)]


def _new_database(folder: Path) -> Database:
    """A new file that knows both players and the live race ``START``."""
    db = Database(str(folder / f"store-{next(_files)}.sqlite3"), durable=False)
    db.open()
    for identity in PLAYERS:
        db.add_player(identity)
    db.write(Writes(starts=[(START, 1.0)]))
    return db


def _cpu_per_item(items: Sequence[Writes], folder: Path) -> float:
    """CPU seconds of this thread per write, each of ``items`` a transaction, on a new file."""
    db = _new_database(folder)
    try:
        count = sum(len(w.races) + len(w.entries) for w in items)
        started = time.thread_time()
        for writes in items:
            db.write(writes)
        return (time.thread_time() - started) / count
    finally:
        db.close()


def _races(races: int, batch: int) -> list[Writes]:
    rng = random.Random(races * 31 + batch)
    records: list[RecordToWrite] = [(_race(rng), 1.0, 11.4, None) for _ in range(races)]
    return [Writes(races=records[first : first + batch]) for first in range(0, races, batch)]


def _journal(entries: int, batch: int) -> list[Writes]:
    every = _entries(entries)
    return [Writes(entries=every[first : first + batch]) for first in range(0, entries, batch)]


async def _through_store(entries: int, batch: int, folder: Path) -> float:
    """Process CPU seconds per entry journaled through SqliteStore, ``batch`` a loop pass."""
    store = SqliteStore(folder / f"store-{next(_files)}.sqlite3")
    await store.open()
    for identity in PLAYERS:
        await store.add_player(identity)
    await store.begin_race(START, 1.0)
    every = _entries(entries)
    started = time.process_time()
    for first in range(0, entries, batch):
        for game_id, entry in every[first : first + batch]:
            written = store.journal(game_id, entry)
        await written
    cpu = time.process_time() - started
    await store.close()
    return cpu / entries


def measure(*, quick: bool = False) -> dict[str, float]:
    races, entries, batch, repeats = (100, 1000, 100, 2) if quick else (500, 5000, 500, 5)
    with tempfile.TemporaryDirectory(prefix="bench-store-") as folder:
        path = Path(folder)

        def best(items: list[Writes]) -> float:
            return min(_cpu_per_item(items, path) for _ in range(repeats)) * 1e3

        def best_through_store(per_pass: int) -> float:
            runs = (asyncio.run(_through_store(entries, per_pass, path)) for _ in range(repeats))
            return min(runs) * 1e6

        return {
            "races": races,
            "one_per_transaction_ms": best(_races(races, 1)),
            "batched_ms": best(_races(races, races)),
            "entries": entries,
            "batch": batch,
            "entry_alone_us": best(_journal(entries, 1)) * 1e3,
            "entry_batched_us": best(_journal(entries, batch)) * 1e3,
            "entry_through_store_us": best_through_store(batch),
            "entry_through_store_alone_us": best_through_store(1),
        }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.store", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer races and repeats")
    args = parser.parse_args(argv)
    results = measure(quick=args.quick)
    n, races = results["batch"], results["races"]
    print("| write | CPU per race or entry |\n|---|---:|")
    print(
        f"| races of 104 moves, one per transaction | {results['one_per_transaction_ms']:.2f} ms |"
    )
    print(f"| races of 104 moves, {races} per transaction | {results['batched_ms']:.2f} ms |")
    print(f"| journal entries, one per transaction | {results['entry_alone_us']:.1f} µs |")
    print(f"| journal entries, {n} per transaction | {results['entry_batched_us']:.1f} µs |")
    print(
        f"| journal entries through the store, {n} a loop pass (process)"
        f" | {results['entry_through_store_us']:.1f} µs |"
    )
    print(
        "| journal entries through the store, one a loop pass (process)"
        f" | {results['entry_through_store_alone_us']:.1f} µs |"
    )
    print()
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
