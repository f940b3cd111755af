"""The store: round trips, one transaction per race, a free event loop.

Tests that take ``backend`` run on both stores, SQLite and PostgreSQL
(tests/store_backends.py); those on ``tmp_path`` are about SQLite's file itself
(WAL, PRAGMAs, upgrades of old files). The journal of live races is in
test_journal_store.py, the store's faults in test_store_retries.py, upgrades and
SIGKILL in test_store_files.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from core.identity import Identity
from core.race_log import FinishedRace, MoveRecord
from server.store import PlayerStats, SqliteStore, Store, StoreError, StoreRefused
from server.store.sqlite_schema import SCHEMA_VERSION

from ..store_backends import recorded

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from ..store_backends import AnyBackend

ROOT = Path(__file__).resolve().parents[2]
ANN = Identity("p-ann", "Ann", "hash-ann", 1000.0)
BOB = Identity("p-bob", "Bob", "hash-bob", 1001.0)
CAT = Identity("p-cat", "Cat", "hash-cat", 1002.0)
DAN = Identity("p-dan", "Dan", "hash-dan", 1003.0)
EVE = Identity("p-eve", "Eve", "hash-eve", 1004.0)
FAY = Identity("p-fay", "Fay", "hash-fay", 1005.0)
PAIRS = ((ANN, BOB), (CAT, DAN), (EVE, FAY))
"""A person races one race at a time: live races at once each have a pair of their own."""


def make_race(game_id: str, winner: int | None = 0, moves: int = 3) -> FinishedRace:
    return FinishedRace(
        game_id=game_id,
        rules_json='{"deal":"independent","first":false}',
        dealing="sha256",
        seeds=("ab" * 32, "cd" * 32),
        player_ids=(ANN.player_id, BOB.player_id),
        started=50.0,
        ended=80.5,
        moves=(
            *(MoveRecord(seq, seq % 2, f"{seq + 1}S", seq * 0.25) for seq in range(moves)),
            MoveRecord(moves, 1, "redeal", 9.5),
        ),
        result="draw" if winner is None else "win",
        winner=winner,
        reason="stalled",
        counts=(5, 5) if winner is None else (6, 2),
    )


@pytest.fixture
async def store(backend: AnyBackend) -> AsyncIterator[Store]:
    store = await with_players(backend)
    yield store
    await store.close()


@contextmanager
def raw(path: Path) -> Iterator[sqlite3.Connection]:
    """A plain connection to the file, to look at it from outside the store."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        yield conn
    finally:
        conn.close()


async def with_players(where: Path | AnyBackend, *, pairs: int = 1, **options: Any) -> Any:
    """An open store on the SQLite file at ``where``, or on a backend, that knows the
    first ``pairs`` of :data:`PAIRS` (Ann and Bob first)."""
    store = SqliteStore(where, **options) if isinstance(where, Path) else where.store(**options)
    await store.open()
    for pair in PAIRS[:pairs]:
        for person in pair:
            await store.add_player(person)
    return store


# Players


async def test_players_survive_reopening(backend: AnyBackend) -> None:
    first = backend.store()
    assert await first.open() == []
    await first.add_player(ANN)
    await first.add_player(BOB)
    await first.close()

    second = backend.store()
    assert await second.open() == [ANN, BOB]
    assert await second.player_stats(BOB.player_id) == PlayerStats(
        BOB.player_id, "Bob", 1001.0, 1001.0, games=0, wins=0, losses=0, draws=0
    )
    await second.close()
    assert backend.version() == backend.schema_version


