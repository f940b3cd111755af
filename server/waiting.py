"""Messages that wait for the store, and what a connection says meanwhile.

Two messages are answered only once the store has answered: ``hello`` (who the
player is: :mod:`server.hellos`) and ``report`` (whether this player may
report that race: :mod:`server.reporting`). While one waits, what the
connection says next is held in order on it (``conn.waiting``) and handled
once the wait is over, until another message waits. Nothing else waits: the
lobby core answers every other message at once.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING, Any

from protocol.close_codes import CloseCode

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from .app import AnyConn, GameServer

__all__ = ["Waits"]

log = logging.getLogger("flowergarden.server")


class Waits:
    """The messages of one server that wait for the store."""

    def __init__(self, server: GameServer) -> None:
        self._server = server
        self.tasks: set[asyncio.Task[None]] = set()
        """What waits for the store now (shutdown waits for them)."""

    def hold(self, conn: AnyConn, work: Coroutine[Any, Any, None], doing: str) -> None:
        """``conn`` said something that waits for the store (``work``, ``doing`` in words
        for the log): hold what comes next until it is done."""
        conn.waiting = []
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(functools.partial(self._done, conn, doing))

    def _done(self, conn: AnyConn, doing: str, task: asyncio.Task[None]) -> None:
        """The wait is over: handle what came meanwhile, in order, until another waits."""
        self.tasks.discard(task)
        waiting, conn.waiting = conn.waiting or [], None
        server = self._server
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("%s from %s failed", doing, conn.ip, exc_info=exc)
            server.reception.let_go(conn, CloseCode.INTERNAL_ERROR, "internal error")
            return
        for i, text in enumerate(waiting):
            if conn.let_go or conn.closing or not server.reception.handle(conn, text):
                return
            if conn.waiting is not None:
                conn.waiting.extend(waiting[i + 1 :])
                return
