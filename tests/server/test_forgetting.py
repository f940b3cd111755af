"""Names that free themselves (server/operator/forgetting.py): the decision, a pure function of
the players' rows and ``now`` on a hand-moved clock, and the sweep in the store."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import pytest

from core.identity import Identity
from server.operator.actions import PLAYER_ACTIONS, Order, perform
from server.operator.forgetting import DAY, Unfinished, sweep, unused
from server.operator.review import since

from ..store_backends import recorded
from .test_store import make_race

if TYPE_CHECKING:
    from ..store_backends import AnyBackend

T0 = 1_700_000_000.0
"""When the players of these tests were last seen (wall-clock seconds)."""


def player(
    player_id: str = "p1", games: int = 0, seen: float = T0, banned: bool = False
) -> Unfinished:
    return Unfinished(player_id, player_id.upper(), games, seen, banned)


def test_a_player_is_forgotten_only_past_the_days() -> None:
    players = [player("p1")]
    assert unused(players, T0 + 30 * DAY - 1, 30) == []  # the clock, moved by hand
    assert unused(players, T0 + 30 * DAY, 30) == []  # "for 30 days": not yet at 30
    assert unused(players, T0 + 30 * DAY + 1, 30) == players
    assert unused(players, T0 + 2 * DAY, 1.5) == players  # the setting


@pytest.mark.parametrize(
    "kept",
    [
        player(games=1),  # finished a race: kept for ever
        player(banned=True),  # the operator's to forget
        player("bot3"),  # the server's own bot
        player(seen=T0 + 10 * DAY),  # came back since
    ],
)
def test_who_is_kept_whatever_their_age(kept: Unfinished) -> None:
    assert unused([kept], T0 + 31 * DAY, 30) == []


def test_zero_days_forgets_nobody() -> None:
    assert unused([player()], T0 + 1000 * DAY, 0) == []


async def test_the_sweep_forgets_in_the_store_and_logs_it_as_the_servers(
    backend: AnyBackend,
) -> None:
    store = backend.store()
    await store.open()
    try:
        for player_id, name in (("p-gone", "Gone"), ("p-raced", "Raced"), ("p-other", "Other")):
            await store.add_player(Identity(player_id, name, f"hash-{name}", T0))
        await store.add_player(Identity("p-banned", "Banned", "hash-banned", T0))
        await perform(store, PLAYER_ACTIONS["ban"].script("Banned", Order("r", "op", T0)))
        race = dataclasses.replace(make_race("g1"), player_ids=("p-raced", "p-other"))
        await recorded(store, race, T0, T0)  # both finished a race: kept
        assert await store.run(sweep(T0 + 29 * DAY, 30)) == []
        lines = await store.run(sweep(T0 + 31 * DAY, 30))
        assert [(line.action, line.target, line.by) for line in lines] == [
            ("forget", "Gone", "server")
        ]
        assert await store.find_player("hash-Gone") is None
        assert {p.name for p in await store.players()} == {"Raced", "Other", "Banned"}
        assert await store.run(sweep(T0 + 32 * DAY, 30)) == []  # once
        logged = await since(store, 0)
        assert [line.action for line in logged] == ["ban", "forget"]
        await store.add_player(Identity("p-new", "gone", "hash-new", T0 + 32 * DAY))
    finally:
        await store.close()
