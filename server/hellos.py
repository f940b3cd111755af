"""Saying hello: the one thing a connection waits for, and what comes in meanwhile.

A ``hello`` is answered once the store has said who the player is
(:meth:`server.identities.Identities.identify`: known by their token, or new
and written before ``welcome``). Messages that arrive meanwhile are held in
order on the connection (``conn.waiting``) and handled once the hello is done,
until another hello waits. After ``welcome`` the player is taken over here, or
proxied to their home if that is another worker (:class:`~server.peers.Peers`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING

from core.events import Refused
from protocol.close_codes import CloseCode

from .conn import Conn, error

if TYPE_CHECKING:
    from protocol import Hello

    from .app import AnyConn, GameServer

__all__ = ["Hellos"]

log = logging.getLogger("flowergarden.server")


class Hellos:
    """The hellos of one server that wait for the store."""

    def __init__(self, server: GameServer) -> None:
        self._server = server
        self.waiting: set[asyncio.Task[None]] = set()
        """Hellos waiting for the store (shutdown waits for them)."""

    def begin(self, conn: AnyConn, hello: Hello) -> None:
        """``conn`` said hello: hold what comes next until the store has answered."""
        conn.waiting = []
        task = asyncio.create_task(self._hello(conn, hello))
        self.waiting.add(task)
        task.add_done_callback(functools.partial(self._helloed, conn))

    def _helloed(self, conn: AnyConn, hello: asyncio.Task[None]) -> None:
        """The hello is done: handle what came meanwhile, in order, until
        another hello waits."""
        self.waiting.discard(hello)
        waiting, conn.waiting = conn.waiting or [], None
        server = self._server
        if not hello.cancelled() and (exc := hello.exception()) is not None:
            log.error("saying hello from %s failed", conn.ip, exc_info=exc)
            server.reception.let_go(conn, CloseCode.INTERNAL_ERROR, "internal error")
            return
        for i, text in enumerate(waiting):
            if conn.let_go or conn.closing or not server.reception.handle(conn, text):
                return
            if conn.waiting is not None:
                conn.waiting.extend(waiting[i + 1 :])
                return

    async def _hello(self, conn: AnyConn, hello: Hello) -> None:
        server = self._server
        try:
            identity, token = await server.identities.identify(hello, conn.ip)
        except Refused as refused:
            server.reception.error(conn, error(refused.code, refused.message, hello.id))
            return
        if conn.closing or conn.let_go or server.closing:
            return  # gone, or going, while the store answered: nobody to welcome
        conn.player = identity
        conn.send(server.identities.welcome(identity, token, hello.id))
        log.debug("%s is %s (%s)", conn.ip, identity.name, "back" if hello.token else "new")
        if isinstance(conn, Conn):  # a socket here, not one another worker gave us
            try:
                home = await server.peers.home_of(identity)
            except Refused as refused:  # their race cannot be found now: come back later
                server.reception.error(conn, error(refused.code, refused.message, None))
                server.reception.let_go(conn, CloseCode.SERVICE_RESTART, "try again")
                return
            if home is not None:  # the player lives on another worker: forward to it
                server.peers.proxy(conn, identity, home)
                return
        server.take_over(conn, identity)
