"""The store's journal of live races, and its faults: real ones, made by SQLite itself.

A full disk is ``PRAGMA max_page_count`` set to the file's size on the store's
own connection (the page limit is per connection, hence the store's one test
hook): SQLite then answers SQLITE_FULL, "database or disk is full", exactly as
it does when the disk is full, and raising the limit again is the disk freed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import sys
from typing import TYPE_CHECKING

import pytest

from server.events import RaceEnded
from server.migrations import MIGRATIONS
from server.record import Entry, RaceStart
from server.restore import restore
from server.store import SCHEMA_VERSION, SqliteStore, StoreRefused, StoreUnavailable

from .test_store import ANN, BOB, ROOT, assert_intact, make_race, raw, with_players

if TYPE_CHECKING:
    from pathlib import Path

SEEDS = (2**255 + 1, 7, 2**200, 0)  # 32-byte seeds, far wider than SQLite's INTEGER


def start_of(game_id: str) -> RaceStart:
    return RaceStart(
        game_id, '{"deal":"mirror"}', SEEDS, (ANN.player_id, BOB.player_id), ("Ann", "Bob")
    )


def entries(first: int, count: int) -> list[Entry]:
    return [
        Entry(seq, seq % 2, "AS" if seq % 3 else "redeal", seq * 0.125)
        for seq in range(first, first + count)
    ]


async def fill(store: SqliteStore) -> None:
    """Let the file grow no more: the next write that needs a page fails with SQLITE_FULL."""
    ((pages,),) = await store.execute_for_tests("PRAGMA page_count")
    await store.execute_for_tests(f"PRAGMA max_page_count = {pages}")


async def free(store: SqliteStore) -> None:
    await store.execute_for_tests("PRAGMA max_page_count = 1073741823")


# The journal


async def test_journal_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    store = await with_players(path)
    await store.begin_race(start_of("g1"), 1_700_000_000.0)
    journal = entries(1, 5)
    for entry in journal:
        await store.journal("g1", entry)
    await store.begin_race(start_of("g1"), 1_800_000_000.0)  # known: a no-op
    await store.close()

    store = SqliteStore(path)
    await store.open()
    assert await store.live_races() == [(start_of("g1"), journal, journal[-1].at)]
    await store.close()
    with raw(path) as conn:
        assert conn.execute("SELECT started FROM live_races").fetchall() == [(1_700_000_000.0,)]


async def test_writes_made_together_share_one_future_and_keep_their_order(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    store = await with_players(path)
    await store.begin_race(start_of("g1"), 1000.0)
    # Made in one loop pass: the worker takes none of them before the last.
    # In the batch, starts go first (an entry needs its race) and finished
    # races last (a record drops its race's entries).
    made = [
        store.journal("g2", Entry(1, 0, "AS", 0.5)),
        store.record_race(make_race("g1"), 1000.0, 1030.0),
        store.journal("g1", Entry(9, 1, "KS", 9.0)),
        store.begin_race(start_of("g2"), 1001.0),
        store.journal("g2", Entry(2, 1, "2S", 0.75)),
    ]
    assert len({id(future) for future in made}) == 1
    await made[0]
    assert await store.live_races() == [
        (start_of("g2"), [Entry(1, 0, "AS", 0.5), Entry(2, 1, "2S", 0.75)], 0.75)
    ]
    assert await store.race_count() == 1
    # Any other call ends the batch: what comes after it is written after it.
    before = store.journal("g2", Entry(3, 0, "3S", 1.0))
    touched = asyncio.ensure_future(store.touch(ANN.player_id, 5000.0))
    await asyncio.sleep(0)  # a coroutine's call is made once it starts
    after = store.journal("g2", Entry(4, 1, "4S", 1.25))
    assert before is not after
    await asyncio.gather(before, touched, after)
    assert [entry.seq for entry in (await store.live_races())[0][1]] == [1, 2, 3, 4]
    await store.close()


async def test_record_race_drops_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    store = await with_players(path)
    await store.begin_race(start_of("g1"), 1000.0)
    await store.begin_race(start_of("g2"), 1000.0)
    for entry in entries(1, 20):
        store.journal("g1", entry)
        store.journal("g2", entry)
    await store.record_race(make_race("g1"), 1000.0, 1030.0)
    assert [start.game_id for start, _, _ in await store.live_races()] == ["g2"]
    await store.close()
    with raw(path) as conn:
        assert conn.execute("SELECT DISTINCT race_id FROM journal").fetchall() == [("g2",)]
        assert conn.execute("SELECT id FROM live_races").fetchall() == [("g2",)]


async def test_an_aborted_race_is_kept_and_counts_for_nobody(tmp_path: Path) -> None:
    store = await with_players(tmp_path / "fg.sqlite3")
    await store.begin_race(start_of("g1"), 1000.0)
    aborted = dataclasses.replace(make_race("g1", winner=None), reason="aborted", moves=())
    await store.record_race(aborted, 1000.0, 1030.0)
    assert await store.race("g1") is not None
    assert await store.live_races() == []
    for who in (ANN, BOB):
        stats = await store.player_stats(who.player_id)
        assert stats is not None
        assert (stats.games, stats.wins, stats.losses, stats.draws) == (0, 0, 0, 0)
        assert stats.last_seen == who.created
    await store.close()


async def test_live_races_oldest_first_with_their_elapsed(tmp_path: Path) -> None:
    store = await with_players(tmp_path / "fg.sqlite3")
    await store.begin_race(start_of("g-late"), 3000.0)
    await store.begin_race(start_of("g-early"), 1000.0)
    await store.begin_race(start_of("g-none"), 2000.0)
    # Entries made out of order across races, each race's in its own order.
    for late, early in zip(entries(1, 4), entries(1, 6), strict=False):
        store.journal("g-late", late)
        store.journal("g-early", early)
    await store.journal("g-early", Entry(5, 0, "5S", 0.625))
    await store.journal("g-early", Entry(6, 1, "6S", 0.75))
    # Suspended: the elapsed kept wins over the last entry, and an unknown id is skipped.
    await store.suspend({"g-late": 42.5, "g-gone": 1.0})
    live = await store.live_races()
    assert [
        (start.game_id, [e.seq for e in journal], elapsed) for start, journal, elapsed in live
    ] == [
        ("g-early", [1, 2, 3, 4, 5, 6], 0.75),
        ("g-none", [], 0.0),
        ("g-late", [1, 2, 3, 4], 42.5),
    ]
    # Then the race goes on past what was kept: the last entry wins.
    await store.journal("g-late", Entry(5, 1, "5S", 50.0))
    assert (await store.live_races())[2][2] == 50.0
    await store.close()


async def test_unreadable_live_races_come_back_to_be_aborted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "fg.sqlite3"
    store = await with_players(path)
    await store.begin_race(start_of("g-seeds"), 1000.0)
    await store.begin_race(start_of("g-rules"), 1001.0)
    await store.journal("g-rules", Entry(1, 0, "AS", 0.5))
    await store.close()
    with raw(path) as conn:  # what a bad disk or a hand with sqlite3 might leave
        conn.execute("UPDATE live_races SET seeds = 'not json' WHERE id = 'g-seeds'")
        conn.execute("UPDATE live_races SET rules = x'00ff', elapsed = 'soon' WHERE id = 'g-rules'")
        conn.execute("UPDATE journal SET at = 'late', what = 7 WHERE race_id = 'g-rules'")
    store = SqliteStore(path)
    await store.open()
    live = await store.live_races()
    await store.close()
    assert [
        (start.game_id, start.seeds, start.rules_json, elapsed) for start, _, elapsed in live
    ] == [
        ("g-seeds", (), '{"deal":"mirror"}', 0.0),
        ("g-rules", SEEDS, "", 0.0),
    ]
    assert "live race g-seeds: cannot read its seeds" in caplog.text
    assert "live race g-rules: cannot read its rules, elapsed, last entry's time" in caplog.text
    for start, journal, elapsed in live:
        _, outputs = restore(
            start, journal, elapsed=elapsed, now=100.0, idle_limit=60.0, grace=30.0
        )
        (ended,) = [out for out in outputs if isinstance(out, RaceEnded)]
        assert ended.record.reason == "aborted"


async def test_a_version_2_database_is_upgraded_with_its_races(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    with raw(path) as conn:
        for migration in MIGRATIONS[:2]:
            for statement in migration:
                conn.execute(statement)
        conn.execute("PRAGMA user_version=2")
        for who in (ANN, BOB):
            conn.execute(
                "INSERT INTO players (id, name, name_key, token_hash, created, last_seen, games)"
                " VALUES (?, ?, ?, ?, ?, ?, 1)",
                (who.player_id, who.name, who.name.lower(), who.token_hash, who.created, 1.0),
            )
        conn.execute(
            "INSERT INTO races VALUES ('g0', '{}', '[8]', 'p-ann', 'p-bob', 1.0, 2.0,"
            " 'draw', NULL, 'stalled', 0, 0, '[[1,0,\"AS\",250]]')"
        )
    store = SqliteStore(path)
    assert await store.open() == [ANN, BOB]
    race = await store.race("g0")
    assert race is not None and [move.at for move in race.moves] == [0.25]
    assert await store.live_races() == []
    await store.begin_race(start_of("g1"), 1000.0)
    await store.journal("g1", Entry(1, 0, "AS", 0.5))
    assert len(await store.live_races()) == 1
    await store.close()
    with raw(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert_intact(path)


# Faults


async def test_a_full_disk_that_recovers_loses_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "fg.sqlite3"
    store = await with_players(path)
    await store.begin_race(start_of("g1"), 1000.0)
    await store.begin_race(start_of("g2"), 1000.0)
    await store.journal("g1", Entry(1, 0, "AS", 0.125))
    await fill(store)
    assert not store.failing

    # 400 entries need new pages; made in one pass, they are one batch, one future.
    (first,) = {store.journal("g1", entry) for entry in entries(2, 400)}
    # A test call runs between two attempts: by then the first has failed.
    await store.execute_for_tests("SELECT 1")
    assert store.failing
    assert not first.done()
    assert "cannot write 400 journal entries of race g1" in caplog.text
    # Meanwhile more comes, queued behind in call order.
    second = store.record_race(make_race("g2"), 1000.0, 1030.0)
    store.begin_race(start_of("g3"), 1001.0)
    store.journal("g3", Entry(1, 1, "AS", 0.5))
    await store.execute_for_tests("SELECT 1")
    assert store.failing and not first.done() and not second.done()

    await free(store)
    await asyncio.gather(first, second)
    assert not store.failing
    assert "wrote 400 journal entries of race g1 after" in caplog.text
    await store.close()

    store = SqliteStore(path)
    await store.open()
    live = await store.live_races()
    assert [(start.game_id, [e.seq for e in journal]) for start, journal, _ in live] == [
        ("g1", list(range(1, 402))),
        ("g3", [1]),
    ]
    assert await store.race("g2") is not None
    await store.close()


async def test_add_player_on_a_full_disk_is_unavailable_not_refused(tmp_path: Path) -> None:
    store = await with_players(tmp_path / "fg.sqlite3")
    await fill(store)
    with pytest.raises(StoreUnavailable, match="full"):
        for n in range(10_000):  # the players' pages take a few before they are full
            await store.add_player(
                dataclasses.replace(ANN, player_id=f"p{n}", name=f"n{n}", token_hash=f"t{n}")
            )
    assert store.failing
    with pytest.raises(StoreRefused):  # a taken name is taken, full disk or not
        await store.add_player(dataclasses.replace(ANN, player_id="p-new", token_hash="t-new"))
    await free(store)
    await store.add_player(
        dataclasses.replace(ANN, player_id="p-new", name="Cleo", token_hash="t-new")
    )
    assert not store.failing
    await store.close()


async def test_close_while_failing_gives_up_in_bounded_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "fg.sqlite3"
    store = SqliteStore(path, give_up_after=0.2)
    await store.open()
    await store.add_player(ANN)
    await store.add_player(BOB)
    await store.begin_race(start_of("g1"), 1000.0)
    await fill(store)
    (lost,) = {store.journal("g1", entry) for entry in entries(1, 400)}
    await store.execute_for_tests("SELECT 1")
    assert store.failing
    later = store.record_race(make_race("g7"), 1000.0, 1030.0)  # queued behind
    loop = asyncio.get_running_loop()
    began = loop.time()
    await asyncio.wait_for(store.close(), 10)
    assert loop.time() - began < 5
    for future in (lost, later):
        with pytest.raises(StoreUnavailable):
            await future
    assert "gave up; not written: 400 journal entries of race g1" in caplog.text
    assert "gave up; not written: the record of race g7" in caplog.text

    store = SqliteStore(path)
    await store.open()
    assert await store.live_races() == [(start_of("g1"), [], 0.0)]
    await store.close()


# Crash safety

JOURNALING = """
import asyncio, sys
from server.identity import Identity
from server.record import Entry, RaceStart
from server.store import SqliteStore

