"""The store on a shutdown: bounded whatever the disk or a statement does (SQLite).

A shutdown begins with :meth:`~server.store.machine.StoreMachine.suspend`; from
then on a failing write is given up within ``give_up_after``, ``suspend``
itself does not queue behind writes being retried (it used to, with no
deadline yet: SIGTERM on a full disk waited for space), and ``close``
interrupts a statement still running at the deadline.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import pytest

from server.store import StoreError
from server.store.faults import INTERRUPTED_WAIT

from .test_journal_store import entries, start_of
from .test_store import with_players

if TYPE_CHECKING:
    from pathlib import Path

FOREVER = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
"""A statement that never ends by itself."""


async def test_suspend_on_a_full_disk_returns_at_once_and_close_keeps_to_the_deadline(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = await with_players(tmp_path / "fg.sqlite3", give_up_after=0.5)
    await store.begin_race(start_of("g1"), 1000.0)
    ((pages,),) = await store.execute_for_tests("PRAGMA page_count")
    await store.execute_for_tests(f"PRAGMA max_page_count = {pages}")
    (lost,) = {store.journal("g1", entry) for entry in entries(1, 2000)}  # needs new pages
    await store.execute_for_tests("SELECT 1")  # between two attempts: it has failed
    assert store.failing

    loop = asyncio.get_running_loop()
    began = loop.time()
    await asyncio.wait_for(store.suspend({"g1": 12.5}), 1.0)
    assert loop.time() - began < 0.2, "suspend waited behind the retries"
    assert "not kept on shutdown: how long races g1 had run" in caplog.text
    await asyncio.wait_for(store.close(), 5.0)
    assert loop.time() - began < 0.5 + INTERRUPTED_WAIT
    with pytest.raises(StoreError):
        await lost
    assert "gave up; not written: 2000 journal entries of race g1" in caplog.text


async def test_a_statement_running_at_the_deadline_is_interrupted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = await with_players(tmp_path / "fg.sqlite3", give_up_after=0.3)
    running = asyncio.ensure_future(store.execute_for_tests(FOREVER))
    await asyncio.sleep(0)  # queued first; close comes behind it
    loop = asyncio.get_running_loop()
    began = loop.time()
    await asyncio.wait_for(store.suspend({}), 1.0)
    caplog.set_level(logging.INFO, "flowergarden.server")
    await asyncio.wait_for(store.close(), 5.0)
    assert loop.time() - began < 0.3 + INTERRUPTED_WAIT
    with pytest.raises(StoreError, match="interrupted"):
        await running
