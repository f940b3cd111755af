"""Race ends kept for players who may not have been told them, on both stores
(server/store/end_rows.py): written with the race's record, in its transaction."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from server.store.end_rows import OwedEnd, OwedEnds, owed_end, settle

from ..store_backends import recorded
from .test_store import ANN, BOB, make_race, with_players

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from server.store import Store

    from ..store_backends import AnyBackend


@pytest.fixture
async def store(backend: AnyBackend) -> AsyncIterator[Store]:
    store = await with_players(backend)
    yield store
    await store.close()


def owed(*players: str, teller: str = "inc-a", told_since: float = 0.0) -> OwedEnds:
    """Each of ``players`` owed the end of a race, their seat as its ``game_state``."""
    states = tuple((player, f'{{"seat":{seat}}}'.encode()) for seat, player in enumerate(players))
    return OwedEnds(teller, states, told_since)


async def test_a_recorded_race_keeps_each_players_end_until_it_is_settled(store: Store) -> None:
    await recorded(
        store, make_race("g1", winner=0), 990.0, 1000.0, owed(ANN.player_id, BOB.player_id)
    )
    assert await owed_end(store, ANN.player_id) == OwedEnd("g1", "inc-a", 1000.0, '{"seat":0}')
    await store.run(settle(ANN.player_id, "g1"))
    assert await owed_end(store, ANN.player_id) is None
    assert await owed_end(store, BOB.player_id) == OwedEnd("g1", "inc-a", 1000.0, '{"seat":1}')


async def test_a_race_recorded_without_ends_keeps_none(store: Store) -> None:
    await recorded(store, make_race("g1", winner=0), 990.0, 1000.0)
    assert await owed_end(store, ANN.player_id) is None


async def test_a_newer_end_replaces_an_older_one_and_never_the_reverse(store: Store) -> None:
    await recorded(store, make_race("g2", winner=0), 1990.0, 2000.0, owed(ANN.player_id))
    await recorded(store, make_race("g1", winner=0), 990.0, 1000.0, owed(ANN.player_id))
    assert (await owed_end(store, ANN.player_id) or OwedEnd("", "", 0, "")).race_id == "g2"
    await store.run(settle(ANN.player_id, "g1"))  # told an end that is not the last
    assert await owed_end(store, ANN.player_id) is not None


async def test_ends_too_old_to_be_told_go_as_another_is_kept(store: Store) -> None:
    await recorded(store, make_race("g1", winner=0), 990.0, 1000.0, owed(ANN.player_id))
    later = owed("p-nobody", BOB.player_id, told_since=1100.0)
    await recorded(store, make_race("g2", winner=0), 1190.0, 1200.0, later)
    assert await owed_end(store, ANN.player_id) is None
    assert await owed_end(store, BOB.player_id) is not None
