"""Arenas across workers: each owned by one, found by the others, taken over when it dies.

An arena is owned as a race is (:mod:`server.cluster.cluster`): the worker whose
lobby core runs it pairs its players, so every player who joins it makes that
worker their home (a ``join_arena`` anywhere else moves them there, as a room
code does). Redis lists the owners in one hash, ``fg:arenas`` (arena id ->
worker), written by the owner: before it keeps a new arena in the store (so that
no worker starting meanwhile finds it kept and unlisted, and takes it), when
the arena finishes, and again each beat for an arena nobody lists (Redis came
back empty). Workers that run the same schedule make each arena once: the
first to list it makes it.

Failover: a worker that takes a dead worker's races (:mod:`server.cluster.failover`)
takes its arenas right after them, before it sends back the sockets proxied to the
dead worker (:class:`ArenaFailover`): so an arena counts the races it paired (one
whose time is up finishes only once they end), no race of it ends where the arena is
not yet, and its players' next hello finds it. Each
:data:`~server.cluster.shared.BEAT` a worker also looks for arenas whose owner is
dead (no lease, or nobody listening; an owner with no race left). Each arena is
claimed with one Lua script (one winner) and taken from the store, which grows its
epoch and so fences out the dead owner (:mod:`server.arena_keeper`). Its joined
players whose home was the dead worker get this one as their home. A worker that
starts takes the arenas listed under its own name (it ran before under it) and those
nobody lists.

One limit: with three workers or more, a dead worker's races and arenas may be
taken by different survivors (each race and arena is claimed on its own); a race
that then ends away from its arena is not scored in it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError
from typing_extensions import override

from server.loops import Loop
from server.store.arena_rows import LISTED, kept_arena
from server.store.reads import each

from .cluster import Cluster
from .failover import Failover
from .shared import BEAT

if TYPE_CHECKING:
    from protocol import ClientMessage
    from server.peers import Glue

__all__ = ["ArenaCluster", "ArenaOwners"]

log = logging.getLogger("flowergarden.server")

_OWNERS = "fg:arenas"
_CLAIM = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
    return 1
end
return 0
"""
"""Move an arena from a dead owner to us, unless another worker did first."""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class ArenaOwners:
    """One worker's part in keeping every arena owned by a live worker."""

    def __init__(self, cluster: ArenaCluster) -> None:
        self._cluster = cluster
        self._client = cluster.bus.client
        self._claim = self._client.register_script(_CLAIM)
        self._beating: Loop | None = None
        self._taking_over = asyncio.Lock()

    async def start(self) -> None:
        """Take this worker's arenas from before a restart, and those nobody lists."""
        cluster = self._cluster
        unfinished = await cluster.store.read(LISTED, (), each(kept_arena))
        owners = await self.owners()
        mine = {a.arena_id for a in unfinished if owners.get(a.arena_id) == cluster.worker}
        for arena in unfinished:
            if arena.arena_id not in owners and await self._client.hsetnx(
                _OWNERS, arena.arena_id, cluster.worker
            ):
                mine.add(arena.arena_id)
        if mine:
            await self._taken(mine, cluster.worker)
        self._beating = Loop("arena owners beat", self._beat, first=BEAT)
        self._beating.start()

    async def close(self) -> None:
        if self._beating is not None:
            await self._beating.stop()

    async def claim_new(self, arena_id: str) -> bool:
        """List this worker as the owner of an arena it is about to make, unless another
        worker lists one of that id (it made it, or is making it); False also while
        Redis cannot say (logged): the arena is not made now."""
        try:
            return bool(await self._client.hsetnx(_OWNERS, arena_id, self._cluster.worker))
        except (RedisError, OSError) as exc:
            log.warning(
                "cluster: arena %s not made: Redis cannot list its owner (%s)", arena_id, exc
            )
            return False

    def done(self, arena_id: str) -> None:
        """This worker's arena finished, or was never made: nobody owns it."""
        self._cluster.tasks.spawn(self._unlist(arena_id))

    async def _unlist(self, arena_id: str) -> None:
        await self._client.hdel(_OWNERS, arena_id)

    async def owner(self, arena_id: str) -> str | None:
        value = await self._client.hget(_OWNERS, arena_id)
        return None if value is None else _text(value)

    async def owners(self) -> dict[str, str]:
        found = await self._client.hgetall(_OWNERS)
        return {_text(key): _text(value) for key, value in found.items()}

    async def take_over(self, dead: str) -> None:
        """Take the races of ``dead`` (and with them its arenas, :class:`ArenaFailover`),
        then the arenas of ``dead`` that nobody has yet: an arena with no race left."""
        await self._cluster.failover.take_over(dead)
        await self.claim(dead)

    async def claim(self, dead: str) -> None:
        """Take the arenas of ``dead`` that nobody has yet (its races are taken)."""
        async with self._taking_over:
            owners = await self.owners()
            theirs = [arena_id for arena_id, owner in owners.items() if owner == dead]
            claim, args = self._claim, [dead, self._cluster.worker]
            mine = {a for a in theirs if await claim(keys=[_OWNERS], args=[a, *args])}
            if mine:
                await self._taken(mine, dead)

    async def _taken(self, arena_ids: set[str], dead: str) -> None:
        """Run ``arena_ids`` here from the store (they were ``dead``'s); their joined
        players whose home was ``dead`` live here now."""
        cluster = self._cluster
        shared = cluster.shared
        for arena in await cluster.glue.restore_arenas(arena_ids):
            for entrant in arena.entrants:
                if entrant.joined and await shared.home(entrant.player_id) in (None, dead):
                    await shared.set_home(entrant.player_id, cluster.worker)
        log.warning("cluster: took over arenas %s of %s", ", ".join(sorted(arena_ids)), dead)

    async def _beat(self) -> float:
        """List this worker's arenas again, and take those of dead workers; the next
        beat comes :data:`BEAT` seconds later (a period, not a wait for an event)."""
        cluster = self._cluster
        try:
            for arena in cluster.lobby.listing().arenas:  # listed again if Redis lost it
                await self._client.hsetnx(_OWNERS, arena.arena_id, cluster.worker)
            owners = await self.owners()
            workers = set(owners.values()) - {cluster.worker}
            alive = await cluster.shared.alive(workers)
            if time.monotonic() >= cluster.failover.judge_after:
                for dead in workers - alive:
                    await self.take_over(dead)
        except (RedisError, OSError):  # Redis away: the arenas here go on
            log.warning("cluster: the arenas' beat failed", exc_info=True)
        return BEAT


