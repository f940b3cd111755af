"""The asyncio glue: websockets in, the lobby core in the middle, frames out.

One task per connection reads frames, checks the rate limit, decodes them with
:mod:`protocol` and hands them to the :class:`~server.lobby.Lobby`; the
outputs go to each receiver's :class:`~server.outbox.Outbox`. No rule of the
game or the lobby lives here: only identity (which needs the store), timers,
and what belongs to sockets (close codes, limits, health).

Close codes: 1001 on shutdown, 1003 for a binary frame, 1008 for a flood or
a missing ``hello``, 1009 for a frame over ``--max-message`` (websockets
itself), 1011 when handling a message fails (a bug), 4000 for a connection
replaced by a newer one with the same token.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
from http import HTTPStatus
from typing import TYPE_CHECKING

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol import (
    PROTOCOL_VERSION,
    DecodeError,
    Error,
    GameStart,
    Hello,
    Welcome,
    decode,
    encode_bytes,
    played_frame,
)

from .connection import (
    CLOSE_TIMEOUT,
    Conn,
    GameConnection,
    error,
    ip_of,
    json_response,
    tracked,
    with_id,
)
from .events import Output, RaceEnded, Refused, Send, SendPlayed, Wake
from .identity import Identity, Registry
from .limits import AddressLimit, RateLimiter, Verdict
from .lobby import Lobby
from .outbox import Writer
from .timers import RaceTimers

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Coroutine

    from websockets.http11 import Request, Response

    from protocol import ClientMessage, RequestId

    from .config import Settings
    from .record import RaceRecord
    from .store import Store

__all__ = ["GameServer"]

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
        compression: str | None = None,
    ) -> None:
        """``limiter`` makes each connection's rate limiter (the benchmark lifts
        the limit); ``compression`` is None (off) or ``"deflate"``: off, because
        on frames this small deflate costs throughput and doubles memory per
        connection (bench/README.md)."""
        self.settings = settings
        self.store = store
        self.clock = clock
        self._limiter = limiter
        self._compression = compression
        self.lobby = Lobby(
            rng=secrets.SystemRandom(),
            idle_limit=settings.idle_timeout,
            grace=settings.grace,
            wrong_codes_per_hour=settings.wrong_codes_per_ip,
        )
        self._new_players = AddressLimit(settings.new_players_per_ip, settings.new_players_per_ip)
        self.registry = Registry()
        self.closing = False
        self._server: Server | None = None
        self._conns: dict[str, Conn] = {}
        self._connections: set[ServerConnection] = set()
        """Every connection whose TCP connection is open, in its handshake or not."""
        self._per_ip: dict[str, int] = {}
        self._timers = RaceTimers(self._tick, clock)
        self._writer = Writer()
        self._writes: set[asyncio.Future[None]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._handling = 0
        """Connection handlers running; ``_idle`` is set when there are none."""
        self._idle = asyncio.Event()
        self._idle.set()
        self._closed: asyncio.Future[None] | None = None
        self._port = 0

    # -- life cycle ------------------------------------------------------------

    async def start(self) -> None:
        self.registry = Registry(await self.store.open())
        self._server = await serve(
            self._handle,
            self.settings.host,
            self.settings.port,
            process_request=self._process_request,
            max_size=self.settings.max_message,
            compression=self._compression,
            open_timeout=self.settings.hello_timeout,
            close_timeout=CLOSE_TIMEOUT,
            create_connection=tracked(self._connections),
        )
        self._port = next(iter(self._server.sockets)).getsockname()[1]
        log.info("listening on %s", self.url)

    @property
    def port(self) -> int:
        """The port the server listens on (chosen by the OS for port 0)."""
        assert self._server is not None, "the server is not started"
        return self._port

    @property
    def url(self) -> str:
        return f"ws://{self.settings.host}:{self.port}/ws"

    async def close(self) -> None:
        """Shut down; closing again only waits for the first close to end.

        In order: ``/healthz`` answers 503 and new players are refused; every
        connection is closed with 1001 and its handler has ended; finished
        races reach the store, which is closed; then the server stops
        listening. Listening to the end lets health checks see the 503.
        """
        if self._closed is None:
            self._closed = asyncio.ensure_future(self._shut_down())
        await asyncio.shield(self._closed)

    async def _shut_down(self) -> None:
        self.closing = True
        server = self._server
        if server is not None:
            await self._close_connections(server)
        self._timers.cancel_all()
        if self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)
        await self.store.close()
        if server is not None:
            server.close()
            # Connections still in their opening handshake would hold
            # wait_closed for up to --hello-timeout: nobody waits for them.
            for connection in list(self._connections):
                if connection.protocol.state is State.CONNECTING:
                    connection.transport.abort()
            await server.wait_closed()
        log.info("closed")

    async def _close_connections(self, server: Server) -> None:
        # A connection may open while others close (its handshake was accepted
        # just before closing began): go on until none is open or handled.
        while True:
            if sockets := server.connections:
                closes = (ws.close(1001, "the server is shutting down") for ws in sockets)
                await asyncio.gather(*closes, return_exceptions=True)
            elif self._handling:
                await self._idle.wait()
            else:
                return

    async def __aenter__(self) -> GameServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- HTTP ------------------------------------------------------------------

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.path == "/healthz":
            status = HTTPStatus.SERVICE_UNAVAILABLE if self.closing else HTTPStatus.OK
            body = {
                "status": "closing" if self.closing else "ok",
                "online": self.lobby.online,
                "connections": len(self._conns),
            }
            return json_response(status, body)
        if request.path != "/ws":
            return connection.respond(HTTPStatus.NOT_FOUND, "Not found: the websocket is at /ws\n")
        if self.closing:
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "Shutting down\n")
        if self._per_ip.get(ip_of(connection), 0) >= self.settings.max_connections_per_ip:
            return connection.respond(HTTPStatus.TOO_MANY_REQUESTS, "Too many connections\n")
        return None

    # -- one connection --------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        self._handling += 1
        self._idle.clear()
        try:
            await self._serve(ws)
        finally:
            self._handling -= 1
            if not self._handling:
                self._idle.set()

    async def _serve(self, ws: ServerConnection) -> None:
        assert isinstance(ws, GameConnection), "serve() makes its connections with tracked()"
        ws.forget_handshake()
        conn = Conn(ws, self.settings.send_queue, self._limiter(), self._writer)
        self._per_ip[conn.ip] = self._per_ip.get(conn.ip, 0) + 1
        hello_timer = asyncio.get_running_loop().call_later(
            self.settings.hello_timeout, self._hello_timeout, conn
        )
        try:
            await self._read(conn)
        except ConnectionClosed:
            pass
        finally:
            conn.ws.on_text = None
            hello_timer.cancel()
            self._per_ip[conn.ip] -= 1
            if not self._per_ip[conn.ip]:
                del self._per_ip[conn.ip]
            who = conn.player.name if conn.player else "replaced" if conn.replaced else "no hello"
            log.info("connection from %s closed (%s): %s", conn.ip, ws.close_code, who)
            try:
                self._gone(conn)  # at once: the opponent hears of it without delay
            finally:
                await conn.outbox.close()

    async def _read(self, conn: Conn) -> None:
        """Every message until the player's hello is done; after it, those that
        :class:`~server.connection.GameConnection` does not hand to :meth:`_on_text`."""
        async for frame in conn.ws:
            text = self._admit(conn, frame)
            if text is None:
                continue
            if conn.player is None:
                await self._before_hello(conn, text)
            else:
                self._on_message(conn, text)

    def _on_text(self, conn: Conn, frame: str) -> None:
        """A message on the short path, straight from websockets' ``data_received``.

        A failure here is a bug: it is logged and the connection let go with
        1011, as websockets does when a handler task fails, and nothing more
        from it is handled.
        """
        try:
            text = self._admit(conn, frame)
            if text is not None:
                self._on_message(conn, text)
        except Exception:
            log.exception("handling a message from %s failed", conn.ip)
            self._let_go(conn, 1011, "internal error")

    def _admit(self, conn: Conn, frame: str | bytes) -> str | None:
        """The message to handle, or None if it is dropped (and the client told or let go)."""
        if conn.replaced or conn.closing:
            # Frames sent before a newer connection took the player over, or
            # after the server began closing: read (so that the peer's close
            # frame is seen) and dropped.
            return None
        verdict = conn.limiter.admit(self.clock())
        if verdict is Verdict.LIMIT:
            conn.send(Error(code="rate_limited", message="too many messages; slow down"))
        if verdict is Verdict.CLOSE:
            self._let_go(conn, 1008, "too many messages")
            return None
        if verdict is not Verdict.ACCEPT:
            return None
        if isinstance(frame, bytes):
            self._let_go(conn, 1003, "binary frames are refused")
            return None
        return frame

    def _let_go(self, conn: Conn, code: int, reason: str) -> None:
        """Close ``conn`` with ``code``, its player gone from the lobby at once.

        The close runs in its own task while the handler goes on reading (and
        dropping) frames: websockets stops reading once 16 messages are unread,
        so a handler that awaited the closing handshake would never see the
        peer's close frame behind them.
        """
        conn.closing = True
        self._gone(conn)
        self._spawn(self._close_after_flush(conn, code, reason))

    async def _close_after_flush(self, conn: Conn, code: int, reason: str) -> None:
        await conn.outbox.flush()
        await conn.ws.close(code, reason)

    def _hello_timeout(self, conn: Conn) -> None:
        if conn.player is None and not conn.replaced:
            self._spawn(conn.ws.close(1008, "no hello in time"))

    async def _before_hello(self, conn: Conn, frame: str) -> None:
        message = self._decoded(conn, frame)
        if message is None:
            return
        if isinstance(message, Hello):
            await self._hello(conn, message)
        else:
            conn.send(error("hello_first", "say hello first", message.id))

    def _on_message(self, conn: Conn, frame: str) -> None:
        """A message from a player who has said hello: handling it never waits."""
        message = self._decoded(conn, frame)
        if message is None:
            return
        if isinstance(message, Hello):
            conn.send(error("busy", "you have already said hello", message.id))
            return
        assert conn.player is not None
        self._command(conn.player.player_id, message)

    def _decoded(self, conn: Conn, frame: str) -> ClientMessage | None:
        """The message in ``frame``, or None once the client has its decoding error."""
        try:
            return decode(frame)
        except DecodeError as exc:
            conn.send(exc.to_error())
            return None

    def _command(self, player_id: str, message: ClientMessage) -> None:
        try:
            outputs = self.lobby.handle(player_id, message, self.clock())
        except Refused as refused:
            self._conns[player_id].send(error(refused.code, refused.message, message.id))
            return
        self._deliver(outputs, player_id, message.id)

    # -- identity --------------------------------------------------------------

    async def _hello(self, conn: Conn, hello: Hello) -> None:
        try:
            identity, token = await self._identify(hello, conn.ip)
        except Refused as refused:
            conn.send(error(refused.code, refused.message, hello.id))
            return
        conn.player = identity
        # From now on no message needs to wait: take the short path.
        conn.ws.on_text = functools.partial(self._on_text, conn)
        welcome = Welcome(
            player_id=identity.player_id,
            name=identity.name,
            token=token,
            protocol=PROTOCOL_VERSION,
            id=hello.id,
        )
        conn.send(welcome)
        old = self._conns.get(identity.player_id)
        self._conns[identity.player_id] = conn
        if old is not None:
            old.player = None  # its ending is not this player leaving
            old.replaced = True
            self._spawn(old.ws.close(4000, "replaced by a newer connection"))
        log.debug("%s is %s (%s)", conn.ip, identity.name, "back" if hello.token else "new")
        outputs = self.lobby.connect(identity.player_id, identity.name, self.clock(), conn.ip)
        self._deliver(outputs, identity.player_id, None)

    async def _identify(self, hello: Hello, address: str) -> tuple[Identity, str]:
        if hello.protocol is not None and hello.protocol != PROTOCOL_VERSION:
            raise Refused("unsupported_protocol", f"this server speaks protocol {PROTOCOL_VERSION}")
        if hello.token is not None:
            return self.registry.by_token(hello.token), hello.token
        self.registry.check_name(hello.name)  # a name refused costs no new player
        if not self._new_players.charge(address, self.clock()):
            raise Refused("rate_limited", "too many new players from your address; try later")
        token = secrets.token_urlsafe(32)
        identity = self.registry.create("p" + secrets.token_hex(8), hello.name, token, time.time())
        try:
            await self.store.add_player(identity)
        except Exception:
            self.registry.discard(identity.player_id)
            log.exception("could not store a new player")
            raise Refused("name_taken", "that name could not be registered") from None
        return identity, token

    def _gone(self, conn: Conn) -> None:
        identity = conn.player
        if identity is None or self._conns.get(identity.player_id) is not conn:
            return
        del self._conns[identity.player_id]
        now = self.clock()
        self._deliver(self.lobby.disconnect(identity.player_id, now), identity.player_id, None)
        self._persist(self.store.touch(identity.player_id, time.time()))

    # -- outputs ---------------------------------------------------------------

    def _deliver(self, outputs: list[Output], sender: str, request_id: RequestId | None) -> None:
        """Carry out the cores' outputs in order; the sender's first frame carries the id.

        Each message is encoded once, to bytes, for all the receivers its
        output names. Frames after a :class:`RaceEnded` wait until the race
        is on disk.
        """
        barrier: asyncio.Future[None] | None = None
        conns = self._conns
        for out in outputs:
            if isinstance(out, SendPlayed):
                frame = played_frame(
                    game_id=out.game_id,
                    seat=out.seat,
                    card=out.card,
                    bed=out.bed,
                    count=out.count,
                    status=out.status,
                    seq=out.seq,
                )
            elif isinstance(out, Send):
                frame = encode_bytes(out.message)
                if isinstance(out.message, GameStart) and out.message.seat == 0:
                    start = out.message
                    log.info("race %s started: %s", start.game_id, " v ".join(start.players))
            elif isinstance(out, Wake):
                self._timers.wake(out.game_id, out.at)
                continue
            elif isinstance(out, RaceEnded):
                barrier = self._record(out.record)
                continue
            else:  # the journal of live races: not written yet
                continue
            for player_id in out.to:
                conn = conns.get(player_id)
                if conn is None:
                    continue
                if player_id == sender and request_id is not None:
                    conn.outbox.push(with_id(frame, request_id), barrier)
                    request_id = None
                else:
                    conn.outbox.push(frame, barrier)

    def _record(self, record: RaceRecord) -> asyncio.Future[None]:
        ended = time.time()
        started = ended - (record.ended - record.started)
        log.info(
            "race %s ended: %s %s, counts %s",
            record.game_id,
            record.result,
            record.reason,
            "-".join(map(str, record.counts)),
        )
        return self._persist(self.store.record_race(record, started, ended))

    def _persist(self, write: Awaitable[None]) -> asyncio.Future[None]:
        future = asyncio.ensure_future(write)
        self._writes.add(future)
        future.add_done_callback(self._written)
        return future

    def _written(self, future: asyncio.Future[None]) -> None:
        self._writes.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.error("store write failed", exc_info=future.exception())

    def _spawn(self, coroutine: Coroutine[object, object, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _tick(self, game_id: str) -> None:
        self._deliver(self.lobby.tick(game_id, self.clock()), "", None)