async def main(path):
    store = SqliteStore(path)
    await store.open()
    for who in ("ann", "bob"):
        await store.add_player(Identity(f"p-{who}", who, f"hash-{who}", 1000.0))
    start = RaceStart("g1", "{}", (1, 2, 3, 4), ("p-ann", "p-bob"), ("ann", "bob"))
    await store.begin_race(start, 2000.0)
    seq = 0
    while True:
        for _ in range(7):  # several plays in one loop pass: one batch
            seq += 1
            written = store.journal("g1", Entry(seq, seq % 2, "AS", seq / 8))
        await written
        print(seq, flush=True)  # acknowledged: every entry up to seq is committed

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
async def test_sigkill_mid_journal_keeps_every_acknowledged_entry(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", JOURNALING, str(path), cwd=ROOT, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    try:
        acknowledged = [
            int(await asyncio.wait_for(process.stdout.readline(), 30)) for _ in range(40)
        ]
        os.kill(process.pid, signal.SIGKILL)  # most likely in the middle of a batch
        assert await asyncio.wait_for(process.wait(), 30) == -signal.SIGKILL
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert_intact(path)
    store = SqliteStore(path)
    await store.open()
    ((_, journal, elapsed),) = await store.live_races()
    await store.close()
    seqs = [entry.seq for entry in journal]
    assert seqs == list(range(1, len(seqs) + 1))  # whole batches only: no gap
    assert len(seqs) >= acknowledged[-1]
    assert elapsed == journal[-1].at
