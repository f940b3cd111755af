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
import functools
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from core.bots import BOT_NAMES, bot_id
from core.events import (
    Journaled,
    Output,
    RaceEnded,
    RaceStarted,
    Refused,
    Send,
    SendPlayed,
    Wake,
)
from core.identity import Identity, Registry, hash_token
from core.limits import RateLimiter, Verdict
from core.lobby import Lobby
from core.restore import restore
from protocol import (
    PROTOCOL_VERSION,
    DecodeError,
    Error,
    GameStart,
    Hello,
    Limits,
    Rating,
    Welcome,
    decode,
    encode_bytes,
)
from protocol.close_codes import CloseCode
from server.cluster.cluster import Cluster
from server.cluster.remote import RemoteConn
from server.http.api import Api
from server.http.metrics import Metrics
from server.http.pages import Pages
from server.store.sqlite_store import StoreError
from server.transport.handler import Options
from server.transport.listener import Listener
from server.transport.outbox import Writer

from .conn import Conn, error, with_id
from .identities import Identities
from .timers import RaceTimers

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Collection

    from core.race_log import RaceRecord
    from protocol import ClientMessage, ErrorCode, RequestId
    from server.store.sqlite_store import Store
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
        compression: str | None = None,
        worker: str = "0",
        redis: str = "",
    ) -> None:
        """``limiter`` makes each connection's rate limiter (the benchmark lifts
        the limit); ``compression`` is None (off) or ``"deflate"``: off, because
        on frames this small deflate costs throughput and doubles memory per
        connection (bench/README.md); ``worker`` names this process in ``/metrics``
        and among the workers that share a lobby through Redis at ``redis``
        (server/cluster/cluster.py); with none, the lobby is this process's alone."""
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
            rated_per_day=settings.rated_per_day,
        )
        self.api = Api(store, settings.http_per_ip, clock)
        self._limits = Limits(
            idle_s=_whole(settings.idle_timeout),
            grace_s=_whole(settings.grace),
            max_message=settings.max_message,
        )
        """What ``welcome`` tells every player of this server's settings."""
        self.closing = False
        self._listener: Listener[Conn] | None = None
        self._conns: dict[str, AnyConn] = {}
        """The connection of every player who has said hello."""
        self.metrics = Metrics(self.lobby, self._conns, self.connections, worker)
        self.pages = Pages(self)
        self._timers = RaceTimers(self._tick, clock)
        self._writes: set[asyncio.Future[None]] = set()
        self._hellos: set[asyncio.Task[None]] = set()
        """Hellos waiting for the store."""
        self._closed: asyncio.Future[None] | None = None
        self.writer = Writer()
        """Writes the frames of connections on other workers, as a listener does its own."""
        self.cluster: Cluster | None = Cluster(self, redis, worker) if redis else None
        self.identities = Identities(
            store, settings.new_players_per_ip, clock, self.metrics, self.cluster
        )

    # -- life cycle ------------------------------------------------------------

    @property
    def registry(self) -> Registry:
        """Every player this server knows."""
        return self.identities.registry

    async def start(self) -> None:
        self.identities.know(await self.store.open())
        await self._add_bots()
        if self.cluster is None:
            await self.restore_races()
        else:  # the races nobody alive owns, and from now on those of workers that die
            await self.cluster.start()
        settings = self.settings
        options = Options(
            max_size=settings.max_message,
            queue=settings.send_queue,
            open_timeout=settings.hello_timeout,
            compression=self._compression,
        )
        listener = Listener(self, self._connection, options, settings.max_connections)
        await listener.start(settings.host, settings.port, reuse_port=settings.reuse_port)
        self._listener = listener
        log.info("listening on %s", self.url)

    async def _add_bots(self) -> None:
        """Make the bots players of the store the first time (core/bots.py)."""
        for level, name in BOT_NAMES.items():
            if self.registry.knows(bot_id(level)):
                continue
            # A bot never says hello: its token is thrown away.
            token_hash = hash_token(secrets.token_urlsafe(32))
            identity = Identity(bot_id(level), name, token_hash, time.time())
            try:
                await self.store.add_player(identity)
            except StoreError as exc:  # another worker made it first, or the name is a human's
                log.warning("bot %s not added: %s", name, exc)
                continue
            self.registry.learn(identity)

    async def restore_races(self, only: Collection[str] | None = None) -> None:
        """Take back every race the last process left live, or those of them in
        ``only`` (core/restore.py)."""
        began = time.perf_counter()
        live = await self.store.live_races()
        if only is not None:
            live = [race for race in live if race[0].game_id in only]
        now, settings = self.clock(), self.settings
        for start, entries, elapsed in live:
            race, left = restore(
                start,
                entries,
                elapsed=elapsed,
                now=now,
                idle_limit=settings.idle_timeout,
                grace=settings.grace,
                rng=secrets.SystemRandom(),
            )
            self._deliver(self.lobby.restore(race, left), "", None)
        if live:
            took = (time.perf_counter() - began) * 1000
            log.info("restored %d live races in %.0f ms", len(live), took)

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
        if self.cluster is not None:  # hands the races over: the lease goes now
            await self.cluster.close()
        listener = self._listener
        if listener is not None:
            await listener.close_connections(CloseCode.GOING_AWAY, "the server is shutting down")
        # The store finishes every call already made of it as it closes (and
        # stops retrying writes that keep failing): waiting for the hellos and
        # writes before closing it could be waiting for ever.
        await self.store.close()
        if pending := self._hellos | self._writes:
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
            self._let_go(conn, CloseCode.UNSUPPORTED_DATA, "binary frames are refused")
        elif conn.waiting is not None:
            conn.waiting.append(message)
        else:
            self._handle(conn, message)

    def pinged(self, conn: AnyConn) -> None:
        """A ping counts against the rate limit as a message does (PROTOCOL.md, "Limits")."""
        self._admit(conn)

    def closed(self, conn: AnyConn) -> None:
        if conn.hello_timer is not None:
            conn.hello_timer.cancel()
        who = conn.player.name if conn.player else "replaced" if conn.replaced else "no hello"
        log.info("connection from %s closed (%s): %s", conn.ip, conn.close_code, who)
        self.metrics.closed(conn.close_code)
        if isinstance(conn, Conn) and conn.proxy is not None and self.cluster is not None:
            self.cluster.gone(conn)  # the player's home lets them go
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
        if verdict is Verdict.LIMIT:
            self._error(conn, Error(code="rate_limited", message="too many messages; slow down"))
        elif verdict is Verdict.CLOSE:
            self._let_go(conn, CloseCode.POLICY_VIOLATION, "too many messages")
        return verdict is Verdict.ACCEPT

    def _handle(self, conn: AnyConn, text: str) -> bool:
        """Handle one admitted message; False if that failed.

        A failure is a bug: it is logged and the connection let go with 1011,
        as websockets does when a handler fails, and nothing more from it is
        handled.
        """
        try:
            if conn.player is None:
                self._before_hello(conn, text)
            elif isinstance(conn, Conn) and conn.proxy is not None:
                assert self.cluster is not None
                self.cluster.forward(conn, text)  # to the player's home, on another worker
            else:
                self._on_message(conn, text)
        except Exception:
            log.exception("handling a message from %s failed", conn.ip)
            self._let_go(conn, CloseCode.INTERNAL_ERROR, "internal error")
            return False
        return True

    def _error(self, conn: AnyConn, message: Error) -> None:
        """Send an ``error``: every one the server sends goes through here, and is counted."""
        self.metrics.error(message.code)
        conn.send(message)

    def _let_go(self, conn: AnyConn, code: int, reason: str) -> None:
        """Close ``conn`` with ``code`` once what is queued for it is written;
        its player leaves the lobby at once, and nothing more from it is handled."""
        conn.let_go = True
        self._gone(conn)
        conn.close(code, reason)

    def _hello_timeout(self, conn: AnyConn) -> None:
        if conn.player is None and not conn.replaced:
            conn.close(CloseCode.POLICY_VIOLATION, "no hello in time")

    def _before_hello(self, conn: AnyConn, frame: str) -> None:
        message = self._decoded(conn, frame)
        if message is None:
            return
        if isinstance(message, Hello):
            conn.waiting = []
            hello = asyncio.create_task(self._hello(conn, message))
            self._hellos.add(hello)
            hello.add_done_callback(functools.partial(self._helloed, conn))
        else:
            self._error(conn, error("hello_first", "say hello first", message.id))

    def _helloed(self, conn: AnyConn, hello: asyncio.Task[None]) -> None:
        """The hello is done: handle what came meanwhile, in order, until
        another hello waits."""
        self._hellos.discard(hello)
        waiting, conn.waiting = conn.waiting or [], None
        if not hello.cancelled() and (exc := hello.exception()) is not None:
            log.error("saying hello from %s failed", conn.ip, exc_info=exc)
            self._let_go(conn, CloseCode.INTERNAL_ERROR, "internal error")
            return
        for i, text in enumerate(waiting):
            if conn.let_go or conn.closing or not self._handle(conn, text):
                return
            if conn.waiting is not None:
                conn.waiting.extend(waiting[i + 1 :])
                return

    def _on_message(self, conn: AnyConn, frame: str) -> None:
        """A message from a player who has said hello: handling it never waits."""
        message = self._decoded(conn, frame)
        if message is None:
            return
        if isinstance(message, Hello):
            self._error(conn, error("busy", "you have already said hello", message.id))
            return
        assert conn.player is not None
        self._command(conn.player.player_id, message)

    def _decoded(self, conn: AnyConn, frame: str) -> ClientMessage | None:
        """The message in ``frame``, or None once the client has its decoding error."""
        try:
            return decode(frame)
        except DecodeError as exc:
            self._error(conn, exc.to_error())
            return None

    def _command(self, player_id: str, message: ClientMessage) -> None:
        if self.cluster is not None and self.cluster.takes(player_id, message):
            return
        self.command_here(player_id, message)

    def refuse(self, player_id: str, message: ClientMessage, code: ErrorCode, why: str) -> None:
        """Answer a player's command with an ``error``."""
        conn = self._conns.get(player_id)
        if conn is not None:
            self._error(conn, error(code, why, message.id))

    def command_here(self, player_id: str, message: ClientMessage) -> None:
        """Have this worker's lobby core carry out a player's command."""
        try:
            outputs = self.lobby.handle(player_id, message, self.clock())
        except Refused as refused:
            self._error(self._conns[player_id], error(refused.code, refused.message, message.id))
            return
        self._deliver(outputs, player_id, message.id)

    # -- identity --------------------------------------------------------------

    async def _hello(self, conn: AnyConn, hello: Hello) -> None:
        try:
            identity, token = await self.identities.identify(hello, conn.ip)
        except Refused as refused:
            self._error(conn, error(refused.code, refused.message, hello.id))
            return
        if conn.closing or conn.let_go or self.closing:
            return  # gone, or going, while the store answered: nobody to welcome
        conn.player = identity
        rating = identity.rating
        welcome = Welcome(
            player_id=identity.player_id,
            name=identity.name,
            token=token,
            protocol=PROTOCOL_VERSION,
            rating=Rating(rating=rating.shown, provisional=rating.provisional),
            limits=self._limits,
            id=hello.id,
        )
        conn.send(welcome)
        log.debug("%s is %s (%s)", conn.ip, identity.name, "back" if hello.token else "new")
        if self.cluster is not None and isinstance(conn, Conn):
            home = await self.cluster.home_of(identity)
            if home is not None:  # the player lives on another worker: forward to it
                self.cluster.proxy(conn, identity, home)
                return
        self.take_over(conn, identity)

    def take_over(self, conn: AnyConn, identity: Identity) -> None:
        """``conn`` is ``identity``'s connection now; an older one closes with 4000."""
        old = self._conns.get(identity.player_id)
        self._conns[identity.player_id] = conn
        if old is not None:
            old.player = None  # its ending is not this player leaving
            old.replaced = True
            old.close(CloseCode.REPLACED, "replaced by a newer connection")
        if self.cluster is not None:
            self.cluster.changed()  # one more online
        outputs = self.lobby.connect(
            identity.player_id, identity.name, self.clock(), conn.ip, identity.rating
        )
        self._deliver(outputs, identity.player_id, None)

    def _gone(self, conn: AnyConn) -> None:
        identity = conn.player
        if identity is None or self._conns.get(identity.player_id) is not conn:
            return
        if self.closing:  # the races are suspended as they stood: nobody leaves them now
            del self._conns[identity.player_id]
            return
        self.release(conn)
        self._persist(self.store.touch(identity.player_id, time.time()))
        if self.cluster is not None:
            self.cluster.left(identity.player_id)

    def release(self, conn: AnyConn) -> None:
        """``conn``'s player leaves this worker's lobby core; the socket stays as it is."""
        assert conn.player is not None
        player_id = conn.player.player_id
        del self._conns[player_id]
        self._deliver(self.lobby.disconnect(player_id, self.clock()), player_id, None)
        if self.cluster is not None:
            self.cluster.changed()

    def connections_by_ip(self, at_least: int) -> dict[str, int]:
        """This worker's open TCP connections by address (those with ``at_least``)."""
        return {} if self._listener is None else self._listener.per_ip(at_least)

    def players_here(self) -> list[str]:
        """The players whose home is this worker and who are connected."""
        return list(self._conns)

    def resync(self, player_id: str) -> None:
        """Send a racing player their race's whole state again (``game_state``)."""
        self._deliver(self.lobby.resync(player_id, self.clock()), "", None)

    def conn_of(self, player_id: str) -> AnyConn | None:
        """The connection of a player whose home is here."""
        return self._conns.get(player_id)

    # -- outputs ---------------------------------------------------------------

    def _deliver(self, outputs: list[Output], sender: str, request_id: RequestId | None) -> None:
        """Carry out the cores' outputs in order; the sender's first frame carries the id.

        Each message is encoded once, to bytes, for all the receivers its
        output names. Frames after a journal entry or a :class:`RaceEnded`
        wait until it is on disk: nothing is announced that a crash could lose.
        """
        barrier: asyncio.Future[None] | None = None
        conns = self._conns
        for out in outputs:
            if isinstance(out, SendPlayed):
                frame = out.frame()
                self.metrics.plays += 1
            elif isinstance(out, Send):
                frame = encode_bytes(out.message)
                if isinstance(out.message, GameStart) and out.message.seat == 0:
                    start = out.message
                    log.info("race %s started: %s", start.game_id, " v ".join(start.players))
            else:
                written = self._carry_out(out)
                if written is not None:
                    barrier = written
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

    deliver = _deliver

    def _carry_out(self, out: Output) -> asyncio.Future[None] | None:
        """An output that sends nothing; the write that frames after it wait for, if any."""
        if isinstance(out, Wake):
            self._timers.wake(out.game_id, out.at)
            return None
        # What other workers must see; a room's code and a race's owner before
        # the frames that announce them.
        shared = None if self.cluster is None else self.cluster.shared_output(out)
        if isinstance(out, Journaled):
            return self._persist(self.store.journal(out.game_id, out.entry))
        if isinstance(out, RaceStarted):
            stored = self._persist(self.store.begin_race(out.start, time.time()))
            return stored if shared is None else _both(stored, shared)
        if isinstance(out, RaceEnded):
            return self._record(out.record)
        return shared  # Queued, RoomListed: only other workers need them

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
        # The store's calls give futures; ensure_future's checks cost a play a microsecond.
        future = write if isinstance(write, asyncio.Future) else asyncio.ensure_future(write)
        if future not in self._writes:  # the store shares one future per batch
            self._writes.add(future)
            future.add_done_callback(self._written)
            self.metrics.store_timed(future)
        return future

    def _written(self, future: asyncio.Future[None]) -> None:
        self._writes.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.error("store write failed", exc_info=future.exception())

    def _tick(self, game_id: str) -> None:
        self._deliver(self.lobby.tick(game_id, self.clock()), "", None)


def _both(first: asyncio.Future[None], second: asyncio.Future[Any]) -> asyncio.Future[None]:
    """A barrier done once both are done, however each ends (their owners log failures)."""
    both: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def check(_: object) -> None:
        if first.done() and second.done() and not both.done():
            both.set_result(None)

    first.add_done_callback(check)
    second.add_done_callback(check)
    return both


def _whole(seconds: float) -> int | float:
    """``seconds`` as an int when it is whole: ``60``, not ``60.0``, on the wire."""
    return int(seconds) if float(seconds).is_integer() else seconds
