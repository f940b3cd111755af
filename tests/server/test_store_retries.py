"""The store's faults: real ones, made by the database itself, retried until they pass.

Every test runs on both stores (tests/store_backends.py). On SQLite a full
disk is ``PRAGMA max_page_count`` set to the file's size on the store's own
connection (the page limit is per connection, hence the store's test hook):
SQLite then answers SQLITE_FULL, "database or disk is full", exactly as it
does when the disk is full, and raising the limit again is the disk freed.
PostgreSQL has no such per-connection limit: there, the fault is the session
made read-only (SQLSTATE 25006, what a standby answers), lifted the same way.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING

import pytest

from core.race_log import Entry
from server.store import StoreRefused, StoreUnavailable

from .test_journal_store import entries, start_of
from .test_store import ANN, make_race, with_players

if TYPE_CHECKING:
    from ..store_backends import AnyBackend


async def test_a_full_disk_that_recovers_loses_nothing(
    backend: AnyBackend, caplog: pytest.LogCaptureFixture
) -> None:
    store = await with_players(backend, pairs=3)
    await store.begin_race(start_of("g1"), 1000.0)
    await store.begin_race(start_of("g2", 1), 1000.0)
    await store.journal("g1", Entry(1, 0, "AS", 0.125))
    await backend.fill(store)
    assert not store.failing

    # 2,000 entries need new pages (SQLite's journal row of them is 40 kB);
    # made in one pass, they are one batch, one future.
    (first,) = {store.journal("g1", entry) for entry in entries(2, 2000)}
    # A test call runs between two attempts: by then the first has failed.
    await store.execute_for_tests("SELECT 1")
    assert store.failing
    assert not first.done()
    assert "cannot write 2000 journal entries of race g1" in caplog.text
    # Meanwhile more comes, queued behind in call order.
    second = store.record_race(make_race("g2"), 1000.0, 1030.0)
    store.begin_race(start_of("g3", 2), 1001.0)
    store.journal("g3", Entry(1, 1, "AS", 0.5))
    await store.execute_for_tests("SELECT 1")
    assert store.failing and not first.done() and not second.done()

    await backend.free(store)
    await asyncio.gather(first, second)
    assert not store.failing
    assert "wrote 2000 journal entries of race g1 after" in caplog.text
    await store.close()

    store = backend.store()
    await store.open()
    live = await store.live_races()
    assert [(start.game_id, [e.seq for e in journal]) for start, journal, _ in live] == [
        ("g1", list(range(1, 2002))),
        ("g3", [1]),
    ]
    assert await store.race("g2") is not None
    await store.close()


async def test_add_player_on_a_full_disk_is_unavailable_not_refused(backend: AnyBackend) -> None:
    store = await with_players(backend)
    await backend.fill(store)
    with pytest.raises(StoreUnavailable, match=backend.fault_words):
        for n in range(10_000):  # the players' pages take a few before they are full
            await store.add_player(
                dataclasses.replace(ANN, player_id=f"p{n}", name=f"n{n}", token_hash=f"t{n}")
            )
    assert store.failing
    with pytest.raises(StoreRefused):  # a taken name is taken, full disk or not
        await store.add_player(dataclasses.replace(ANN, player_id="p-new", token_hash="t-new"))
    await backend.free(store)
    await store.add_player(
        dataclasses.replace(ANN, player_id="p-new", name="Cleo", token_hash="t-new")
    )
    assert not store.failing
    await store.close()


async def test_close_while_failing_gives_up_in_bounded_time(
    backend: AnyBackend, caplog: pytest.LogCaptureFixture
) -> None:
    store = await with_players(backend, give_up_after=0.2)
    await store.begin_race(start_of("g1"), 1000.0)
    await backend.fill(store)
    (lost,) = {store.journal("g1", entry) for entry in entries(1, 2000)}  # new pages
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
    assert "gave up; not written: 2000 journal entries of race g1" in caplog.text
    assert "gave up; not written: the record of race g7" in caplog.text

    store = backend.store()
    await store.open()
    assert await store.live_races() == [(start_of("g1"), [], 0.0)]
    await store.close()
