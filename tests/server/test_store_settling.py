"""A batch's frames go out in the pass that wrote it: the store says so as it settles.

A play's ``played`` waits on its batch (server/delivery.py's gates, so that a
race the store refused announces nothing). The store tells the delivery of each
batch in the call that settles it (``Store.on_settled``), before the batch's
future runs its callbacks a pass of the loop later: so an outbox that looks at
its frames in the same pass finds their gates open, and writes them at once.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import TYPE_CHECKING

from core.lobby import Lobby
from core.race_log import Entry
from server.delivery import Delivery
from server.http.metrics import Metrics
from server.peers import Alone
from server.timers import RaceTimers

from .test_journal_store import start_of
from .test_store import with_players

if TYPE_CHECKING:
    from ..store_backends import AnyBackend


async def test_the_store_tells_of_a_batch_as_it_settles_it(backend: AnyBackend) -> None:
    store = await with_players(backend)
    seen: list[str] = []
    store.on_settled = lambda future: seen.append(f"settled, done {future.done()}")
    written = store.begin_race(start_of("g1"), 1000.0)
    written.add_done_callback(lambda _: seen.append("the future's callback"))
    await written
    assert seen == ["settled, done True", "the future's callback"]
    await store.close()


async def test_a_gate_is_open_before_the_batchs_callbacks_run(backend: AnyBackend) -> None:
    store = await with_players(backend)
    refused: list[str] = []
    metrics = Metrics(Lobby(rng=random.Random(1), idle_limit=60, grace=20), {}, lambda: 0)
    delivery = Delivery(
        {}, store, Alone(), metrics, RaceTimers(print, time.monotonic),
        refused=refused.append, arenas=lambda _: asyncio.sleep(0),
    )  # fmt: skip
    await store.begin_race(start_of("g1"), 1000.0)
    written = store.journal("g1", Entry(1, 0, "AS", 0.5))
    # What an outbox finds when it looks in the pass the batch was written in:
    found: list[bool] = []
    written.add_done_callback(lambda _: found.append(gate.done()))
    gate = delivery.persist(written, "g1")
    await gate
    assert found == [True] and refused == []
    await store.close()
