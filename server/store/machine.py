"""The store machine: one :class:`~server.store.interface.Store`, on either backend.

Theory of operation
-------------------
The glue talks to a :class:`Store`, a small async interface (:mod:`server.store.interface`).
:class:`StoreMachine` is it, once: it owns the order of calls, batching, retries, the
failing state and closing, and hands each call to a :class:`StoreBackend`, one connection
and its statements:

- SQLite (:class:`server.store.sqlite_store.SqliteStore`): one
  :class:`server.store.sqlite.Database` whose calls run on one thread of its own, so
  that no SQLite call blocks the event loop; except, while that thread has nothing to
  do, a batch written on the loop (below).
- PostgreSQL (:class:`server.store.postgres_store.PostgresStore`): one
  :class:`psycopg.AsyncConnection` (:class:`server.store.postgres.PgDatabase`),
  awaited on the loop; psycopg's async API needs no thread.

The machine's worker is a task on the loop that runs calls one at a time, in the order they were
made, from a queue. A call, once made, runs to the end even if whoever awaits it is cancelled
(its future is shielded), and :meth:`~StoreMachine.close` waits for every call made before it.

Batching: there is a journal call per play, and races that start together end together. So
``begin_race``, ``journal`` and ``record_race`` calls join one :class:`Batch`, handed over at
the end of the loop's pass (the plays of one pass come in dozens under load) and joinable until
the worker takes it, written in one transaction (starts, then entries, then finished races) and
sharing one future: no future per play (``on_settled`` hears of it as it is settled). Any other
call starts a new batch behind it. What batching saves: docs/benchmarks.md (``bench.store``).

Written on the loop: while no call is queued or running, the connection is the loop's, and a
backend that can (:attr:`StoreBackend.inline`: SQLite without fsync) writes the batch there and
then. A commit is then a write to the WAL, tens of microseconds; handing it to the thread cost
more than the write (a thread switch each way and a wait for the GIL at every statement), and
took a third off the throughput of plays (docs/design.md, "The store"). That write never waits:
a batch that finds the file locked, or fails in any way, goes to the worker, which waits,
retries or writes it item by item. What it puts off (SQLite's checkpoints, which fsync) runs on
the worker every :data:`_CHECKPOINT_EVERY` such batches.

Faults (PROTOCOL.md: nothing acknowledged is lost; ``unavailable``), errors of
:mod:`server.store.faults`; :func:`server.store.retry.write_each` loops over a batch's
attempts, on the machine's state (``failing``, patience, test calls):

- A batch failing with a transient error (:class:`StoreUnavailable`: a full disk, a lock, a
  read-only standby, a lost connection, which the next attempt makes again) is retried on
  the worker, with :data:`core.backoff.STORE`'s delays, until it is written; meanwhile
  :attr:`~StoreMachine.failing` is True. Once the shutdown begins
  (:meth:`~StoreMachine.suspend`, or ``close``), retrying stops after ``give_up_after``
  seconds (:class:`server.store.faults.Patience`, which then interrupts a call that runs
  on): what is lost is logged race by race, and the batch's future fails with
  :class:`StoreUnavailable`.
- A batch refused (:class:`StoreRefused`, or a bug) is written again an item at a time, so
  that only the refused item is lost, logged with its race. The future then completes
  normally: it means "all of this batch that can be written is kept", and the frames waiting
  on it go out. A retry is harmless: starts and records are skipped when known.
- Any other call raises at once, so ``hello`` can be answered ``unavailable`` rather than
  ``name_taken``. Every log line names the races concerned.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from . import reads, retry
from .batch import Batch, fail, resolve
from .faults import GIVE_UP_AFTER, Patience, StoreError, StoreRefused, StoreUnavailable
from .reading import StoreReads
from .rows import SUSPEND, TOUCH

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Collection, Sequence

    from core.identity import Identity
    from core.race_log import Entry, FinishedRace, RaceStart

    from .batch import Writes
    from .end_rows import OwedEnds
    from .interface import StoreBackend
    from .reads import Row
    from .rows import LiveRace
    from .scripts import Script

__all__ = ["StoreMachine"]

T = TypeVar("T")

Written: TypeAlias = "asyncio.Future[frozenset[str]]"
"""A batch's shared future: done once it is committed, with the races refused (fenced)."""

