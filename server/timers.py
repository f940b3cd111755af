"""One asyncio timer per race, so that its deadlines (idle limit, grace, clock) fall on time.

The race core says when its next deadline is (a :class:`~core.events.Wake`
among its outputs); this keeps a timer that fires by then, and on firing asks
the core to apply what has passed. A timer that fires early is harmless (the
tick finds nothing due, and its own ``Wake`` sets the timer again), so a
deadline that moves later, as the idle limit does at every play, costs
nothing until the old timer fires.

Timers fall on a grid of :data:`GRID` seconds, never before their deadline:
deadlines that come within the same 10 ms are applied in one pass of the
event loop, so what they write shares one transaction. That matters for bots,
whose plays are deadlines: a thousand bot races make some 3,000 plays a
second, which would otherwise be 3,000 commits.
"""

from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["GRID", "RaceTimers"]

GRID = 0.01
"""Seconds between the moments a timer may fire."""


class RaceTimers:
    """Timers keyed by ``game_id``; ``fire(game_id)`` runs when one falls."""

    def __init__(self, fire: Callable[[str], None], clock: Callable[[], float]) -> None:
        """``clock`` is the cores' clock, in which deadlines are given."""
        self._fire = fire
        self._clock = clock
        self._timers: dict[str, tuple[asyncio.TimerHandle, float]] = {}
        """Each race's timer, and the deadline (the cores' clock) it was set for."""

    def wake(self, game_id: str, at: float | None) -> None:
        """Make sure a timer fires by ``at``, or that none is left if ``at`` is None."""
        timer = self._timers.get(game_id)
        if at is None:
            if timer is not None:
                timer[0].cancel()
                del self._timers[game_id]
            return
        if timer is not None:
            if timer[1] <= at:
                return  # it fires early enough: what nearly every play's Wake finds
            timer[0].cancel()
        loop = asyncio.get_running_loop()
        when = math.ceil((loop.time() + max(0.0, at - self._clock())) / GRID) * GRID
        self._timers[game_id] = (loop.call_at(when, self._run, game_id), at)

    def cancel_all(self) -> None:
        for timer, _ in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _run(self, game_id: str) -> None:
        del self._timers[game_id]
        self._fire(game_id)
