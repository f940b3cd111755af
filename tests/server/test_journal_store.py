"""The store's journal of live races: kept, batched, dropped once recorded, read back.

Tests that take ``backend`` run on both stores, SQLite and PostgreSQL; those on
``tmp_path`` are about SQLite's file (its append-only log, dynamic typing). The
upgrades of old files are in test_journal_store_upgrades.py, the faults of the
store in test_store_retries.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import sys
from typing import TYPE_CHECKING

import pytest

from core.events import RaceEnded
from core.race_log import Entry, RaceStart
from core.restore import restore
from server.store import SqliteStore
from server.store.journal_lines import UNREADABLE

from .test_store import ANN, BOB, PAIRS, ROOT, make_race, raw, with_players

if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path

    from ..store_backends import AnyBackend

SEEDS = (2**255 + 1, 7, 2**200, 0)  # 32-byte seeds, far wider than SQLite's INTEGER


def start_of(game_id: str, pair: int = 0) -> RaceStart:
    """Race ``game_id``'s start, by the ``pair``-th pair of :data:`PAIRS` (Ann and Bob)."""
    first, second = PAIRS[pair]
    return RaceStart(
        game_id,
        '{"deal":"mirror"}',
        "mt19937",
        SEEDS,
        (first.player_id, second.player_id),
        (first.name, second.name),
    )


def journal_entries(conn: sqlite3.Connection) -> list[str]:
    """Every entry the journal holds, a line each (a row holds a batch's)."""
    rows = conn.execute("SELECT entries FROM journal ORDER BY id").fetchall()
    return [line for (text,) in rows for line in text.split("\n")]


def entries(first: int, count: int) -> list[Entry]:
    return [
        Entry(seq, seq % 2, "AS" if seq % 3 else "redeal", seq * 0.125)
        for seq in range(first, first + count)
    ]


# The journal


async def test_journal_round_trip(backend: AnyBackend) -> None:
    store = await with_players(backend)
    await store.begin_race(start_of("g1"), 1_700_000_000.0)
    journal = entries(1, 5)
    for entry in journal:
        await store.journal("g1", entry)
    await store.begin_race(start_of("g1"), 1_800_000_000.0)  # known: a no-op
    await store.close()

    store = backend.store()
    await store.open()
    assert await store.live_races() == [(start_of("g1"), journal, journal[-1].at)]
    await store.close()
    assert backend.query("SELECT started FROM live_races") == [(1_700_000_000.0,)]


