"""Messages between workers, over Redis pub/sub, numbered so that a lost one is noticed.

Theory of operation
-------------------
Several workers serve one lobby (docs/design.md, "Several workers"). What one
worker must tell another (a play for the race it owns, a frame for a player
connected to it) goes as one Redis ``PUBLISH`` to the receiver's channel,
``fg:worker:<id>``; what every worker must hear (that a worker was born) goes
to ``fg:all``. A message is a typed value (:mod:`server.cluster.to_home`,
:mod:`server.cluster.to_socket`, :mod:`server.cluster.to_worker`), turned
into bytes in one place (:mod:`server.cluster.bus_codec`).

Order: pub/sub delivers a channel's messages in the order one connection
published them, so :meth:`Bus.send` never publishes itself. It queues, and one
task writes the queue through one connection, a pipeline per pass, with what
the pass has for each receiver as one batch (:func:`~.bus_codec.encode_batch`):
a race's events reach each worker in ``seq`` order, and a busy pass of the
event loop costs one round trip to Redis and one message a receiver, not one
a message.

Loss: pub/sub is at most once: a message published while the receiver was not
subscribed, or dropped from a full backlog while Redis was away, is gone. So
each message carries its number on its *link*, from one sender incarnation to
one receiver, and the receiver checks that each link's numbers follow on. A
message that never came shows as a gap at the next one, and a sender that
restarted as a new incarnation; either way the receiver is told
(``on_broken``) and resynchronises what went over that link, without guessing
what was lost. :meth:`Bus.still` sends each link a numbered :class:`Still`
once a beat, so that a lost last message is noticed within a beat.
(``python -m bench.bus`` compares this with Redis Streams and acknowledgement.)

Faults: while Redis is unreachable :meth:`send` keeps queueing (up to
``backlog`` messages; past it the oldest are dropped and counted), the
publisher and the listener try again with the one retry policy
(:data:`core.backoff.REDIS`), and redis-py's own retries of a command take the
same delays (:class:`RedisBackoff`). Commands time out after
:data:`COMMAND_TIMEOUT`, so that a stalled Redis cannot stall a worker's beat.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import TYPE_CHECKING

import redis.asyncio as redis
from redis.backoff import AbstractBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from core.backoff import REDIS, Attempts, Backoff

from .bus_codec import Envelope, MalformedMessage, decode_all, encode, encode_batch
from .to_worker import Still

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from .bus_codec import BusMessage

__all__ = ["ALL", "COMMAND_TIMEOUT", "Bus", "RedisBackoff", "channel_of"]

log = logging.getLogger("flowergarden.server")

ALL = "fg:all"
"""The channel every worker listens on, beside its own."""
COMMAND_TIMEOUT = 1.5
"""Seconds a Redis command may take before it fails: half a lease."""


def channel_of(worker: str) -> str:
    """The pub/sub channel that ``worker`` listens on."""
    return f"fg:worker:{worker}"


class RedisBackoff(AbstractBackoff):
    """redis-py's retries of a command, on the project's one retry policy."""

    def __init__(self, policy: Backoff = REDIS) -> None:
        self._policy = policy

    def reset(self) -> None:
        return None

    def compute(self, failures: int) -> float:
        return self._policy.after(max(1, failures))


def redis_client(url: str, *, timeout: float | None) -> redis.Redis:
    """A client whose commands are retried on a new connection (a restarted Redis costs a
    retry, not an error) and wait for a free connection rather than fail (a busy pass of
    the loop may ask for more at once than the pool holds: "Too many connections" at
    1,000 players with the plain pool's 100)."""
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=64,
        timeout=None,
        socket_timeout=timeout,
        socket_connect_timeout=COMMAND_TIMEOUT,
        retry=Retry(RedisBackoff(), 5),
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
    )
    return redis.Redis.from_pool(pool)  # closes it on aclose