class ArenaFailover(Failover):
    """The failover, taking a dead worker's arenas right after its races: before the
    sockets proxied to it are sent back (1012), so that its players come back to their
    arena, and no race of it ends where the arena is not yet."""

    def __init__(self, cluster: ArenaCluster) -> None:
        super().__init__(cluster)
        self._arenas = cluster.arena_owners

    @override
    async def _restored(self, game_ids: set[str], dead: str) -> None:
        await super()._restored(game_ids, dead)
        await self._arenas.claim(dead)


class ArenaCluster(Cluster):
    """The :class:`~server.cluster.cluster.Cluster` with arenas: ``join_arena`` goes to
    the arena's owner, and the arenas of a dead worker are taken over (see above)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.arena_owners = ArenaOwners(self)
        self.failover = ArenaFailover(self)

    async def start(self, glue: Glue) -> None:
        await super().start(glue)  # the races first: each arena counts those it paired
        await self.arena_owners.start()

    async def close(self) -> None:
        await self.arena_owners.close()
        await super().close()

    def takes(self, player_id: str, message: ClientMessage) -> bool:
        """``join_arena`` for an arena another worker owns: the player moves there."""
        if message.type == "join_arena" and not self.lobby.has_arena(message.arena_id):
            owner = self.arena_owners.owner(message.arena_id)
            self.tasks.spawn(self._route(player_id, message, owner))
            return True
        return super().takes(player_id, message)

    async def claim_arena(self, arena_id: str) -> bool:
        return await self.arena_owners.claim_new(arena_id)

    def arena_done(self, arena_id: str) -> None:
        self.arena_owners.done(arena_id)
