"""A :class:`~server.store.sqlite_store.Store` in PostgreSQL, behaving exactly as the SQLite one.

Theory of operation
-------------------
:class:`PostgresStore` has what :class:`server.store.sqlite_store.SqliteStore` has, on the
event loop instead of a thread: psycopg's async API needs none. One worker
task owns one connection (:class:`server.store.postgres.PgDatabase`) and runs
the store's calls one at a time, in the order they were made, from a queue.
A call, once made, runs to the end even if whoever awaits it is cancelled
(its future is shielded), and :meth:`close` waits for every call made before it.

Batching is SqliteStore's: ``begin_race``, ``journal`` and ``record_race`` made
while the worker is busy join one :class:`_Batch`, handed to the worker at the
end of the loop's pass and joinable until the worker takes it, written in one
transaction and sharing one future; any other call starts a new batch behind
it, so calls run in call order.

Faults, as SqliteStore's (the errors are drawn in :func:`server.store.postgres.classified_pg`):

- A batch failing with :class:`StoreUnavailable` is retried with
  :class:`server.store.faults.AsyncPatience`'s backoff until it is written, and
  meanwhile :attr:`failing` is True; once :meth:`close` is called, retrying
  stops after ``give_up_after`` seconds and what is lost is logged race by race.
- A lost connection is such a fault: the next attempt connects again, so a
  restarted or failed-over server is ridden out like a full disk.
- A refused batch (:class:`StoreRefused`, or a bug) is written again an item
  at a time, so only the refused item is lost, logged with its race.
- Any other call raises at once.

Durability is the server's: a write is done once PostgreSQL has committed it
(``synchronous_commit`` decides what that means), so a killed process loses
nothing. If the connection drops during a ``COMMIT``, the commit may have
happened: the retry then finds its journal entries there, they are refused
and logged as lost, and yet they are kept; starts and records are skipped
when known, so a retry is harmless.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections import deque
from typing import TYPE_CHECKING, TypeAlias, TypeVar

import psycopg

from .faults import AsyncPatience, StoreError, StoreUnavailable
from .postgres import PgDatabase, classified_pg
from .postgres_schema import NewerSchema
from .sqlite import Writes

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from core.glicko2 import Glicko
    from core.identity import Identity
    from core.race_log import Entry, RaceRecord, RaceStart

    from .reads import Profile, Ranked, Summary
    from .sqlite import LiveRace, PlayerStats

__all__ = ["PostgresStore"]

T = TypeVar("T")

_Rows: TypeAlias = list[tuple[object, ...]]
_Job: TypeAlias = "Callable[[], Awaitable[None]]"

log = logging.getLogger("flowergarden.server")


class PostgresStore:
    """A :class:`~server.store.sqlite_store.Store` in the PostgreSQL database at ``url``.

    ``url`` is a libpq URL or key/value string (``postgresql://user@host/db``);
    ``give_up_after``: how long a failing batch is still retried once closing.
    """

    def __init__(self, url: str, *, give_up_after: float = 5.0) -> None:
        self._url = url
        self._give_up_after = give_up_after
        self._db: PgDatabase | None = None
        self._opened = False
        """Set once open() succeeded: from then on a lost connection is made again."""
        self._jobs: asyncio.Queue[_Job | None] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._closing: asyncio.Future[None] | None = None
        self._batch: _Batch | None = None
        """The batch a write joins, while the worker has not taken it."""
        self._pending: _Batch | None = None
        """The last batch, while it waits for the end of the loop's pass."""
        self._patience = AsyncPatience()
        self._test_calls: deque[tuple[str, asyncio.Future[_Rows]]] = deque()

    def __repr__(self) -> str:
        # Never the password: the URL may hold one.
        try:
            params = psycopg.conninfo.conninfo_to_dict(self._url)
        except psycopg.Error:
            return "PostgresStore(<a URL libpq cannot parse>)"
        where = {key: params[key] for key in ("host", "port", "dbname") if key in params}
        return f"PostgresStore({where!r})"

    @property
    def failing(self) -> bool:
        return self._patience.failing

    async def open(self) -> list[Identity]:
        return await self._submit(self._open_job)

    async def add_player(self, identity: Identity) -> None:
        await self._submit(lambda: self._write(lambda db: db.add_player(identity)))

    def begin_race(self, start: RaceStart, started_wall: float) -> asyncio.Future[None]:
        return self._join(lambda batch: batch.add(batch.writes.starts, (start, started_wall)))

    def journal(self, game_id: str, entry: Entry) -> asyncio.Future[None]:
        return self._join(lambda batch: batch.add(batch.writes.entries, (game_id, entry)))

    def record_race(
        self, record: RaceRecord, started_wall: float, ended_wall: float
    ) -> asyncio.Future[None]:
        race = (record, started_wall, ended_wall)
        return self._join(lambda batch: batch.add(batch.writes.races, race))

    async def suspend(self, elapsed: dict[str, float]) -> None:
        kept = dict(elapsed)  # the caller may change theirs before the worker reads it
        await self._submit(lambda: self._write(lambda db: db.suspend(kept)))

    async def live_races(self) -> list[LiveRace]:
        return await self._run(lambda db: db.live_races())

    async def touch(self, player_id: str, wall: float) -> None:
        await self._submit(lambda: self._write(lambda db: db.touch(player_id, wall)))

    async def player_stats(self, player_id: str) -> PlayerStats | None:
        return await self._run(lambda db: db.player_stats(player_id))

    async def find_player(self, token_hash: str) -> Identity | None:
        return await self._run(lambda db: db.find_player(token_hash))

    async def race(self, game_id: str) -> RaceRecord | None:
        return await self._run(lambda db: db.race(game_id))

    async def race_count(self) -> int:
        return await self._run(lambda db: db.race_count())

    async def rating(self, player_id: str) -> Glicko | None:
        return await self._run(lambda db: db.rating(player_id))

    async def leaderboard(self, limit: int) -> list[Ranked]:
        return await self._run(lambda db: db.leaderboard(limit))

    async def profile(self, name: str) -> Profile | None:
        return await self._run(lambda db: db.profile(name))

    async def history(self, player_id: str, limit: int, before: str | None) -> list[Summary]:
        return await self._run(lambda db: db.history(player_id, limit, before))

    async def summary(self, game_id: str) -> Summary | None:
        return await self._run(lambda db: db.summary(game_id))

    async def close(self) -> None:
        if self._closing is None:
            self._patience.give_up_after(self._give_up_after)
            if self._pending is not None:  # written before the store closes
                self._hand_over(self._pending)
            self._batch = None  # a write from now on fails, not joins
            self._closing = self._queue(self._close_job)
            self._jobs.put_nowait(None)  # the worker's last job: it stops after
        await asyncio.shield(self._closing)

    async def execute_for_tests(self, sql: str) -> _Rows:
        """Test hook: run one statement on the store's own connection, as its next job.

        It runs as the next job or, if the worker is retrying a failing batch,
        between two attempts: so a test can make a real fault and lift it while
        a write waits. The fault the tests use is ``SET
        default_transaction_read_only = on``: every transaction of that session
        is then read-only, and each write fails with SQLSTATE 25006
        (read_only_sql_transaction), what a standby answers after a failover,
        until ``... = off``.
        """
        done: asyncio.Future[_Rows] = asyncio.get_running_loop().create_future()
        self._test_calls.append((sql, done))
        self._start(self._run_test_calls)
        self._patience.wake()
        return await done

    # -- queueing, on the loop -------------------------------------------------

    def _join(self, add: Callable[[_Batch], bool]) -> asyncio.Future[None]:
        """Add to the batch queued last, or to a new one; the batch's shared future."""
        batch = self._batch
        if batch is not None and add(batch):
            return batch.written
        loop = asyncio.get_running_loop()
        if self._closing is not None:  # a failure comes through the future, as any other
            failed: asyncio.Future[None] = loop.create_future()
            failed.set_exception(StoreError("the store is closed"))
            return failed
        batch = _Batch(loop.create_future())
        add(batch)
        # Handed over at the end of this pass of the loop, not now: the plays
        # of one pass come in dozens under load, and should share a transaction.
        self._batch = self._pending = batch
        loop.call_soon(self._hand_over, batch)
        return batch.written

    def _hand_over(self, batch: _Batch) -> None:
        """Queue the pending ``batch`` for the worker, unless a call before has done so."""
        if self._pending is not batch:
            return
        self._pending = None
        self._queue(lambda: self._write_batch_job(batch))

    async def _run(self, call: Callable[[PgDatabase], Awaitable[T]]) -> T:
        return await self._submit(lambda: self._call(call))

    async def _submit(self, job: Callable[[], Awaitable[T]]) -> T:
        # Shielded: a cancelled caller must not drop a write already promised.
        return await asyncio.shield(self._start(job))

    def _start(self, job: Callable[[], Awaitable[T]]) -> asyncio.Future[T]:
        """Queue ``job`` for the worker, behind every call made before it."""
        if self._closing is not None:
            raise StoreError("the store is closed")
        if self._pending is not None:  # the batch made before this call goes first
            self._hand_over(self._pending)
        # A batch joined from now on must not be written before this job.
        self._batch = None
        return self._queue(job)

    def _queue(self, job: Callable[[], Awaitable[T]]) -> asyncio.Future[T]:
        """Put ``job`` at the end of the worker's queue; the future of its result."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[T] = loop.create_future()

        async def run() -> None:
            try:
                result = await job()
            except Exception as exc:
                _fail(done, exc)
            else:
                _resolve(done, result)

        self._jobs.put_nowait(run)
        if self._worker is None:
            self._worker = loop.create_task(self._work(), name="postgres-store")
        return done

    async def _work(self) -> None:
        while (job := await self._jobs.get()) is not None:
            await job()

    # -- jobs, on the worker task -----------------------------------------------

    async def _write_batch_job(self, batch: _Batch) -> None:
        writes = batch.take()
        try:
            await self._write_batch(writes)
        except StoreUnavailable as exc:  # given up on closing; _write_batch logged what is lost
            _fail(batch.written, exc)
        except Exception as exc:  # a bug here: still settle, or its frames wait for ever
            log.exception("store: could not write %s", writes)
            _fail(batch.written, exc)
        else:
            _resolve(batch.written, None)

    async def _write_batch(self, writes: Writes) -> None:
        """Write ``writes`` at once, or else item by item; raise only on giving up."""
        items = deque([writes])
        while items:
            item = items.popleft()
            try:
                await self._write_until_done(item)
            except StoreUnavailable:
                log.error("store: gave up; not written: %s", "; ".join(map(str, [item, *items])))
                raise
            except Exception as exc:
                alone = list(item.one_by_one())
                if len(alone) > 1:  # find the refused one(s), and lose only them
                    log.warning("store: could not write %s at once (%s); each alone", item, exc)
                    items.extendleft(reversed(alone))
                elif isinstance(exc, StoreError):
                    log.error("store: lost %s, refused: %s", item, exc)
                else:  # a bug: the traceback says why
                    log.error("store: lost %s", item, exc_info=exc)

    async def _write_until_done(self, writes: Writes) -> None:
        """Write in one transaction, retrying transient failures until closing ends it."""
        patience = self._patience
        delay, failures = patience.first, 0
        while True:
            try:
                await self._write(lambda db: db.write(writes))
            except StoreUnavailable as exc:
                failures += 1
                if failures == 1:
                    log.warning("store: cannot write %s (%s); retrying", writes, exc)
                if not await patience.pause_async(delay):
                    raise
                await self._run_test_calls()
                delay = min(2 * delay, patience.last)
                continue
            if failures:
                log.warning("store: wrote %s after %d failed attempts", writes, failures)
            return

    async def _write(self, call: Callable[[PgDatabase], Awaitable[T]]) -> T:
        """A call that writes: it tells :attr:`failing` how the store is doing."""
        try:
            result = await self._call(call)
        except StoreUnavailable:
            self._patience.failing = True
            raise
        self._patience.failing = False
        return result

    async def _call(self, call: Callable[[PgDatabase], Awaitable[T]]) -> T:
        if not self._opened:
            raise StoreError("the store is not open")
        if self._patience.exhausted:  # closing: shutdown must not wait on each call in turn
            raise StoreUnavailable("the store is closing and still failing")
        try:
            return await call(await self._connection())
        except psycopg.Error as exc:
            raise classified_pg(exc) from exc

    async def _connection(self) -> PgDatabase:
        """The store's connection, made again if it was lost (psycopg's errors pass)."""
        db = self._db
        if db is not None and not db.broken:
            return db
        self._db = None
        if db is not None:
            log.warning("store: the connection to %r was lost; connecting again", self)
            with contextlib.suppress(psycopg.Error):
                await db.close()
        self._db = await PgDatabase.connect(self._url)
        return self._db

    async def _run_test_calls(self) -> None:
        while self._test_calls:
            sql, done = self._test_calls.popleft()
            try:
                rows = await self._call(functools.partial(PgDatabase.execute, sql=sql))
            except Exception as exc:
                _fail(done, exc)
            else:
                _resolve(done, rows)

    async def _open_job(self) -> list[Identity]:
        if self._opened:
            raise StoreError("the store is already open")
        try:
            db = await PgDatabase.connect(self._url)
            try:
                identities = await db.open()
            except BaseException:
                await db.close()
                raise
        except (psycopg.Error, NewerSchema) as exc:
            raise StoreError(f"cannot open {self!r}: {exc}") from exc
        self._db, self._opened = db, True
        return identities

    async def _close_job(self) -> None:
        await self._run_test_calls()
        db, self._db = self._db, None
        if db is not None:
            try:
                await db.close()
            except psycopg.Error as exc:  # what is committed is kept: nothing to lose here
                log.error("store: closing %r: %s", self, exc)


class _Batch:
    """Writes made by one transaction: those asked for while the worker was busy.

    A write joins the batch queued last, unless another call was made since
    (calls run in call order) or the worker has :meth:`take` n it (then it
    starts the next). All share :attr:`written`. Only the loop touches it, so
    it needs no lock.
    """

    __slots__ = ("_taken", "writes", "written")

    def __init__(self, written: asyncio.Future[None]) -> None:
        self._taken = False
        self.writes = Writes()
        self.written = written

    def add(self, items: list[T], item: T) -> bool:
        """Append ``item`` to one of :attr:`writes`' lists; False once taken."""
        if self._taken:
            return False
        items.append(item)
        return True

    def take(self) -> Writes:
        """Everything added so far; nothing can be added after."""
        self._taken = True
        return self.writes


def _resolve(future: asyncio.Future[T], result: T) -> None:
    if not future.done():  # cancelled by someone who awaited it; the write was made all the same
        future.set_result(result)


def _fail(future: asyncio.Future[T], error: Exception) -> None:
    if not future.done():
        future.set_exception(error)