@pytest.mark.parametrize("durable", [False, True])
async def test_an_sqlite_file_is_in_wal_mode_durable_or_not(tmp_path: Path, durable: bool) -> None:
    path = tmp_path / "fg.sqlite3"
    first = await with_players(path, durable=durable)
    await first.close()
    second = SqliteStore(path)
    assert await second.open() == [ANN, BOB]
    await second.close()
    with raw(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


@pytest.mark.parametrize(
    "clash",
    [
        Identity("p-other", "aNN", "hash-other", 2000.0),  # name, other case
        Identity(ANN.player_id, "Cleo", "hash-other", 2000.0),  # id
        Identity("p-other", "Cleo", ANN.token_hash, 2000.0),  # token
    ],
)
async def test_duplicate_player_is_refused_and_changes_nothing(
    backend: AnyBackend, clash: Identity
) -> None:
    store = backend.store()
    await store.open()
    await store.add_player(ANN)
    with pytest.raises(StoreRefused):  # so the server answers name_taken
        await store.add_player(clash)
    # The failed transaction is gone: the next write works.
    await store.add_player(BOB)
    await store.close()

    store = backend.store()
    assert await store.open() == [ANN, BOB]
    await store.close()


async def test_touch_sets_last_seen(store: Store) -> None:
    await store.touch(ANN.player_id, 5000.0)
    stats = await store.player_stats(ANN.player_id)
    assert stats is not None
    assert stats.last_seen == 5000.0
    assert await store.player_stats("p-nobody") is None
    with pytest.raises(StoreRefused):
        await store.touch("p-nobody", 5000.0)


# Races


async def test_record_race_round_trip(store: Store) -> None:
    record = make_race("g1", winner=0)
    await recorded(store, record, started_wall=1_700_000_000.0, ended_wall=1_700_000_030.5)
    # started and ended come back as the wall-clock times.
    assert await store.race("g1") == dataclasses.replace(
        record, started=1_700_000_000.0, ended=1_700_000_030.5
    )
    assert await store.race("g-unknown") is None
    assert await store.race_count() == 1


async def test_record_race_counts_a_win_and_a_draw(store: Store) -> None:
    await recorded(store, make_race("g1", winner=1), 2000.0, 2030.0)
    assert await store.player_stats(ANN.player_id) == PlayerStats(
        ANN.player_id, "Ann", 1000.0, 2030.0, games=1, wins=0, losses=1, draws=0
    )
    assert await store.player_stats(BOB.player_id) == PlayerStats(
        BOB.player_id, "Bob", 1001.0, 2030.0, games=1, wins=1, losses=0, draws=0
    )

    await recorded(store, make_race("g2", winner=None), 3000.0, 3040.0)
    assert await store.player_stats(ANN.player_id) == PlayerStats(
        ANN.player_id, "Ann", 1000.0, 3040.0, games=2, wins=0, losses=1, draws=1
    )
    assert await store.player_stats(BOB.player_id) == PlayerStats(
        BOB.player_id, "Bob", 1001.0, 3040.0, games=2, wins=1, losses=0, draws=1
    )


async def test_record_race_is_idempotent(store: Store) -> None:
    record = make_race("g1", winner=0)
    await recorded(store, record, 2000.0, 2030.0)
    before = await store.player_stats(ANN.player_id)
    await recorded(store, record, 2100.0, 2130.0)
    assert await store.race_count() == 1
    assert await store.player_stats(ANN.player_id) == before
    race = await store.race("g1")
    assert race is not None
    assert race.ended == 2030.0


@pytest.mark.parametrize(
    "broken",
    [
        # The moves are checked before the transaction begins; the others
        # fail in it, after the race row has gone in.
        lambda r: dataclasses.replace(r, moves=(*r.moves, r.moves[0])),  # a seq twice
        lambda r: dataclasses.replace(r, moves=(MoveRecord(9, 2, "AS", 1.0),)),  # no such seat
        lambda r: dataclasses.replace(r, player_ids=(ANN.player_id, "p-nobody")),
        lambda r: dataclasses.replace(r, winner=2),
    ],
)
async def test_a_refused_race_writes_nothing(
    store: Store, broken, caplog: pytest.LogCaptureFixture
) -> None:
    # Refused, it is logged by its id, and its future completes all the same,
    # naming the race among those refused (the glue drops the frames waiting
    # on it, which announce nothing recorded): a retry could never write it.
    assert "g1" in await recorded(store, broken(make_race("g1")), 2000.0, 2030.0)
    assert "lost the record of race g1, refused" in caplog.text or (
        "lost the start of race g1, refused" in caplog.text  # an unknown player's start
    )
    assert await store.race_count() == 0
    assert await store.race("g1") is None
    assert await store.player_stats(ANN.player_id) == PlayerStats(
        ANN.player_id, "Ann", 1000.0, 1000.0, games=0, wins=0, losses=0, draws=0
    )
    # The same id can still be written once the record is right.
    await recorded(store, make_race("g1"), 2000.0, 2030.0)
    assert await store.race_count() == 1


# Concurrency: the worker thread


async def test_calls_run_in_the_order_they_are_made(backend: AnyBackend) -> None:
    store = await with_players(backend)
    ids = [f"g{n:03}" for n in range(60)]
    await asyncio.gather(
        *(
            recorded(store, make_race(game_id), 2000.0 + n, 2030.0 + n)
            for n, game_id in enumerate(ids)
        ),
        *(store.touch(BOB.player_id, 5000.0 + n) for n in range(60)),
    )
    assert await store.race_count() == 60
    stats = await store.player_stats(BOB.player_id)
    assert stats is not None
    assert (stats.games, stats.wins, stats.losses) == (60, 0, 60)
    assert stats.last_seen == 5059.0  # the last touch made is the last one applied
    await store.close()
    inserted = backend.query(f"SELECT id FROM races ORDER BY {backend.insertion_order}")
    assert [row[0] for row in inserted] == ids


async def test_races_recorded_together_are_kept_or_refused_one_by_one(
    backend: AnyBackend, caplog: pytest.LogCaptureFixture
) -> None:
    store = await with_players(backend)
    records = [make_race(f"g{n:02}") for n in range(30)]
    records[17] = dataclasses.replace(records[17], player_ids=(ANN.player_id, "p-nobody"))
    records[23] = records[5]  # a race recorded twice is kept once
    # Every race below is recorded before the worker can write (it waits for
    # the lock, if it has taken the first), so they are written together.
    with backend.write_locked():
        first = recorded(store, make_race("g-first"), 2000.0, 2030.0)
        writes = [recorded(store, record, 2100.0, 2130.0) for record in records]
    await first
    assert len({id(write) for write in writes}) == 1  # one batch, one future
    refused = await writes[0]  # the refused race is logged and named, not raised
    # g05 again finds itself recorded, no longer live: kept once, the second refused.
    assert refused == {"g17", "g05"}
    assert await store.race_count() == 1 + 28
    assert await store.race("g17") is None
    assert "lost the start of race g17, refused" in caplog.text  # its player is unknown
    assert "lost the record of race g05" not in caplog.text
    stats = await store.player_stats(BOB.player_id)
    assert stats is not None
    assert (stats.games, stats.losses) == (29, 29)
    await store.close()


async def test_a_write_that_fails_on_a_bug_still_answers(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    # Not a refusal but a bug (a move without a time): the future is settled
    # instead of waiting for ever, which would hold a game_over back for good,
    # and the log has the race and the traceback.
    broken = dataclasses.replace(make_race("g1"), moves=(MoveRecord(1, 0, "AS", None),))
    await asyncio.wait_for(recorded(store, broken, 2000.0, 2030.0), 5)
    (lost,) = (r for r in caplog.records if "lost the record of race g1" in r.message)
    assert lost.exc_info is not None and lost.exc_info[0] is TypeError
    # Others race on (g1 stays live in the store: Ann and Bob would not start another).
    await store.add_player(CAT)
    await store.add_player(DAN)
    other = dataclasses.replace(make_race("g2"), player_ids=(CAT.player_id, DAN.player_id))
    await recorded(store, other, 2000.0, 2030.0)
    assert await store.race_count() == 1


async def test_a_blocked_write_leaves_the_loop_free(backend: AnyBackend) -> None:
    store = await with_players(backend)
    # Another connection holds the write lock: the store's worker must wait for it.
    with backend.write_locked():
        write = recorded(store, make_race("g1"), 2000.0, 2030.0)
        count = asyncio.create_task(store.race_count())

        # Two coroutines take turns on the loop while the write cannot finish.
        ping, pong = asyncio.Event(), asyncio.Event()

        async def echo() -> None:
            for _ in range(20):
                await ping.wait()
                ping.clear()
                pong.set()

        echoer = asyncio.create_task(echo())
        # Well inside SQLite's 5 s lock wait: no part of the write waited on the loop.
        async with asyncio.timeout(2.5):
            for _ in range(20):
                ping.set()
                await pong.wait()
                pong.clear()
            await echoer
        assert not write.done()
        assert not count.done()  # queued behind the write
    await write
    assert await count == 1  # it ran after the write, as it was made after it
    await store.close()


async def test_close_finishes_calls_already_made(backend: AnyBackend) -> None:
    store = await with_players(backend)
    writes = [recorded(store, make_race(f"g{n}"), 1.0, 2.0) for n in range(5)]
    writes[0].cancel()  # a caller that gives up does not drop a write already made
    await store.close()
    results = await asyncio.gather(*writes, return_exceptions=True)
    assert isinstance(results[0], asyncio.CancelledError)
    # Those that shared its batch's future see it cancelled too; the rest are done.
    assert all(r is None or isinstance(r, asyncio.CancelledError) for r in results)

    store = backend.store()
    await store.open()
    assert await store.race_count() == 5
    await store.close()


async def test_close_twice_and_use_after_close(backend: AnyBackend) -> None:
    store = backend.store()
    await store.open()
    await asyncio.gather(store.close(), store.close())
    await store.close()
    with pytest.raises(StoreError):
        await store.race_count()
    with pytest.raises(StoreError):
        await store.add_player(ANN)
    with pytest.raises(StoreError):
        await store.open()
    written = recorded(store, make_race("g1"), 1.0, 2.0)  # the future carries the failure
    with pytest.raises(StoreError):
        await written
    # Closing a store that was never opened is fine too.
    await backend.store().close()


async def test_use_before_open_and_open_twice(backend: AnyBackend) -> None:
    store = backend.store()
    with pytest.raises(StoreError):
        await store.race_count()
    await store.open()
    with pytest.raises(StoreError):
        await store.open()
    await store.close()


async def test_moves_are_kept_to_the_millisecond(store: Store) -> None:
    record = dataclasses.replace(
        make_race("g1"), moves=(MoveRecord(1, 0, "AS", 0.0004), MoveRecord(2, 1, "2S", 1.23456))
    )
    await recorded(store, record, 2000.0, 2030.0)
    race = await store.race("g1")
    assert race is not None
    assert [move.at for move in race.moves] == [0.0, 1.235]


async def test_the_moves_view_shows_each_move_as_a_row(backend: AnyBackend) -> None:
    store = await with_players(backend)
    await recorded(store, make_race("g1", moves=2), 2000.0, 2030.0)
    await recorded(store, make_race("g2", moves=5), 2000.0, 2030.0)
    await store.close()
    rows = backend.query("SELECT seq, seat, card, at FROM moves WHERE race_id = 'g1' ORDER BY seq")
    ((count,),) = backend.query("SELECT count(*) FROM moves")
    assert rows == [(0, 0, "1S", 0.0), (1, 1, "2S", 0.25), (2, 1, "redeal", 9.5)]
    assert count == 3 + 6
