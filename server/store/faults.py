"""The store's errors, and how its worker rides out SQLite's faults.

::

    StoreError            the store failed or refused; a failed write changed nothing
    ├── StoreUnavailable  transient: disk full, I/O error, locked, read-only; try later
    └── StoreRefused      a taken name, id or token, an unknown player, a bad record

:func:`classified` maps :mod:`sqlite3`'s errors onto these by SQLite's result
code, so that the glue can answer ``unavailable`` for the first kind and a
refusal (``name_taken``) for the second. :class:`Patience` is when the store's
worker tries a failing write again, and when it stops: it is shared by the
worker thread, which waits in it, and :meth:`server.store.sqlite_store.SqliteStore.close`
on the loop, which bounds it; :class:`AsyncPatience` is the same for a worker
that is a task (:class:`server.store.postgres_store.PostgresStore`, whose errors
:func:`server.store.postgres.classified_pg` draws).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time

__all__ = [
    "AsyncPatience",
    "Patience",
    "StoreError",
    "StoreRefused",
    "StoreUnavailable",
    "classified",
]

_TRANSIENT = frozenset(
    getattr(sqlite3, f"SQLITE_{name}")
    for name in ("BUSY", "LOCKED", "NOMEM", "READONLY", "IOERR", "FULL", "CANTOPEN", "PROTOCOL")
)
"""SQLite's primary result codes for what may work if tried again."""


class StoreError(Exception):
    """The store failed, or refused a write; nothing was written."""


class StoreUnavailable(StoreError):
    """A transient failure (a full disk, an I/O error, a lock): the same call may work later."""


class StoreRefused(StoreError):
    """The write breaks a rule of the store (a taken name, an unknown player): it never will."""


def classified(exc: sqlite3.Error) -> StoreError:
    """SQLite's error as the store's: transient, a refusal, or neither (a bug, a corrupt file)."""
    code = getattr(exc, "sqlite_errorcode", None)  # absent on errors raised by our own checks
    message = f"{type(exc).__name__}: {exc}"
    if code is not None and code & 0xFF in _TRANSIENT:
        return StoreUnavailable(message)
    if isinstance(exc, sqlite3.IntegrityError):
        return StoreRefused(message)
    return StoreError(message)


class Patience:
    """The backoff between attempts at a failing write, and the bound set on closing.

    Its state crosses threads: :attr:`failing` is written on the worker and
    read on the loop, the deadline the other way round; each is one object
    written whole, which the GIL keeps atomic.
    """

    def __init__(self, first: float = 0.05, last: float = 2.0) -> None:
        self.first = first
        self.last = last
        self.failing = False
        """True from a transient write failure until a write succeeds again."""
        self._give_up_at: float | None = None
        self._wake = threading.Event()

    def give_up_after(self, seconds: float) -> None:
        """On closing: stop retrying ``seconds`` from now, and end the wait under way."""
        self._give_up_at = time.monotonic() + seconds
        self._wake.set()

    def wake(self) -> None:
        """End the worker's wait now (a test call is waiting for it)."""
        self._wake.set()

    @property
    def exhausted(self) -> bool:
        """Failing past the bound: a call fails at once, so that shutdown waits for none."""
        return self.failing and self._left() <= 0

    def pause(self, delay: float) -> bool:
        """Wait ``delay`` before the next attempt (less if woken); False if there is none."""
        delay = min(delay, self._left())
        if delay <= 0:
            return False
        self._wake.wait(delay)
        self._wake.clear()
        return True

    def _left(self) -> float:
        return float("inf") if self._give_up_at is None else self._give_up_at - time.monotonic()


class AsyncPatience(Patience):
    """:class:`Patience` for a worker that is a task on the loop (the PostgreSQL store's).

    ``failing`` and the deadline are the parent's; only the wait differs: it
    awaits an :class:`asyncio.Event` that :meth:`wake` and :meth:`give_up_after`
    set, where the parent's blocks its thread.
    """

    def __init__(self) -> None:
        super().__init__()
        self._woken = asyncio.Event()

    def give_up_after(self, seconds: float) -> None:
        super().give_up_after(seconds)
        self._woken.set()

    def wake(self) -> None:
        self._woken.set()

    async def pause_async(self, delay: float) -> bool:
        """Wait ``delay`` before the next attempt (less if woken); False if there is none."""
        delay = min(delay, self._left())
        if delay <= 0:
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._woken.wait(), delay)
        self._woken.clear()
        return True