_Job: TypeAlias = "Callable[[], Awaitable[None]]"

log = logging.getLogger("flowergarden.server")

_CHECKPOINT_EVERY = 200
"""Batches written on the loop between two checkpoints on the worker: each
writes a few pages, and SQLite's own checkpoints come every 1,000."""


class StoreMachine(StoreReads):
    """A :class:`~server.store.interface.Store` on ``backend``, see the module docstring.

    ``give_up_after``: how long a failing batch is still retried once closing.
    """

    def __init__(self, backend: StoreBackend, *, give_up_after: float = GIVE_UP_AFTER) -> None:
        self._backend = backend
        self._give_up_after = give_up_after
        self._opened = False
        self._failing = False
        self._patience = Patience()
        self._queue: asyncio.Queue[_Job | None] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._jobs = 0
        """Calls queued for the worker or running there."""
        self._closing: asyncio.Future[None] | None = None
        self._batch: Batch | None = None
        """The batch a write joins, while the worker has not taken it."""
        self._pending: Batch | None = None
        """The last batch, while it waits for the end of the loop's pass."""
        self._inline_batches = 0
        self.on_settled: Callable[[Written], None] = lambda _: None  # (interface.Store)
        self._test_calls: deque[tuple[str, asyncio.Future[list[Row]]]] = deque()

    @property
    def failing(self) -> bool:
        """True from a transient write failure until a write succeeds again."""
        return self._failing

    async def open(self) -> list[Identity]:
        return await self._submit(self._open)

    async def add_player(self, identity: Identity) -> None:
        await self._submit(lambda: self._write(lambda backend: backend.add_player(identity)))

    def begin_race(self, start: RaceStart, started_wall: float) -> Written:
        return self._join(lambda batch: batch.add(batch.writes.starts, (start, started_wall)))

    def journal(self, game_id: str, entry: Entry, epoch: int = 1) -> Written:
        batch = self._batch  # what nearly every play finds: the batch of this pass, open
        if batch is not None and batch.add(batch.writes.entries, (game_id, entry)):
            batch.writes.epochs[game_id] = epoch
            return batch.written
        entries, item = "entries", (game_id, entry)
        return self._join(lambda batch: batch.add_owned(entries, item, game_id, epoch))

    def record_race(
        self,
        record: FinishedRace,
        started_wall: float,
        ended_wall: float,
        epoch: int = 1,
        ends: OwedEnds | None = None,
    ) -> Written:
        race = (record, started_wall, ended_wall, ends)
        return self._join(lambda batch: batch.add_owned("races", race, record.game_id, epoch))

    def confirm(self, game_id: str, epoch: int) -> Written:
        return self._join(lambda batch: batch.add_check(game_id, epoch))

    async def suspend(self, elapsed: dict[str, float]) -> None:
        """Shutdown's first call: starts ``give_up_after``, and waits no longer; what it
        could not keep is logged, not raised (the server goes on closing)."""
        self._patience.give_up_after(self._give_up_after)
        # Made now: the caller may change theirs before the worker reads it.
        rows = [(seconds, game_id) for game_id, seconds in elapsed.items()]
        try:
            if self._failing:  # behind writes being retried, it would only wait to fail
                raise StoreUnavailable("the store's writes fail")
            job = self._submit(lambda: self._write(lambda backend: backend.change(SUSPEND, rows)))
            await asyncio.wait_for(job, self._give_up_after)
        except (StoreError, TimeoutError) as exc:
            races = ", ".join(sorted(elapsed)) or "none"
            log.error("store: not kept on shutdown: how long races %s had run (%r)", races, exc)

    async def touch(self, player_id: str, wall: float) -> None:
        async def touch(backend: StoreBackend) -> None:
            if await backend.change(TOUCH, [(wall, player_id)]) != 1:
                raise StoreRefused(f"no player has the id {player_id!r}")

        await self._submit(lambda: self._write(touch))

    async def run(self, script: Script[T]) -> T:
        """Never retried: its caller answers a failure (an operator, a ``report``)."""
        return await self._submit(lambda: self._write(lambda backend: backend.run(script)))

    async def live_races(self) -> list[LiveRace]:
        return await self._run(lambda backend: backend.live_races())

    def take_races(
        self, only: Collection[str] | None = None
    ) -> asyncio.Future[list[tuple[LiveRace, int]]]:
        # Queued now, not at the first await: a write made after this call is after it.
        chosen = None if only is None else sorted(only)
        return asyncio.shield(self._start(lambda: self._write(lambda b: b.take_races(chosen))))

    async def close(self) -> None:
        """Finish every call made before, within ``give_up_after`` of the shutdown's start
        (:meth:`suspend`, or this call); a call still running then is interrupted."""
        if self._closing is None:
            self._patience.give_up_after(self._give_up_after)
            if self._pending is not None:  # written before the store closes
                self._hand_over(self._pending)
            self._batch = None  # a write from now on fails, not joins
            self._closing = self._queued(self._close)
            self._queue.put_nowait(None)  # the worker's last job: it stops after
        if not await self._patience.outlasts(self._closing, self._interrupt):
            log.error("store: not closed in time; left as it is (what it committed is kept)")
            return
        await self._closing

    def _interrupt(self) -> None:
        """End the backend's call under way, if it can be: SQLite's can (sqlite_store.py)."""

    async def execute_for_tests(self, sql: str) -> list[Row]:
        """Test hook: one statement on the store's own connection, as its next call or
        between two attempts at a failing batch: so a test can make a real fault (a full
        disk, tests/store_backends.py) and lift it while a write waits."""
        done: asyncio.Future[list[Row]] = asyncio.get_running_loop().create_future()
        self._test_calls.append((sql, done))
        self._start(self._run_test_calls)
        self._patience.wake()
        return await done

    # -- on the loop -----------------------------------------------------------

    def _join(self, add: Callable[[Batch], bool]) -> Written:
        """Add to the batch queued last, or to a new one; the batch's shared future."""
        batch = self._batch
        if batch is not None and add(batch):
            return batch.written
        loop = asyncio.get_running_loop()
        if self._closing is not None:  # a failure comes through the future, as any other
            failed: Written = loop.create_future()
            failed.set_exception(StoreError("the store is closed"))
            return failed
        if self._pending is not None:  # one that would not take it (Batch.add_check): first
            self._hand_over(self._pending)
        batch = Batch(loop.create_future())
        add(batch)
        # Handed over at the end of this pass, not now: the plays of a pass
        # come in dozens under load, and should share a transaction.
        self._batch = self._pending = batch
        loop.call_soon(self._hand_over, batch)
        return batch.written

    def _hand_over(self, batch: Batch) -> None:
        """Write the pending ``batch``, unless a call before has handed it over."""
        if self._pending is not batch:
            return
        self._pending = None
        if self._backend.inline and self._jobs == 0 and self._write_inline(batch):
            return
        self._queued(lambda: self._write_batch(batch))

    def _write_inline(self, batch: Batch) -> bool:
        """Write ``batch`` on the loop (no call runs); False if it failed: the worker's then."""
        writes = batch.take()
        try:
            self._ready()
            refused = self._backend.write_now(writes)
        except StoreUnavailable:
            self._failing = True
            return False
        except Exception:  # the worker waits, retries, or writes it item by item, and logs
            return False
        self._failing = False
        resolve(batch.written, refused)
        self.on_settled(batch.written)
        self._inline_batches += 1
        if self._inline_batches % _CHECKPOINT_EVERY == 0:
            checkpoint = self._queued(lambda: self._call(lambda backend: backend.checkpoint()))
            checkpoint.add_done_callback(_log_failure)
        return True

    async def _read(
        self, sql: str, arguments: Sequence[object], reader: Callable[[list[Row]], T]
    ) -> T:
        return await self._run(lambda backend: backend.read(sql, arguments, reader))

    async def _run(self, call: Callable[[StoreBackend], Awaitable[T]]) -> T:
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
        return self._queued(job)

    def _queued(self, job: Callable[[], Awaitable[T]]) -> asyncio.Future[T]:
        """Put ``job`` at the end of the worker's queue; the future of its result."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[T] = loop.create_future()

        async def run() -> None:
            try:
                result = await job()
            except Exception as exc:
                fail(done, exc)
            else:
                resolve(done, result)
            finally:
                self._jobs -= 1

        self._jobs += 1
        self._queue.put_nowait(run)
        if self._worker is None:
            self._worker = loop.create_task(self._work(), name="store")
        return done

    async def _work(self) -> None:
        while (job := await self._queue.get()) is not None:
            await job()

    # -- on the worker ---------------------------------------------------------

    async def _write_batch(self, batch: Batch) -> None:
        writes = batch.take()
        try:
            refused = await retry.write_each(
                writes, self._attempt, self._patience, self._run_test_calls
            )
        except StoreUnavailable as exc:  # given up on closing; write_each logged what is lost
            fail(batch.written, exc)
        except Exception as exc:  # a bug here: still settle, or its frames wait for ever
            log.exception("store: could not write %s", writes)
            fail(batch.written, exc)
        else:
            resolve(batch.written, refused)
        self.on_settled(batch.written)

    async def _attempt(self, writes: Writes) -> frozenset[str]:
        """One attempt at writing ``writes`` in one transaction (:mod:`server.store.retry`)."""
        return await self._write(lambda backend: backend.write(writes))

    async def _write(self, call: Callable[[StoreBackend], Awaitable[T]]) -> T:
        """A call that writes: it tells :attr:`failing` how the store is doing."""
        try:
            result = await self._call(call)
        except StoreUnavailable:
            self._failing = True
            raise
        self._failing = False
        return result

    async def _call(self, call: Callable[[StoreBackend], Awaitable[T]]) -> T:
        self._ready()
        return await call(self._backend)

    def _ready(self) -> None:
        """Raise unless the backend may be called now."""
        if not self._opened:
            raise StoreError("the store is not open")
        if self._failing and self._patience.over:  # shutdown must not wait on each call in turn
            raise StoreUnavailable("the store is closing and still failing")

    async def _run_test_calls(self) -> None:
        while self._test_calls:
            sql, done = self._test_calls.popleft()
            try:
                rows = await self._execute(sql)
            except Exception as exc:
                fail(done, exc)
            else:
                resolve(done, rows)

    async def _execute(self, sql: str) -> list[Row]:
        return await self._call(lambda backend: backend.execute(sql))

    async def _open(self) -> list[Identity]:
        if self._opened:
            raise StoreError("the store is already open")
        try:
            await self._backend.open()
            players = await self._backend.read(reads.PLAYERS, (), reads.each(reads.identity))
        except StoreError as exc:  # of the same kind: a passing fault may be waited out
            raise type(exc)(f"cannot open {self!r}: {exc}") from exc
        self._opened = True
        return players

    async def _close(self) -> None:
        await self._run_test_calls()
        try:
            await self._backend.close()
        except StoreError as exc:  # what is committed is kept: nothing to lose here
            log.error("store: closing %r: %s", self, exc)


def _log_failure(future: asyncio.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("store: checkpoint failed: %s", future.exception())
