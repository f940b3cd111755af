"""Messages between workers, over Redis pub/sub: each worker listens on a channel of its own.

Theory of operation
-------------------
Several workers serve one lobby (docs/design.md, "Several workers"). What one
worker must tell another (a play for the race it owns, a frame for a player
connected to it, "your connection for this player is replaced") goes as one
Redis ``PUBLISH`` to the receiver's channel, ``fg:worker:<id>``. The bus knows
nothing of what messages mean: a message is a small JSON object, and the
worker's handler takes it as it arrives.

Order: pub/sub delivers a channel's messages in the order one connection
published them, so :meth:`Bus.send` never publishes itself. It queues, and one
task writes the queue through one connection, a pipeline per pass: a race's
events reach each worker in ``seq`` order, and a busy pass of the event loop
costs one round trip to Redis, not one a message.

Faults: pub/sub is at most once. While Redis is unreachable, :meth:`send`
keeps queueing (up to ``backlog`` messages; past it the oldest are dropped and
counted) and the listener reconnects with the same backoff as the store
(:class:`server.store.faults.Patience`). A message published while a worker was not
subscribed is lost: so :attr:`Bus.on_reconnect` tells the worker when its
subscription is back, and it asks again for what it may have missed (a race's
whole state, ``game_state``, is the resynchronisation the protocol has).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Any

import redis.asyncio as redis
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Bus", "channel_of"]

log = logging.getLogger("flowergarden.server")

Message = dict[str, Any]
"""A decoded bus message: a JSON object."""


def channel_of(worker: str) -> str:
    """The pub/sub channel that ``worker`` listens on."""
    return f"fg:worker:{worker}"


class Bus:
    """A worker's end of the bus: ``async with Bus(url, worker, on_message): ...``."""

    def __init__(
        self,
        url: str,
        worker: str,
        on_message: Callable[[Message], None],
        *,
        backlog: int = 100_000,
        observe: Callable[[float], None] | None = None,
    ) -> None:
        """``on_message`` runs on the loop for every message to this worker, in order.

        ``observe`` is given how long each pipeline to Redis took, in seconds
        (for ``/metrics``).
        """
        self.worker = worker
        # A command on a pooled connection that Redis closed (it restarted) is
        # tried again on a new one: a restart costs a retry, not an error. The
        # pool waits for a free connection rather than failing: a busy pass
        # of the loop may ask for more at once than it holds (measured:
        # "Too many connections" at 1,000 players with the plain pool's 100).
        pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=64,
            timeout=None,
            retry=Retry(ExponentialBackoff(cap=1.0, base=0.05), 5),
            retry_on_error=[RedisConnectionError, RedisTimeoutError],
        )
        self.client: redis.Redis = redis.Redis.from_pool(pool)  # closes it on aclose
        self.on_reconnect: Callable[[], None] = lambda: None
        self.dropped = 0
        """Messages dropped because the backlog overflowed while Redis was away."""
        self._on_message = on_message
        self._observe = observe or (lambda _: None)
        self._backlog = backlog
        self._queue: deque[tuple[str, bytes]] = deque()
        self._wanted = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()
        self._flushing = asyncio.Lock()

    async def __aenter__(self) -> Bus:
        await self.start()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Subscribe to this worker's channel; return once subscribed."""
        self._tasks = [
            asyncio.create_task(self._listen(), name=f"bus listener {self.worker}"),
            asyncio.create_task(self._publish(), name=f"bus publisher {self.worker}"),
        ]
        await self._subscribed.wait()

    async def close(self) -> None:
        """Publish what is queued (for at most a second), then stop."""
        if self._queue:
            try:
                await asyncio.wait_for(self._flush(), timeout=1.0)
            except (TimeoutError, RedisError, OSError) as exc:
                log.warning("bus: %d messages not sent on closing: %s", len(self._queue), exc)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.client.aclose()

    def send(self, worker: str, message: Message) -> None:
        """Queue ``message`` for ``worker``; it goes out, in order, within a pass or two."""
        if len(self._queue) >= self._backlog:
            self._queue.popleft()
            self.dropped += 1
        self._queue.append((channel_of(worker), json.dumps(message).encode()))
        self._wanted.set()

    # -- tasks -----------------------------------------------------------------

    async def _publish(self) -> None:
        delay = 0.05
        while True:
            await self._wanted.wait()
            try:
                await self._flush()
            except (RedisError, OSError) as exc:
                log.warning("bus: cannot publish (%s); retrying in %.2f s", exc, delay)
                await asyncio.sleep(delay)  # a backoff, not a wait for an event
                delay = min(2 * delay, 2.0)
                continue
            delay = 0.05

    async def _flush(self) -> None:
        async with self._flushing:  # the publisher's, or close's: one at a time
            await self._flush_queue()

    async def _flush_queue(self) -> None:
        while self._queue:
            batch = list(self._queue)
            started = time.perf_counter()
            async with self.client.pipeline(transaction=False) as pipe:
                for channel, data in batch:
                    pipe.publish(channel, data)
                await pipe.execute()
            self._observe(time.perf_counter() - started)
            for _ in batch:  # only once published: a failure leaves them queued
                self._queue.popleft()
        self._wanted.clear()

    async def _listen(self) -> None:
        delay, first = 0.05, True
        while True:
            try:
                async with self.client.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(channel_of(self.worker))
                    self._subscribed.set()
                    if not first:
                        log.warning("bus: subscribed again after losing Redis")
                        self.on_reconnect()
                    first, delay = False, 0.05
                    async for raw in pubsub.listen():
                        self._deliver(raw)
            except (RedisError, OSError) as exc:
                log.warning("bus: lost the subscription (%s); again in %.2f s", exc, delay)
                await asyncio.sleep(delay)  # a backoff, not a wait for an event
                delay = min(2 * delay, 2.0)

    def _deliver(self, raw: dict[str, Any]) -> None:
        if raw.get("type") != "message":
            return
        try:
            message = json.loads(raw["data"])
        except (ValueError, TypeError):
            log.error("bus: not JSON, dropped: %r", raw.get("data"))
            return
        try:
            self._on_message(message)
        except Exception:  # a bug in one handler must not stop the listener
            log.exception("bus: handling %r failed", message)
