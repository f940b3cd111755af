"""Several workers, one lobby: the glue between a worker's :class:`GameServer` and the others.

Theory of operation
-------------------
Each worker runs the same :class:`~server.app.GameServer`, cores and all. What
the workers share lives in Redis (:mod:`server.cluster.shared`), and they talk over
the bus (:mod:`server.cluster.bus`). The cores do not know there is more than one
worker; the idea that makes that possible is the player's *home*:

* A player's home is the worker whose lobby core holds them. It is where their
  socket is, unless they joined a race, a room or a race to watch that lives on
  another worker: then their home moves there, and the worker with the socket
  becomes a *proxy*. It still reads the socket and applies the rate limit, and
  forwards each message to the home (``in``); the home keeps a
  :class:`~server.cluster.remote.RemoteConn` in the socket's place, whose frames come
  back as bytes to write (``out``), in order, after the same barriers.
* A race lives with the lobby core that started it, its *owner*, which is the
  home of both its players while it lasts: so every play is decided in one
  process, and ``seq`` is that process's. The owner journals it to the shared
  store, and holds it in ``fg:races`` under its lease (``fg:alive:<worker>``).
* Quick match: a worker whose core queues a seeker (:class:`~core.events.Queued`)
  takes the oldest seeker of another worker from Redis, if there is one, and
  asks that worker to move them here (``migrate``): that worker lets the
  player go from its core and proxies them to us, with their ``seek`` to
  replay, which pairs them in our core. A room code or a game id that our core
  does not know moves the player to the worker that has it, the same way.
* ``hello`` anywhere: a player whose home is another live worker is proxied to
  it at once, so a newer connection replaces an older one (4000) wherever each
  is, and a racer coming back lands in their race.
* Failover: every worker looks, each :data:`~server.cluster.shared.BEAT`, for races
  whose owner's lease has lapsed, claims them (one Lua script: one winner),
  replays their journal from the store and takes them over; sockets proxied
  to a dead worker are closed with 1012 so their clients come back, to a home
  that is alive.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import itertools
import logging
import time
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from core.events import Output, Queued, RaceEnded, RaceStarted, RoomListed, Send
from core.glicko2 import Glicko
from core.identity import Identity
from core.limits import RateLimiter
from protocol import ClientMessage, LobbyRequest, Rules, Seek, encode
from server.transport.outbox import Wire

from .bus import Bus
from .remote import RemoteConn
from .shared import BEAT, LEASE, Shared

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from core.listing import Listing
    from server.app import GameServer
    from server.conn import Conn

__all__ = ["ANNOUNCE_WAIT", "Cluster"]

log = logging.getLogger("flowergarden.server")

ANNOUNCE_WAIT = 1.0
"""Seconds a ``room`` or ``game_start`` waits at most for Redis to list what it announces."""

_UNLIMITED = 1e12
_TOO_MANY_CODES = "too many wrong room codes; try again later"


class Cluster:
    """This worker's part in a lobby shared with others through Redis at ``url``."""

    def __init__(self, server: GameServer, url: str, worker: str) -> None:
        self.server, self.worker = server, worker
        self.bus = Bus(url, worker, self._on_bus, observe=server.metrics.redis.observe)
        self.shared = Shared(self.bus.client, worker)
        self._remotes: dict[str, RemoteConn] = {}
        """Sockets on other workers of players whose home is here, by connection id."""
        self._proxied: dict[str, Conn] = {}
        """Sockets here of players whose home is elsewhere, by connection id."""
        self._seeking: dict[str, Rules] = {}
        self._ids = itertools.count()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._beating: asyncio.Task[None] | None = None
        self._dirty = False
        self._taking_over = asyncio.Lock()
        self._judge_after = 0.0
        self._closed = False
        self.elsewhere: dict[str, int] = {}
        """Open connections by address on the other workers, as of the last beat."""

    async def start(self) -> None:
        self.bus.on_reconnect = self._reconnected
        await self.bus.start()
        await self.shared.beat()
        await self._adopt()
        self._beating = asyncio.create_task(self._beat(), name="cluster beat")

    async def _adopt(self) -> None:
        """At start: the races listed under this worker's name (it ran before under
        it, and died), and those no worker lists (Redis lost them while all were down)."""
        owners = await self.shared.owners()
        live = {start.game_id for start, _, _ in await self.server.store.live_races()}
        mine = {g for g in live if owners.get(g) == self.worker}
        mine |= {g for g in live - owners.keys() if await self.shared.adopt(g)}
        if mine:
            await self._restored(mine, f"{self.worker} (before this start)")

    async def close(self) -> None:
        """Hand this worker's races over: drop its lease, then send its remote players away.

        The glue has suspended the races first, so whoever takes them over
        finds them as they stood; players are told to go (1001) only once the
        lease is gone, so that their next ``hello`` lands on a live home.
        """
        if self._beating is not None:
            self._beating.cancel()
            await asyncio.gather(self._beating, return_exceptions=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._tasks, return_exceptions=True), 1.0)
        with contextlib.suppress(RedisError, OSError):
            await self.shared.leave()
        self._closed = True
        for remote in list(self._remotes.values()):
            remote.close(1001, "the server is shutting down")
            remote.write()  # now, not on the writer's next pass: the bus closes next
        await self.bus.close()  # it sends what is queued first, for a second at most

    # -- hooks the glue calls --------------------------------------------------

    async def home_of(self, identity: Identity) -> str | None:
        """Where ``identity``'s hello is to go: None for here (claimed now), or a live worker."""
        shared = self.shared
        home = await shared.home(identity.player_id)
        if home is not None and home != self.worker:
            if time.monotonic() < self._judge_after or await shared.alive({home}):
                return home
            await self._take_over(home)  # its races, before this player looks for theirs
            home = await shared.home(identity.player_id)
            if home is not None and home != self.worker and await shared.alive({home}):
                return home
        await shared.set_home(identity.player_id, self.worker)
        return None

    def proxy(self, conn: Conn, identity: Identity, home: str, then: str | None = None) -> None:
        """From now on ``conn``'s player lives at ``home``: forward what it says."""
        conn.conn_id = conn.conn_id or f"{self.worker}:{next(self._ids)}"
        conn.proxy = home
        self._proxied[conn.conn_id] = conn
        self.bus.send(
            home,
            {
                "k": "attach",
                "c": conn.conn_id,
                "w": self.worker,
                "ip": conn.ip,
                "p": [identity.player_id, identity.name, identity.token_hash, identity.created],
                "r": list(dataclasses.astuple(identity.rating)),
                "then": then,
            },
        )

    def forward(self, conn: Conn, text: str) -> None:
        assert conn.proxy is not None
        self.bus.send(conn.proxy, {"k": "in", "c": conn.conn_id, "m": text})

    def gone(self, conn: Conn) -> None:
        """A proxied socket has closed."""
        self._proxied.pop(conn.conn_id, None)
        if conn.proxy is not None:
            self.bus.send(conn.proxy, {"k": "gone", "c": conn.conn_id, "code": conn.close_code})

    def left(self, player_id: str) -> None:
        """A player whose home is here has no connection any more."""
        if self.server.lobby.race_of(player_id) is None:
            self._spawn(self.shared.forget_home(player_id))

    def takes(self, player_id: str, message: ClientMessage) -> bool:
        """Whether the cluster carries out ``message`` rather than this worker's core."""
        lobby = self.server.lobby
        if isinstance(message, LobbyRequest):
            self._spawn(self._lobby(player_id, message))
            return True
        if message.type == "join_room" and not lobby.has_room(message.code):
            code = message.code.strip().upper()
            self._spawn(self._route(player_id, message, self.shared.room(code)))
            return True
        if message.type == "watch" and lobby.race(message.game_id) is None:
            self._spawn(self._route(player_id, message, self.shared.owner(message.game_id)))
            return True
        return False

    def changed(self) -> None:
        """What this worker shows of the lobby changed: publish it at the end of this pass."""
        if not self._dirty:
            self._dirty = True
            asyncio.get_running_loop().call_soon(self._publish_lobby)

    def _publish_lobby(self) -> None:
        self._dirty = False
        self._spawn(self.shared.publish_lobby(self._listing()))

    def _listing(self) -> Listing:
        """This worker's part of the lobby, its times on the wall clock that all workers share."""
        return self.server.lobby.listing().shifted(time.time() - self.server.clock())

    def shared_output(self, out: Output) -> asyncio.Future[None] | None:
        """Mirror what others must see of this worker's core in Redis.

        Gives the write that the frames after ``out`` wait for, if any: a
        room's code and a race's owner are in Redis before the ``room`` and
        the ``game_start`` that announce them, so that a join or a watch on
        another worker, however soon it comes, finds them; but those frames
        wait :data:`ANNOUNCE_WAIT` at most, since a stalled Redis must not
        stall this worker's players.
        """
        self.changed()
        shared = self.shared
        if isinstance(out, Queued):
            if out.rules is not None:
                self._seeking[out.player_id] = out.rules
                self._spawn(self._pair(out.player_id, out.rules))
            elif (rules := self._seeking.pop(out.player_id, None)) is not None:
                self._spawn(shared.stop_waiting(rules, out.player_id))
        elif isinstance(out, RoomListed):
            if out.open:
                return _bounded(self._spawn(shared.open_room(out.code)))
            self._spawn(shared.close_room(out.code))
        elif isinstance(out, RaceStarted):
            return _bounded(self._spawn(shared.own(out.start.game_id)))
        elif isinstance(out, RaceEnded):
            self._spawn(shared.disown(out.record.game_id))
        return None

    # -- moving players --------------------------------------------------------

    async def _pair(self, player_id: str, rules: Rules) -> None:
        found = await self.shared.pair_or_wait(rules, player_id)
        if found is None:
            if self._seeking.get(player_id) != rules:  # left the queue while we listed them
                await self.shared.stop_waiting(rules, player_id)
            return
        worker, other = found
        seek = encode(Seek(rules=rules))
        self.bus.send(
            worker, {"k": "migrate", "p": other, "to": self.worker, "then": seek, "for": player_id}
        )

    async def allows_new_player(self, address: str) -> bool:
        """Whether ``address`` may make one more player, counted across every worker."""
        limit = self.server.settings.new_players_per_ip
        return await self.shared.charge("new", address, limit, time.time())

    async def _route(self, player_id: str, message: ClientMessage, where: Any) -> None:
        try:
            worker = await where
        except (RedisError, OSError):  # the client is answered, whatever Redis does
            self.server.refuse(player_id, message, "unavailable", "try again in a moment")
            raise
        conn = self.server.conn_of(player_id)
        if worker is None and message.type == "join_room" and conn is not None:
            # A code no worker has: counted across every worker, so that
            # guessing is no faster with more of them.
            limit = self.server.settings.wrong_codes_per_ip
            if not await self.shared.charge("codes", conn.ip, limit, time.time()):
                self.server.refuse(player_id, message, "rate_limited", _TOO_MANY_CODES)
                return
        if worker is None or worker == self.worker or conn is None or not self._movable(conn):
            self.server.command_here(player_id, message)
            return
        self._move(conn, worker, encode(message))

    def _movable(self, conn: Conn | RemoteConn) -> bool:
        return not isinstance(conn, RemoteConn) and conn.player is not None

    def _move(self, conn: Conn | RemoteConn, worker: str, then: str) -> None:
        """Let ``conn``'s player go from this core and make ``worker`` their home."""
        identity = conn.player
        assert identity is not None and not isinstance(conn, RemoteConn)
        self.server.release(conn)
        self._spawn(self.shared.set_home(identity.player_id, worker))
        self.proxy(conn, identity, worker, then)

    async def _lobby(self, player_id: str, message: LobbyRequest) -> None:
        merged = await self.shared.lobby(self._listing())
        self.server.deliver([Send((player_id,), merged.snapshot())], player_id, message.id)

    # -- the bus ---------------------------------------------------------------

    def _on_bus(self, message: dict[str, Any]) -> None:
        """One message from another worker, by its kind ``k``."""
        kind = message["k"]
        if kind in ("out", "close"):  # to a socket here, from its player's home
            conn = self._proxied.get(message["c"])
            if conn is not None:
                self._to_socket(conn, message)
        elif kind in ("in", "gone", "resync"):  # from a socket elsewhere, to its home here
            remote = self._remotes.get(message["c"])
            if remote is not None:
                self._from_socket(remote, message)
        elif kind == "attach":
            self._attach(message)
        elif kind == "migrate":
            self._migrate(message)
        elif kind == "unmigrated":
            rules = self._seeking.get(message["for"])
            if rules is not None:
                self._spawn(self._pair(message["for"], rules))

    def _to_socket(self, conn: Conn, message: dict[str, Any]) -> None:
        if message["k"] == "out":
            conn.enqueue(Wire(base64.b64decode(message["d"])))
        else:
            conn.replaced = message["code"] == 4000
            conn.close(message["code"], message["why"])

    def _from_socket(self, remote: RemoteConn, message: dict[str, Any]) -> None:
        kind = message["k"]
        if kind == "in":
            self.server.received(remote, message["m"])
        elif kind == "gone":
            del self._remotes[remote.conn_id]
            remote.close_code = message["code"]
            self.server.closed(remote)
        elif remote.player is not None:  # resync: frames to it may have been lost
            self.server.resync(remote.player.player_id)

    def _attach(self, message: dict[str, Any]) -> None:
        player_id, name, token_hash, created = message["p"]
        rating = Glicko(*message["r"])
        identity = Identity(player_id, name, token_hash, created, rating)
        server = self.server
        server.registry.learn(identity)
        remote = RemoteConn(
            message["c"],
            message["w"],
            message["ip"],
            limiter=RateLimiter(burst=int(_UNLIMITED), rate=_UNLIMITED),
            queue=server.settings.send_queue,
            writer=server.writer,
            send=self.bus.send,
        )
        remote.player = identity
        self._remotes[remote.conn_id] = remote
        server.take_over(remote, identity)
        if message["then"] is not None:
            server.received(remote, message["then"])

    def _migrate(self, message: dict[str, Any]) -> None:
        conn = self.server.conn_of(message["p"])
        if conn is None or not self._movable(conn) or message["p"] not in self._seeking:
            self.bus.send(message["to"], {"k": "unmigrated", "for": message["for"]})
            return
        self._move(conn, message["to"], message["then"])

    def _reconnected(self) -> None:
        # An empty Redis (restarted without its data) has no lease of anyone's
        # until each worker's next beat: judge nobody dead for a lease's time.
        self._judge_after = time.monotonic() + LEASE
        self._spawn(self._reassert())

    async def _reassert(self) -> None:
        """Redis is back, perhaps empty: say again what this worker holds.

        Its races, its players' homes, its open rooms and its seekers; and a
        ``game_state`` to every racer whose socket is on another worker, since
        frames published while a subscription was down are lost. Tried again
        while Redis still refuses (its first answers after a restart may not be).
        """
        delay = 0.05
        for _ in range(20):
            try:
                await self._say_again()
                return
            except (RedisError, OSError) as exc:
                log.warning("cluster: Redis not ready yet (%s)", exc)
                await asyncio.sleep(delay)  # a backoff, not a wait for an event
                delay = min(2 * delay, 1.0)

    async def _say_again(self) -> None:
        shared, lobby = self.shared, self.server.lobby
        await shared.beat()
        for game_id in lobby.elapsed(0.0):
            await shared.own(game_id)
        for player_id in self.server.players_here():
            await shared.set_home(player_id, self.worker)
        for code in lobby.open_rooms():
            await shared.open_room(code)
        for player_id, rules in list(self._seeking.items()):
            await self._pair(player_id, rules)
        for remote in list(self._remotes.values()):
            if remote.player is not None:
                self.server.resync(remote.player.player_id)
        log.warning(
            "cluster: Redis is back; this worker's races, rooms and seekers are listed again"
        )

    # -- leases and failover ---------------------------------------------------

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(BEAT)  # a period, not a wait for an event
            try:
                await self.shared.beat()
                await self.shared.publish_lobby(self._listing())
                await self._share_connections()
                owners = await self.shared.owners()
                workers = set(owners.values())
                workers |= {conn.proxy for conn in self._proxied.values() if conn.proxy}
                alive = await self.shared.alive(workers - {self.worker})
                if time.monotonic() < self._judge_after:
                    continue
                for dead in workers - alive - {self.worker}:
                    await self._take_over(dead, owners)
            except Exception:  # Redis away: the races here go on; try again next beat
                log.warning("cluster: beat failed", exc_info=True)

    async def _take_over(self, dead: str, owners: dict[str, str] | None = None) -> None:
        """Take the races of ``dead`` that nobody has yet; close sockets proxied to it.

        One at a time (a hello and a beat may both find ``dead``), and sockets
        close only once the races are back: their players' next hello finds them.
        """
        async with self._taking_over:
            owners = await self.shared.owners() if owners is None else owners
            theirs = [game_id for game_id, owner in owners.items() if owner == dead]
            mine = [game_id for game_id in theirs if await self.shared.claim(game_id, dead)]
            if mine:
                await self._restored(set(mine), dead)
            for conn in [c for c in self._proxied.values() if c.proxy == dead]:
                conn.close(1012, "that server has gone; connect again")

    async def _share_connections(self) -> None:
        """Publish this worker's busy addresses, and learn the others' (each beat)."""
        cap = self.server.settings.max_connections_per_ip
        busy = max(1, cap // 8)  # an address far below the cap cannot reach it soon
        await self.shared.publish_connections(self.server.connections_by_ip(busy))
        self.elsewhere = await self.shared.connections_elsewhere()

    async def _restored(self, game_ids: set[str], dead: str) -> None:
        """Restore ``game_ids`` from the store here; their players' home is here now."""
        began = time.perf_counter()
        await self.server.restore_races(game_ids)
        for game_id in game_ids:  # wherever they come back, their hello comes here
            race = self.server.lobby.race(game_id)
            for player_id in race.player_ids if race is not None else ():
                await self.shared.set_home(player_id, self.worker)
        took = (time.perf_counter() - began) * 1000
        log.warning("cluster: took over %d races of %s in %.0f ms", len(game_ids), dead, took)
        self.server.metrics.failovers.inc(len(game_ids))

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any] | None:
        """Run ``work`` (its failure is logged); None once shutting down."""
        if self._closed:  # shutting down: what is left to say, the next owner says
            work.close()
            return None
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("cluster: %s", task.exception())


def _bounded(write: asyncio.Task[Any] | None) -> asyncio.Future[None] | None:
    """A barrier done when ``write`` is, or :data:`ANNOUNCE_WAIT` seconds from now."""
    if write is None:
        return None
    loop = asyncio.get_running_loop()
    barrier: asyncio.Future[None] = loop.create_future()

    def lift(_: object = None) -> None:
        if not barrier.done():
            barrier.set_result(None)

    write.add_done_callback(lift)
    timer = loop.call_later(ANNOUNCE_WAIT, lift)
    barrier.add_done_callback(lambda _: timer.cancel())
    return barrier
