"""The fault harness: workers on one PostgreSQL and one Redis, and the faults done to them.

A :class:`Harness` runs N workers (:mod:`bench.chaos_workers`), each reaching
Redis through a proxy of its own (:mod:`bench.chaos_proxy`), all on one
PostgreSQL database. While racers (:mod:`bench.chaos_racers`) race on them,
it does one fault at a time on demand, and returns a :class:`Fault` saying
what it did, when, and which races it touched:

- :meth:`Harness.stop_worker`: SIGSTOP past the lease, then SIGCONT;
- :meth:`Harness.kill_worker`: ``kill -9``, then the same worker again under
  the same name and port after the supervisor's first delay
  (:data:`core.backoff.RESTART`, 0.5 s);
- :meth:`Harness.cut_redis`: one worker's proxy to Redis cut, then healed;
  the worker keeps PostgreSQL and its players;
- :meth:`Harness.restart_redis`: Redis stopped and started on its port, empty;
- :meth:`Harness.stop_postgres`: ``pg_ctl stop -m fast``, then started again.

The duration of a fault (a worker stopped 7 s) is the one timed wait: the
point of the fault. Everything else is awaited (a process's exit, a log line).
A fault's *affected* races are those its worker owned (``fg:races``, read
from Redis directly as the fault begins) or held a racer's socket for; its
*recovery* for each is :func:`recovery`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import redis.asyncio as redis
from redis.exceptions import RedisError

from core.backoff import RESTART, Attempts

from .chaos_check import EVENTS, Verdict, check
from .chaos_proxy import Proxy
from .chaos_workers import Worker

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path

    from .chaos_backing import PostgresControl, Restartable
    from .chaos_racers import Racer

__all__ = ["KINDS", "Fault", "Harness", "recovery"]

_STARTS = 5
"""Starts of a killed worker that may fail in a row (as the supervisor, which has no
bound) before the run gives up on it."""

KINDS = ("stop", "kill", "cut", "redis", "postgres")
"""Every fault, by the name the report gives it."""
_BACK = frozenset({*EVENTS, "game_state"})
"""The frames that show a racer its race again."""


@dataclass(slots=True)
class Fault:
    """One fault done: what, to whom, from when to when (monotonic), what it touched."""

    kind: str
    victim: str = ""
    began: float = 0.0
    ended: float = 0.0
    affected: dict[str, list[Racer]] = field(default_factory=dict)
    """Game id -> its racers, for each race the fault touched as it began."""
    owned: set[str] = field(default_factory=set)
    """The races the victim owned as the fault began (``fg:races``)."""
    verdict: Verdict | None = None
    """The checker's, run once the fault was over."""

    @property
    def lasted(self) -> float:
        return self.ended - self.began


