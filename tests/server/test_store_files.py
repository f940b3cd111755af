"""The store's files: old schemas upgraded, newer ones refused, and SIGKILL mid-write.

The SIGKILL tests run the real store in a child (``CRASHING``), kill it, and open
what it left: every race it announced is whole, none half-written. Split from
test_store.py, whose helpers it shares.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from core.race_log import MoveRecord
from server.store import SqliteStore, StoreError
from server.store.sqlite_schema import MIGRATIONS, SCHEMA_VERSION

from .test_store import ANN, BOB, ROOT, raw

if TYPE_CHECKING:
    from ..store_backends import AnyBackend


async def test_a_version_1_database_is_upgraded_with_its_races(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    with raw(path) as conn:
        for statement in MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("PRAGMA user_version=1")
        for who in (ANN, BOB):
            conn.execute(
                "INSERT INTO players (id, name, name_key, token_hash, created, last_seen,"
                " games, wins) VALUES (?, ?, ?, ?, ?, ?, 1, ?)",
                (who.player_id, who.name, who.name.lower(), who.token_hash, who.created, 1.0, 1),
            )
        conn.execute(
            "INSERT INTO races VALUES ('g1', '{}', '[7]', 'p-ann', 'p-bob', 10.0, 20.0,"
            " 'win', 0, 'cleared', 52, 3)"
        )
        conn.execute(
            "INSERT INTO races VALUES ('g0', '{}', '[8]', 'p-ann', 'p-bob', 1.0, 2.0,"
            " 'draw', NULL, 'stalled', 0, 0)"
        )
        # Inserted out of order: the upgrade keeps them in seq order.
        for seq, seat, card, at in [(2, 1, "KH", 1.5), (1, 0, "AS", 0.25), (3, 0, "redeal", 2.0)]:
            conn.execute("INSERT INTO moves VALUES ('g1', ?, ?, ?, ?)", (seq, seat, card, at))
    store = SqliteStore(path)
    assert await store.open() == [ANN, BOB]
    race = await store.race("g1")
    empty = await store.race("g0")
    assert await store.race_count() == 2
    await store.close()
    assert race is not None and empty is not None
    assert race.moves == (
        MoveRecord(1, 0, "AS", 0.25),
        MoveRecord(2, 1, "KH", 1.5),
        MoveRecord(3, 0, "redeal", 2.0),
    )
    assert (race.seeds, race.winner, race.counts) == ((7,), 0, (52, 3))
    assert empty.moves == ()
    with raw(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT seq, card FROM moves ORDER BY seq").fetchall() == [
            (1, "AS"),
            (2, "KH"),
            (3, "redeal"),
        ]


async def test_a_newer_schema_is_refused(backend: AnyBackend) -> None:
    backend.set_version(backend.schema_version + 1)
    store = backend.store()
    with pytest.raises(StoreError):
        await store.open()
    await store.close()


# Crash safety

CRASHING = """
import asyncio, itertools, sys
from core.identity import Identity
from core.race_log import MoveRecord, FinishedRace
from server.store.backends import open_store
from tests.store_backends import recorded

async def main(db, races):
    store = open_store(db)
    await store.open()
    await store.add_player(Identity("p-ann", "Ann", "hash-ann", 1000.0))
    await store.add_player(Identity("p-bob", "Bob", "hash-bob", 1001.0))
    for n in itertools.count() if races < 0 else range(races):
        moves = tuple(MoveRecord(seq, seq % 2, "AS", seq * 0.5) for seq in range(40))
        players = ("p-ann", "p-bob")
        record = FinishedRace(
            f"g{n}", "{}", "mt19937", (n,), players, 0, 1, moves, "win", n % 2, "-", (9, 3)
        )
        await recorded(store, record, 2000.0 + n, 2030.0 + n)
        print(f"g{n}", flush=True)
    print("done", flush=True)
    await asyncio.Event().wait()  # keep the store open until killed

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


async def run_and_kill(db: Path | str, races: int, lines: int) -> list[str]:
    """Run CRASHING, read ``lines`` lines from it, then SIGKILL it; return those lines."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CRASHING,
        str(db),
        str(races),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        seen = [
            (await asyncio.wait_for(process.stdout.readline(), timeout=30)).decode().strip()
            for _ in range(lines)
        ]
        os.kill(process.pid, signal.SIGKILL)
        assert await asyncio.wait_for(process.wait(), timeout=30) == -signal.SIGKILL
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return seen


def assert_intact(path: Path) -> None:
    with raw(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
async def test_sigkill_after_a_race_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    assert await run_and_kill(path, races=1, lines=2) == ["g0", "done"]
    # Killed with the connection open: the commits are still only in the WAL.
    assert Path(f"{path}-wal").stat().st_size > 0
    assert_intact(path)

    store = SqliteStore(path)
    assert [identity.name for identity in await store.open()] == ["Ann", "Bob"]
    race = await store.race("g0")
    assert race is not None
    assert len(race.moves) == 40
    stats = await store.player_stats("p-ann")
    assert stats is not None
    assert (stats.games, stats.wins) == (1, 1)
    await store.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
async def test_sigkill_mid_write_keeps_every_race_whole(backend: AnyBackend) -> None:
    # Killed while it keeps writing races, most likely in the middle of one.
    announced = await run_and_kill(backend.db, races=-1, lines=30)
    backend.assert_intact()

    store = backend.store()
    await store.open()
    kept = await store.race_count()
    assert kept >= len(announced)
    for game_id in announced:
        assert await store.race(game_id) is not None
    # Every race kept was kept whole: its moves and both players' stats.
    for player_id in ("p-ann", "p-bob"):
        stats = await store.player_stats(player_id)
        assert stats is not None
        assert stats.games == stats.wins + stats.losses == kept
    last = await store.race(f"g{kept - 1}")
    assert last is not None
    assert len(last.moves) == 40
    await store.close()
