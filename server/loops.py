"""Background loops that end when stopped, even when a cancellation is lost on the way."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

__all__ = ["Loop", "SaidOnce"]

log = logging.getLogger("flowergarden.server")


class Loop:
    """A task that pauses, runs a round, and again, until :meth:`stop`.

    Cancelling such a task is not enough to stop it. In Python 3.11,
    ``asyncio.wait_for`` returns the result of a call that finished just as the
    cancellation came, and the cancellation is gone; redis-py sends every
    command through it when a socket timeout is set. A worker's beat, cancelled
    so, went on beating, and the shutdown that awaited it waited for ever (seen in
    a multi-worker test's teardown, one run in fifteen). :meth:`stop` sets a flag
    that the loop reads before each pause and each round, then cancels: whichever
    the loop meets first ends it, within one round at most.
    """

    def __init__(self, name: str, round_: Callable[[], Awaitable[float]], first: float) -> None:
        """``round_`` returns the seconds to pause before the next; ``first``: before the first."""
        self._name, self._round, self._first = name, round_, first
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=self._name)

    async def stop(self) -> None:
        """End the loop, and return once it has ended (a round under way is cancelled)."""
        self._stopping.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        # No first pause: the first round runs at once, as a task's first step would.
        pause = self._first if self._first > 0 else await self._round()
        while not self._stopping.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(pause):
                    await self._stopping.wait()
            if self._stopping.is_set():
                return
            pause = await self._round()


class SaidOnce:
    """A failure a loop meets round after round (the store away), logged at its first
    round only, and again once a round has succeeded in between."""

    def __init__(self, what: str) -> None:
        self._what, self._failing = what, False

    def failed(self, exc: Exception) -> None:
        if not self._failing:
            log.warning("%s: %s", self._what, exc)
        self._failing = True

    def succeeded(self) -> None:
        self._failing = False
