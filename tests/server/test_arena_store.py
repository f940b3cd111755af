"""Arenas in the store, on SQLite and PostgreSQL: scheduled once, changed only under
their owner's epoch, taken (fencing out the last owner) with their entrants, and read."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pytest

from core.arena_state import Entrant
from protocol import Rules
from server.store import arena_rows
from server.store.arena_rows import ENTRANTS, LAST_FINISHED, LISTED, ONE, KeptArena
from server.store.reads import each, first

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from server.store import Store

    from ..store_backends import AnyBackend

RATED = Rules(deal="mirror", winnable_only=True, rated=True)
HOURLY = KeptArena("hourly-1", "Hourly", RATED, 1000.0, 2800.0, "upcoming", 1)
ANN = Entrant("p-ann", "Ann", False, 0)
BOB = Entrant("p-bob", "Bob", True, 1)


@pytest.fixture
async def store(backend: AnyBackend) -> AsyncIterator[Store]:
    store = backend.store()
    await store.open()
    yield store
    await store.close()


async def test_an_arena_is_scheduled_once_and_read_back(store: Store) -> None:
    assert await store.run(arena_rows.schedule(HOURLY, 900.0))
    again = replace(HOURLY, name="Another")
    assert not await store.run(arena_rows.schedule(again, 901.0))  # the id is taken
    found = await store.read(ONE, (HOURLY.arena_id,), first(arena_rows.kept_arena))
    assert found == HOURLY
    assert await store.read(ONE, ("nope",), first(arena_rows.kept_arena)) is None


async def test_changes_are_kept_under_the_owners_epoch(store: Store) -> None:
    await store.run(arena_rows.schedule(HOURLY, 900.0))
    assert await store.run(arena_rows.changed("hourly-1", "running", (ANN, BOB), 1))
    scored = replace(ANN, score=4, streak=2, races=2, last_opponent="p-bob")
    assert await store.run(arena_rows.changed("hourly-1", "running", (scored,), 1))
    rows = await store.read(ENTRANTS, ("hourly-1",), each(arena_rows.entrant))
    assert rows == [scored, BOB]
    listed = await store.read(LISTED, (), each(arena_rows.kept_arena))
    assert [(a.arena_id, a.status, a.players) for a in listed] == [("hourly-1", "running", 2)]


async def test_a_take_fences_out_the_last_owner(store: Store) -> None:
    await store.run(arena_rows.schedule(HOURLY, 900.0))
    await store.run(arena_rows.changed("hourly-1", "running", (ANN,), 1))
    (taken,) = await store.run(arena_rows.take())
    assert (taken.epoch, taken.status, taken.entrants, taken.players) == (2, "running", (ANN,), 1)
    # The old owner's write changes nothing, and it learns so.
    left = replace(ANN, joined=False)
    assert not await store.run(arena_rows.changed("hourly-1", "finished", (left, BOB), 1))
    rows = await store.read(ENTRANTS, ("hourly-1",), each(arena_rows.entrant))
    assert rows == [ANN]
    assert await store.run(arena_rows.changed("hourly-1", "running", (BOB,), 2))
    (again,) = await store.run(arena_rows.take({"hourly-1"}))
    assert (again.epoch, again.entrants) == (3, (ANN, BOB))


async def test_a_finished_arena_is_not_taken_and_is_listed_last(store: Store) -> None:
    other = replace(HOURLY, arena_id="hourly-0", starts_wall=0.0, ends_wall=900.0)
    for arena in (HOURLY, other):
        await store.run(arena_rows.schedule(arena, 900.0))
    await store.run(arena_rows.changed("hourly-0", "finished", (replace(BOB, races=1),), 1))
    assert [a.arena_id for a in await store.run(arena_rows.take())] == ["hourly-1"]
    assert await store.run(arena_rows.take(set())) == []
    last = await store.read(LAST_FINISHED, (), first(arena_rows.kept_arena))
    assert last is not None
    assert (last.arena_id, last.status, last.players) == ("hourly-0", "finished", 1)
    listed = await store.read(LISTED, (), each(arena_rows.kept_arena))
    assert [a.arena_id for a in listed] == ["hourly-1"]