class Bus:
    """A worker's end of the bus: ``async with Bus(url, worker, incarnation, on_message): ...``."""

    def __init__(
        self,
        url: str,
        worker: str,
        incarnation: str,
        on_message: Callable[[Envelope], None],
        *,
        backlog: int = 100_000,
        observe: Callable[[float], None] | None = None,
    ) -> None:
        """``on_message`` runs on the loop for every message to this worker, in order.

        ``observe`` is given how long each pipeline to Redis took, in seconds
        (for ``/metrics``).
        """
        self.worker, self.incarnation = worker, incarnation
        self.client = redis_client(url, timeout=COMMAND_TIMEOUT)
        self._listening = redis_client(url, timeout=None)  # a subscription may be quiet
        self.on_reconnect: Callable[[], None] = lambda: None
        self.on_broken: Callable[[str, bool], None] = lambda sender, reborn: None
        """A link from ``sender`` lost a message (False), or ``sender`` was born again (True)."""
        self.dropped = 0
        """Messages dropped because the backlog overflowed while Redis was away."""
        self._on_message = on_message
        self._observe = observe or (lambda _: None)
        self._backlog = backlog
        self._queue: deque[tuple[str, bytes]] = deque()
        self._sent: dict[str, int] = {}
        """The number of the last message sent on each link, by receiver."""
        self._heard: dict[str, tuple[str, int, int]] = {}
        """Each sender's incarnation, and the first and last numbers heard on its link."""
        self._wanted = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False
        """Set on closing: the tasks end at their next turn, should a cancellation be lost
        (``server/loops.py`` says how)."""
        self._subscribed = asyncio.Event()
        self._flushing = asyncio.Lock()

    async def __aenter__(self) -> Bus:
        await self.start()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Subscribe to this worker's channel and :data:`ALL`; return once subscribed."""
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
        self._closing = True
        self._wanted.set()
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            # A listener whose cancellation was lost waits for the next message: closing
            # its connection below ends that wait, and the listener with it.
            await asyncio.wait(self._tasks, timeout=1.0)
        await self.client.aclose()
        await self._listening.aclose()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def send(self, worker: str, message: BusMessage) -> None:
        """Queue ``message`` for ``worker``; it goes out, in order, within a pass or two."""
        seq = self._sent.get(worker, 0) + 1
        self._sent[worker] = seq
        self._enqueue(channel_of(worker), Envelope(self.worker, self.incarnation, seq, message))

    def broadcast(self, message: BusMessage) -> None:
        """Queue ``message`` for every worker (on no link: it is not numbered)."""
        self._enqueue(ALL, Envelope(self.worker, self.incarnation, 0, message))

    def born_again(self, worker: str, incarnation: str) -> None:
        """``worker`` is a new incarnation: the link to it starts over at 1, and what is
        queued for it was for its last incarnation, which is gone: it is not sent.

        Numbering on from where the last incarnation was left, its first word
        from here would look to it like messages lost, and it would break a
        link that lost nothing. A worker that no link from here has reached
        yet has only started: news, not a fault.
        """
        if self._sent.pop(worker, None) is None:
            log.info("bus: %s started (%s)", worker, incarnation)
        else:
            log.warning("bus: %s was born again (%s): its links start over", worker, incarnation)
        stale = channel_of(worker)
        self._queue = deque(item for item in self._queue if item[0] != stale)

    @property
    def receivers(self) -> set[str]:
        """Every worker that a link from here has carried a message to."""
        return set(self._sent)

    def still(self, workers: Iterable[str]) -> None:
        """Tell each of ``workers`` that its link from here is whole up to now."""
        for worker in workers:
            self.send(worker, Still())

    def _enqueue(self, channel: str, envelope: Envelope) -> None:
        if len(self._queue) >= self._backlog:
            self._queue.popleft()
            self.dropped += 1
        self._queue.append((channel, encode(envelope)))
        self._wanted.set()

    # -- tasks -----------------------------------------------------------------

    async def _publish(self) -> None:
        attempts = Attempts(REDIS)
        while not self._closing:
            await self._wanted.wait()
            try:
                await self._flush()
            except (RedisError, OSError) as exc:
                delay = attempts.failed()
                log.warning("bus: cannot publish (%s); retrying in %.2f s", exc, delay)
                await asyncio.sleep(delay)  # a backoff, not a wait for an event
                continue
            attempts.succeeded()

    async def _flush(self) -> None:
        async with self._flushing:  # the publisher's, or close's: one at a time
            while self._queue:
                batch = list(self._queue)
                by_receiver: dict[str, list[bytes]] = {}
                for channel, data in batch:
                    by_receiver.setdefault(channel, []).append(data)
                started = time.perf_counter()
                async with self.client.pipeline(transaction=False) as pipe:
                    for channel, encoded in by_receiver.items():
                        pipe.publish(
                            channel, encoded[0] if len(encoded) == 1 else encode_batch(encoded)
                        )
                    await pipe.execute()
                self._observe(time.perf_counter() - started)
                for item in batch:  # only once published: a failure leaves them queued
                    if self._queue and self._queue[0] is item:  # not dropped meanwhile
                        self._queue.popleft()
            self._wanted.clear()

    async def _listen(self) -> None:
        attempts, first = Attempts(REDIS), True
        while not self._closing:
            try:
                async with self._listening.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(channel_of(self.worker), ALL)
                    self._subscribed.set()
                    if not first:
                        log.warning("bus: subscribed again after losing Redis")
                        self.on_reconnect()
                    first = False
                    attempts.succeeded()
                    async for raw in pubsub.listen():
                        if self._closing:
                            return
                        if raw.get("type") == "message":
                            self._deliver(raw["data"])
            except (RedisError, OSError) as exc:
                delay = attempts.failed()
                log.warning("bus: lost the subscription (%s); again in %.2f s", exc, delay)
                await asyncio.sleep(delay)  # a backoff, not a wait for an event

    def _deliver(self, data: bytes) -> None:
        try:
            envelopes = decode_all(data)
        except MalformedMessage as exc:
            log.error("bus: dropped: %s", exc)
            return
        for envelope in envelopes:
            self._deliver_one(envelope)

    def _deliver_one(self, envelope: Envelope) -> None:
        if envelope.sender == self.worker and envelope.incarnation == self.incarnation:
            return  # our own word to every worker
        if envelope.seq and not self._check_link(envelope):
            return
        if isinstance(envelope.message, Still):
            return
        try:
            self._on_message(envelope)
        except Exception:  # a bug in one handler must not stop the listener
            log.exception("bus: handling %r failed", envelope.message)

    def _check_link(self, envelope: Envelope) -> bool:
        """Note the message's number on its link; a gap or a new incarnation breaks it.

        False for a message heard already: a publish that timed out may have reached
        Redis all the same (its answer was lost, not the message), and the sender
        publishes it again. Heard twice, it would read as a link gone backwards.

        A number below the first heard on the link was never heard: the sender
        numbers afresh. It learned that this worker was born again (:meth:`born_again`)
        after this incarnation had heard it number on to the last one. Dropped as
        heard already, the new link's first messages were lost: a racer's
        ``game_state`` among them (``make chaos``'s seq gaps, and a fresh clone's CI).
        """
        sender, number = envelope.sender, envelope.seq
        incarnation, first, last = self._heard.get(sender, (envelope.incarnation, 0, 0))
        if incarnation == envelope.incarnation and number <= last:
            if number >= first:
                return False
            log.warning("bus: %s numbers its link to this worker afresh", sender)
            first, last = number, 0
        elif incarnation != envelope.incarnation or not first:
            first = number
        self._heard[sender] = (envelope.incarnation, first, number)
        if incarnation != envelope.incarnation:
            self.on_broken(sender, True)
        elif number != last + 1:  # the first word from it too: its link starts at 1
            log.warning("bus: %d messages from %s lost", number - last - 1, sender)
            self.on_broken(sender, False)
        return True
