"""The store's errors, and the patience of its retries.

::

    StoreError            the store failed or refused; a failed write changed nothing
    ├── StoreUnavailable  transient: disk full, I/O error, locked, read-only, no connection
    └── StoreRefused      a taken name, id or token, an unknown player, a bad record

Each backend maps its driver's errors onto these (:func:`server.store.sqlite.classified`
by SQLite's result code, :func:`server.store.postgres.classified_pg` by SQLSTATE),
so that the glue can answer ``unavailable`` for the first kind and a refusal
(``name_taken``) for the second.

:class:`Patience` is what of the store's retries is not the backoff's
(:data:`core.backoff.STORE` gives the delays): when they stop, a deadline
set as the shutdown begins (:data:`GIVE_UP_AFTER`), and a wait between two
attempts that a test call or the shutdown ends early. It lives on the event
loop, with the store's worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "GIVE_UP_AFTER",
    "INTERRUPTED_WAIT",
    "Patience",
    "StoreError",
    "StoreRefused",
    "StoreUnavailable",
]


class StoreError(Exception):
    """The store failed, or refused a write; nothing was written."""


class StoreUnavailable(StoreError):
    """A transient failure (a full disk, an I/O error, a lock): the same call may work later."""


class StoreRefused(StoreError):
    """The write breaks a rule of the store (a taken name, an unknown player): it never will."""


GIVE_UP_AFTER = 2.0
"""Seconds from the start of a shutdown that a failing write is still tried. Less than
a websocket's close timeout (3 s, server/transport/connection.py), which runs meanwhile:
a close frame queued behind a frame that waits for the write goes out once the write is
given up, before its connection's deadline, and SIGTERM ends within that timeout and a
second whatever the disk does."""
INTERRUPTED_WAIT = 0.5
"""Seconds a closing store still waits past its deadline, once it has interrupted a call."""


class Patience:
    """Until when a failing write is tried again, and the wait between two attempts."""

    def __init__(self) -> None:
        self._give_up_at: float | None = None
        self._woken = asyncio.Event()

    def give_up_after(self, seconds: float) -> None:
        """On the shutdown's start: stop retrying ``seconds`` from now, and end the wait
        under way. Only the first call sets the deadline: a shutdown has one start."""
        if self._give_up_at is None:
            self._give_up_at = time.monotonic() + seconds
        self._woken.set()

    def wake(self) -> None:
        """End the wait under way now (a test call is waiting for it)."""
        self._woken.set()

    @property
    def over(self) -> bool:
        """The deadline has passed: a failing store gives up at once."""
        return self._left() <= 0

    async def pause(self, delay: float) -> bool:
        """Wait ``delay`` before the next attempt (less if woken); False if there is none."""
        delay = min(delay, self._left())
        if delay <= 0:
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._woken.wait(), delay)
        self._woken.clear()
        return True

    async def outlasts(self, call: asyncio.Future[None], interrupt: Callable[[], None]) -> bool:
        """Whether ``call`` ends by the deadline, or else :data:`INTERRUPTED_WAIT` after
        ``interrupt()`` (of a statement that would not end); ``call`` is never cancelled."""
        for extra in (0.0, INTERRUPTED_WAIT):
            if extra:
                interrupt()
            done, _ = await asyncio.wait([call], timeout=max(0.0, self._left() + extra))
            if done:
                return True
        return False

    def _left(self) -> float:
        return float("inf") if self._give_up_at is None else self._give_up_at - time.monotonic()
