"""Who the server's players are: the bots it makes at start (server/identities.py)."""

from __future__ import annotations

import logging
import random
import time
from typing import TYPE_CHECKING

from core.bots import BOT_NAMES, bot_id
from core.ghost import GHOST_ID
from core.identity import Identity, hash_token
from core.lobby import Lobby
from server.config import Settings
from server.http.metrics import Metrics
from server.identities import Identities
from server.peers import Alone

from .test_store import with_players

if TYPE_CHECKING:
    import pytest

    from ..store_backends import AnyBackend


def identities_of(store: object) -> Identities:
    lobby = Lobby(rng=random.Random(1), idle_limit=60, grace=20)
    metrics = Metrics(lobby, {}, lambda: 0)
    return Identities(store, Settings(), time.monotonic, metrics, Alone())  # type: ignore[arg-type]


async def test_bots_another_worker_made_first_are_learned_not_warned_of(
    backend: AnyBackend, caplog: pytest.LogCaptureFixture
) -> None:
    """Workers started together each read the store before any made the bots: the one
    that finds them made is not at fault, and knows them."""
    store = await with_players(backend)
    made_by_another = identities_of(store)
    await made_by_another.add_bots()
    late = identities_of(store)  # read the store before the bots were in it
    with caplog.at_level(logging.WARNING, logger="flowergarden.server"):
        await late.add_bots()
    assert [r.getMessage() for r in caplog.records] == []
    assert all(late.registry.knows(bot_id(level)) for level in BOT_NAMES)
    assert late.registry.knows(GHOST_ID)
    await store.close()


async def test_a_bot_whose_name_a_person_has_is_warned_of(
    backend: AnyBackend, caplog: pytest.LogCaptureFixture
) -> None:
    store = await with_players(backend)
    name = BOT_NAMES[1]
    await store.add_player(Identity("someone", name, hash_token("t" * 43), 1.0))
    with caplog.at_level(logging.WARNING, logger="flowergarden.server"):
        await identities_of(store).add_bots()
    assert [r.getMessage().split(":")[0] for r in caplog.records] == [f"bot {name} not added"]
    await store.close()
