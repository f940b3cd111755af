"""The one retry policy: how long to wait before trying again, for everything that retries.

Every retry in the project takes its delays from a :class:`Backoff`: the
store's writes that fail for a passing reason, the Redis bus and the
cluster's calls, the supervisor's restarts of a worker, and the clients'
reconnects. Each caller waits in its own way (a thread's event the store's
closing can set, an asyncio event, a reconnect a person can cut short), so
this module only decides: it is pure, takes no clock and sleeps nowhere.

Delays double from :attr:`Backoff.first` up to :attr:`Backoff.cap`. With
``jitter`` each delay is drawn from its upper ``jitter`` share (``0.5``: half
the step, plus up to the other half at random, as the clients do, so that
a thousand clients cut off at once do not come back at once).
:meth:`Backoff.after` gives the delay before attempt ``n``;
:meth:`Backoff.delays` the whole series. :class:`Attempts` keeps the count
for a loop that wants it kept, and starts over once a run lasted
``healthy`` seconds (a worker that crashes once a day is restarted at once).

redis-py retries its own commands with an object of its own interface:
:func:`server.cluster.bus.redis_retry` hands it these same delays.

The named policies below (:data:`STORE`, :data:`REDIS`, :data:`RESTART`,
:data:`CLIENT`) are the project's settings, each written once.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["CLIENT", "REDIS", "RESTART", "STORE", "Attempts", "Backoff"]


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential delays from ``first`` to ``cap`` seconds, with an optional jitter share."""

    first: float
    cap: float
    jitter: float = 0.0
    """The share of each delay drawn at random (0: none; 0.5: the upper half is random)."""

    def __post_init__(self) -> None:
        if not 0 < self.first <= self.cap or not 0.0 <= self.jitter <= 1.0:
            raise ValueError(f"not a backoff: {self!r}")

    def step(self, attempt: int) -> float:
        """The longest wait before attempt ``attempt`` (1 for the first retry)."""
        if attempt < 1:
            raise ValueError("attempts count from 1")
        # Capped before the power can overflow: 2**1100 is not a float.
        return min(self.cap, self.first * 2.0 ** min(attempt - 1, 64))

    def after(self, attempt: int, rng: random.Random | None = None) -> float:
        """Seconds to wait before attempt ``attempt`` (1, 2, ...): the step, less its jitter."""
        step = self.step(attempt)
        if not self.jitter:
            return step
        fixed = step * (1.0 - self.jitter)
        return fixed + (rng or random).uniform(0.0, step - fixed)

    def delays(self, rng: random.Random | None = None) -> Iterator[float]:
        """Every delay in turn, without end: ``zip(range(n), policy.delays())`` bounds it."""
        attempt = 1
        while True:
            yield self.after(attempt, rng)
            attempt += 1


STORE = Backoff(first=0.05, cap=2.0)
"""A store write that failed for a passing reason (a full disk, a lost connection)."""
REDIS = Backoff(first=0.05, cap=1.0)
"""A Redis command, the bus's publisher and listener, the cluster saying again what it holds."""
RESTART = Backoff(first=0.5, cap=10.0)
"""The supervisor starting a worker again (server/cluster/workers.py)."""
CLIENT = Backoff(first=0.5, cap=15.0, jitter=0.5)
"""A client's reconnect, the terminal client's and the bot's."""


class Attempts:
    """A count of failures, for a loop that waits ``policy.after(n)`` between its tries.

    :meth:`failed` counts one more and gives the wait before the next try;
    :meth:`succeeded` starts over. With ``healthy``, a failure that comes
    after a run of at least that many seconds starts over first: the
    caller says how long the run lasted.
    """

    __slots__ = ("_failures", "healthy", "policy")

    def __init__(self, policy: Backoff, healthy: float | None = None) -> None:
        self.policy, self.healthy = policy, healthy
        self._failures = 0

    @property
    def failures(self) -> int:
        """Failures since the last success."""
        return self._failures

    def failed(self, ran: float = 0.0, rng: random.Random | None = None) -> float:
        """One more failure, after a run of ``ran`` seconds: the wait before the next try."""
        if self.healthy is not None and ran >= self.healthy:
            self._failures = 0
        self._failures += 1
        return self.policy.after(self._failures, rng)

    def succeeded(self) -> None:
        self._failures = 0
