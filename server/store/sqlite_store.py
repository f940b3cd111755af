"""Persistence: every player, every live race's journal and every finished race.

Theory of operation
-------------------
The glue talks to a :class:`Store`, a small async interface. :class:`SqliteStore`
implements it with one connection (:class:`server.store.sqlite.Database`) owned by one
worker thread: every call runs there through ``loop.run_in_executor``, so no
SQLite call blocks the event loop, and calls run one at a time, in the order
they were made. A call, once made, runs to the end even if whoever awaits it is
cancelled, and :meth:`Store.close` waits for every call made before it.

A race is its log (DESIGN.md): :meth:`~Store.begin_race` keeps its start before
``game_start`` goes out, :meth:`~Store.journal` each accepted event before it is
announced, and :meth:`~Store.record_race` its record, which replaces its journal
in the same transaction. A restarted server replays :meth:`~Store.live_races`
(:func:`core.restore.restore`); :meth:`~Store.suspend`, on shutdown, keeps how
far each race's clock had run. Times kept are wall-clock, since the cores'
monotonic ``now`` means nothing to another process; an entry's or a move's
``at`` stays relative to the start of its race.

Durability: a write is done once committed. In WAL mode with ``synchronous=NORMAL``
a commit is in the OS's hands when it returns, so even SIGKILL loses nothing; only
a power loss or an OS crash can, which ``durable=True`` (an fsync a commit) prevents.

Batching: there is a journal call per play, and races that start together end
together. So ``begin_race``, ``journal`` and ``record_race`` calls made while
the worker is busy join one :class:`_Batch`, written in one transaction (starts,
then entries, then finished races), and share one future, settled straight
from the worker's one ``call_soon_threadsafe``: no future per play, and no task
between the commit and the frames waiting on it. Any other call starts a new
batch behind it, so calls still run in call order. In a batch of 500 a journal
entry costs 2.1 µs of the worker's CPU, 24 µs alone; a race of 104 moves
0.12 ms, 0.24 ms alone (``python -m bench.store``).

Faults (PROTOCOL.md: nothing acknowledged is lost; ``unavailable``), with the
errors drawn in :mod:`server.store.faults`:

- A batch failing with a transient error (:class:`StoreUnavailable`) is
  retried on the worker (backoff 0.05 s doubling to 2 s) until it is written;
  meanwhile :attr:`Store.failing` is True. Once :meth:`~Store.close` is called,
  retrying stops after ``give_up_after`` seconds: what is lost is logged race
  by race, and the batch's future fails with :class:`StoreUnavailable`.
- A batch refused (:class:`StoreRefused`, or a bug) is written again an item
  at a time, so that only the refused item is lost, logged with its race. The
  future then completes normally: it means "all of this batch that can be
  written is on disk", and the frames waiting on it go out.
- Any other call raises at once, so ``hello`` can be answered ``unavailable``
  rather than ``name_taken``. Every log line names the races concerned.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypeVar

from .faults import Patience, StoreError, StoreRefused, StoreUnavailable, classified
from .sqlite import SCHEMA_VERSION, Database, LiveRace, PlayerStats, Writes

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from core.glicko2 import Glicko
    from core.identity import Identity
    from core.race_log import Entry, RaceRecord, RaceStart

    from .reads import Profile, Ranked, Summary

__all__ = [
    "SCHEMA_VERSION",
    "PlayerStats",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoreRefused",
    "StoreUnavailable",
]

T = TypeVar("T")

_Rows: TypeAlias = list[tuple[object, ...]]
_TestCall: TypeAlias = "tuple[str, asyncio.Future[_Rows]]"
"""A statement for :meth:`SqliteStore.execute_for_tests`, and where its rows go."""

log = logging.getLogger("flowergarden.server")

_CHECKPOINT_EVERY = 200
"""Batches written on the loop between two checkpoints on the worker: each
writes a few pages, and SQLite's own checkpoints come every 1,000."""


