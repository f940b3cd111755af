"""The two stores, seen the same way by the tests that run on both.

An :class:`AnyBackend` (either one) is a database for one test: it makes stores on it
(``backend.store()``, again after a close to reopen the same data), looks at
it from outside with a connection of its own (``backend.query``), holds its
writes back (``write_locked``) and makes real faults on a store's own
connection through ``execute_for_tests``:

* SQLite: ``PRAGMA max_page_count`` at the file's size is a full disk
  (SQLITE_FULL), ``PRAGMA query_only`` a read-only one (SQLITE_READONLY).
* PostgreSQL has no per-connection disk quota, so both are
  ``SET default_transaction_read_only``: each write then fails with SQLSTATE
  25006, as on a standby after a failover, until it is set off again.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import psycopg

from server.store import PostgresStore, SqliteStore
from server.store.postgres_schema import SCHEMA_VERSION as PG_SCHEMA_VERSION
from server.store.sqlite_schema import SCHEMA_VERSION as SQLITE_SCHEMA_VERSION

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

__all__ = ["AnyBackend", "PostgresBackend", "SqliteBackend"]

_Rows = list[tuple[Any, ...]]


class HookedStore(Protocol):
    """A store with the tests' hook: both stores are one."""

    async def execute_for_tests(self, sql: str) -> _Rows: ...


class AnyBackend(Protocol):
    name: ClassVar[str]
    db: str
    """The ``--db`` value: a file's path, or a URL."""
    schema_version: ClassVar[int]
    insertion_order: ClassVar[str]
    """An ORDER BY that gives a table's rows in the order they were inserted."""
    fault_words: ClassVar[str]
    """What the message of a write failing under :meth:`fill` says."""

    def store(self, **options: Any) -> Any: ...
    def query(self, sql: str) -> _Rows: ...
    def version(self) -> int: ...
    def set_version(self, version: int) -> None: ...
    def write_locked(self) -> Any: ...
    def assert_intact(self) -> None: ...
    async def fill(self, store: HookedStore) -> None: ...
    async def free(self, store: HookedStore) -> None: ...
    async def break_writes(self, store: HookedStore) -> None: ...
    async def mend_writes(self, store: HookedStore) -> None: ...


class SqliteBackend:
    name: ClassVar[str] = "sqlite"
    schema_version: ClassVar[int] = SQLITE_SCHEMA_VERSION
    insertion_order: ClassVar[str] = "rowid"
    fault_words: ClassVar[str] = "full"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = str(path)

    def __repr__(self) -> str:
        return "sqlite"

    def store(self, **options: Any) -> SqliteStore:
        return SqliteStore(self.path, **options)

    def query(self, sql: str) -> _Rows:
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()

    def version(self) -> int:
        ((version,),) = self.query("PRAGMA user_version")
        return int(version)

    def set_version(self, version: int) -> None:
        self.query(f"PRAGMA user_version={version}")

    @contextmanager
    def write_locked(self) -> Iterator[None]:
        """Another connection holds the file's write lock until the block ends."""
        blocker = sqlite3.connect(self.path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()

    def assert_intact(self) -> None:
        assert self.query("PRAGMA integrity_check") == [("ok",)]
        assert self.query("PRAGMA foreign_key_check") == []

    async def fill(self, store: HookedStore) -> None:
        """Let the file grow no more: the next write that needs a page fails with SQLITE_FULL."""
        ((pages,),) = await store.execute_for_tests("PRAGMA page_count")
        await store.execute_for_tests(f"PRAGMA max_page_count = {pages}")

    async def free(self, store: HookedStore) -> None:
        await store.execute_for_tests("PRAGMA max_page_count = 1073741823")

    async def break_writes(self, store: HookedStore) -> None:
        await store.execute_for_tests("PRAGMA query_only = ON")

    async def mend_writes(self, store: HookedStore) -> None:
        await store.execute_for_tests("PRAGMA query_only = OFF")


class PostgresBackend:
    name: ClassVar[str] = "postgres"
    schema_version: ClassVar[int] = PG_SCHEMA_VERSION
    insertion_order: ClassVar[str] = "ctid"  # races are only ever inserted: heap order
    fault_words: ClassVar[str] = "read-only"

    def __init__(self, url: str) -> None:
        self.db = url

    def __repr__(self) -> str:
        return "postgres"

    def store(self, **options: Any) -> PostgresStore:
        return PostgresStore(self.db, **options)

    def query(self, sql: str) -> _Rows:
        with psycopg.connect(self.db, autocommit=True) as conn:
            cursor = conn.execute(sql.encode())
            return cursor.fetchall() if cursor.description is not None else []

    def version(self) -> int:
        ((version,),) = self.query("SELECT version FROM schema_version")
        return int(version)

    def set_version(self, version: int) -> None:
        self.query(
            "CREATE TABLE IF NOT EXISTS schema_version"
            " (one boolean PRIMARY KEY DEFAULT true CHECK (one), version integer NOT NULL)"
        )
        self.query(
            f"INSERT INTO schema_version (version) VALUES ({int(version)})"
            " ON CONFLICT (one) DO UPDATE SET version = EXCLUDED.version"
        )

    @contextmanager
    def write_locked(self) -> Iterator[None]:
        """Another connection locks the store's tables against writes until the block ends."""
        with psycopg.connect(self.db) as blocker:  # not autocommit: the lock lasts the block
            blocker.execute(b"LOCK TABLE players, races, live_races, journal IN EXCLUSIVE MODE")
            try:
                yield
            finally:
                blocker.rollback()

    def assert_intact(self) -> None:
        # The server keeps its own files whole; what a test can check is the data.
        orphans = self.query(
            "SELECT count(*) FROM journal WHERE race_id NOT IN (SELECT id FROM live_races)"
        )
        assert orphans == [(0,)]

    async def fill(self, store: HookedStore) -> None:
        await self.break_writes(store)

    async def free(self, store: HookedStore) -> None:
        await self.mend_writes(store)

    async def break_writes(self, store: HookedStore) -> None:
        await store.execute_for_tests("SET default_transaction_read_only = on")

    async def mend_writes(self, store: HookedStore) -> None:
        await store.execute_for_tests("SET default_transaction_read_only = off")


def recorded(
    store: Any, race: Any, started_wall: float, ended_wall: float, ends: Any = None
) -> Any:
    """``store.record_race`` for a race begun in the same batch, as every race the server
    records was: the store writes a record only for a live race under its epoch."""
    from core.race_log import RaceStart

    start = RaceStart(
        game_id=race.game_id,
        rules_json=race.rules_json,
        dealing=race.dealing,
        seeds=race.seeds,
        player_ids=race.player_ids,
        names=("", ""),
        ratings=race.ratings,
        kind=race.kind,
    )
    store.begin_race(start, started_wall)
    return store.record_race(race, started_wall, ended_wall, 1, ends)
