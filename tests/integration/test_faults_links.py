"""Links between workers across a worker's restart (server/cluster/bus.py).

A finding of the fault suite (``make chaos``): a worker killed and started
again under its name logged, within two seconds of listening, ``bus: 154
messages from w2 lost`` and ``45 messages from w3 lost``, and so broke its
links with both (1012 to every socket between them), although nothing was
lost: the others went on numbering their messages to it from where they had
left its last incarnation, and its first word from each was not 1. A link
is from one incarnation to one incarnation: once a worker is born again,
the others' messages to it start at 1, and what they had queued for its
last incarnation is not sent.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

import pytest

from server.app import GameServer
from server.config import Settings
from server.store.backends import open_store

from .conftest import WINNABLE, apply, legal, seek_pair

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from tests.redis_service import RedisServer

    from .conftest import Servers


@pytest.fixture
async def workers(
    servers: Servers, postgres_url: str, redis_server: RedisServer
) -> AsyncIterator[Callable[..., Awaitable[GameServer]]]:
    """``await workers("w1")``: a worker in this process; all close before the services stop."""
    async with contextlib.AsyncExitStack() as stack:

        async def start(worker: str, **settings: Any) -> GameServer:
            config = Settings(host="127.0.0.1", port=0, db=postgres_url, **settings)
            store = open_store(postgres_url)
            server = GameServer(config, store, worker=worker, redis=redis_server.url)
            return await stack.enter_async_context(server)

        yield start
        for client in servers.clients:
            await client.ws.close()


async def test_a_worker_born_again_hears_its_links_start_at_one(
    workers, player, connect, caplog
) -> None:
    old, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w2), await player(w2)
    racing = await seek_pair(ann, bob, WINNABLE)
    board = racing.board_a()
    # Ann comes back through w1: her race's frames go from w2 to w1 over their link.
    await ann.close()
    ann = await connect(old)
    await ann.hello(token=racing.a.token)
    await ann.until("game_state")
    await old.close()  # w1 stops; another process is w1 now, born again
    new = await workers("w1")
    caplog.set_level(logging.WARNING, logger="flowergarden.server")
    again = await connect(new)
    await again.hello(token=racing.a.token)
    await again.until("game_state")
    for card in legal(board)[:1]:  # a round trip over the new link: w1 -> w2 -> w1
        await again.send(type="play", card=card, id="p")
        ack = (await again.until("played"))[-1]
        assert (ack["id"], ack["card"]) == ("p", card)
        board = apply(board, card)
    lost = [r.getMessage() for r in caplog.records if "lost" in r.getMessage()]
    assert lost == []
