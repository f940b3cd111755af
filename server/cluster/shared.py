"""What the workers of one lobby share in Redis, and the only code that names its keys.

Every key starts with ``fg:``. Each is small, and each is written by the worker
it concerns, so two workers never fight over one:

``fg:alive:<worker>``
    The worker's incarnation, set with a time to live and renewed every
    :data:`BEAT` seconds: its lease. Every race and home it holds lapses with it.
``fg:home:<player>``
    The worker whose lobby core holds the player (their *home*).
``fg:races``
    A hash: game id -> the worker that owns the live race.
``fg:room:<code>``
    The worker of an open room.
``fg:seeks:<rules>``
    A list of ``worker player`` entries, the quick-match queue for one set of
    rules, oldest first. :meth:`Shared.pair_or_wait` takes the oldest entry of
    another, live worker, or else adds one: one Lua script, so two workers
    never take the same seeker.
``fg:lobby:<worker>``
    The worker's part of the lobby (online, seeking, public rooms, live races)
    as JSON, with a time to live: a ``lobby`` anywhere merges them all.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from core.listing import Listing, merge

from .bus import channel_of

if TYPE_CHECKING:
    import redis.asyncio as redis

    from protocol import Rules

__all__ = ["BEAT", "DEAF_FOR", "LEASE", "OWED_FOR", "Shared"]

BEAT = 1.0
"""Seconds between two renewals of a worker's lease."""
OWED_FOR = 120.0
"""Seconds a race's end is told to a player who may not have been told it (server/cluster/owed.py):
far longer than a player dropped by a worker's death takes to come back."""
LEASE = 3.0
"""Seconds a worker's lease lasts unrenewed: how soon its races are taken over."""
DEAF_FOR = 0.5
"""Seconds a worker whose lease holds may be away from its bus channel before it is
judged dead (:meth:`Shared.alive`): ten times the bus's first delay to subscribe again."""

_PAIR_OR_WAIT = """
local entries = redis.call('LRANGE', KEYS[1], 0, -1)
for _, entry in ipairs(entries) do
    local worker = string.match(entry, '^(%S+) ')
    if worker ~= ARGV[1] and redis.call('EXISTS', 'fg:alive:' .. worker) == 1 then
        redis.call('LREM', KEYS[1], 1, entry)
        return entry
    end
    if worker ~= ARGV[1] then
        redis.call('LREM', KEYS[1], 1, entry)
    end
end
redis.call('RPUSH', KEYS[1], ARGV[1] .. ' ' .. ARGV[2])
return false
"""
"""Take the oldest seeker of another live worker (dropping dead workers'), or queue ours."""

_CLAIM = """
local taken = {}
for i = 3, #ARGV do
    if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[1] then
        redis.call('HSET', KEYS[1], ARGV[i], ARGV[2])
        table.insert(taken, ARGV[i])
    end
end
return taken
"""
"""Move races from a dead owner to us, but those another worker took first: one round
trip for a takeover, not one a race (at 40 races and a loaded Redis, seconds)."""

_DISOWN = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
    return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""
"""Unlist a race that ended here, unless another worker owns it now (this one was fenced)."""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _seeks(rules: Rules) -> str:
    return "fg:seeks:" + rules.model_dump_json()


