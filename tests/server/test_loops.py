"""A background loop stops when told, even when a cancellation is lost (server/loops.py).

A worker's beat, cancelled at shutdown, went on beating: the cancellation had
come as a Redis command's answer did, and ``asyncio.wait_for`` (through which
redis-py sends each command) returned the answer instead. The shutdown awaited
the beat for ever (a multi-worker test's teardown hung one run in fifteen).
"""

from __future__ import annotations

import asyncio

from server.loops import Loop

WAIT = 5.0
"""Seconds any step here may take at most: far more than it does."""


async def test_a_loop_stops_though_its_round_lost_the_cancellation() -> None:
    asked = asyncio.Event()
    answer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    rounds = 0

    async def round_() -> float:
        nonlocal rounds
        rounds += 1
        if rounds > 1:  # a second round waits for ever: only stopping for sure ends it
            await asyncio.Event().wait()
        asked.set()
        await asyncio.wait_for(answer, WAIT)  # as redis-py sends a command
        return 0.0

    looping = Loop("test", round_, first=0.0)
    looping.start()
    await asyncio.wait_for(asked.wait(), WAIT)
    answer.set_result(None)  # the answer comes as the loop is stopped: on Python 3.11,
    await asyncio.wait_for(looping.stop(), WAIT)  # wait_for returns it, cancellation lost
    assert rounds == 1


async def test_a_loop_stopped_in_its_pause_runs_no_more_rounds() -> None:
    rounds = 0

    async def round_() -> float:
        nonlocal rounds
        rounds += 1
        return 3600.0

    looping = Loop("test", round_, first=3600.0)
    looping.start()
    await asyncio.sleep(0)  # the loop begins its pause
    await asyncio.wait_for(looping.stop(), WAIT)
    assert rounds == 0


async def test_a_loop_runs_its_rounds_a_pause_apart() -> None:
    three = asyncio.Event()
    rounds = 0

    async def round_() -> float:
        nonlocal rounds
        rounds += 1
        if rounds == 3:
            three.set()
        return 0.0

    looping = Loop("test", round_, first=0.0)
    looping.start()
    await asyncio.wait_for(three.wait(), WAIT)
    await looping.stop()
    assert rounds >= 3
