"""What only the PostgreSQL store has: its schema, its errors, its connection, its choice.

Each test runs on a real PostgreSQL, a database of its own (tests/conftest.py).
The behaviour both stores share is tested on both in test_store.py,
test_journal_store.py and test_store_retries.py.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import psycopg
import pytest

from core.events import RaceEnded
from core.identity import Identity
from core.race_log import Entry
from core.restore import restore
from server.store import (
    PostgresStore,
    SqliteStore,
    StoreError,
    StoreRefused,
    StoreUnavailable,
    open_store,
)
from server.store.postgres import classified_pg, reusable
from server.store.postgres_schema import SCHEMA_VERSION

from ..store_backends import PostgresBackend, recorded
from .test_journal_store import entries, start_of
from .test_store import ANN, BOB, make_race, with_players

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

CLEO = Identity("p-cleo", "Cleo", "hash-cleo", 1.0)
TABLES = [
    "actions",
    "arena_entrants",
    "arenas",
    "daily_deals",
    "daily_results",
    "journal",
    "live_races",
    "marks",
    "owed_ends",
    "players",
    "races",
    "schema_version",
]
KILL = b"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s"
"""Ends every connection to a database, as a server restart or a failover does."""


@pytest.fixture
def pg(postgres_url: str) -> PostgresBackend:
    return PostgresBackend(postgres_url)


@pytest.fixture
def admin(postgres_server: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """A superuser connection to the test server, for what a test does from outside."""
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        yield conn


def dbname(url: str) -> str:
    return url.rsplit("/", 1)[1]


def schema(pg: PostgresBackend) -> list[tuple[object, ...]]:
    """Every column of every table and view in the public schema, in order."""
    return pg.query(
        "SELECT table_name, column_name, data_type, is_nullable, column_default"
        " FROM information_schema.columns WHERE table_schema = 'public'"
        " ORDER BY table_name, ordinal_position"
    )


# Migrations


async def test_open_on_an_empty_database_makes_the_schema_and_records_its_version(
    pg: PostgresBackend,
) -> None:
    assert schema(pg) == []
    store = pg.store()
    assert await store.open() == []
    await store.close()
    tables = pg.query(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name"
    )
    assert [name for (name,) in tables] == TABLES
    views = "SELECT table_name FROM information_schema.views WHERE table_schema = 'public'"
    assert pg.query(views) == [("moves",)]
    assert pg.version() == SCHEMA_VERSION


async def test_opening_again_changes_nothing(pg: PostgresBackend) -> None:
    store = await with_players(pg)
    await recorded(store, make_race("g1"), 2000.0, 2030.0)
    await store.close()
    before = schema(pg)
    for _ in range(2):
        store = pg.store()
        assert await store.open() == [ANN, BOB]
        assert await store.race_count() == 1
        await store.close()
    assert schema(pg) == before
    assert pg.query("SELECT count(*) FROM schema_version") == [(1,)]
    assert pg.version() == SCHEMA_VERSION


async def test_servers_opening_one_new_database_at_once_make_the_schema_once(
    pg: PostgresBackend,
) -> None:
    stores = [pg.store() for _ in range(4)]
    # The advisory lock makes them take turns: without it, all four would
    # find no schema_version and three would fail on CREATE TABLE.
    assert await asyncio.gather(*(store.open() for store in stores)) == [[]] * 4
    await asyncio.gather(*(store.close() for store in stores))
    assert pg.version() == SCHEMA_VERSION


# Errors: each raised by a real server


def test_errors_are_classified_by_sqlstate(pg: PostgresBackend) -> None:
    pg.query("CREATE TABLE t (k integer PRIMARY KEY CHECK (k > 0))")
    with psycopg.connect(pg.db, autocommit=True) as conn:
        conn.execute(b"INSERT INTO t VALUES (1)")
        cases: list[tuple[bytes, type[StoreError]]] = [
            (b"INSERT INTO t VALUES (1)", StoreRefused),  # unique_violation
            (b"INSERT INTO t VALUES (-1)", StoreRefused),  # check_violation
            (b"SELECT nonsense FROM t", StoreError),  # a bug: neither
        ]
        for statement, kind in cases:
            with pytest.raises(psycopg.Error) as raised:
                conn.execute(statement)
            assert type(classified_pg(raised.value)) is kind, statement
        conn.execute(b"SET default_transaction_read_only = on")
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction) as read_only:
            conn.execute(b"INSERT INTO t VALUES (2)")
        assert type(classified_pg(read_only.value)) is StoreUnavailable
        conn.execute(b"SET statement_timeout = 1")
        with pytest.raises(psycopg.errors.QueryCanceled) as canceled:
            conn.execute(b"SELECT pg_sleep(1)")
        assert type(classified_pg(canceled.value)) is StoreUnavailable
    with pytest.raises(psycopg.OperationalError) as refused:
        psycopg.connect(pg.db.rsplit("/", 1)[0] + "/no_such_database")
    assert type(classified_pg(refused.value)) is StoreUnavailable


# The connection


async def test_a_lost_connection_is_made_again(
    pg: PostgresBackend, admin: psycopg.Connection[tuple[object, ...]], caplog
) -> None:
    store = await with_players(pg)
    await store.begin_race(start_of("g1"), 1000.0)
    admin.execute(KILL, (dbname(pg.db),))
    # A batch is retried: the next attempt connects again.
    await store.journal("g1", Entry(1, 0, "AS", 0.5))
    assert "connecting again" in caplog.text and not store.failing
    admin.execute(KILL, (dbname(pg.db),))
    # A player is not retried: unavailable once, then the next call connects again.
    with pytest.raises(StoreUnavailable):
        await store.add_player(CLEO)
    await store.add_player(CLEO)
    ((_, journal, _),) = await store.live_races()
    assert journal == [Entry(1, 0, "AS", 0.5)]
    await store.close()


async def test_a_connection_left_in_a_pipeline_or_a_transaction_is_not_used_again(
    postgres_url: str,
) -> None:
    """Found by ``make chaos``'s PostgreSQL stop: a connection lost in the middle of a
    pipeline was left in pipeline mode, though not known closed, and every retry on it
    failed ("PQsendQuery not allowed in pipeline mode") until the worker shut down."""
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
        assert reusable(conn)
        async with conn.pipeline():  # what psycopg could not leave
            assert not reusable(conn)
        async with conn.transaction():  # what a failed rollback leaves
            assert not reusable(conn)
        assert reusable(conn)
    assert not reusable(conn)


async def test_a_database_that_refuses_connections_for_a_while_loses_nothing(
    pg: PostgresBackend, admin: psycopg.Connection[tuple[object, ...]]
) -> None:
    store = await with_players(pg)
    await store.begin_race(start_of("g1"), 1000.0)
    name = dbname(pg.db)
    admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'.encode())
    admin.execute(KILL, (name,))
    written = store.journal("g1", Entry(1, 0, "AS", 0.5))
    with pytest.raises(StoreUnavailable):  # the test call too: nothing reaches the database
        await store.execute_for_tests("SELECT 1")
    assert store.failing and not written.done()
    admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'.encode())
    await store.execute_for_tests("SELECT 1")  # wakes the retry, which connects now
    await written
    assert not store.failing
    ((_, journal, _),) = await store.live_races()
    assert journal == [Entry(1, 0, "AS", 0.5)]
    await store.close()


# What only its types allow


async def test_record_race_drops_its_journal_and_no_other(pg: PostgresBackend) -> None:
    store = await with_players(pg, pairs=3)
    await store.begin_race(start_of("g1"), 1000.0)
    await store.begin_race(start_of("g2", 1), 1000.0)
    for entry in entries(1, 20):
        store.journal("g1", entry)
        store.journal("g2", entry)
    await recorded(store, make_race("g1"), 1000.0, 1030.0)
    await store.close()
    assert pg.query("SELECT DISTINCT race_id FROM journal") == [("g2",)]
    assert pg.query("SELECT id FROM live_races") == [("g2",)]


async def test_unreadable_live_races_come_back_to_be_aborted(pg: PostgresBackend, caplog) -> None:
    store = await with_players(pg, pairs=3)
    await store.begin_race(start_of("g-seeds"), 1000.0)
    await store.begin_race(start_of("g-time", 1), 1001.0)
    await store.journal("g-time", Entry(1, 0, "AS", 0.5))
    await store.close()
    # What a typed column still lets a hand with psql leave: text that is not
    # JSON, and a double precision that is not a number of seconds.
    pg.query("UPDATE live_races SET seeds = 'not json' WHERE id = 'g-seeds'")
    pg.query("UPDATE live_races SET seeds = '{}', elapsed = 'NaN' WHERE id = 'g-time'")
    pg.query("UPDATE journal SET at = 'Infinity', what = 'ZZ' WHERE race_id = 'g-time'")
    store = pg.store()
    await store.open()
    live = await store.live_races()
    await store.close()
    assert [(start.game_id, start.seeds, elapsed) for start, _, elapsed in live] == [
        ("g-seeds", (), 0.0),
        ("g-time", (), 0.0),
    ]
    assert "live race g-seeds: cannot read its seeds" in caplog.text
    assert "live race g-time: cannot read its seeds, elapsed, last entry's time" in caplog.text
    for start, journal, elapsed in live:
        _, outputs = restore(
            start, journal, elapsed=elapsed, now=100.0, idle_limit=60.0, grace=30.0
        )
        (ended,) = [out for out in outputs if isinstance(out, RaceEnded)]
        assert ended.record.reason == "aborted"


# Picking the store from --db


def test_open_store_picks_postgres_for_a_url_and_sqlite_otherwise(tmp_path: Path) -> None:
    for url in ("postgresql://u@h/db", "postgres://u:secret@h:5433/db"):
        store = open_store(url)
        assert isinstance(store, PostgresStore)
        assert "secret" not in repr(store)
    for path in (str(tmp_path / "fg.sqlite3"), ":memory:", "postgresql.sqlite3", "POSTGRES://h"):
        assert isinstance(open_store(path), SqliteStore)
