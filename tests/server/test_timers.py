"""RaceTimers: a timer per race that fires by its deadline, re-armed only when it moves earlier."""

from __future__ import annotations

import asyncio

import pytest

from server.timers import RaceTimers


class Fired(list[str]):
    """The races whose timer fell, in order; :meth:`first` awaits the first."""

    def __init__(self) -> None:
        super().__init__()
        self.event = asyncio.Event()

    def __call__(self, game_id: str) -> None:
        self.append(game_id)
        self.event.set()

    async def first(self) -> None:
        async with asyncio.timeout(2):
            await self.event.wait()


@pytest.fixture
def fired() -> Fired:
    return Fired()


async def test_a_timer_fires_by_its_deadline(fired: Fired) -> None:
    loop = asyncio.get_running_loop()
    timers = RaceTimers(fired, loop.time)
    timers.wake("g", loop.time() + 0.05)
    await fired.first()
    assert fired == ["g"]


async def test_a_later_deadline_keeps_the_earlier_timer(fired: Fired) -> None:
    loop = asyncio.get_running_loop()
    timers = RaceTimers(fired, loop.time)
    timers.wake("g", loop.time() + 0.05)
    timers.wake("g", loop.time() + 60)  # an idle limit moved on by a play
    await fired.first()  # fires early: the tick finds nothing due and wakes again
    assert fired == ["g"]


async def test_an_earlier_deadline_sets_the_timer_again(fired: Fired) -> None:
    loop = asyncio.get_running_loop()
    timers = RaceTimers(fired, loop.time)
    timers.wake("late", loop.time() + 60)
    timers.wake("late", loop.time() + 0.05)
    await fired.first()
    assert fired == ["late"]


async def test_none_cancels_the_timer(fired: Fired) -> None:
    loop = asyncio.get_running_loop()
    timers = RaceTimers(fired, loop.time)
    timers.wake("gone", loop.time() + 0.03)
    timers.wake("gone", None)
    timers.wake("kept", loop.time() + 0.06)
    await fired.first()
    assert fired == ["kept"]
