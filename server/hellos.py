"""Saying hello: the one thing a connection waits for, and what comes in meanwhile.

A ``hello`` is answered once the store has said who the player is
(:meth:`server.identities.Identities.identify`: known by their token, or new
and written before ``welcome``). Messages that arrive meanwhile wait
(:mod:`server.waiting`). After ``welcome`` the player is taken over here, or
proxied to their home if that is another worker (:class:`~server.peers.Peers`).
A banned player's hello is answered ``banned``, and the connection closed
with 4001 after it.
"""

from __future__ import annotations

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
    """The hellos of one server, which wait for the store (:mod:`server.waiting`)."""

    def __init__(self, server: GameServer) -> None:
        self._server = server

    def begin(self, conn: AnyConn, hello: Hello) -> None:
        """``conn`` said hello: hold what comes next until the store has answered."""
        self._server.waits.hold(conn, self._hello(conn, hello), "saying hello")

    async def _hello(self, conn: AnyConn, hello: Hello) -> None:
        server = self._server
        try:
            identity, token = await server.identities.identify(hello, conn.ip)
        except Refused as refused:
            server.reception.error(conn, error(refused.code, refused.message, hello.id))
            if refused.code == "banned":  # and nothing more from it (PROTOCOL.md)
                server.reception.let_go(conn, CloseCode.BANNED, "banned")
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
                server.unavailable(conn, refused.message)
                return
            if home is not None:  # the player lives on another worker: forward to it
                server.peers.proxy(conn, identity, home)
                return
        server.take_over(conn, identity)
