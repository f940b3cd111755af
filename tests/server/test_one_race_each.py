"""A person races one race at a time: the store starts no second live race for them.

Each worker's lobby core pairs only people who are free there, but a worker
paused past its lease, or cut off from Redis, may still hold a seeker who
meanwhile came back on another worker and started racing there. When it
wakes it may pair them again. The store, which every worker writes, refuses
that start in the transaction that would make it: the batch's future names
the race, its ``game_start`` never goes out, and its people are sent to
connect again (server/delivery.py), where the race they really have is.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from core.ghost import GHOST_ID
from core.identity import Identity
from core.race_log import Entry

from .test_journal_store import start_of
from .test_store import ANN, BOB, CAT, DAN, FAY, make_race, with_players

if TYPE_CHECKING:
    from ..store_backends import AnyBackend


async def test_a_second_race_for_someone_racing_is_refused_and_named(
    backend: AnyBackend,
) -> None:
    store = await with_players(backend, pairs=2)
    await store.begin_race(start_of("g1"), 1000.0)  # Ann and Bob
    # Another worker, awake after a pause, pairs Ann, still a seeker there, with Cat.
    twice = dataclasses.replace(start_of("g2", 1), player_ids=(CAT.player_id, ANN.player_id))
    start, play = store.begin_race(twice, 1001.0), store.journal("g2", Entry(1, 0, "AS", 0.5))
    assert start is play  # one batch: the refusal is the race's
    assert await start == {"g2"}
    assert [live.game_id for live, _, _ in await store.live_races()] == ["g1"]
    # Nobody else is held up: Cat and Dan start a race of their own.
    assert await store.begin_race(start_of("g3", 1), 1002.0) == frozenset()
    await store.close()


async def test_a_race_ended_in_the_same_batch_frees_its_people(backend: AnyBackend) -> None:
    store = await with_players(backend)
    await store.begin_race(start_of("g1"), 1000.0)
    # An arena pairs Ann and Bob again the moment their race ends: one batch.
    ended = store.record_race(make_race("g1"), 1000.0, 1030.0, 1)
    again = store.begin_race(start_of("g2"), 1030.0)
    assert ended is again
    assert await again == frozenset()
    # Written item by item (a batch refused for another reason), still free.
    assert [live.game_id for live, _, _ in await store.live_races()] == ["g2"]
    await store.close()


async def test_bots_race_many_races_at_once(backend: AnyBackend) -> None:
    store = await with_players(backend, pairs=3)
    await store.add_player(Identity(GHOST_ID, "Ghost", "hash-ghost", 1000.0))
    # The daily ghost and a declared bot's seat: each may sit in several live races.
    for pair, game_id in ((0, "g1"), (1, "g2"), (2, "g3")):
        person = start_of(game_id, pair).player_ids[0]
        ghost = dataclasses.replace(start_of(game_id, pair), player_ids=(person, GHOST_ID))
        assert await store.begin_race(ghost, 1000.0) == frozenset()
    declared = (True, False)
    for game_id, person in (("g4", DAN.player_id), ("g5", BOB.player_id)):
        bot = dataclasses.replace(
            start_of(game_id), player_ids=(FAY.player_id, person), bots=declared
        )
        assert await store.begin_race(bot, 1001.0) == frozenset()
    assert len(await store.live_races()) == 5
    await store.close()
