"""What the server's port answers over plain HTTP: health, metrics, the API, the browser client.

Every request is an opening handshake first (:mod:`server.transport.connection`): the
websocket opens on ``/ws`` unless the server is shutting down or full, and
every other path is a page. ``/healthz`` and ``/metrics`` are here, one entry
each in :attr:`Pages.pages`; ``/api/admin/...`` is :mod:`server.http.admin` (the
only paths that take ``POST``), the rest of ``/api/...`` :mod:`server.http.api`;
any other path the browser client's files (:mod:`server.http.static`) or a 404.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import TYPE_CHECKING

from server.transport.responses import METHOD_NOT_ALLOWED, http_response, text_response

from .admin import ADMIN
from .api import model_response
from .metrics import CONTENT_TYPE
from .models import Health
from .static import StaticFiles

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable

    from server.app import GameServer
    from server.conn import Conn
    from server.transport.connection import Request, Response

__all__ = ["Pages"]

_READ = ("GET", "HEAD")
"""The methods every path but the operator's answers (PROTOCOL.md, "HTTP"); others are 405."""


class Pages:
    """The answers of one server's HTTP requests."""

    def __init__(self, server: GameServer) -> None:
        self._server = server
        self.pages: dict[str, Callable[[Conn, Request], Response]] = {
            "/healthz": self.healthz,
            "/metrics": self.metrics,
        }
        """The plain HTTP paths, each answered by a page; then the browser client's files."""
        self._static = StaticFiles.load()

    def answer(self, conn: Conn, request: Request) -> Response | asyncio.Future[Response] | None:
        """The answer to ``conn``'s request: a page, a refusal, or None to open the websocket."""
        server = self._server
        path = request.path.partition("?")[0]
        if path.startswith(ADMIN):  # the operator's, which take POST too
            return server.admin.answer(conn.ip, request)
        if request.method not in _READ:
            return METHOD_NOT_ALLOWED
        page = self.pages.get(path)
        if page is not None:
            return page(conn, request)
        if path.startswith("/api/"):
            return server.api.answer(conn.ip, request)
        if path in self._static:
            return self._static.answer(path, request)
        if path != "/ws":
            return text_response(HTTPStatus.NOT_FOUND, "Not found: the websocket is at /ws\n")
        if server.closing:
            return text_response(HTTPStatus.SERVICE_UNAVAILABLE, "Shutting down\n")
        settings = server.settings
        if conn.rank >= settings.max_connections:
            return text_response(HTTPStatus.SERVICE_UNAVAILABLE, "Server full; try again later\n")
        elsewhere = server.peers.connections_elsewhere(conn.ip)
        if conn.ip_rank + elsewhere >= settings.max_connections_per_ip:
            return text_response(HTTPStatus.TOO_MANY_REQUESTS, "Too many connections\n")
        return None

    def healthz(self, conn: Conn, request: Request) -> Response:
        """200 while the server takes players (``degraded`` while the store's
        writes fail); 503 while it shuts down or is full.

        ``connections`` counts every TCP connection open (this one, and those
        in their handshake, included); ``players`` those that said hello.
        """
        server = self._server
        full = conn.rank >= server.settings.max_connections
        status = "closing" if server.closing else "full" if full else "ok"
        if status == "ok" and server.store.failing:
            status = "degraded"
        health = Health(
            status=status,
            online=server.lobby.online,
            players=len(server.players_here()),
            connections=server.connections(),
        )
        ok = status in ("ok", "degraded")
        return model_response(HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE, health)

    def metrics(self, conn: Conn, request: Request) -> Response:
        """Prometheus' text format (server/http/metrics.py)."""
        return http_response(HTTPStatus.OK, self._server.metrics.render(), CONTENT_TYPE)
