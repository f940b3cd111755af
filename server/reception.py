"""What the server does with each connection: the :class:`~server.transport.handler.Handler`.

Each message, as it arrives, passes the rate limit, then is handled: a
``hello`` or a ``report`` waits for the store (:mod:`server.hellos`,
:mod:`server.reporting`), and the messages behind it wait with it; any other
message is decoded with :mod:`protocol` and handed to the glue
(:class:`server.app.GameServer`), which has the lobby core carry it out. A
socket whose player lives on another worker is forwarded as it came.
Every ``error`` the server sends passes through :meth:`Reception.error`, which
counts it; every connection the server closes passes through
:meth:`Reception.let_go`. A connection on another worker (a
:class:`~server.cluster.remote.RemoteConn`) comes in through the same calls.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from core.limits import Admission
from protocol import DecodeError, Error, Hello, Report, decode
from protocol.close_codes import CloseCode

from .conn import Conn, error

if TYPE_CHECKING:
    from protocol import ClientMessage
    from server.transport.connection import Request, Response

    from .app import AnyConn, GameServer

__all__ = ["Reception"]

log = logging.getLogger("flowergarden.server")


class Reception:
    """The handler of every connection of one server (see the module docstring)."""

    def __init__(self, server: GameServer) -> None:
        self._server = server

    def request(self, conn: Conn, request: Request) -> Response | asyncio.Future[Response] | None:
        """The answer to an HTTP request (server/http/pages.py); None opens the websocket."""
        return self._server.pages.answer(conn, request)

    def opened(self, conn: Conn) -> None:
        conn.hello_timer = asyncio.get_running_loop().call_later(
            self._server.settings.hello_timeout, self._hello_timeout, conn
        )

    def received(self, conn: AnyConn, message: str | bytes) -> None:
        """A message, as it arrives: it passes the rate limit now, then is
        handled, or held in order while a ``hello`` waits for the store."""
        self._server.metrics.messages += 1
        if not self.admit(conn):
            return
        if isinstance(message, bytes):
            self.let_go(conn, CloseCode.UNSUPPORTED_DATA, "binary frames are refused")
        elif conn.waiting is not None:
            conn.waiting.append(message)
        else:
            self.handle(conn, message)

    def pinged(self, conn: AnyConn) -> None:
        """A ping counts against the rate limit as a message does (PROTOCOL.md, "Limits")."""
        self.admit(conn)

    def closed(self, conn: AnyConn) -> None:
        if conn.hello_timer is not None:
            conn.hello_timer.cancel()
        who = conn.player.name if conn.player else "replaced" if conn.replaced else "no hello"
        log.info("connection from %s closed (%s): %s", conn.ip, conn.close_code, who)
        self._server.metrics.closed(conn.close_code)
        if isinstance(conn, Conn) and conn.proxy is not None:
            self._server.peers.gone(conn)  # the player's home lets them go
        self._server.gone(conn)  # at once: the opponent hears of it without delay

    def admit(self, conn: AnyConn) -> bool:
        """Whether to handle the message (or ping) arriving now; the client is
        told, or let go, when it is over the rate limit."""
        if conn.replaced or conn.let_go or self._server.closing:
            # After a newer connection took the player over, or once the
            # server is closing the connection: read, so that the peer's
            # close frame is seen, and dropped.
            return False
        verdict = conn.limiter.admit(self._server.clock())
        if verdict is Admission.LIMIT:
            self.error(conn, Error(code="rate_limited", message="too many messages; slow down"))
        elif verdict is Admission.CLOSE:
            self.let_go(conn, CloseCode.POLICY_VIOLATION, "too many messages")
        return verdict is Admission.ACCEPT

    def handle(self, conn: AnyConn, text: str) -> bool:
        """Handle one admitted message; False if that failed.

        A failure is a bug: it is logged and the connection let go with 1011,
        as websockets does when a handler fails, and nothing more from it is
        handled.
        """
        try:
            if isinstance(conn, Conn) and conn.proxy is not None:
                self._server.peers.forward(
                    conn, text
                )  # the player's home, on another worker, decodes it
            elif (message := self._decoded(conn, text)) is not None:
                self._on_message(conn, message)
        except Exception:
            log.exception("handling a message from %s failed", conn.ip)
            self.let_go(conn, CloseCode.INTERNAL_ERROR, "internal error")
            return False
        return True

    def error(self, conn: AnyConn, message: Error) -> None:
        """Send an ``error``: every one the server sends goes through here, and is counted."""
        self._server.metrics.error(message.code)
        conn.send(message)

    def let_go(self, conn: AnyConn, code: int, reason: str) -> None:
        """Close ``conn`` with ``code`` once what is queued for it is written;
        its player leaves the lobby at once, and nothing more from it is handled."""
        conn.let_go = True
        self._server.gone(conn)
        conn.close(code, reason)

    def _hello_timeout(self, conn: AnyConn) -> None:
        if conn.player is None and not conn.replaced:
            conn.close(CloseCode.POLICY_VIOLATION, "no hello in time")

    def _on_message(self, conn: AnyConn, message: ClientMessage) -> None:
        """A decoded message: only a ``hello`` or a ``report`` waits (for the store)."""
        if conn.player is None:
            if isinstance(message, Hello):
                self._server.hellos.begin(conn, message)
            else:
                self.error(conn, error("hello_first", "say hello first", message.id))
        elif isinstance(message, Hello):
            self.error(conn, error("busy", "you have already said hello", message.id))
        elif isinstance(message, Report):  # the store decides, not the lobby core
            self._server.reports.begin(conn, message)
        elif not self._server.peers.takes(conn.player.player_id, message):
            self._server.command(conn.player.player_id, message)

    def _decoded(self, conn: AnyConn, frame: str) -> ClientMessage | None:
        """The message in ``frame``, or None once the client has its decoding error."""
        try:
            return decode(frame)
        except DecodeError as exc:
            self.error(conn, exc.to_error())
            return None
