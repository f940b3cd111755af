"""Fencing: a race's writes go in only under its current epoch, on both stores.

A worker that takes a race (a restart, a takeover) draws the race's next
epoch in the store; from then on whatever the race's last owner writes, under
the epoch it had, is refused in the same transaction, and the batch's future
names the race, so that none of the frames waiting on it go out.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from core.race_log import Entry

from .test_journal_store import start_of
from .test_store import make_race, with_players

if TYPE_CHECKING:
    from ..store_backends import AnyBackend


async def test_a_race_begins_at_epoch_one_and_each_take_draws_the_next(
    backend: AnyBackend,
) -> None:
    store = await with_players(backend, pairs=3)
    await store.begin_race(start_of("g1"), 1000.0)
    await store.begin_race(start_of("g2", 1), 1001.0)
    assert [(live[0].game_id, epoch) for live, epoch in await store.take_races()] == [
        ("g1", 2),
        ("g2", 2),
    ]
    taken = await store.take_races({"g2"})
    assert [(live[0].game_id, epoch) for live, epoch in taken] == [("g2", 3)]
    assert await store.take_races({"nowhere"}) == []
    await store.close()


async def test_entries_under_an_old_epoch_are_refused_and_named(backend: AnyBackend) -> None:
    store = await with_players(backend, pairs=3)
    await store.begin_race(start_of("g1"), 1000.0)
    await store.begin_race(start_of("g2", 1), 1000.0)
    assert await store.journal("g1", Entry(1, 0, "AS", 0.5), 1) == frozenset()
    await store.take_races({"g1"})  # another worker takes g1: epoch 2
    # The paused owner goes on under epoch 1, beside a race it still owns.
    old = store.journal("g1", Entry(2, 0, "2S", 0.9), 1)
    other = store.journal("g2", Entry(1, 1, "AH", 0.7), 1)
    assert old is other  # one batch: the refusal is the race's, not the batch's
    assert await old == {"g1"}
    assert await store.journal("g1", Entry(2, 1, "AD", 1.1), 2) == frozenset()
    races = {live[0].game_id: live[1] for live, _ in await store.take_races()}
    assert [entry.what for entry in races["g1"]] == ["AS", "AD"]
    assert [entry.what for entry in races["g2"]] == ["AH"]
    await store.close()


async def test_a_record_under_an_old_epoch_is_refused_and_the_race_stays_live(
    backend: AnyBackend,
) -> None:
    store = await with_players(backend)
    await store.begin_race(start_of("g1"), 1000.0)
    await store.take_races({"g1"})
    assert await store.record_race(make_race("g1"), 1000.0, 1030.0, 1) == {"g1"}
    assert await store.race("g1") is None
    assert [live[0].game_id for live in await store.live_races()] == ["g1"]
    assert await store.record_race(make_race("g1"), 1000.0, 1030.0, 2) == frozenset()
    assert (await store.race("g1")) is not None
    assert await store.live_races() == []
    await store.close()


async def test_a_take_waits_for_a_write_under_way_and_then_fences_it(
    backend: AnyBackend,
) -> None:
    """Many writes and a take at once: each write is either before the take (and
    read by it) or refused, never written after it under the old epoch."""
    store = await with_players(backend)
    await store.begin_race(start_of("g1"), 1000.0)
    writes = [store.journal("g1", Entry(n, 0, "AS", n * 0.1), 1) for n in range(1, 4)]
    take = asyncio.ensure_future(store.take_races({"g1"}))
    later = store.journal("g1", Entry(4, 0, "2S", 0.5), 1)
    assert await asyncio.gather(*writes) == [frozenset()] * 3
    ((live, epoch),) = await take
    assert epoch == 2 and [entry.seq for entry in live[1]] == [1, 2, 3]
    assert await later == {"g1"}
    await store.close()


async def test_taking_one_race_reads_its_journal_alone(backend: AnyBackend) -> None:
    # A hello adopting its one race takes it alone: only that race and its journal are
    # read (PostgreSQL reads no other journal), the others' entries left where they are.
    store = await with_players(backend, pairs=3)
    for pair, game_id in enumerate(("g1", "g2", "g3")):
        await store.begin_race(start_of(game_id, pair), 1000.0)
    await store.journal("g1", Entry(1, 0, "AS", 0.5), 1)
    await store.journal("g2", Entry(1, 1, "AH", 0.6), 1)
    await store.journal("g2", Entry(2, 0, "2H", 0.8), 1)
    await store.journal("g3", Entry(1, 0, "AD", 0.7), 1)
    ((live, epoch),) = await store.take_races({"g2"})
    assert (live[0].game_id, epoch) == ("g2", 2)
    assert [(entry.seq, entry.what) for entry in live[1]] == [(1, "AH"), (2, "2H")]
    await store.close()


async def test_a_confirm_names_a_race_taken_since_or_ended_and_writes_nothing(
    backend: AnyBackend,
) -> None:
    """What a ``game_state`` waits for: the race is still live at the asker's epoch."""
    store = await with_players(backend, pairs=3)
    await store.begin_race(start_of("g1"), 1000.0)
    await store.begin_race(start_of("g2", 1), 1000.0)
    await store.journal("g1", Entry(1, 0, "AS", 0.5), 1)
    assert await store.confirm("g1", 1) == frozenset()
    await store.take_races({"g1"})  # another worker takes g1: epoch 2
    stale, other = store.confirm("g1", 1), store.confirm("g2", 1)
    assert stale is other  # one batch: the refusal is the race's, not the batch's
    assert await stale == {"g1"}
    # Behind a write of the race under the current epoch, in the batch after it.
    write = store.journal("g1", Entry(2, 1, "AH", 0.9), 2)
    late = store.confirm("g1", 1)
    assert await write == frozenset()
    assert await late == {"g1"}
    assert await store.confirm("g1", 2) == frozenset()
    await store.record_race(make_race("g2"), 1000.0, 1030.0, 1)
    assert await store.confirm("g2", 1) == {"g2"}  # ended: nobody runs it now
    races = {live[0].game_id: live[1] for live, _ in await store.take_races()}
    assert list(races) == ["g1"]
    assert [entry.what for entry in races["g1"]] == ["AS", "AH"]
    await store.close()
