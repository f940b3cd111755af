"""Several workers, one lobby: the glue between a worker's :class:`GameServer` and the others.

Theory of operation
-------------------
Each worker runs the same :class:`~server.app.GameServer`, cores and all, and
talks to the others through its :class:`~server.peers.Peers`: :class:`Cluster`
is that seam's implementation over Redis. What the workers share lives in
Redis (:mod:`server.cluster.shared`), and they talk over the bus
(:mod:`server.cluster.bus`). The cores do not know there is more than one
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
* Failover (:mod:`server.cluster.failover`): each beat, every worker takes over the
  races of dead workers (no lease, or none listening), from the store's journal.

Links between a socket and its home: :mod:`server.cluster.links`; ends owed: ``owed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from core.events import Output, Queued, RaceEnded, RaceStarted, Refused, RoomListed, Send
from protocol import ClientMessage, LobbyRequest, Rules, Seek, encode
from protocol.close_codes import CloseCode

from .bus import Bus
from .failover import Failover
from .links import Links
from .remote import RemoteConn
from .shared import Shared
from .tasks import Tasks, bounded
from .to_home import Attach, Gone, Inbound, Migrate, Unmigrated
from .to_socket import Close, Outbound
from .to_worker import Born, Broken

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from core.identity import Identity
    from core.listing import Listing
    from core.lobby import Lobby
    from server.config import Settings
    from server.conn import Conn
    from server.http.metrics import Metrics
    from server.peers import Glue
    from server.store import Store
    from server.store.end_rows import OwedEnds

    from .bus_codec import Envelope

__all__ = ["ANNOUNCE_WAIT", "Cluster"]

log = logging.getLogger("flowergarden.server")

ANNOUNCE_WAIT = 1.0
"""Seconds a ``room`` or ``game_start`` waits at most for Redis to list what it announces."""

_TOO_MANY_CODES = "too many wrong room codes; try again later"


class Cluster:
    """This worker's part in a lobby shared with others through Redis at ``url``."""

    def __init__(
        self,
        url: str,
        worker: str,
        *,
        lobby: Lobby,
        store: Store,
        settings: Settings,
        clock: Callable[[], float],
        metrics: Metrics,
    ) -> None:
        self.worker, self.lobby, self.store, self.settings = worker, lobby, store, settings
        self.clock, self.metrics = clock, metrics
        self.incarnation = secrets.token_hex(4)
        """This process among every one that ran as ``worker``: a restart is a new one."""
        self.bus = Bus(url, worker, self.incarnation, self._on_bus, observe=metrics.redis.observe)
        self.shared = Shared(self.bus.client, worker)
        self.tasks = Tasks()
        self.links = Links(self.bus, worker, settings.send_queue, self._missed)
        self.failover = Failover(self)
        self._glue: Glue | None = None
        self._seeking: dict[str, Rules] = {}
        self._dirty = False
        self.elsewhere: dict[str, int] = {}
        """Open connections by address on the other workers, as of the last beat."""
        self._to_race: set[str] = set()
        """Players whose hello :meth:`home_of` found a live race for, until proxied."""

    @property
    def glue(self) -> Glue:
        assert self._glue is not None, "the cluster is not started"
        return self._glue

    async def start(self, glue: Glue) -> None:
        self._glue = self.links.glue = glue
        self.bus.on_reconnect = self.failover.reconnected
        self.bus.on_broken = self._link_broken
        await self.bus.start()
        await self.failover.tried(lambda: self.shared.beat(self.incarnation))
        # Born first: a link with this worker's last incarnation goes now, not after a lease.
        self.bus.broadcast(Born(self.worker, self.incarnation))
        await self.failover.adopt()
        self.failover.start()

    async def close(self) -> None:
        """Hand this worker's races over: drop its lease, then send its remote players away.

        The glue has suspended the races first, so whoever takes them over finds them as
        they stood; players go (1001) once the lease is gone: to a live home next."""
        await self.failover.stop()
        await self.tasks.close(timeout=1.0)
        with contextlib.suppress(RedisError, OSError):
            await self.shared.leave()
        self.links.close_remotes(CloseCode.GOING_AWAY, "the server is shutting down")
        await self.bus.close()  # it sends what is queued first, for a second at most

    # -- the seam (server/peers.py) ----------------------------------------------

    async def home_of(self, identity: Identity) -> str | None:
        """Where ``identity``'s hello is to go: None for here (claimed now), or a live worker.

        A player with a live race always comes to it: when Redis cannot say where it is
        now, the hello is refused ``unavailable``, never served here as if it were gone."""
        self._to_race.discard(identity.player_id)
        try:
            return await self._home_of(identity.player_id)
        except (RedisError, OSError) as exc:
            race = await self.store.live_race_of(identity.player_id)
            if race is not None and self.lobby.race(race) is None:
                raise Refused("unavailable", "your race cannot be reached now; try again") from exc
            return None

    async def _home_of(self, player_id: str) -> str | None:
        shared = self.shared
        # A racer's home is their race's owner, whatever fg:home last said: a race
        # moves between workers (takeovers, fencing) sooner than homes are named.
        race = await self.store.live_race_of(player_id)
        if race is not None:  # proxied, they are to be answered at once (links.py)
            self._to_race.add(player_id)
        home = await (self._owner_of(race) if race else self.failover.home_unraced(player_id))
        if home is not None and home != self.worker:
            if time.monotonic() < self.failover.judge_after or await shared.alive({home}):
                return home
            await self.failover.take_over(home)  # its races, before this player looks for theirs
            home = await self._owner_of(race) if race is not None else None
            if home is not None and home != self.worker:
                if await shared.alive({home}):
                    return home
                raise Refused("unavailable", "your race is moving to another server; try again")
        if race is not None and self.lobby.race(race) is None:
            await self.failover.bring_here(race)  # served without it: told nothing
        await shared.set_home(player_id, self.worker)
        return None

    async def _owner_of(self, race: str) -> str | None:
        """Live race ``race``'s worker: None for this one, where it comes if none lists it."""
        if self.lobby.race(race) is not None:  # unless another took it over meanwhile
            return await self.failover.taken_by(race)
        owner = await self.shared.owner(race)
        if owner is None and await self.shared.adopt(race):
            await self.failover.restore_here({race})
            return None
        return owner

    def proxy(self, conn: Conn, identity: Identity, home: str) -> None:
        racing = identity.player_id in self._to_race
        self._to_race.discard(identity.player_id)
        self.links.proxy(conn, identity, home, racing=racing)

    def forward(self, conn: Conn, text: str) -> None:
        self.links.forward(conn, text)

    def gone(self, conn: Conn) -> None:
        self.links.gone(conn)

    def owed_ends(self, game_id: str, player_ids: tuple[str, str]) -> OwedEnds | None:
        return self.failover.owed.ends(game_id, player_ids, self.clock())

    def told(self, player_id: str) -> list[Send]:
        return self.failover.owed.told(player_id)

    def left(self, player_id: str) -> None:
        """A player whose home is here has no connection any more: their home goes, unless
        they race, or are owed their last race's end (only this lobby core has it)."""
        if self.lobby.race_of(player_id) is None and not self.lobby.owes_end(player_id):
            self.tasks.spawn(self.shared.forget_home(player_id))

    def _missed(self, player_id: str) -> None:
        """A remote connection went with what it carried: if it was their race's end, the
        player's home is here again, whoever named it since (only this core has the end)."""
        self.lobby.missed(player_id)
        if self.lobby.owes_end(player_id):
            self.tasks.spawn(self.shared.set_home(player_id, self.worker))

    def takes(self, player_id: str, message: ClientMessage) -> bool:
        """Whether the cluster carries out ``message`` rather than this worker's core."""
        lobby = self.lobby
        if isinstance(message, LobbyRequest):
            self.tasks.spawn(self._lobby(player_id, message))
            return True
        if message.type == "join_room" and not lobby.has_room(message.code):
            code = message.code.strip().upper()
            self.tasks.spawn(self._route(player_id, message, self.shared.room(code)))
            return True
        if message.type == "watch" and lobby.race(message.game_id) is None:
            self.tasks.spawn(self._route(player_id, message, self.shared.owner(message.game_id)))
            return True
        return False

    def changed(self) -> None:
        """What this worker shows of the lobby changed: publish it at the end of this pass."""
        if not self._dirty:
            self._dirty = True
            asyncio.get_running_loop().call_soon(self._publish_lobby)

    def mirror(self, out: Output) -> asyncio.Future[None] | None:
        """Mirror what others must see of this worker's core in Redis.

        Gives the write that the frames after ``out`` wait for, if any: a room's code
        and a race's owner are in Redis before the ``room`` and the ``game_start``
        that announce them, so that a join or a watch anywhere finds them at once;
        for :data:`ANNOUNCE_WAIT` at most: a stalled Redis must not stall players.
        """
        self.changed()
        shared, spawn = self.shared, self.tasks.spawn
        if isinstance(out, Queued):
            if out.rules is not None:
                self._seeking[out.player_id] = out.rules
                spawn(self._pair(out.player_id, out.rules))
            elif (rules := self._seeking.pop(out.player_id, None)) is not None:
                spawn(shared.stop_waiting(rules, out.player_id))
        elif isinstance(out, RoomListed):
            if out.open:
                return bounded(spawn(shared.open_room(out.code)), ANNOUNCE_WAIT)
            spawn(shared.close_room(out.code))
        elif isinstance(out, RaceStarted):
            own = shared.own(out.start.game_id)
            return bounded(spawn(own), ANNOUNCE_WAIT)
        elif isinstance(out, RaceEnded):
            spawn(shared.disown(out.record.game_id))
        return None

    async def allows_new_player(self, address: str) -> bool:
        """Whether ``address`` may make one more player, counted across every worker."""
        limit = self.settings.new_players_per_ip
        return await self.shared.charge("new", address, limit, time.time())

    def connections_elsewhere(self, address: str) -> int:
        return self.elsewhere.get(address, 0)

    def refused(self, game_id: str) -> None:
        self.tasks.spawn(self._take_back(game_id))

    async def _take_back(self, game_id: str) -> None:
        """A race the store refused this worker's writes for: back here if Redis lists it
        here, or nowhere (listed here first: of two workers fenced in turn, one takes it
        back, not each for ever); not if another worker owns it (who fenced this one)."""
        owner = await self.shared.owner(game_id)
        if owner == self.worker or (owner is None and await self.shared.adopt(game_id)):
            await self.failover.restore_here({game_id})
            if self.lobby.race(game_id) is None:  # not live: it ended on another worker
                await self.shared.disown(game_id)

    # -- what the failover asks ----------------------------------------------------

    def listing(self) -> Listing:
        """This worker's part of the lobby, its times on the wall clock that all workers share."""
        return self.lobby.listing().shifted(time.time() - self.clock())

    async def share_connections(self) -> None:
        """Publish this worker's busy addresses, and learn the others' (each beat)."""
        cap = self.settings.max_connections_per_ip
        busy = max(1, cap // 8)  # an address far below the cap cannot reach it soon
        await self.shared.publish_connections(self.glue.connections_by_ip(busy))
        self.elsewhere = await self.shared.connections_elsewhere()

    async def seek_again(self) -> None:
        """Redis is back: every seeker here is listed, or paired, again."""
        for player_id, rules in list(self._seeking.items()):
            await self._pair(player_id, rules)

    # -- moving players --------------------------------------------------------

    def _publish_lobby(self) -> None:
        self._dirty = False
        self.tasks.spawn(self.shared.publish_lobby(self.listing()))

    async def _pair(self, player_id: str, rules: Rules) -> None:
        found = await self.shared.pair_or_wait(rules, player_id)
        if found is None:
            if self._seeking.get(player_id) != rules:  # left the queue while we listed them
                await self.shared.stop_waiting(rules, player_id)
            return
        worker, other = found
        self.bus.send(worker, Migrate(other, self.worker, encode(Seek(rules=rules)), player_id))

    async def _route(
        self, player_id: str, message: ClientMessage, where: Awaitable[str | None]
    ) -> None:
        glue = self.glue
        try:
            worker = await where
        except (RedisError, OSError):  # the client is answered, whatever Redis does
            glue.refuse(player_id, message, "unavailable", "try again in a moment")
            raise
        conn = glue.conn_of(player_id)
        if worker is None and message.type == "join_room" and conn is not None:
            # A code no worker has: counted across every worker, so that
            # guessing is no faster with more of them.
            limit = self.settings.wrong_codes_per_ip
            if not await self.shared.charge("codes", conn.ip, limit, time.time()):
                glue.refuse(player_id, message, "rate_limited", _TOO_MANY_CODES)
                return
        if worker is None or worker == self.worker or conn is None or not _movable(conn):
            glue.command(player_id, message)
            return
        self._move(conn, worker, encode(message))

    def _move(self, conn: Conn | RemoteConn, worker: str, then: str) -> None:
        """Let ``conn``'s player go from this core and make ``worker`` their home."""
        identity = conn.player
        assert identity is not None and not isinstance(conn, RemoteConn)
        self.glue.release(conn)
        self.tasks.spawn(self.shared.set_home(identity.player_id, worker))
        self.links.proxy(conn, identity, worker, then)

    async def _lobby(self, player_id: str, message: LobbyRequest) -> None:
        merged = await self.shared.lobby(self.listing())
        self.glue.deliver([Send((player_id,), merged.snapshot())], player_id, message.id)

    # -- the bus ---------------------------------------------------------------

    def _on_bus(self, envelope: Envelope) -> None:
        """One message from another worker, by its kind."""
        message = envelope.message
        if isinstance(message, Outbound | Close):  # to a socket here, from its player's home
            self.links.to_socket(message)
        elif isinstance(message, Inbound | Gone):  # from a socket elsewhere, to its home here
            self.links.from_socket(message)
        elif isinstance(message, Attach):
            self.links.attach(message)
        elif isinstance(message, Migrate):
            self._migrate(message)
        elif isinstance(message, Unmigrated):
            rules = self._seeking.get(message.asker)
            if rules is not None:
                self.tasks.spawn(self._pair(message.asker, rules))
        elif isinstance(message, Born):
            self.bus.born_again(message.worker, message.incarnation)  # before the links go
            self.links.drop_links_with(message.worker)
        elif isinstance(message, Broken):
            self.links.drop_links_with(envelope.sender)

    def _link_broken(self, sender: str, reborn: bool) -> None:
        """The link from ``sender`` lost a message, or ``sender`` is a new incarnation."""
        self.links.drop_links_with(sender)
        if not reborn:  # it drops its side too: what it sent may be missing here
            self.bus.send(sender, Broken())

    def _migrate(self, message: Migrate) -> None:
        conn = self.glue.conn_of(message.player_id)
        if conn is None or not _movable(conn) or message.player_id not in self._seeking:
            self.bus.send(message.to, Unmigrated(message.asker))
            return
        self._move(conn, message.to, message.then)


def _movable(conn: Conn | RemoteConn) -> bool:
    return not isinstance(conn, RemoteConn) and conn.player is not None
