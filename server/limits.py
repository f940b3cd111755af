"""Limits on what one client may ask of the server, without I/O.

The protocol promises that a burst of 200 messages and 50 a second sustained
are never limited. Beyond that, :class:`RateLimiter` refuses messages: the
first refusal of an episode is answered ``rate_limited``, later ones are
dropped silently, and a client that keeps sending while limited (``patience``
refused messages in one episode) is to be closed with 1008. An episode ends
once the client has slowed down enough for half the burst to refill.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["RateLimiter", "Verdict"]

_SLACK = 1e-6
"""A millionth of a message: the refill's float rounding (``0.02 * 50`` may be
a hair under 1) must not refuse a client that keeps exactly to the promised rate."""


class Verdict(Enum):
    ACCEPT = "accept"
    LIMIT = "limit"
    """Refuse, and answer ``rate_limited``."""
    DROP = "drop"
    """Refuse silently: the client has been told."""
    CLOSE = "close"
    """The client goes on flooding: close the connection with 1008."""


class RateLimiter:
    """A token bucket per connection."""

    __slots__ = ("_limited", "_refused", "_tokens", "_updated", "burst", "patience", "rate")

    def __init__(self, burst: int = 200, rate: float = 50.0, patience: int = 100) -> None:
        self.burst = burst
        self.rate = rate
        self.patience = patience
        self._tokens = float(burst)
        self._updated: float | None = None
        self._limited = False
        self._refused = 0

    def admit(self, now: float) -> Verdict:
        """Whether the message arriving at ``now`` may be handled."""
        if self._updated is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._updated) * self.rate)
        self._updated = now
        if self._limited and self._tokens >= self.burst / 2:
            self._limited, self._refused = False, 0
        if self._tokens >= 1.0 - _SLACK:
            self._tokens -= 1.0
            return Verdict.ACCEPT
        self._refused += 1
        if not self._limited:
            self._limited = True
            return Verdict.LIMIT
        return Verdict.CLOSE if self._refused > self.patience else Verdict.DROP
