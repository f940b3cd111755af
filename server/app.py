"""The asyncio glue: connections in, the lobby core in the middle, frames out.

:class:`GameServer` is the :class:`~server.transport.connection.Handler` of every
connection (:mod:`server.transport.connection`, the only module that knows websockets):
each message, as it arrives, passes the rate limit, is decoded with
:mod:`protocol` and handed to the :class:`~core.lobby.Lobby`; the outputs
go to each receiver's outgoing queue. Only a ``hello`` waits (for the store),
and the messages behind it wait with it. No rule of the game or the lobby
lives here: only timers, the wait for identity (:mod:`server.identities`,
which needs the store), and what belongs to sockets (close codes, limits;
the HTTP pages are :mod:`server.http.pages`).

Close codes: 1001 on shutdown, 1003 for a binary frame, 1008 for a flood or
a missing ``hello``, 1009 for a frame over ``--max-message`` (websockets
itself), 1011 when handling a message fails (a bug), 4000 for a connection
replaced by a newer one with the same token.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import TYPE_CHECKING

from core.events import Refused
from core.limits import Admission, RateLimiter
from core.lobby import Lobby
from core.restore import restored
from protocol import (
    DecodeError,
    Error,
    Hello,
    decode,
)
from protocol.close_codes import CloseCode
from server.cluster.cluster import Cluster
from server.cluster.remote import RemoteConn
from server.http.api import Api
from server.http.metrics import Metrics
from server.http.pages import Pages
from server.transport.handler import ConnectionOptions
from server.transport.listener import Listener

from .conn import Conn, error
from .delivery import Delivery
from .hellos import Hellos
from .identities import Identities
from .peers import Alone, Peers
from .timers import RaceTimers

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from core.events import Output
    from core.identity import Identity
    from protocol import ClientMessage, ErrorCode, RequestId
    from server.store import Store
    from server.transport.connection import Request, Response

    from .config import Settings

__all__ = ["AnyConn", "GameServer"]

AnyConn = Conn | RemoteConn
"""A player's connection: a socket here, or one on another worker (server/cluster/remote.py)."""

log = logging.getLogger("flowergarden.server")


