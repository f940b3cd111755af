"""What recording a finished race costs: ``python -m bench.store [--quick]``.

Every race ends with a write, and its ``game_over`` waits for the commit, so
the store's cost per race is part of every race's end. This times the store's
worker-side call on races of 104 moves (a mirror race of 52 plays a seat):

- one race per transaction, as when races end one at a time;
- all of them in one transaction, as when they end together and the store's
  worker takes them as one batch.

Figures are CPU time of the calling thread (``time.thread_time``) per race,
the best of a few repeats, each on a fresh file in a temporary directory.
Prints a Markdown table, then, as its last line, one JSON object.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from server.identity import Identity
from server.record import MoveRecord, RaceRecord
from server.store import _Database

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "measure"]

_files = itertools.count()

PLAYERS = (Identity("p-ann", "Ann", "hash-ann", 1.0), Identity("p-bob", "Bob", "hash-bob", 1.0))


def _race(rng: random.Random) -> RaceRecord:
    moves = tuple(
        MoveRecord(seq, seq % 2, "QH", seq * 0.1 + rng.random() / 10) for seq in range(1, 105)
    )
    return RaceRecord(
        game_id=f"{rng.getrandbits(64):016x}",
        rules_json='{"deal":"mirror","first":false,"redeals":0,"winnable_only":true}',
        seeds=(rng.getrandbits(63),) * 2 + (rng.getrandbits(63),) * 2,
        player_ids=(PLAYERS[0].player_id, PLAYERS[1].player_id),
        started=0.0,
        ended=10.4,
        moves=moves,
        result="win",
        winner=0,
        reason="cleared",
        counts=(52, 51),
    )


def _cpu_per_race(races: int, batch: int, folder: Path) -> float:
    """CPU seconds per race to write ``races`` races, ``batch`` per transaction, to a new file."""
    rng = random.Random(races * 31 + batch)
    db = _Database(str(folder / f"store-{next(_files)}.sqlite3"), durable=False)
    try:
        db.open()
        for identity in PLAYERS:
            db.add_player(identity)
        records = [(_race(rng), 1.0, 11.4) for _ in range(races)]
        started = time.thread_time()
        for first in range(0, races, batch):
            db.record_races(records[first : first + batch])
        return (time.thread_time() - started) / races
    finally:
        db.close()


def measure(*, quick: bool = False) -> dict[str, float]:
    races, repeats = (100, 2) if quick else (500, 5)
    with tempfile.TemporaryDirectory(prefix="bench-store-") as folder:
        path = Path(folder)
        alone = min(_cpu_per_race(races, 1, path) for _ in range(repeats))
        together = min(_cpu_per_race(races, races, path) for _ in range(repeats))
    return {"races": races, "one_per_transaction_ms": alone * 1e3, "batched_ms": together * 1e3}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.store", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer races and repeats")
    args = parser.parse_args(argv)
    results = measure(quick=args.quick)
    print("| races of 104 moves | CPU per race |\n|---|---:|")
    print(f"| one per transaction | {results['one_per_transaction_ms']:.2f} ms |")
    print(f"| {results['races']} in one transaction | {results['batched_ms']:.2f} ms |")
    print()
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