async def test_writes_made_together_share_one_future_and_keep_their_order(
    backend: AnyBackend,
) -> None:
    store = await with_players(backend, pairs=3)
    await store.begin_race(start_of("g1"), 1000.0)
    # Made in one loop pass: the worker takes none of them before the last.
    # In the batch, starts go first (an entry needs its race) and finished
    # races last (a record drops its race's entries).
    made = [
        store.journal("g2", Entry(1, 0, "AS", 0.5)),
        store.record_race(make_race("g1"), 1000.0, 1030.0),
        store.journal("g1", Entry(9, 1, "KS", 9.0)),
        store.begin_race(start_of("g2", 1), 1001.0),
        store.journal("g2", Entry(2, 1, "2S", 0.75)),
    ]
    assert len({id(future) for future in made}) == 1
    await made[0]
    assert await store.live_races() == [
        (start_of("g2", 1), [Entry(1, 0, "AS", 0.5), Entry(2, 1, "2S", 0.75)], 0.75)
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


async def test_record_race_drops_the_journal_once_no_older_race_is_live(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    store = await with_players(path, pairs=3)
    await store.begin_race(start_of("g1"), 1000.0)
    await store.begin_race(start_of("g2", 1), 1000.0)
    for entry in entries(1, 20):
        store.journal("g1", entry)
        store.journal("g2", entry)
    await store.record_race(make_race("g2"), 1000.0, 1030.0)
    (live,) = await store.live_races()
    assert live[0].game_id == "g1" and len(live[1]) == 20
    with raw(path) as conn:  # g1, live and older, still holds the log's head
        assert len(journal_entries(conn)) == 40
    await store.record_race(make_race("g1"), 1000.0, 1030.0)
    await store.close()
    with raw(path) as conn:
        assert journal_entries(conn) == []
        assert conn.execute("SELECT id FROM live_races").fetchall() == []


async def test_a_race_begun_after_the_log_was_emptied_keeps_its_entries(
    backend: AnyBackend,
) -> None:
    # Ids only grow (AUTOINCREMENT): were they reused once the log is empty, a
    # new race's entries would fall below its first_entry and be cut as a
    # finished race's.
    store = await with_players(backend, pairs=3)
    await store.begin_race(start_of("g1"), 1000.0)
    for entry in entries(1, 5):
        store.journal("g1", entry)
    await store.record_race(make_race("g1"), 1000.0, 1030.0)
    await store.begin_race(start_of("g2", 1), 1000.0)
    await store.begin_race(start_of("g3", 2), 1000.0)
    store.journal("g2", Entry(1, 0, "AS", 0.5))
    await store.record_race(make_race("g3"), 1000.0, 1030.0)
    (live,) = await store.live_races()
    assert live[0].game_id == "g2" and live[1] == [Entry(1, 0, "AS", 0.5)]
    await store.close()


async def test_an_aborted_race_is_kept_and_counts_for_nobody(backend: AnyBackend) -> None:
    store = await with_players(backend)
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


async def test_live_races_oldest_first_with_their_elapsed(backend: AnyBackend) -> None:
    store = await with_players(backend, pairs=3)
    await store.begin_race(start_of("g-late"), 3000.0)
    await store.begin_race(start_of("g-early", 1), 1000.0)
    await store.begin_race(start_of("g-none", 2), 2000.0)
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
    store = await with_players(path, pairs=3)
    await store.begin_race(start_of("g-seeds"), 1000.0)
    await store.begin_race(start_of("g-rules", 1), 1001.0)
    await store.journal("g-rules", Entry(1, 0, "AS", 0.5))
    await store.close()
    with raw(path) as conn:  # what a bad disk or a hand with sqlite3 might leave
        conn.execute("UPDATE live_races SET seeds = 'not json' WHERE id = 'g-seeds'")
        conn.execute("UPDATE live_races SET rules = x'00ff', elapsed = 'soon' WHERE id = 'g-rules'")
        conn.execute("UPDATE journal SET entries = 'g-rules 1 0 AS late'")
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
    assert "live race g-rules: cannot read its rules, elapsed" in caplog.text
    assert "journal: cannot read the entry 'g-rules 1 0 AS late'" in caplog.text
    assert [journal for _, journal, _ in live] == [[], [UNREADABLE]]
    for start, journal, elapsed in live:
        _, outputs = restore(
            start, journal, elapsed=elapsed, now=100.0, idle_limit=60.0, grace=30.0
        )
        (ended,) = [out for out in outputs if isinstance(out, RaceEnded)]
        assert ended.record.reason == "aborted"


# Crash safety

JOURNALING = """
import asyncio, sys
from core.identity import Identity
from core.race_log import Entry, RaceStart
from server.store.backends import open_store

async def main(db):
    store = open_store(db)
    await store.open()
    for who in ("ann", "bob"):
        await store.add_player(Identity(f"p-{who}", who, f"hash-{who}", 1000.0))
    start = RaceStart("g1", "{}", "mt19937", (1, 2, 3, 4), ("p-ann", "p-bob"), ("ann", "bob"))
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
async def test_sigkill_mid_journal_keeps_every_acknowledged_entry(backend: AnyBackend) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", JOURNALING, backend.db, cwd=ROOT, stdout=asyncio.subprocess.PIPE
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
    backend.assert_intact()
    store = backend.store()
    await store.open()
    ((_, journal, elapsed),) = await store.live_races()
    await store.close()
    seqs = [entry.seq for entry in journal]
    assert seqs == list(range(1, len(seqs) + 1))  # whole batches only: no gap
    assert len(seqs) >= acknowledged[-1]
    assert elapsed == journal[-1].at
