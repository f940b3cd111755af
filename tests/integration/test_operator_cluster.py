"""The operator's actions across workers: made through one worker's API, applied by every
worker from the audit log (server/operator/watch.py), on real Redis and PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from . import test_cluster
from .admin_helpers import TOKEN, act
from .conftest import TIMEOUT
from .test_cluster import pair_across

if TYPE_CHECKING:
    from server.app import GameServer

    from .conftest import Client


workers = test_cluster.workers
"""Two workers on one Redis and one PostgreSQL (the fixture of test_cluster.py)."""


async def test_a_ban_through_one_worker_closes_the_player_on_the_other(workers, player) -> None:
    w1 = await workers("w1", admin_token=TOKEN)
    w2 = await workers("w2", admin_token=TOKEN)
    ann = await player(w2)
    await act(w1, "ban", ann.name, "a program")
    await ann.expect_close(4001)  # within a poll of the log: about a second


async def test_a_ban_closes_a_racer_whose_race_is_on_the_other_worker(workers, player) -> None:
    w1 = await workers("w1", admin_token=TOKEN)
    w2 = await workers("w2", admin_token=TOKEN)
    ann, bob = await player(w1), await player(w2)
    await pair_across(ann, bob)  # one of them is proxied to the other's worker now
    await act(w1, "ban", bob.name, "a program")
    seen = await bob.expect_close(4001)
    assert all(message["type"] != "error" for message in seen)
    over = (await ann.until("opponent_away", "game_over"))[-1]
    assert over["type"] in ("opponent_away", "game_over")


async def test_a_rename_frees_the_name_on_every_worker(workers, player, connect) -> None:
    w1 = await workers("w1", admin_token=TOKEN)
    w2 = await workers("w2", admin_token=TOKEN)
    ann = await player(w2)
    old = ann.name
    await act(w1, "rename", old, "offensive", name=f"{old}x")
    taker = await hello_until_welcomed(w2, connect, old)
    assert taker.player_id != ann.player_id


async def test_a_forgotten_token_is_refused_on_every_worker_at_once(
    workers, player, connect
) -> None:
    w1 = await workers("w1", admin_token=TOKEN)
    w2 = await workers("w2", admin_token=TOKEN)
    ann = await player(w2)
    await ann.close()
    await act(w1, "forget", ann.name, "asked to be")
    again = await connect(w2)  # before w2 has read the log: the store says so already
    await again.send(type="hello", name=ann.name, token=ann.token, id="h")
    await again.error("bad_token", id="h")


async def hello_until_welcomed(server: GameServer, connect: object, name: str) -> Client:
    """Say hello with ``name`` on ``server`` until it is welcomed (its registry follows the
    log within a poll); a refusal meanwhile is ``name_taken``."""
    async with asyncio.timeout(TIMEOUT):
        while True:
            client = await connect(server)  # type: ignore[operator]
            await client.send(type="hello", name=name)
            reply = await client.recv("welcome", "error")
            if reply["type"] == "welcome":
                client.welcome = reply
                return client
            assert reply["code"] == "name_taken", reply
            await client.close()