class Harness:
    """``workers`` workers on ``db`` and ``redis``: ``await start()``, faults, ``await close()``."""

    def __init__(
        self,
        *,
        db: str,
        redis_server: Restartable,
        postgres: PostgresControl,
        logs: Path,
        workers: int = 3,
        flags: Sequence[str] = (),
    ) -> None:
        self.db, self.redis, self.postgres = db, redis_server, postgres
        self.proxies = [Proxy(redis_server.port) for _ in range(workers)]
        self._names = [f"w{index}" for index in range(1, workers + 1)]
        self._logs, self._flags = logs, flags
        self.workers: list[Worker] = []
        self.faults: list[Fault] = []

    async def start(self) -> None:
        for proxy in self.proxies:
            await proxy.start()
        self.workers = [
            Worker(name, redis=proxy.url, db=self.db, logs=self._logs, flags=self._flags)
            for name, proxy in zip(self._names, self.proxies, strict=True)
        ]
        # One first, so that the schema is made once; the others together.
        await self.workers[0].start()
        await asyncio.gather(*(worker.start() for worker in self.workers[1:]))

    async def close(self) -> None:
        await asyncio.gather(*(worker.stop() for worker in self.workers))
        for proxy in self.proxies:
            await proxy.close()

    def worker(self, name: str) -> Worker:
        return next(worker for worker in self.workers if worker.name == name)

    # -- the faults ----------------------------------------------------------------

    async def stop_worker(self, victim: Worker, seconds: float, racers: Iterable[Racer]) -> Fault:
        """SIGSTOP ``victim`` for ``seconds`` (past the lease), then SIGCONT."""
        fault = await self._begin("stop", victim, racers)
        victim.pause()
        await asyncio.sleep(seconds)  # the fault's own duration
        victim.resume()
        return self._end(fault)

    async def kill_worker(self, victim: Worker, racers: Iterable[Racer]) -> Fault:
        """``kill -9`` ``victim``; start it again under its name after RESTART's first delay."""
        fault = await self._begin("kill", victim, racers)
        await victim.kill()
        await asyncio.sleep(RESTART.first)  # as the supervisor waits before a restart
        restarts = Attempts(RESTART)
        while True:
            try:
                await victim.start()
                break
            except RuntimeError:  # died as it started: the supervisor starts it again
                if restarts.failures == _STARTS:
                    raise
                print(f"chaos: {victim.name} died as it started; again", file=sys.stderr)
                await asyncio.sleep(restarts.failed())  # RESTART's delays, as the supervisor's
        return self._end(fault)

    async def cut_redis(self, victim: Worker, seconds: float, racers: Iterable[Racer]) -> Fault:
        """Cut ``victim`` off from Redis for ``seconds``; PostgreSQL and players stay."""
        fault = await self._begin("cut", victim, racers)
        proxy = self.proxies[self.workers.index(victim)]
        proxy.cut()
        await asyncio.sleep(seconds)  # the fault's own duration
        proxy.heal()
        return self._end(fault)

    async def restart_redis(self, racers: Iterable[Racer]) -> Fault:
        """Stop Redis and start it again on its port, empty."""
        fault = await self._begin("redis", None, racers)
        await asyncio.to_thread(self.redis.restart)
        return self._end(fault)

    async def stop_postgres(self, seconds: float, racers: Iterable[Racer]) -> Fault:
        """``pg_ctl stop -m fast``; ``seconds`` later, start it again."""
        fault = await self._begin("postgres", None, racers)
        await asyncio.to_thread(self.postgres.stop)
        await asyncio.sleep(seconds)  # the fault's own duration
        await asyncio.to_thread(self.postgres.start)
        return self._end(fault)

    async def check(self, racers: Iterable[Racer], *, final: bool) -> Verdict:
        """The checker (:mod:`bench.chaos_check`), on a thread: the races go on meanwhile."""
        return await asyncio.to_thread(check, list(racers), self.db, final=final)

    # -- bookkeeping -----------------------------------------------------------------

    async def _begin(self, kind: str, victim: Worker | None, racers: Iterable[Racer]) -> Fault:
        fault = Fault(kind, victim.name if victim is not None else "")
        # From the moment the races are taken stock of: a race that ends while the owners
        # are read was told of after the fault began (its racers counted it "never" told).
        fault.began = time.monotonic()
        by_race: dict[str, list[Racer]] = {}
        for racer in racers:
            if (game_id := racer.racing) is not None:
                by_race.setdefault(game_id, []).append(racer)
        if victim is not None:
            owners = await self.owners()
            fault.owned = {game_id for game_id, owner in owners.items() if owner == victim.name}
            fault.affected = {
                game_id: those
                for game_id, those in by_race.items()
                if game_id in fault.owned or any(_on(racer, victim) for racer in those)
            }
        else:
            fault.affected = by_race
        self.faults.append(fault)
        return fault

    def _end(self, fault: Fault) -> Fault:
        fault.ended = time.monotonic()
        return fault

    async def owners(self) -> dict[str, str]:
        """``fg:races`` as Redis holds it now (read past the proxies); empty if Redis is away."""
        client = redis.Redis.from_url(self.redis.url, socket_timeout=2)
        try:
            found = await client.hgetall("fg:races")
        except (RedisError, OSError):
            return {}
        finally:
            with contextlib.suppress(RedisError, OSError):
                await client.aclose()
        return {_text(k): _text(v) for k, v in found.items()}


def _on(racer: Racer, worker: Worker) -> bool:
    """Whether ``racer``'s connection now is to ``worker``."""
    return bool(racer.sessions) and racer.sessions[-1].worker == worker.name


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def recovery(fault: Fault) -> dict[str, float | None]:
    """For each race ``fault`` touched: seconds from its start until both of its racers
    were told of the race again (an event or a ``game_state`` heard after it began);
    None for a race a racer never heard of again."""
    times: dict[str, float | None] = {}
    for game_id, racers in fault.affected.items():
        firsts = [_first_after(racer, game_id, fault.began) for racer in racers]
        times[game_id] = None if None in firsts else max(f for f in firsts if f is not None)
    return times


def _first_after(racer: Racer, game_id: str, began: float) -> float | None:
    for frame in racer.heard:
        message = frame.message
        if frame.at > began and message["type"] in _BACK and message.get("game_id") == game_id:
            return frame.at - began
    return None
