"""Taking over a worker's races when the fault is not a clean death.

Findings of the fault suite (tests/integration/test_faults_cluster.py,
``make chaos``), each held here to its fix:

* A worker stopped (SIGSTOP) inside a store write keeps its transaction, and
  so its row locks, open in PostgreSQL: the worker taking its races waited
  for them until it woke up. The store's sessions now end a transaction left
  idle for :data:`~server.store.postgres.IDLE_IN_TRANSACTION` seconds.
"""

from __future__ import annotations

import asyncio

from core.race_log import Entry
from server.store.postgres import IDLE_IN_TRANSACTION

from ..server.test_journal_store import start_of
from ..server.test_store import with_players
from ..store_backends import PostgresBackend
from .conftest import TIMEOUT


async def test_a_store_stopped_inside_a_write_holds_no_takeover_for_long(
    postgres_url: str,
) -> None:
    backend = PostgresBackend(postgres_url)
    frozen = await with_players(backend)
    await frozen.begin_race(start_of("g1"), 1000.0)
    # As a worker stopped between two statements of a write: its session idle
    # in a transaction that holds the race's row (the write's FOR SHARE).
    await frozen.execute_for_tests("BEGIN")
    await frozen.execute_for_tests("SELECT id FROM live_races WHERE id = 'g1' FOR SHARE")
    taker = backend.store()
    await taker.open()
    async with asyncio.timeout(IDLE_IN_TRANSACTION + TIMEOUT):  # not until the worker wakes
        ((live, epoch),) = await taker.take_races({"g1"})
    assert (live[0].game_id, epoch) == ("g1", 2)
    # Awake, it finds its session ended and writes again, fenced out.
    assert await frozen.journal("g1", Entry(1, 0, "AS", 0.5), 1) == {"g1"}
    await taker.close()
    await frozen.close()
