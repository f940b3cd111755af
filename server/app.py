"""The asyncio glue: connections in, the lobby core in the middle, frames out.

:class:`GameServer` is the :class:`~server.transport.connection.Handler` of every connection
(:mod:`server.transport.connection`, the only module that knows websockets): each message,
as it arrives, passes the rate limit, is decoded with :mod:`protocol` and handed to the
:class:`~core.lobby.Lobby`; the outputs go to each receiver's outgoing queue. Only a ``hello``
waits (for the store), and the messages behind it with it. No rule of the game or the lobby
lives here: only timers, the wait for identity (:mod:`server.identities`, which needs the
store), and what belongs to sockets (close codes, limits; the HTTP pages are
:mod:`server.http.pages`). Its close codes are :class:`protocol.close_codes.CloseCode`'s.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import TYPE_CHECKING

from core.arenas import ARENA_TIMER
from core.events import Refused
from core.limits import RateLimiter
from core.lobby import Lobby
from core.restore import restored
from protocol.close_codes import CloseCode
from server.cluster.arena_owners import ArenaCluster
from server.cluster.remote import RemoteConn
from server.http.admin import Admin
from server.http.api import Api
from server.http.metrics import Metrics
from server.http.pages import Pages
from server.operator.watch import OperatorWatch
from server.transport.handler import ConnectionOptions
from server.transport.listener import Listener

from .arena_keeper import ArenaKeeper
from .arena_schedule import ArenaSchedule, arena_plans
from .conn import Conn, error
from .daily_watch import DailyWatch
from .delivery import Delivery
from .hellos import Hellos
from .identities import Identities
from .peers import Alone, Peers
from .reception import Reception
from .reporting import Reports
from .timers import RaceTimers
from .waiting import Waits

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from core.events import Output
    from core.identity import Identity
    from protocol import ClientMessage, ErrorCode, RequestId
    from server.store import Store
    from server.store.arena_rows import KeptArena

    from .config import Settings

__all__ = ["AnyConn", "GameServer"]

AnyConn = Conn | RemoteConn
"""A player's connection: a socket here, or one on another worker (server/cluster/remote.py)."""

log = logging.getLogger("flowergarden.server")


