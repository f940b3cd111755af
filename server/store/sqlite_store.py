"""The store in one SQLite file: the machine, with SQLite's calls on a thread of their own.

:class:`SqliteStore` is :class:`server.store.machine.StoreMachine` on a
:class:`SqliteOnThread`: one :class:`server.store.sqlite.Database` owned by one
thread, where every call runs (``loop.run_in_executor``), so that no SQLite
call blocks the event loop. The machine calls it one call at a time, and
writes a batch on the loop itself (:meth:`SqliteOnThread.write_now`) only
while no call is queued or running: the connection is then never in two
places at once.

Durability: a write is done once committed. In WAL mode with
``synchronous=NORMAL`` a commit is in the OS's hands when it returns, so even
SIGKILL loses nothing; only a power loss or an OS crash can, which
``durable=True`` (an fsync a commit, and so no batch written on the loop)
prevents.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from .faults import GIVE_UP_AFTER, StoreError
from .machine import StoreMachine
from .sqlite import Database, classified

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from core.identity import Identity

    from .batch import Writes
    from .reads import Row
    from .rows import LiveRace
    from .scripts import Script

__all__ = ["SqliteOnThread", "SqliteStore"]

P = ParamSpec("P")
T = TypeVar("T")

log = logging.getLogger("flowergarden.server")


class SqliteStore(StoreMachine):
    """A :class:`~server.store.interface.Store` in one SQLite file (or ``":memory:"``).

    ``durable``: an fsync a commit (``synchronous=FULL``), and so no batch
    written on the loop; ``give_up_after``: how long a failing batch is still
    retried once closing (server/store/machine.py); ``init``: a file that
    exists but is empty is made a new database rather than refused
    (``--init-db``, :func:`server.store.sqlite.refuse_empty`).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        durable: bool = False,
        give_up_after: float = GIVE_UP_AFTER,
        init: bool = False,
    ) -> None:
        self._sqlite = SqliteOnThread(str(path), durable=durable, init=init)
        super().__init__(self._sqlite, give_up_after=give_up_after)
        self._path, self._durable = str(path), durable

    def __repr__(self) -> str:
        return f"SqliteStore({self._path!r}, durable={self._durable!r})"

    def _interrupt(self) -> None:
        self._sqlite.interrupt()


class SqliteOnThread:
    """The SQLite backend: a :class:`Database`, and the one thread its calls run on."""

    def __init__(self, path: str, *, durable: bool, init: bool = False) -> None:
        self._path = path
        self._durable = durable
        self._init = init
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store")
        self._db: Database | None = None
        """Set and used on the thread; on the loop only while the thread is idle."""

    @property
    def inline(self) -> bool:
        # An fsync is no write to do on the loop.
        return not self._durable

    async def open(self) -> None:
        self._db = await self._on_thread(self._open)

    def _open(self) -> Database:
        db = Database(
            self._path, durable=self._durable, checkpoints=not self.inline, init=self._init
        )
        db.open()
        return db

    async def close(self) -> None:
        db, self._db = self._db, None
        try:
            if db is not None:
                await self._on_thread(db.close)
        finally:
            self._thread.shutdown(wait=False)

    async def read(
        self, sql: str, arguments: Sequence[object], reader: Callable[[list[Row]], T]
    ) -> T:
        db = self._open_db()
        return await self._on_thread(lambda: reader(db.fetch(sql, arguments)))

    async def change(self, sql: str, many: Sequence[Sequence[object]]) -> int:
        return await self._on_thread(self._open_db().change, sql, many)

    async def add_player(self, identity: Identity) -> None:
        await self._on_thread(self._open_db().add_player, identity)

    async def write(self, writes: Writes) -> frozenset[str]:
        return await self._on_thread(self._open_db().write, writes)

    async def run(self, script: Script[T]) -> T:
        return await self._on_thread(self._open_db().run, script)

    def write_now(self, writes: Writes) -> frozenset[str]:
        try:
            return self._open_db().write_now(writes)
        except sqlite3.Error as exc:
            raise classified(exc) from exc

    def interrupt(self) -> None:
        """End the statement running on the thread, if one is (any thread may call it)."""
        db = self._db
        if db is not None:
            db.interrupt()

    async def checkpoint(self) -> None:
        await self._on_thread(self._open_db().checkpoint)

    async def live_races(self) -> list[LiveRace]:
        return await self._on_thread(self._open_db().live_races)

    async def take_races(self, only: Sequence[str] | None) -> list[tuple[LiveRace, int]]:
        return await self._on_thread(self._open_db().take_races, only)

    async def execute(self, sql: str) -> list[Row]:
        return await self._on_thread(self._open_db().execute, sql)

    async def _on_thread(self, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``call`` run on the store's thread; SQLite's errors as the store's."""
        loop = asyncio.get_running_loop()
        job = functools.partial(call, *args, **kwargs)
        try:
            return await loop.run_in_executor(self._thread, job)
        except sqlite3.Error as exc:
            raise classified(exc) from exc

    def _open_db(self) -> Database:
        if self._db is None:
            raise StoreError(f"{self._path!r} is not open")
        return self._db
