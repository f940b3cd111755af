"""A crowd of racers (:mod:`bench.chaos_racers`): started together, awaited, stopped."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from .chaos_racers import Racer

__all__ = ["Crowd"]


@dataclass(slots=True)
class Crowd:
    """Racers and their tasks, for a run to start, stop and wait for."""

    racers: list[Racer] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    news: asyncio.Event = field(default_factory=asyncio.Event)
    """Set whenever any racer hears a frame (give it to each racer as ``news``)."""

    def add(self, racer: Racer) -> Racer:
        self.racers.append(racer)
        self.tasks.append(asyncio.create_task(racer.run(), name=f"racer {racer.name}"))
        return racer

    async def until(self, holds: Callable[[], bool], timeout: float, what: str) -> None:
        """Return once ``holds()`` (looked at after every frame any racer hears)."""
        try:
            async with asyncio.timeout(timeout):
                while not holds():
                    self.news.clear()
                    await self.news.wait()
        except TimeoutError:
            raise TimeoutError(f"not in {timeout} s: {what}") from None

    def stop(self) -> None:
        for racer in self.racers:
            racer.stop()

    async def finish(self, timeout: float) -> list[Racer]:
        """Wait for every racer to be done; those still going after ``timeout`` s are cut."""
        if self.tasks:
            _, pending = await asyncio.wait(self.tasks, timeout=timeout)
            for task in pending:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)
        for task in self.tasks:
            if not task.cancelled() and (exc := task.exception()) is not None:
                raise exc
        return [r for r, t in zip(self.racers, self.tasks, strict=True) if t.cancelled()]