class Shared:
    """One worker's view of the shared keys."""

    def __init__(self, client: redis.Redis, worker: str) -> None:
        self.client, self.worker = client, worker
        self._pair_or_wait = client.register_script(_PAIR_OR_WAIT)
        self._claim = client.register_script(_CLAIM)
        self._disown = client.register_script(_DISOWN)

    # -- liveness --------------------------------------------------------------

    async def beat(self, incarnation: str) -> None:
        """Renew this worker's lease, under the incarnation that holds it."""
        await self.client.set(f"fg:alive:{self.worker}", incarnation, px=int(LEASE * 1000))

    async def leave(self) -> None:
        """This worker is going: its lease ends now, not in :data:`LEASE` seconds."""
        await self.client.delete(f"fg:alive:{self.worker}", f"fg:lobby:{self.worker}")

    async def alive(self, workers: set[str]) -> set[str]:
        """Those of ``workers`` whose lease holds, and who listen on the bus.

        A worker killed (``kill -9``) leaves its channel at once: Redis drops a
        closed connection's subscriptions. Its lease holds for up to :data:`LEASE`
        seconds more, and every racer of its races waited for it to lapse
        (``make chaos``: 4.3 to 5.2 s from a kill to its races going on). A worker
        whose lease holds but that nobody listens for is looked at again after
        :data:`DEAF_FOR`, the time a live one takes to subscribe again after a blip;
        still deaf, it is dead. A stopped worker keeps its connections: its lease
        judges it, and fencing covers what the lease cannot see.
        """
        return set(await self.incarnations(workers))

    async def incarnations(self, workers: set[str]) -> dict[str, str]:
        """The incarnation of each of ``workers`` that is alive (:meth:`alive`)."""
        if not workers:
            return {}
        leased, listening = await self._liveness(workers)
        deaf = leased.keys() - listening
        if not deaf:
            return leased
        await asyncio.sleep(DEAF_FOR)  # a grace for a live worker to subscribe again
        again, listening = await self._liveness(deaf)
        return {w: i for w, i in leased.items() if w not in deaf or w in listening & again.keys()}

    async def _liveness(self, workers: set[str]) -> tuple[dict[str, str], set[str]]:
        """The incarnation of each of ``workers`` whose lease holds, and those whose channel
        has a listener."""
        ordered = sorted(workers)
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.mget([f"fg:alive:{w}" for w in ordered])
            pipe.pubsub_numsub(*(channel_of(w) for w in ordered))
            leases, listeners = await pipe.execute()
        leased = {w: _text(v) for w, v in zip(ordered, leases, strict=True) if v is not None}
        listening = {w for w, (_, count) in zip(ordered, listeners, strict=True) if count}
        return leased, listening

    # -- homes -----------------------------------------------------------------

    async def home(self, player_id: str) -> str | None:
        value = await self.client.get(f"fg:home:{player_id}")
        return None if value is None else _text(value)

    async def set_home(self, player_id: str, worker: str) -> None:
        await self.client.set(f"fg:home:{player_id}", worker)

    async def set_homes(self, player_ids: list[str], worker: str) -> None:
        """:meth:`set_home` for each of ``player_ids``, in one round trip."""
        if player_ids:
            await self.client.mset({f"fg:home:{player_id}": worker for player_id in player_ids})

    async def forget_home(self, player_id: str) -> None:
        await self.client.delete(f"fg:home:{player_id}")

    # -- quick match and rooms -------------------------------------------------

    async def pair_or_wait(self, rules: Rules, player_id: str) -> tuple[str, str] | None:
        """Another live worker's oldest seeker ``(worker, player)``, taken; else None, queued."""
        entry = await self._pair_or_wait(keys=[_seeks(rules)], args=[self.worker, player_id])
        if entry is None:
            return None
        worker, player = _text(entry).split(" ", 1)
        return worker, player

    async def stop_waiting(self, rules: Rules, player_id: str) -> None:
        await self.client.lrem(_seeks(rules), 0, f"{self.worker} {player_id}")

    async def open_room(self, code: str) -> None:
        await self.client.set(f"fg:room:{code}", self.worker)

    async def close_room(self, code: str) -> None:
        await self.client.delete(f"fg:room:{code}")

    async def room(self, code: str) -> str | None:
        value = await self.client.get(f"fg:room:{code}")
        return None if value is None else _text(value)

    # -- limits per address, across workers ------------------------------------

    async def charge(self, what: str, address: str, limit: int, now: float) -> bool:
        """Count one ``what`` (``new``, ``codes``) for ``address`` this hour; False past ``limit``.

        A fixed window of an hour, where each worker's own limit is a token
        bucket: coarser, but one count for every worker (``fg:limit:...``).
        """
        key = f"fg:limit:{what}:{address}:{int(now // 3600)}"
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, 3600)
            count, _ = await pipe.execute()
        return int(count) <= limit

    async def publish_connections(self, per_ip: dict[str, int]) -> None:
        """This worker's open connections by address (the busy addresses only)."""
        key = f"fg:conns:{self.worker}"
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            if per_ip:
                pipe.hset(key, mapping={ip: count for ip, count in per_ip.items()})
            pipe.pexpire(key, int(LEASE * 1000))
            await pipe.execute()

    async def connections_elsewhere(self) -> dict[str, int]:
        """Every other live worker's open connections by address, summed."""
        total: dict[str, int] = {}
        async for key in self.client.scan_iter(match="fg:conns:*", count=500):
            if _text(key) != f"fg:conns:{self.worker}":
                for ip, count in (await self.client.hgetall(key)).items():
                    total[_text(ip)] = total.get(_text(ip), 0) + int(count)
        return total

    # -- races -----------------------------------------------------------------

    async def own(self, game_id: str) -> None:
        """List race ``game_id`` here."""
        await self.client.hset("fg:races", game_id, self.worker)

    async def disown(self, game_id: str) -> None:
        """Unlist ``game_id`` if this worker is its owner (not if another took it since)."""
        await self._disown(keys=["fg:races"], args=[game_id, self.worker])

    async def owner(self, game_id: str) -> str | None:
        value = await self.client.hget("fg:races", game_id)
        return None if value is None else _text(value)

    async def owners(self) -> dict[str, str]:
        """Every live race's owner, by game id."""
        found = await self.client.hgetall("fg:races")
        return {_text(k): _text(v) for k, v in found.items()}

    async def adopt(self, game_id: str) -> bool:
        """Take a live race that no worker lists (Redis lost it); False if one does now."""
        return bool(await self.client.hsetnx("fg:races", game_id, self.worker))

    async def claim(self, game_ids: list[str], dead: str) -> list[str]:
        """Take ``game_ids`` from ``dead``: those another worker did not take first."""
        if not game_ids:
            return []
        taken = await self._claim(keys=["fg:races"], args=[dead, self.worker, *game_ids])
        return [_text(game_id) for game_id in taken]

    # -- the lobby's view ------------------------------------------------------

    async def publish_lobby(self, listing: Listing) -> None:
        data = listing.to_json()
        await self.client.set(f"fg:lobby:{self.worker}", data, px=int(LEASE * 1000))

    async def lobby(self, mine: Listing) -> Listing:
        """``mine`` merged with every other live worker's part (times on the wall clock);
        ``mine`` alone while Redis cannot give theirs. A ``lobby`` is answered all the
        same: raised, it went unanswered (a fresh clone's CI, Redis just restarted)."""
        parts = [mine]
        try:
            async for key in self.client.scan_iter(match="fg:lobby:*", count=500):
                if _text(key) != f"fg:lobby:{self.worker}":
                    value = await self.client.get(key)
                    if value is not None:
                        parts.append(Listing.from_json(value))
        except (RedisError, OSError):
            parts = [mine]
        return merge(parts)
