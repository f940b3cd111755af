"""Race ends kept for players who may not have been told them, on both stores
(server/store/end_rows.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from server.store.end_rows import OwedEnd, keep, owed_end, settle

from .test_store import ANN, BOB, with_players

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from server.store import Store

    from ..store_backends import AnyBackend


@pytest.fixture
async def store(backend: AnyBackend) -> AsyncIterator[Store]:
    store = await with_players(backend)
    yield store
    await store.close()


async def test_a_kept_end_is_each_players_until_it_is_settled(store: Store) -> None:
    states = {ANN.player_id: b'{"seat":0}', BOB.player_id: b'{"seat":1}'}
    await store.run(keep("race-1", "inc-a", 1000.0, states, told_since=0.0))
    assert await owed_end(store, ANN.player_id) == OwedEnd("race-1", "inc-a", 1000.0, '{"seat":0}')
    await store.run(settle(ANN.player_id, "race-1"))
    assert await owed_end(store, ANN.player_id) is None
    assert await owed_end(store, BOB.player_id) == OwedEnd("race-1", "inc-a", 1000.0, '{"seat":1}')


async def test_a_newer_end_replaces_an_older_one_and_never_the_reverse(store: Store) -> None:
    await store.run(keep("race-2", "inc-b", 2000.0, {ANN.player_id: b"{}"}, told_since=0.0))
    await store.run(keep("race-1", "inc-a", 1000.0, {ANN.player_id: b"[]"}, told_since=0.0))
    assert await owed_end(store, ANN.player_id) == OwedEnd("race-2", "inc-b", 2000.0, "{}")
    await store.run(settle(ANN.player_id, "race-1"))  # told an end that is not the last
    assert await owed_end(store, ANN.player_id) is not None


async def test_ends_too_old_to_be_told_go_as_another_is_kept(store: Store) -> None:
    await store.run(keep("race-1", "inc-a", 1000.0, {ANN.player_id: b"{}"}, told_since=0.0))
    await store.run(keep("race-2", "inc-a", 1200.0, {BOB.player_id: b"{}"}, told_since=1100.0))
    assert await owed_end(store, ANN.player_id) is None
    assert await owed_end(store, BOB.player_id) is not None
