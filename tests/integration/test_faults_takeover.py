"""Taking over a worker's races when the fault is not a clean death.

Findings of the fault suite (tests/integration/test_faults_cluster.py,
``make chaos``), each held here to its fix:

* A worker stopped (SIGSTOP) inside a store write keeps its transaction, and
  so its row locks, open in PostgreSQL: the worker taking its races waited
  for them until it woke up. The store's sessions now end a transaction left
  idle for :data:`~server.store.postgres.IDLE_IN_TRANSACTION` seconds.
* The worker taking over awaited the takeover inside its beat, so a takeover
  that waited stopped its own lease from being renewed: after 2 s it held its
  own races, and another worker took them (a healthy worker's races failed
  over because another one stopped). The takeover now runs beside the beat.
* A takeover claimed its races one Redis round trip at a time, and named
  their players' home one at a time too: 40 races took 7 s on a loaded
  machine, while their racers waited, far past the lease and a second. It
  now makes one round trip for the claims and one for the homes.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from redis.asyncio import Redis

from core.race_log import Entry
from server.app import GameServer
from server.cluster.failover import STALE
from server.cluster.shared import BEAT, LEASE
from server.config import Settings
from server.store.backends import open_store
from server.store.postgres import IDLE_IN_TRANSACTION

from ..server.test_journal_store import start_of
from ..server.test_store import with_players
from ..store_backends import PostgresBackend
from .conftest import TIMEOUT, WINNABLE, seek_pair

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from tests.redis_service import RedisServer

    from .conftest import Servers

POLL = 0.05
"""Seconds between two looks at PostgreSQL's sessions, within a deadline."""


@pytest.fixture
async def workers(
    servers: Servers, postgres_url: str, redis_server: RedisServer
) -> AsyncIterator[Callable[..., Awaitable[GameServer]]]:
    """``await workers("w1")``: a worker in this process; all close before the services stop."""
    async with contextlib.AsyncExitStack() as stack:

        async def start(worker: str, **settings: Any) -> GameServer:
            config = Settings(host="127.0.0.1", port=0, db=postgres_url, **settings)
            server = GameServer(
                config, open_store(postgres_url), worker=worker, redis=redis_server.url
            )
            return await stack.enter_async_context(server)

        yield start
        for client in servers.clients:
            await client.ws.close()


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


async def lock_waited_on(db: str) -> None:
    """Return once a session of ``db`` waits for a lock (looked at every :data:`POLL` s)."""
    query = b"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
    query += b" AND wait_event_type = 'Lock'"
    async with (
        asyncio.timeout(LEASE + BEAT + TIMEOUT),
        await psycopg.AsyncConnection.connect(db, autocommit=True) as conn,
    ):
        while (await (await conn.execute(query)).fetchone() or (0,))[0] == 0:
            await asyncio.sleep(POLL)  # polling, within the deadline


async def test_a_takeover_that_waits_does_not_stop_the_lease_of_the_worker_taking_over(
    workers, player, postgres_url, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    # A writer of w1's that froze holding the race's row: a session of its own,
    # which PostgreSQL does not end (a frozen store session is the test above).
    async with await psycopg.AsyncConnection.connect(postgres_url) as frozen:
        await frozen.execute(
            b"SELECT id FROM live_races WHERE id = %s FOR SHARE", (racing.game_id,)
        )
        await w1.peers.failover.stop()  # w1 beats no more: dead, to the others
        await w1.peers.shared.leave()
        await lock_waited_on(postgres_url)  # w2 judged it dead, and waits for the row
        await asyncio.sleep(STALE + 1.0)  # longer than a lease may go unrenewed: the point
        assert not w2.peers.failover.holding
        async with Redis.from_url(redis_server.url) as redis:
            assert await redis.exists("fg:alive:w2")
            assert await redis.hget("fg:races", racing.game_id) == b"w2"  # claimed, restoring
        await frozen.rollback()
    back = await player(w2, token=ann.token)
    state = (await back.until("game_state"))[-1]
    assert state["game_id"] == racing.game_id


async def test_a_takeover_claims_and_names_homes_in_one_round_trip_each(
    workers, player, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    games = [(await seek_pair(await player(w1), await player(w1), WINNABLE)).game_id for _ in "ab"]
    said: list[str] = []
    async with Redis.from_url(redis_server.url) as redis, redis.monitor() as monitor:
        homes_named = asyncio.Event()

        async def listen() -> None:
            async for command in monitor.listen():
                if command["client_type"] == "tcp":  # not those a script makes
                    said.append(command["command"])
                    if "fg:home:" in command["command"]:
                        homes_named.set()

        listening = asyncio.create_task(listen())
        await w1.peers.failover.stop()  # w1 beats no more: dead, to the others
        await w1.peers.shared.leave()
        async with asyncio.timeout(LEASE + BEAT + TIMEOUT):
            while [w2.lobby.race(game_id) for game_id in games].count(None):
                await asyncio.sleep(POLL)  # polling w2's lobby, within the deadline
            # MONITOR tells of a command after it ran: the homes may be named, and told
            # of, after the races are there.
            await homes_named.wait()
        listening.cancel()
        await asyncio.gather(listening, return_exceptions=True)
    # A set: a script's first call is made again once Redis has loaded it (NOSCRIPT).
    claims = {c for c in said if "fg:races" in c and c.startswith(("EVAL", "FCALL"))}
    homes = [c for c in said if "fg:home:" in c]
    assert len(claims) == 1 and all(game_id in next(iter(claims)) for game_id in games), claims
    assert len(homes) == 1, homes