class Store(Protocol):
    """Where players, live races and finished races are kept (see the module docstring)."""

    @property
    def failing(self) -> bool:
        """True from a transient write failure until a write succeeds again."""

    async def open(self) -> list[Identity]:
        """Create or upgrade the schema; return every player, for the registry."""

    async def add_player(self, identity: Identity) -> None:
        """Keep a new player, committed on return; never retried.

        A taken name, id or token raises :class:`StoreRefused`, a transient
        failure :class:`StoreUnavailable`.
        """

    def begin_race(self, start: RaceStart, started_wall: float) -> asyncio.Future[None]:
        """Keep a live race's start (batched, as :meth:`journal`); a known race is a no-op."""

    def journal(self, game_id: str, entry: Entry) -> asyncio.Future[None]:
        """Keep one accepted event of a live race (batched).

        The future is the batch's, shared: done once the batch is committed (a
        refused item logged and dropped); failed with :class:`StoreUnavailable`
        if the store gave up on closing, or :class:`StoreError` if closed.
        Cancelling it stops no write, but cancels it for all: shield it.
        """

    def record_race(
        self, record: RaceRecord, started_wall: float, ended_wall: float
    ) -> asyncio.Future[None]:
        """Keep a finished race and both players' stats, and drop its journal (batched).

        A known race is a no-op; an ``aborted`` race counts for nobody.
        """

    async def suspend(self, elapsed: dict[str, float]) -> None:
        """Keep live races' elapsed seconds, on shutdown; never retried; other ids are skipped."""

    async def live_races(self) -> list[LiveRace]:
        """Every live race, oldest first: its start, its entries by ``seq``, its elapsed seconds.

        Elapsed is the most of the kept elapsed, the last entry's ``at`` and 0.
        A row that cannot be read is logged by its race's id and given back as
        far as it can be (an unreadable field as ``""`` or ``()``), so that
        :func:`core.restore.restore` aborts that race instead of the server
        failing to start.
        """

    async def touch(self, player_id: str, wall: float) -> None:
        """Set when the player was last seen."""

    async def close(self) -> None:
        """Finish every call already made and close; closing again does nothing."""

    async def player_stats(self, player_id: str) -> PlayerStats | None:
        """A player's record, or None for an unknown id."""

    async def find_player(self, token_hash: str) -> Identity | None:
        """The player with this token's hash, or None: one another worker made."""

    async def race(self, game_id: str) -> RaceRecord | None:
        """A finished race with wall-clock ``started`` and ``ended``, or None."""

    async def race_count(self) -> int:
        """How many finished races are kept."""

    async def rating(self, player_id: str) -> Glicko | None:
        """A player's rating as the last race they finished left it, or None if unknown."""

    async def leaderboard(self, limit: int) -> list[Ranked]:
        """The highest rated established players (server/store/reads.py), at most ``limit``."""

    async def profile(self, name: str) -> Profile | None:
        """The player of this name (any case), or None."""

    async def history(self, player_id: str, limit: int, before: str | None) -> list[Summary]:
        """Up to ``limit`` of a player's finished races, newest first, before race ``before``."""

    async def summary(self, game_id: str) -> Summary | None:
        """A finished race as a history lists it, or None."""


