"""Limits on what one client may ask of the server, without I/O.

The protocol promises that a burst of 200 messages and 50 a second sustained
are never limited. Beyond that, :class:`RateLimiter` refuses messages: the
first refusal of an episode is answered ``rate_limited``, later ones are
dropped silently, and a client that keeps sending while limited (``patience``
refused messages in one episode) is to be closed with 1008. An episode ends
once the client has slowed down enough for half the burst to refill.

The promise is about when a client *sends*, and the server sees when
messages *arrive*: a first message held up on its way (a lost segment, resent)
reaches the server with those sent after it, and the bucket would be short of
what the client was owed. So the bucket holds ``LATENESS`` seconds of
messages more than the burst: a client at the promised pace is never limited
while its messages reach the server at most that much later than others.

:class:`AddressLimit` counts what one IP address does across all its
connections: new players, wrong room codes, HTTP requests.
"""

from __future__ import annotations

from enum import Enum

from protocol import RATE_BURST, RATE_PER_S

__all__ = ["LATENESS", "AddressLimit", "Admission", "RateLimiter"]

_SLACK = 1e-6
"""A millionth of a message: the refill's float rounding (``0.02 * 50`` may be
a hair under 1) must not refuse a client that keeps exactly to the promised rate."""
LATENESS = 1.0
"""Seconds by which a client's messages may arrive late, one against another,
without counting against it (an initial retransmission timeout, RFC 6298)."""


class Admission(Enum):
    ACCEPT = "accept"
    LIMIT = "limit"
    """Refuse, and answer ``rate_limited``."""
    DROP = "drop"
    """Refuse silently: the client has been told."""
    CLOSE = "close"
    """The client goes on flooding: close the connection with 1008."""


class RateLimiter:
    """A token bucket per connection, ``capacity`` deep: the burst and ``LATENESS`` at ``rate``."""

    __slots__ = (
        "_limited", "_refused", "_tokens", "_updated", "burst", "capacity", "patience", "rate",
    )  # fmt: skip

    def __init__(
        self,
        burst: int = RATE_BURST,
        rate: float = RATE_PER_S,
        patience: int = 100,
        lateness: float = LATENESS,
    ) -> None:
        self.burst = burst
        self.rate = rate
        self.patience = patience
        self.capacity = burst + rate * lateness
        self._tokens = self.capacity
        self._updated: float | None = None
        self._limited = False
        self._refused = 0

    def admit(self, now: float) -> Admission:
        """Whether the message arriving at ``now`` may be handled."""
        if self._updated is not None:
            self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self.rate)
        self._updated = now
        if self._limited and self._tokens >= self.burst / 2:
            self._limited, self._refused = False, 0
        if self._tokens >= 1.0 - _SLACK:
            self._tokens -= 1.0
            return Admission.ACCEPT
        self._refused += 1
        if not self._limited:
            self._limited = True
            return Admission.LIMIT
        return Admission.CLOSE if self._refused > self.patience else Admission.DROP


class AddressLimit:
    """A token bucket per IP address, for what one address may do however many connections it has.

    ``burst`` actions at once, then ``per_hour`` an hour (spread evenly). A
    bucket that has filled up again is forgotten, so the table holds only
    addresses that acted lately, whatever an attacker's address range.
    """

    __slots__ = ("_buckets", "_rate", "_sweep_at", "burst")

    def __init__(self, burst: int, per_hour: float) -> None:
        self.burst = burst
        self._rate = per_hour / 3600.0
        self._buckets: dict[str, tuple[float, float]] = {}
        """Address: tokens left and when they were counted."""
        self._sweep_at = 1024

    def __len__(self) -> int:
        """How many addresses it remembers."""
        return len(self._buckets)

    def allows(self, address: str, now: float) -> bool:
        """Whether ``address`` has an action left at ``now`` (nothing is used up)."""
        return self._tokens(address, now) >= 1.0 - _SLACK

    def charge(self, address: str, now: float) -> bool:
        """Use up one action of ``address``; False (and nothing used) if none is left."""
        tokens = self._tokens(address, now)
        if tokens < 1.0 - _SLACK:
            return False
        self._buckets[address] = (tokens - 1.0, now)
        if len(self._buckets) >= self._sweep_at:
            self._sweep(now)
        return True

    def _tokens(self, address: str, now: float) -> float:
        bucket = self._buckets.get(address)
        if bucket is None:
            return float(self.burst)
        tokens, updated = bucket
        return min(float(self.burst), tokens + (now - updated) * self._rate)

    def _sweep(self, now: float) -> None:
        """Forget the addresses whose bucket is full again."""
        self._buckets = {
            address: bucket
            for address, bucket in self._buckets.items()
            if self._tokens(address, now) < self.burst
        }
        self._sweep_at = max(1024, 2 * len(self._buckets))