class GameServer:
    """The race server: ``async with GameServer(settings, store) as server: ...``."""

    # Over 40 lines because it makes each part of the server once, in the order
    # they depend on each other; every part's own work is in its own module.
    def __init__(
        self,
        settings: Settings,
        store: Store,
        *,
        clock: Callable[[], float] = time.monotonic,
        limiter: Callable[[], RateLimiter] = RateLimiter,
        worker: str = "0",
        redis: str = "",
        wall: Callable[[], float] = time.time,
    ) -> None:
        """``limiter`` makes each connection's rate limiter (the benchmark lifts
        the limit); ``worker`` names this process in ``/metrics`` and among the
        workers that share a lobby through Redis at ``redis``
        (server/cluster/cluster.py); with none, the lobby is this process's alone.
        ``wall``: the wall clock by which the daily deal's day turns (server/daily_watch.py)."""
        self.settings = settings
        self.store = store
        self.clock = clock
        self._limiter = limiter
        self.lobby = _lobby(settings)
        self.daily = DailyWatch(self, wall=wall)
        self.api = Api(store, settings.http_per_ip, clock, today=self.daily.today)
        self.closing = False
        self._listener: Listener[Conn] | None = None
        self._conns: dict[str, AnyConn] = {}
        """The connection of every player who has said hello."""
        self.metrics = Metrics(self.lobby, self._conns, self.connections, worker)
        self.pages = Pages(self)
        self._timers = RaceTimers(self._tick, clock)
        self.waits = Waits(self)
        self.hellos = Hellos(self)
        self.reports = Reports(self)
        self.reception = Reception(self)
        self.operator = OperatorWatch(self)
        self.arenas = ArenaKeeper(self)
        self.arena_schedule = ArenaSchedule(self.arenas, arena_plans(settings.arenas))
        self.admin = Admin(settings.admin_token, self.api, self.operator, self.arenas)
        self._closed: asyncio.Future[None] | None = None
        self.peers = self._peers(redis, worker)
        self._delivery = Delivery(
            self._conns, store, self.peers, self.metrics, self._timers,
            refused=self._refused, arenas=self.arenas.write,
        )  # fmt: skip
        self.identities = Identities(store, settings, clock, self.metrics, self.peers)

    def _peers(self, redis: str, worker: str) -> Peers:
        """The other workers (server/peers.py) sharing the lobby through ``redis``, or none."""
        if not redis:
            return Alone()
        return ArenaCluster(
            redis,
            worker,
            lobby=self.lobby,
            store=self.store,
            settings=self.settings,
            clock=self.clock,
            metrics=self.metrics,
        )

    # -- life cycle ------------------------------------------------------------

    async def start(self, known: list[Identity] | None = None) -> None:
        """Open the store, unless the caller did and passes its players as ``known``
        (server/__main__.py does, to wait for a database that is not up yet), and listen.

        The players are read again once the operator's watch knows where the audit log
        stands (server/operator/watch.py): a rename or a forget in between is then known.
        """
        if known is None:
            await self.store.open()
        await self.operator.begin()
        self.identities.know(await self.store.players())
        await self.identities.add_bots()
        await self.daily.begin()  # before races are restored: they end on their day's board
        # Alone: every race left live; with other workers: those nobody alive
        # owns, and from then on those of workers that die.
        await self.peers.start(self)
        settings = self.settings
        options = ConnectionOptions(
            max_size=settings.max_message,
            queue=settings.send_queue,
            open_timeout=settings.hello_timeout,
        )
        listener = Listener(self.reception, self._connection, options, settings.max_connections)
        await listener.start(settings.host, settings.port, reuse_port=settings.reuse_port)
        self._listener = listener
        self.operator.start()
        self.daily.start()
        self.arena_schedule.start()
        log.info("listening on %s", self.url)
        log.info("open http://%s:%d/ in a browser to race there", settings.host, self.port)

    async def restore_races(self, only: Collection[str] | None = None) -> None:
        """Take back every race the last process left live, or those of them in ``only``."""
        began = time.perf_counter()
        # Taken, not only read: each race's epoch grows, fencing out whoever ran it.
        taken = await self.store.take_races(only)
        chosen = [live for live, _ in taken]
        self._delivery.epochs.update((live[0].game_id, epoch) for live, epoch in taken)
        settings, rng = self.settings, secrets.SystemRandom()
        for race, left in restored(
            chosen, self.clock(), settings.idle_timeout, settings.grace, rng
        ):
            self.deliver(self.lobby.restore(race, left), "", None)
            self._back_in(race.player_ids)
        if chosen:
            took = (time.perf_counter() - began) * 1000
            log.info("restored %d live races in %.0f ms", len(chosen), took)

    async def restore_arenas(self, only: Collection[str] | None = None) -> list[KeptArena]:
        """Take the unfinished arenas of the store, or those in ``only`` (arena_keeper.py)."""
        return await self.arenas.restore(only)

    def _back_in(self, player_ids: Collection[str]) -> None:
        """Players of a race just restored who are connected here already (they came while
        it was being taken): they come back to it now, as on a hello, with its game_state."""
        for player_id in player_ids:
            conn = self._conns.get(player_id)
            if conn is not None and (who := conn.player) is not None:
                back = self.lobby.connect(player_id, who.name, self.clock(), conn.ip, who.rating)
                self.deliver(back, player_id, None)

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
        await self.operator.close()
        await self.daily.close()
        await self.arena_schedule.close()
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
        if pending := self.waits.tasks | self._delivery.writes:
            await asyncio.gather(*pending, return_exceptions=True)
        if listener is not None:
            await listener.close()
        log.info("closed")

    async def __aenter__(self) -> GameServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- connections (server/reception.py) ---------------------------------------

    def received(self, conn: AnyConn, message: str | bytes) -> None:
        """A message from a connection, here or on another worker."""
        self.reception.received(conn, message)

    def closed(self, conn: AnyConn) -> None:
        """A connection, here or on another worker, has ended."""
        self.reception.closed(conn)

    def connections(self) -> int:
        """Every TCP connection open, in its handshake or not."""
        return len(self._listener.connections) if self._listener is not None else 0

    def refuse(self, player_id: str, message: ClientMessage, code: ErrorCode, why: str) -> None:
        """Answer a player's command with an ``error``."""
        conn = self._conns.get(player_id)
        if conn is not None:
            self.reception.error(conn, error(code, why, message.id))

    def command(self, player_id: str, message: ClientMessage) -> None:
        """Have this worker's lobby core carry out a player's command."""
        try:
            outputs = self.lobby.handle(player_id, message, self.clock())
        except Refused as refused:
            self.reception.error(
                self._conns[player_id], error(refused.code, refused.message, message.id)
            )
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
        outputs = self.peers.told(identity.player_id) + self.lobby.connect(
            identity.player_id, identity.name, self.clock(), conn.ip, identity.rating,
            flags=identity.flags, bot=identity.bot, last_daily=identity.last_daily,
        )  # fmt: skip
        self.deliver(outputs, identity.player_id, None)

    def banish(self, player_id: str, code: int, reason: str) -> None:
        """Close every connection of ``player_id`` here with ``code``: their socket, and
        their link to a socket on another worker (the operator's ban)."""
        listener = self._listener
        conns: set[AnyConn] = set() if listener is None else set(listener.connections)
        if (home := self._conns.get(player_id)) is not None:
            conns.add(home)
        for conn in conns:
            if conn.player is not None and conn.player.player_id == player_id:
                self.reception.let_go(conn, code, reason)

    def gone(self, conn: AnyConn) -> None:
        """``conn``'s player, if it is still theirs, leaves this worker's lobby core."""
        identity = conn.player
        if identity is None or self._conns.get(identity.player_id) is not conn:
            return
        if self.closing:  # the races are suspended as they stood: nobody leaves them now
            del self._conns[identity.player_id]
            return
        if conn.outbox.undelivered:  # its last race's end may have been in it: told again
            self.lobby.missed(identity.player_id)
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

    def unavailable(self, conn: Conn, why: str) -> None:
        """Answer ``conn`` ``unavailable`` and close it with 1012 (try again)."""
        self.reception.error(conn, error("unavailable", why, None))
        self.reception.let_go(conn, CloseCode.SERVICE_RESTART, "try again")

    def conn_of(self, player_id: str) -> AnyConn | None:
        """The connection of a player whose home is here."""
        return self._conns.get(player_id)

    def hold_races(self) -> None:
        """Hold every race here: this worker is not sure it still owns them."""
        self.deliver(self.lobby.hold(self.clock()), "", None)

    def go_on(self, game_id: str) -> None:
        """A held race is this worker's after all, once the store says so: it goes on."""
        self._delivery.once_confirmed(game_id, lambda: self.lobby.go_on(game_id, self.clock()))

    def let_go_of(self, game_id: str) -> None:
        """A race is another worker's now: it leaves here, and its people go to it (1012)."""
        self._delivery.let_go(game_id, self.lobby.let_go_of(game_id))
        self._timers.wake(game_id, None)

    def let_go_of_arena(self, arena_id: str) -> None:
        """An arena is another worker's now: it leaves here, and its free players go to it."""
        gone = self.lobby.let_go_of_arena(arena_id)
        self._delivery.send_away(gone, "your arena moved; connect again")
        self._timers.wake(ARENA_TIMER + arena_id, None)

    def _refused(self, game_id: str) -> None:
        """The store kept none of this worker's last writes for ``game_id``: the race
        leaves, and its people come back to it wherever it now runs."""
        self.let_go_of(game_id)
        self.peers.refused(game_id)

    def deliver(self, outputs: list[Output], sender: str, request_id: RequestId | None) -> None:
        """Carry out the cores' outputs (server/delivery.py)."""
        self._delivery.deliver(outputs, sender, request_id)

    def _tick(self, key: str) -> None:
        self.deliver(self.lobby.tick(key, self.clock()), "", None)


def _lobby(settings: Settings) -> Lobby:
    """The lobby core of a server with ``settings``, dealing from the system's randomness."""
    return Lobby(
        rng=secrets.SystemRandom(),
        idle_limit=settings.idle_timeout,
        grace=settings.grace,
        wrong_codes_per_hour=settings.wrong_codes_per_ip,
        rated_per_day=settings.rated_per_day,
    )
