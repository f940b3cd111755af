"""One asyncio timer per race, so that its deadlines (idle limit, grace, clock) fall on time.

The race core only says when its next deadline is; this keeps a timer that
fires by then and asks the core to apply what has passed. A timer that fires
early is harmless (the tick finds nothing due and the timer is set again), so
a deadline that moves later, as the idle limit does at every play, costs
nothing until the old timer fires.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["RaceTimers"]


class RaceTimers:
    """Timers keyed by ``game_id``; ``fire(game_id)`` runs when one falls."""

    def __init__(
        self,
        deadline: Callable[[str], float | None],
        fire: Callable[[str], None],
        clock: Callable[[], float],
    ) -> None:
        self._deadline = deadline
        self._fire = fire
        self._clock = clock
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def schedule(self, game_id: str) -> None:
        """Make sure a timer fires by the race's next deadline, or none if it has none."""
        deadline = self._deadline(game_id)
        timer = self._timers.get(game_id)
        if deadline is None:
            if timer is not None:
                timer.cancel()
                del self._timers[game_id]
            return
        loop = asyncio.get_running_loop()
        when = loop.time() + max(0.0, deadline - self._clock())
        if timer is not None:
            if timer.when() <= when:
                return
            timer.cancel()
        self._timers[game_id] = loop.call_at(when, self._run, game_id)

    def ensure(self, game_id: str) -> None:
        """Like :meth:`schedule`, but keep the race's timer if it has one (it may fire early)."""
        if game_id not in self._timers:
            self.schedule(game_id)

    def cancel_all(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _run(self, game_id: str) -> None:
        del self._timers[game_id]
        self._fire(game_id)
        self.schedule(game_id)