class GameServer:
    """The race server: ``async with GameServer(settings, store) as server: ...``."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        *,
        clock: Callable[[], float] = time.monotonic,
        limiter: Callable[[], RateLimiter] = RateLimiter,
        worker: str = "0",
        redis: str = "",
    ) -> None:
        """``limiter`` makes each connection's rate limiter (the benchmark lifts
        the limit); ``worker`` names this process in ``/metrics`` and among the
        workers that share a lobby through Redis at ``redis``
        (server/cluster/cluster.py); with none, the lobby is this process's alone."""
        self.settings = settings
        self.store = store
        self.clock = clock
        self._limiter = limiter
        self.lobby = Lobby(
            rng=secrets.SystemRandom(),
            idle_limit=settings.idle_timeout,
            grace=settings.grace,
            wrong_codes_per_hour=settings.wrong_codes_per_ip,
            rated_per_day=settings.rated_per_day,
        )
        self.api = Api(store, settings.http_per_ip, clock)
        self.closing = False
        self._listener: Listener[Conn] | None = None
        self._conns: dict[str, AnyConn] = {}
        """The connection of every player who has said hello."""
        self.metrics = Metrics(self.lobby, self._conns, self.connections, worker)
        self.pages = Pages(self)
        self._timers = RaceTimers(self._tick, clock)
        self._hellos = Hellos(self)
        self._closed: asyncio.Future[None] | None = None
        self.peers: Peers = Alone()
        """The other workers, if there are any (server/peers.py)."""
        if redis:  # several workers: they share the lobby through Redis
            self.peers = Cluster(
                redis,
                worker,
                lobby=self.lobby,
                store=store,
                settings=settings,
                clock=clock,
                metrics=self.metrics,
            )
        self._delivery = Delivery(self._conns, store, self.peers, self.metrics, self._timers)
        self.identities = Identities(store, settings, clock, self.metrics, self.peers)

    # -- life cycle ------------------------------------------------------------

    async def start(self, known: list[Identity] | None = None) -> None:
        """Open the store, unless the caller did and passes its players as ``known``
        (server/__main__.py does, to wait for a database that is not up yet), and listen."""
        self.identities.know(await self.store.open() if known is None else known)
        await self.identities.add_bots()
        # Alone: every race left live; with other workers: those nobody alive
        # owns, and from then on those of workers that die.
        await self.peers.start(self)
        settings = self.settings
        options = ConnectionOptions(
            max_size=settings.max_message,
            queue=settings.send_queue,
            open_timeout=settings.hello_timeout,
        )
        listener = Listener(self, self._connection, options, settings.max_connections)
        await listener.start(settings.host, settings.port, reuse_port=settings.reuse_port)
        self._listener = listener
        log.info("listening on %s", self.url)
        log.info("open http://%s:%d/ in a browser to race there", settings.host, self.port)

    async def restore_races(self, only: Collection[str] | None = None) -> None:
        """Take back every race the last process left live, or those of them in ``only``."""
        began = time.perf_counter()
        live = await self.store.live_races()
        chosen = live if only is None else [race for race in live if race[0].game_id in only]
        settings, rng = self.settings, secrets.SystemRandom()
        for race, left in restored(
            chosen, self.clock(), settings.idle_timeout, settings.grace, rng
        ):
            self.deliver(self.lobby.restore(race, left), "", None)
        if chosen:
            took = (time.perf_counter() - began) * 1000
            log.info("restored %d live races in %.0f ms", len(chosen), took)

    def _connection(self, listener: Listener[Conn]) -> Conn:
        return Conn(listener, self._limiter())

    @property
    def port(self) -> int:
        """The port the server listens on (chosen by the OS for port 0)."""
        assert self._listener is not None, "the server is not started"
        return self._listener.port

    @property
    def url(self) -> str:
        return f"ws://{self.settings.host}:{self.port}/ws"

    async def close(self) -> None:
        """Shut down; closing again only waits for the first close to end.

        In order: ``/healthz`` answers 503 and new players are refused; every
        websocket is closed with 1001, each given ``CLOSE_TIMEOUT`` to end
        whatever its client does (one that never reads included); the store
        closes once what was asked of it (finished races, hellos) is done;
        then the server stops listening and aborts what is left (connections
        in their opening handshake). Listening to the end lets health checks
        see the 503.
        """
        if self._closed is None:
            self._closed = asyncio.ensure_future(self._shut_down())
        await asyncio.shield(self._closed)

    async def _shut_down(self) -> None:
        self.closing = True  # from now on no message is handled, and no race moves
        self._timers.cancel_all()
        # Live races stay live: the next process (or another worker) takes
        # them from the journal, at the time they stand at now.
        await self.store.suspend(self.lobby.elapsed(self.clock()))
        await self.peers.close()  # hands the races over: the lease goes now
        listener = self._listener
        if listener is not None:
            await listener.close_connections(CloseCode.GOING_AWAY, "the server is shutting down")
        # The store finishes every call already made of it as it closes (and
        # stops retrying writes that keep failing): waiting for the hellos and
        # writes before closing it could be waiting for ever.
        await self.store.close()
        if pending := self._hellos.waiting | self._delivery.writes:
            await asyncio.gather(*pending, return_exceptions=True)
        if listener is not None:
            await listener.close()
        log.info("closed")

    async def __aenter__(self) -> GameServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- HTTP ------------------------------------------------------------------

    def request(self, conn: Conn, request: Request) -> Response | asyncio.Future[Response] | None:
        """The answer to an HTTP request (server/http/pages.py); None opens the websocket."""
        return self.pages.answer(conn, request)

    def connections(self) -> int:
        """Every TCP connection open, in its handshake or not."""
        return len(self._listener.connections) if self._listener is not None else 0

    # -- one connection --------------------------------------------------------

    def opened(self, conn: Conn) -> None:
        conn.hello_timer = asyncio.get_running_loop().call_later(
            self.settings.hello_timeout, self._hello_timeout, conn
        )

    def received(self, conn: AnyConn, message: str | bytes) -> None:
        """A message, as it arrives: it passes the rate limit now, then is
        handled, or held in order while a ``hello`` waits for the store."""
        self.metrics.messages += 1
        if not self._admit(conn):
            return
        if isinstance(message, bytes):
            self.let_go(conn, CloseCode.UNSUPPORTED_DATA, "binary frames are refused")
        elif conn.waiting is not None:
            conn.waiting.append(message)
        else:
            self.handle(conn, message)

    def pinged(self, conn: AnyConn) -> None:
        """A ping counts against the rate limit as a message does (PROTOCOL.md, "Limits")."""
        self._admit(conn)

    def closed(self, conn: AnyConn) -> None:
        if conn.hello_timer is not None:
            conn.hello_timer.cancel()
        who = conn.player.name if conn.player else "replaced" if conn.replaced else "no hello"
        log.info("connection from %s closed (%s): %s", conn.ip, conn.close_code, who)
        self.metrics.closed(conn.close_code)
        if isinstance(conn, Conn) and conn.proxy is not None:
            self.peers.gone(conn)  # the player's home lets them go
        self._gone(conn)  # at once: the opponent hears of it without delay

    def _admit(self, conn: AnyConn) -> bool:
        """Whether to handle the message (or ping) arriving now; the client is
        told, or let go, when it is over the rate limit."""
        if conn.replaced or conn.let_go or self.closing:
            # After a newer connection took the player over, or once the
            # server is closing the connection: read, so that the peer's
            # close frame is seen, and dropped.
            return False
        verdict = conn.limiter.admit(self.clock())
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
                self.peers.forward(conn, text)  # the player's home, on another worker, decodes it
            elif (message := self._decoded(conn, text)) is not None:
                self._on_message(conn, message)
        except Exception:
            log.exception("handling a message from %s failed", conn.ip)
            self.let_go(conn, CloseCode.INTERNAL_ERROR, "internal error")
            return False
        return True

    def error(self, conn: AnyConn, message: Error) -> None:
        """Send an ``error``: every one the server sends goes through here, and is counted."""
        self.metrics.error(message.code)
        conn.send(message)

    def let_go(self, conn: AnyConn, code: int, reason: str) -> None:
        """Close ``conn`` with ``code`` once what is queued for it is written;
        its player leaves the lobby at once, and nothing more from it is handled."""
        conn.let_go = True
        self._gone(conn)
        conn.close(code, reason)

    def _hello_timeout(self, conn: AnyConn) -> None:
        if conn.player is None and not conn.replaced:
            conn.close(CloseCode.POLICY_VIOLATION, "no hello in time")

    def _on_message(self, conn: AnyConn, message: ClientMessage) -> None:
        """A decoded message: only a ``hello`` waits (for the store); nothing else does."""
        if conn.player is None:
            if isinstance(message, Hello):
                self._hellos.begin(conn, message)
            else:
                self.error(conn, error("hello_first", "say hello first", message.id))
        elif isinstance(message, Hello):
            self.error(conn, error("busy", "you have already said hello", message.id))
        elif not self.peers.takes(conn.player.player_id, message):
            self.command(conn.player.player_id, message)

    def _decoded(self, conn: AnyConn, frame: str) -> ClientMessage | None:
        """The message in ``frame``, or None once the client has its decoding error."""
        try:
            return decode(frame)
        except DecodeError as exc:
            self.error(conn, exc.to_error())
            return None

    def refuse(self, player_id: str, message: ClientMessage, code: ErrorCode, why: str) -> None:
        """Answer a player's command with an ``error``."""
        conn = self._conns.get(player_id)
        if conn is not None:
            self.error(conn, error(code, why, message.id))

    def command(self, player_id: str, message: ClientMessage) -> None:
        """Have this worker's lobby core carry out a player's command."""
        try:
            outputs = self.lobby.handle(player_id, message, self.clock())
        except Refused as refused:
            self.error(self._conns[player_id], error(refused.code, refused.message, message.id))
            return
        self.deliver(outputs, player_id, message.id)

    # -- identity --------------------------------------------------------------

    def take_over(self, conn: AnyConn, identity: Identity) -> None:
        """``conn`` is ``identity``'s connection now; an older one closes with 4000."""
        self.identities.registry.learn(identity)  # one that another worker made, maybe
        old = self._conns.get(identity.player_id)
        self._conns[identity.player_id] = conn
        if old is not None:
            old.player = None  # its ending is not this player leaving
            old.replaced = True
            old.close(CloseCode.REPLACED, "replaced by a newer connection")
        self.peers.changed()  # one more online
        outputs = self.lobby.connect(
            identity.player_id, identity.name, self.clock(), conn.ip, identity.rating
        )
        self.deliver(outputs, identity.player_id, None)

    def _gone(self, conn: AnyConn) -> None:
        identity = conn.player
        if identity is None or self._conns.get(identity.player_id) is not conn:
            return
        if self.closing:  # the races are suspended as they stood: nobody leaves them now
            del self._conns[identity.player_id]
            return
        self.release(conn)
        self._delivery.persist(self.store.touch(identity.player_id, time.time()))
        self.peers.left(identity.player_id)

    def release(self, conn: AnyConn) -> None:
        """``conn``'s player leaves this worker's lobby core; the socket stays as it is."""
        assert conn.player is not None
        player_id = conn.player.player_id
        del self._conns[player_id]
        self.deliver(self.lobby.disconnect(player_id, self.clock()), player_id, None)
        self.peers.changed()

    def connections_by_ip(self, at_least: int) -> dict[str, int]:
        """This worker's open TCP connections by address (those with ``at_least``)."""
        return {} if self._listener is None else self._listener.per_ip(at_least)

    def players_here(self) -> list[str]:
        """The players whose home is this worker and who are connected."""
        return list(self._conns)

    def resync(self, player_id: str) -> None:
        """Send a racing player their race's whole state again (``game_state``)."""
        self.deliver(self.lobby.resync(player_id, self.clock()), "", None)

    def conn_of(self, player_id: str) -> AnyConn | None:
        """The connection of a player whose home is here."""
        return self._conns.get(player_id)

    def deliver(self, outputs: list[Output], sender: str, request_id: RequestId | None) -> None:
        """Carry out the cores' outputs (server/delivery.py)."""
        self._delivery.deliver(outputs, sender, request_id)

    def _tick(self, key: str) -> None:
        self.deliver(self.lobby.tick(key, self.clock()), "", None)