class SqliteStore:
    """A :class:`Store` in one SQLite file (or ``":memory:"``), see the module docstring.

    ``give_up_after``: how long a failing batch is still retried once closing.
    """

    def __init__(
        self, path: str | Path, *, durable: bool = False, give_up_after: float = 5.0
    ) -> None:
        self._path = str(path)
        self._durable = durable
        self._give_up_after = give_up_after
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store")
        self._db: Database | None = None
        """Only ever read or written on the worker thread."""
        self._closing: asyncio.Future[None] | None = None
        self._batch: _Batch | None = None
        self._pending: _Batch | None = None
        """The last batch, while it waits for the end of the loop's pass."""
        """The batch the worker will write next, if it is the last job queued."""
        self._patience = Patience()
        self._inline = not durable
        """Whether a batch may be written on the loop while the worker is idle."""
        self._jobs = 0
        """Jobs queued for the worker or running there, counted on the loop."""
        self._inline_batches = 0
        self._test_calls: queue.SimpleQueue[_TestCall] = queue.SimpleQueue()

    def __repr__(self) -> str:
        return f"SqliteStore({self._path!r}, durable={self._durable!r})"

    @property
    def failing(self) -> bool:
        return self._patience.failing

    async def open(self) -> list[Identity]:
        return await self._submit(self._open_on_worker)

    async def add_player(self, identity: Identity) -> None:
        await self._submit(lambda: self._write(lambda db: db.add_player(identity)))

    def begin_race(self, start: RaceStart, started_wall: float) -> asyncio.Future[None]:
        return self._join(lambda batch: batch.add(batch.writes.starts, (start, started_wall)))

    def journal(self, game_id: str, entry: Entry) -> asyncio.Future[None]:
        batch = self._batch  # what nearly every play finds: the batch of this pass, open
        if batch is not None and batch.add(batch.writes.entries, (game_id, entry)):
            return batch.written
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
            loop = asyncio.get_running_loop()
            self._closing = loop.run_in_executor(self._executor, self._close_on_worker)
            # The job is queued, so the worker runs it before it stops.
            self._executor.shutdown(wait=False)
        await asyncio.shield(self._closing)

    async def execute_for_tests(self, sql: str) -> _Rows:
        """Test hook: run one statement on the store's own connection, on its worker.

        It runs as the next job or, if the worker is retrying a failing batch,
        between two attempts: so a test can make a real fault (``PRAGMA
        max_page_count``, a full disk) and lift it while a write waits.
        """
        done: asyncio.Future[_Rows] = asyncio.get_running_loop().create_future()
        self._test_calls.put((sql, done))
        self._start(self._run_test_calls_on_worker)
        self._patience.wake()
        return await done

    # -- on the loop -----------------------------------------------------------

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
        # Handed to the worker at the end of this pass of the loop, not now: an
        # idle worker would otherwise take each play's entry in a transaction
        # of its own, and the plays of one pass come in dozens under load.
        self._batch = self._pending = batch
        loop.call_soon(self._hand_over, batch)
        return batch.written

    def _hand_over(self, batch: _Batch) -> None:
        """Write the pending ``batch``, unless a call before has handed it over."""
        if self._pending is not batch:
            return
        self._pending = None
        if self._inline and self._jobs == 0 and self._write_inline(batch):
            return
        loop = asyncio.get_running_loop()
        write = loop.run_in_executor(self._executor, self._write_batch_on_worker, batch, loop)
        self._counted(write)

    def _write_inline(self, batch: _Batch) -> bool:
        """Write ``batch`` here, on the loop; False if it failed, for the worker to see to.

        Only while no job is queued or running, so the connection is the
        loop's, and calls still run in call order. Without fsync, a commit is
        a write to the WAL, tens of microseconds; handing it to the worker
        cost more than the write (a thread switch each way and a wait for the
        GIL at every statement), and took a third off the throughput of plays
        (docs/design.md, "The store"). The WAL's checkpoints, which fsync,
        stay on the worker, and so does any wait for another process's lock:
        a batch that finds the file locked goes to the worker at once.
        """
        writes = batch.take()
        try:
            self._write(lambda db: db.write_now(writes))
        except Exception:  # the worker waits, retries, or writes it item by item, and logs
            return False
        _settle(batch.written, None, None)
        self._inline_batches += 1
        if self._inline_batches % _CHECKPOINT_EVERY == 0:
            self._start(self._checkpoint_on_worker).add_done_callback(_log_failure)
        return True

    def _counted(self, job: asyncio.Future[T]) -> asyncio.Future[T]:
        """``job``, counted in :attr:`_jobs` until it is done."""
        self._jobs += 1
        job.add_done_callback(self._job_done)
        return job

    def _job_done(self, _: object) -> None:
        self._jobs -= 1

    async def _run(self, call: Callable[[Database], T]) -> T:
        return await self._submit(lambda: self._call(call))

    async def _submit(self, job: Callable[[], T]) -> T:
        # Shielded: a cancelled caller must not drop a write already promised.
        return await asyncio.shield(self._start(job))

    def _start(self, job: Callable[[], T]) -> asyncio.Future[T]:
        """Queue ``job`` for the worker, behind every call made before it."""
        if self._closing is not None:
            raise StoreError("the store is closed")
        if self._pending is not None:  # the batch made before this call goes first
            self._hand_over(self._pending)
        # A batch joined from now on must not be written before this job.
        self._batch = None
        return self._counted(asyncio.get_running_loop().run_in_executor(self._executor, job))

    # -- on the worker ---------------------------------------------------------

    def _write_batch_on_worker(self, batch: _Batch, loop: asyncio.AbstractEventLoop) -> None:
        writes = batch.take()
        error: Exception | None = None
        try:
            self._write_batch(writes)
        except StoreUnavailable as exc:  # given up on closing; _write_batch logged what is lost
            error = exc
        except Exception as exc:  # a bug here: still settle, or its frames wait for ever
            log.exception("store: could not write %s", writes)
            error = exc
        loop.call_soon_threadsafe(_settle, batch.written, None, error)

    def _write_batch(self, writes: Writes) -> None:
        """Write ``writes`` at once, or else item by item; raise only on giving up."""
        items = deque([writes])
        while items:
            item = items.popleft()
            try:
                self._write_until_done(item)
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

    def _write_until_done(self, writes: Writes) -> None:
        """Write in one transaction, retrying transient failures until closing ends it."""
        patience = self._patience
        delay, failures = patience.first, 0
        while True:
            try:
                self._write(lambda db: db.write(writes))
            except StoreUnavailable as exc:
                failures += 1
                if failures == 1:
                    log.warning("store: cannot write %s (%s); retrying", writes, exc)
                if not patience.pause(delay):
                    raise
                self._run_test_calls_on_worker()
                delay = min(2 * delay, patience.last)
                continue
            if failures:
                log.warning("store: wrote %s after %d failed attempts", writes, failures)
            return

    def _checkpoint_on_worker(self) -> None:
        self._call(lambda db: db.checkpoint())

    # -- wherever the connection is: the worker, or the loop while the worker is idle

    def _write(self, call: Callable[[Database], T]) -> T:
        """A call that writes: it tells :attr:`failing` how the store is doing."""
        try:
            result = self._call(call)
        except StoreUnavailable:
            self._patience.failing = True
            raise
        self._patience.failing = False
        return result

    def _call(self, call: Callable[[Database], T]) -> T:
        if self._db is None:
            raise StoreError("the store is not open")
        if self._patience.exhausted:  # closing: shutdown must not wait on each call in turn
            raise StoreUnavailable("the store is closing and still failing")
        try:
            return call(self._db)
        except sqlite3.Error as exc:
            raise classified(exc) from exc

    def _run_test_calls_on_worker(self) -> None:
        while not self._test_calls.empty():  # only this thread takes from the queue
            self._run_test_call(*self._test_calls.get())

    def _run_test_call(self, sql: str, done: asyncio.Future[_Rows]) -> None:
        rows: _Rows = []
        error: Exception | None = None
        try:
            rows = self._call(lambda db: db.execute(sql))
        except Exception as exc:
            error = exc
        done.get_loop().call_soon_threadsafe(_settle, done, rows, error)

    def _open_on_worker(self) -> list[Identity]:
        if self._db is not None:
            raise StoreError("the store is already open")
        try:
            db = Database(self._path, durable=self._durable, checkpoints=not self._inline)
            identities = db.open()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {self._path!r}: {exc}") from exc
        self._db = db
        return identities

    def _close_on_worker(self) -> None:
        self._run_test_calls_on_worker()
        db, self._db = self._db, None
        if db is not None:
            try:
                db.close()
            except sqlite3.Error as exc:  # what is committed is in the WAL: the next open has it
                log.error("store: closing %s: %s", self._path, exc)


class _Batch:
    """Writes made by one transaction: those asked for while the worker was busy.

    Each transaction costs a commit and, on a busy loop, a wait for the GIL at
    every statement. So a write joins the batch queued last, unless another
    call was made since (calls run in call order) or the worker has
    :meth:`take` n it (then it starts the next). All share :attr:`written`.
    """

    __slots__ = ("_lock", "_taken", "writes", "written")

    def __init__(self, written: asyncio.Future[None]) -> None:
        self._lock = threading.Lock()
        self._taken = False
        self.writes = Writes()
        self.written = written

    def add(self, items: list[T], item: T) -> bool:
        """Append ``item`` to one of :attr:`writes`' lists; False once taken."""
        with self._lock:
            if self._taken:
                return False
            items.append(item)
            return True

    def take(self) -> Writes:
        """Everything added so far; nothing can be added after (on the worker)."""
        with self._lock:
            self._taken = True
            return self.writes


def _log_failure(future: asyncio.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("store: checkpoint failed: %s", future.exception())


def _settle(future: asyncio.Future[T], result: T, error: Exception | None) -> None:
    """On the loop: ``future`` done with ``result``, or ``error`` if there is one."""
    if future.done():  # cancelled by someone who awaited it; the write was made all the same
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)
