"""Leases and failover: each worker's beat, and taking over the races of a dead one.

Every :data:`~server.cluster.shared.BEAT` a worker renews its lease
(``fg:alive:<worker>``), publishes its part of the lobby and its busy
addresses, and looks for workers that own races, or hold this worker's
proxied sockets, but are dead (:meth:`Shared.alive`: no lease, or nobody
listening on their bus channel). Their races it claims (one Lua
script: one winner), replays from the store and takes over; sockets proxied
to a dead worker are closed with 1012 so their clients come back, to a home
that is alive.

When Redis comes back after an outage, perhaps empty, the worker says again
what it holds: its races, its players' homes, its open rooms and seekers, and
a ``game_state`` to every racer whose socket is elsewhere, since frames
published while a subscription was down are lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from core.backoff import REDIS
from core.events import Refused
from server.loops import Loop

from .owed import Owed
from .shared import BEAT, LEASE

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable

    from .cluster import Cluster

__all__ = ["Failover"]

log = logging.getLogger("flowergarden.server")

_SAY_AGAIN_TRIES = 20
STALE = LEASE - 1.0
"""Seconds without renewing its lease after which a worker holds its races: a second
before another worker may judge the lease lapsed and take them."""
_WATCH = 0.25
"""Seconds between two looks at how long ago the lease was renewed."""


class Failover:
    """One worker's part in keeping every race owned by a live worker."""

    def __init__(self, cluster: Cluster) -> None:
        self._cluster = cluster
        self._taking_over = asyncio.Lock()
        self.judge_after = 0.0
        """Until then nobody is judged dead (Redis came back empty: leases are not back yet)."""
        self._beating: Loop | None = None
        self.renewed_at = time.monotonic()
        """When this worker last renewed its lease (the monotonic clock)."""
        self.holding = False
        """The races here are held: the lease went unrenewed too long (:data:`STALE`)."""
        self._watch: asyncio.TimerHandle | None = None
        self._taking: set[str] = set()
        """Dead workers whose races a takeover beside the beat is taking now."""
        self.owed = Owed(
            cluster.shared, cluster.store, cluster.lobby, cluster.tasks, cluster.incarnation
        )

    def start(self) -> None:
        self._beating = Loop("cluster beat", self._beat, first=BEAT)
        self._beating.start()
        self._watch = asyncio.get_running_loop().call_later(_WATCH, self._watch_lease)

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        if self._beating is not None:
            await self._beating.stop()

    def _watch_lease(self) -> None:
        """Hold every race here before the lease can lapse, if it was not renewed in time.

        A timer, not the beat: a beat may hang on a stalled Redis. Fencing in
        the store covers the pauses this cannot see (the process itself stopped).
        """
        loop = asyncio.get_running_loop()
        self._watch = loop.call_later(_WATCH, self._watch_lease)
        if not self.holding and time.monotonic() - self.renewed_at > STALE:
            self.holding = True
            log.warning("cluster: the lease went unrenewed %.1f s: holding every race", STALE)
            self._cluster.glue.hold_races()

    async def _renewed(self) -> None:
        """The lease is renewed: held races that are still this worker's go on, the others go."""
        self.renewed_at = time.monotonic()
        if not self.holding:
            return
        cluster = self._cluster
        owners = await cluster.shared.owners()
        self.holding = False
        for game_id in cluster.lobby.elapsed(0.0):
            if owners.get(game_id, cluster.worker) == cluster.worker:
                cluster.glue.go_on(game_id)
            else:
                cluster.glue.let_go_of(game_id)
        log.warning("cluster: the lease is renewed; this worker's races go on")

    async def adopt(self) -> None:
        """At start: the races listed under this worker's name (it ran before under
        it, and died), and those no worker lists (Redis lost them while all were down).

        Tried again while Redis fails (a slow answer, on a loaded machine): a worker
        that gave up here would only be started again, later.
        """
        await self.tried(self._adopt)

    async def _adopt(self) -> None:
        cluster, shared = self._cluster, self._cluster.shared
        owners = await shared.owners()
        live = {start.game_id for start, _, _ in await cluster.store.live_races()}
        mine = {g for g in live if owners.get(g) == cluster.worker}
        mine |= {g for g in live - owners.keys() if await shared.adopt(g)}
        if mine:
            await self._restored(mine, f"{cluster.worker} (before this start)")

    async def take_over(self, dead: str, owners: dict[str, str] | None = None) -> None:
        """Take the races of ``dead`` that nobody has yet; close sockets proxied to it.

        One at a time (a hello and a beat may both find ``dead``), and sockets
        close only once the races are back: their players' next hello finds them.
        """
        shared = self._cluster.shared
        async with self._taking_over:
            owners = await shared.owners() if owners is None else owners
            theirs = [game_id for game_id, owner in owners.items() if owner == dead]
            mine = await shared.claim(theirs, dead)
            if mine:
                await self._restored(set(mine), dead)
            self._cluster.links.drop_links_with(dead)

    def reconnected(self) -> None:
        """The bus is subscribed again after losing Redis."""
        # An empty Redis (restarted without its data) has no lease of anyone's
        # until each worker's next beat: judge nobody dead for a lease's time.
        self.judge_after = time.monotonic() + LEASE
        self._cluster.tasks.spawn(self._reassert())

    async def _beat(self) -> float:
        """Renew the lease, say what is here, and take the races of the dead; the
        next beat comes :data:`BEAT` seconds later (a period, not a wait for an event)."""
        cluster, shared = self._cluster, self._cluster.shared
        try:
            await shared.beat(cluster.incarnation)
            await self._renewed()
            await shared.publish_lobby(cluster.listing())
            await cluster.share_connections()
            # Every link that ever carried a message, not only those with sockets
            # now: a link dropped here sent its last words (Close) and would send
            # nothing more, so their loss would never show as a gap.
            cluster.bus.still(cluster.bus.receivers)
            owners = await shared.owners()
            workers = set(owners.values()) | cluster.links.workers()
            alive = await shared.alive(workers - {cluster.worker})
            if time.monotonic() >= self.judge_after:
                for dead in workers - alive - {cluster.worker}:
                    self._take_over_aside(dead, owners)
        except Exception:  # Redis away: the races here go on; try again next beat
            log.warning("cluster: beat failed", exc_info=True)
        return BEAT

    def _take_over_aside(self, dead: str, owners: dict[str, str]) -> None:
        """Take ``dead``'s races in a task of its own, never inside the beat.

        A takeover may wait a long time (on the store's row locks of a worker
        stopped in the middle of a write): in the beat, it would stop this
        worker's own lease from being renewed, and others would take this
        worker's races in turn. Its failure is logged by the cluster's tasks.
        """
        if dead in self._taking:  # still under way from an earlier beat
            return
        task = self._cluster.tasks.spawn(self.take_over(dead, owners))
        if task is not None:
            self._taking.add(dead)
            task.add_done_callback(lambda _: self._taking.discard(dead))

    async def _reassert(self) -> None:
        """Redis is back, perhaps empty: say again what this worker holds.

        Tried again while Redis still refuses (its first answers after a
        restart may not be), with the delays of the one retry policy.
        """
        with contextlib.suppress(RedisError, OSError):  # each failure is logged
            await self.tried(self._say_again)

    async def tried(self, call: Callable[[], Awaitable[None]]) -> None:
        """``call``, tried again while Redis fails, with the delays of the one retry
        policy; the last failure is raised."""
        for attempt, delay in enumerate(REDIS.delays(), start=1):
            try:
                await call()
                return
            except (RedisError, OSError) as exc:
                log.warning("cluster: Redis not ready yet (%s)", exc)
                if attempt == _SAY_AGAIN_TRIES:
                    raise
                await asyncio.sleep(delay)  # a backoff, not a wait for an event

    async def _say_again(self) -> None:
        cluster = self._cluster
        shared, lobby, glue = cluster.shared, cluster.lobby, cluster.glue
        await shared.beat(cluster.incarnation)
        for game_id in lobby.elapsed(0.0):
            # Listed only where nobody else is: back from being cut off, not from an
            # empty Redis, this worker may find a race claimed by another meanwhile,
            # and must not claim it back. It lets it go: judged dead as soon as it
            # could not hear (Shared.alive), it may be back before it held its races,
            # and a race nobody plays in would learn of its fencing from no write.
            if await shared.adopt(game_id) or await shared.owner(game_id) == cluster.worker:
                await self._home_here([game_id])  # its players away too: their result is here
            else:
                glue.let_go_of(game_id)
        # Redis emptied: so were the homes of players owed their race's end here.
        await shared.set_homes([*glue.players_here(), *lobby.owed_ends()], cluster.worker)
        for code in lobby.open_rooms():
            await shared.open_room(code)
        await cluster.seek_again()
        log.warning(
            "cluster: Redis is back; this worker's races, rooms and seekers are listed again"
        )

    async def taken_by(self, game_id: str) -> str | None:
        """The live worker that took over race ``game_id``, held here, while this one was
        stopped or cut off (Redis lists it there): the race leaves here, and is theirs.
        None while it is still this worker's (listed here, nowhere, or with a dead one).

        This worker learns it was fenced at its next write; a racer coming back
        before that must not be told the race as it stood here.
        """
        cluster = self._cluster
        owner = await cluster.shared.owner(game_id)
        if owner in (None, cluster.worker) or not await cluster.shared.alive({owner}):
            return None
        cluster.glue.let_go_of(game_id)
        return owner

    async def home_unraced(self, player_id: str) -> str | None:
        """The home Redis names for ``player_id``, who has no live race in the store. A
        race still held here for them is over, or another worker's, and goes: a racer
        coming back must not be told it as it stood here. This worker, if that home
        cannot tell them their last race's end and this one can (server/cluster/owed.py)."""
        cluster = self._cluster
        held = cluster.lobby.race_of(player_id)
        if held is not None:
            cluster.glue.let_go_of(held.game_id)
        home = await cluster.shared.home(player_id)
        if await self.owed.served_here(player_id, home, cluster.worker):
            return cluster.worker
        return home

    async def restore_here(self, game_ids: set[str]) -> None:
        """Restore ``game_ids`` from the store here; their players' home is here now.

        Every way a race comes here (a takeover, an adoption, a take back) names
        its players' home: a racer away when the race ends learns the result
        only from the lobby core that ended it, so their hello must come here.
        """
        await self._cluster.glue.restore_races(game_ids)
        await self._home_here(game_ids)

    async def bring_here(self, game_id: str) -> None:
        """A racer's hello is served here, and their live race ``game_id`` is not here:
        restore it if Redis lists it here (or nowhere, and this worker lists it first);
        else, or if it still is not here, the hello is refused ``unavailable`` and the
        racer tries again, sent by then where it is.

        Served without it, the racer was welcomed and told nothing (``make chaos``:
        races listed with a worker that had let them go, as Redis restarted empty).
        """
        cluster = self._cluster
        owner = await cluster.shared.owner(game_id)
        log.warning("cluster: a racer of race %s came here; it is listed with %s", game_id, owner)
        if owner == cluster.worker or (owner is None and await cluster.shared.adopt(game_id)):
            await self.restore_here({game_id})
        if cluster.lobby.race(game_id) is None:
            raise Refused("unavailable", "your race is moving to another server; try again")

    async def _home_here(self, game_ids: Iterable[str]) -> None:
        """Name this worker the home of the players of races ``game_ids`` that are here
        (in one round trip: a takeover's players wait for it)."""
        cluster = self._cluster
        races = [cluster.lobby.race(game_id) for game_id in game_ids]
        players = [p for race in races if race is not None for p in race.player_ids]
        await cluster.shared.set_homes(players, cluster.worker)

    async def _restored(self, game_ids: set[str], dead: str) -> None:
        """Restore ``game_ids``, the races of ``dead``, here; log and count it."""
        cluster = self._cluster
        began = time.perf_counter()
        await self.restore_here(game_ids)
        took = (time.perf_counter() - began) * 1000
        log.warning("cluster: took over %d races of %s in %.0f ms", len(game_ids), dead, took)
        cluster.metrics.failovers.inc(len(game_ids))
