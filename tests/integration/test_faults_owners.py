"""Races and their owners when workers fence each other (server/cluster/cluster.py, shared.py).

Findings of ``make chaos`` (races moved by takeovers, fencing and a Redis
restarted empty, many times over):

* A worker fenced out of a race that then ended there unlisted the race in
  ``fg:races`` (``disown``), though another worker owned it now; and a worker
  fenced out took the race back from the store whenever nobody listed it,
  without listing it: two workers fenced each other in turn for minutes
  (``race 0477e0e56434f64f ended: win abandoned`` on w1, w2, w1, w2, ... every
  30 s, never recorded). A worker unlists only a race listed as its own, and
  takes a race back only by listing it first.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

import pytest
from redis.asyncio import Redis

from server.app import GameServer
from server.config import Settings
from server.store.backends import open_store

from .conftest import TIMEOUT, WINNABLE, seek_pair
from .test_faults_takeover import POLL

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


async def test_a_race_that_ended_on_a_fenced_worker_stays_listed_with_its_owner(
    workers, player, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    game_id = (await seek_pair(ann, bob, WINNABLE)).game_id
    await w2.restore_races({game_id})  # as a takeover by w2: the race's next epoch
    async with Redis.from_url(redis_server.url) as redis:
        await redis.hset("fg:races", game_id, "w2")  # and w2's claim
        await ann.send(type="resign")  # w1, fenced out, ends the race: its record is refused
        await ann.expect_close(1012)
        assert await redis.hget("fg:races", game_id) == b"w2"
    assert w1.lobby.race(game_id) is None and w2.lobby.race(game_id) is not None


async def test_a_worker_fenced_out_of_an_unlisted_race_lists_it_to_take_it_back(
    workers, player, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    await w2.restore_races({racing.game_id})  # the race's next epoch, listed nowhere
    async with Redis.from_url(redis_server.url) as redis:
        await redis.hdel("fg:races", racing.game_id)  # as Redis restarted empty
        await ann.send(type="resign")  # refused: w1 takes the race back, listing it first
        await ann.expect_close(1012)
        async with asyncio.timeout(TIMEOUT):
            while await redis.hget("fg:races", racing.game_id) is None:
                await asyncio.sleep(POLL)  # polling Redis, within the deadline
        assert await redis.hget("fg:races", racing.game_id) == b"w1"
