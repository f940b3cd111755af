"""The cluster's background work: tasks whose failure is logged, and which end on closing."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Coroutine

__all__ = ["Tasks", "bounded"]

log = logging.getLogger("flowergarden.server")


class Tasks:
    """Runs coroutines as tasks, keeps them until done, and logs those that fail."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any] | None:
        """Run ``work`` (its failure is logged); None once closed."""
        if self._closed:  # shutting down: what is left to say, the next owner says
            work.close()
            return None
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    async def close(self, timeout: float) -> None:
        """Let the tasks under way finish, for ``timeout`` seconds at most; run no more."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._tasks, return_exceptions=True), timeout)
        self._closed = True

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("cluster: %s", task.exception())


def bounded(write: asyncio.Task[Any] | None, wait: float) -> asyncio.Future[None] | None:
    """A barrier done when ``write`` is, or ``wait`` seconds from now."""
    if write is None:
        return None
    loop = asyncio.get_running_loop()
    barrier: asyncio.Future[None] = loop.create_future()

    def lift(_: object = None) -> None:
        if not barrier.done():
            barrier.set_result(None)

    write.add_done_callback(lift)
    timer = loop.call_later(wait, lift)
    barrier.add_done_callback(lambda _: timer.cancel())
    return barrier
