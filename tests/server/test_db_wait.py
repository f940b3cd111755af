"""A server started before its database waits for it (server/__main__.py, ``open_when_up``):
which failures are waited out, for how long, and that a signal ends the wait.

The store here is a stand-in whose ``open`` fails as told; the real PostgreSQL
started after a real server is tests/integration/test_startup.py.
"""

from __future__ import annotations

import asyncio
import logging

import psycopg
import pytest

from core.backoff import STORE
from server.__main__ import open_when_up, passing
from server.config import Settings, parse_args
from server.store import StoreError, StoreUnavailable


class Opening:
    """A store whose ``open`` raises each of ``failures`` in turn, then opens."""

    def __init__(self, *failures: StoreError) -> None:
        self.failures = list(failures)
        self.tries = 0
        self.tried_again = asyncio.Event()

    async def open(self) -> list[object]:
        self.tries += 1
        if self.tries == 2:
            self.tried_again.set()
        if self.failures:
            raise self.failures.pop(0)
        return []


def refused() -> StoreError:
    """What the PostgreSQL store raises when nothing listens: psycopg's error, wrapped."""
    try:
        raise psycopg.OperationalError("connection failed: Connection refused")
    except psycopg.OperationalError as exc:
        try:
            raise StoreError(f"cannot open PostgresStore(...): {exc}") from exc
        except StoreError as wrapped:
            return wrapped


def test_what_may_pass_and_what_will_not() -> None:
    assert passing(refused())
    assert passing(StoreUnavailable("disk I/O error"))
    assert not passing(StoreError("the store is already open"))
    try:  # a newer schema than this server knows, or any bug: waiting changes nothing
        raise StoreError("cannot open") from ValueError("schema 9 is newer")
    except StoreError as exc:
        assert not passing(exc)


async def test_a_refused_connection_is_tried_again_with_a_line_each_time(caplog) -> None:
    store = Opening(refused(), refused(), StoreUnavailable("starting up"))
    with caplog.at_level(logging.WARNING, "flowergarden.server"):
        known = await open_when_up(store, 60.0, asyncio.Event())  # type: ignore[arg-type]
    assert known == []
    assert store.tries == 4
    waits = [r.getMessage() for r in caplog.records if "waiting for the database" in r.message]
    assert len(waits) == 3
    # The delays are the store's retry policy's, first to third.
    assert all(f"trying again in {STORE.after(n):.2f} s" in w for n, w in enumerate(waits, 1))
    assert "Connection refused" in waits[0]


async def test_a_failure_that_will_not_pass_is_raised_at_once() -> None:
    store = Opening(StoreError("the store is already open"))
    with pytest.raises(StoreError, match="already open"):
        await open_when_up(store, 60.0, asyncio.Event())  # type: ignore[arg-type]
    assert store.tries == 1


async def test_past_the_deadline_the_last_failure_is_raised(caplog) -> None:
    # 0.1 s: the first delay (0.05 s) fits, the second (0.1 s) would end past it.
    store = Opening(*(refused() for _ in range(10)))
    with (
        caplog.at_level(logging.WARNING, "flowergarden.server"),
        pytest.raises(StoreError, match="Connection refused"),
    ):
        await open_when_up(store, STORE.first * 2, asyncio.Event())  # type: ignore[arg-type]
    assert store.tries == 2
    assert "gave up waiting for the database" in caplog.text


async def test_no_wait_is_one_try() -> None:
    store = Opening(refused())
    with pytest.raises(StoreError):
        await open_when_up(store, 0.0, asyncio.Event())  # type: ignore[arg-type]
    assert store.tries == 1


async def test_a_signal_while_waiting_ends_the_wait() -> None:
    store = Opening(*(refused() for _ in range(1000)))
    stop = asyncio.Event()
    opening = asyncio.ensure_future(open_when_up(store, 60.0, stop))  # type: ignore[arg-type]
    await asyncio.wait_for(store.tried_again.wait(), timeout=5)
    stop.set()  # now between the second try and the third
    assert await asyncio.wait_for(opening, timeout=5) is None


def test_only_postgresql_is_waited_for() -> None:
    assert parse_args([], env={}).db_wait == 60.0
    assert Settings(db="postgresql://db/fg").database_wait == 60.0
    assert Settings(db="postgresql://db/fg", db_wait=5).database_wait == 5
    # What keeps an SQLite file from opening (a missing folder) does not pass.
    assert Settings(db="/data/fg.sqlite3").database_wait == 0.0
    assert parse_args(["--db-wait", "0"], env={}).db_wait == 0.0
    assert parse_args([], env={"FLOWERGARDEN_DB_WAIT": "120"}).db_wait == 120.0


def test_a_negative_wait_is_a_usage_error() -> None:
    with pytest.raises(SystemExit):
        parse_args(["--db-wait", "-1"], env={})
