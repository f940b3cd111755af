"""An arena of six players on two workers (a real Redis and PostgreSQL), its owner killed
mid-arena: the standings survive, the races go on, and the arena finishes.

The owner is ``python -m server`` in a subprocess, so that it can be killed (-9: no
goodbye); the survivor runs in-process on a clock the test moves on past the arena's
end (:class:`~tests.integration.test_arenas.Ahead`), so nothing sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from server.app import GameServer
from server.config import Settings
from server.store.backends import open_store

from .admin_helpers import TOKEN, admin
from .conftest import WINNABLE
from .test_api import get
from .test_arenas import LONG, Ahead, joined, places
from .test_cluster import workers  # noqa: F401  (the fixture: two in-process workers)

if TYPE_CHECKING:
    from tests.redis_service import RedisServer

    from .conftest import Client, Servers

KILLED = 15.0
"""Seconds for the survivor to see the owner's lease lapse (3 s) and take over."""


async def races_of(clients: list[Client]) -> dict[str, list[Client]]:
    """Each client's next ``game_start`` or ``game_state``: the clients of each race, by id,
    in seat order."""
    races: dict[str, list[Client]] = {}
    seats: dict[Client, int] = {}
    for client in clients:
        start = (await client.until("game_start", "game_state"))[-1]
        races.setdefault(start["game_id"], []).append(client)
        seats[client] = start["seat"]
    for pair in races.values():
        assert len(pair) == 2
        pair.sort(key=seats.__getitem__)
    return races


async def resign(loser: Client, winner: Client, arena_id: str) -> None:
    """``loser`` resigns: the race is scored in the arena, 2 for the winner."""
    await loser.send(type="resign")
    for client in (winner, loser):
        over = (await client.until("game_over"))[-1]
        assert over["arena"]["arena_id"] == arena_id, over
        assert sorted(over["arena"]["points"]) == [0, 2]


async def test_an_arena_of_six_goes_on_and_finishes_when_its_owner_is_killed(
    servers: Servers, cli_server: Any, postgres_url: str, redis_server: RedisServer
) -> None:
    flags = ("--redis", redis_server.url, "--admin-token", TOKEN, "--idle-timeout", "3600")
    owner = await cli_server(postgres_url, *flags, "--grace", "3600", "--worker-id", "w1")
    clock = Ahead()
    config = Settings(host="127.0.0.1", port=0, db=postgres_url, **LONG)
    survivor = GameServer(
        config, open_store(postgres_url), worker="w2", redis=redis_server.url, clock=clock
    )
    await servers.stack.enter_async_context(survivor)
    port = int(owner.url.rsplit(":", 1)[1].split("/")[0])
    body = {"name": "Six", "minutes": 5, "rules": WINNABLE}
    status, _, made = await admin(port, "POST", "arenas", body)
    assert status == 201, made
    arena_id = made["arena_id"]

    clients = []
    for _ in range(6):  # every socket on the survivor: each player's home moves to the owner
        client = await servers.connect(survivor)
        await client.hello()
        await joined(client, arena_id)
        clients.append(client)
    races = await races_of(clients)  # three races, paired as they joined
    assert len(races) == 3 and not survivor.lobby.race(next(iter(races)))
    (first, second), *_ = races.values()
    await resign(second, first, arena_id)
    await races_of([first, second])  # the only two free: paired again at once
    push = (await first.until("arena"))[-1]  # then the standings, within a second
    assert places(push)[0] == (1, first.name, 2, 1)

    with contextlib.suppress(ProcessLookupError):
        owner.process.kill()  # kill -9 mid-arena: no goodbye, no suspend
    await owner.process.wait()
    for client in clients:  # the survivor takes the races and the arena, then sends them back
        await client.expect_close(1012)
    again = {}
    for client in clients:
        back = await servers.connect(survivor)
        await back.hello(token=client.token)
        again[client.name] = back
    races = await races_of(list(again.values()))  # each back in their race
    assert len(races) == 3 and survivor.lobby.has_arena(arena_id)
    pairs = list(races.values())
    await resign(pairs[1][1], pairs[1][0], arena_id)  # scored on the survivor
    rematch = await races_of(pairs[1])
    push = (await pairs[1][0].until("arena"))[-1]
    assert {(name, score) for _, name, score, _ in places(push) if score} >= {(first.name, 2)}
    assert (push["players"], push["status"]) == (6, "running")

    clock.ahead += 5 * 60 + 1  # the time is up: the races still running count when they end
    for winner, loser in (pairs[0], pairs[2], *rematch.values()):  # the last paired before
        await resign(loser, winner, arena_id)
    final = (await pairs[0][0].until("arena"))[-1]
    while final["status"] != "finished":
        final = (await pairs[0][0].until("arena"))[-1]
    assert len(final["standings"]) == 6
    assert sum(races for *_, races in places(final)) == 2 * 5  # five races, each counted
    _, _, kept = await get(survivor, f"/api/arenas/{arena_id}")
    assert kept["status"] == "finished" and places(kept) == places(final)


async def test_two_workers_on_one_schedule_make_each_arena_once_joined_from_either(
    workers: Any,  # noqa: F811  (the fixture imported above)
    player: Any,
) -> None:
    plan = "every=60 minutes=60 name=Hourly deal=mirror winnable_only=true"
    w1, w2 = await workers("w1", arenas=plan), await workers("w2", arenas=plan)
    now = time.time()  # both make the slots at once, as each does at start
    await asyncio.gather(w1.arena_schedule.make_due(now), w2.arena_schedule.make_due(now))
    _, _, listed = await get(w1, "/api/arenas")
    made = [(a["arena_id"], a["status"]) for a in listed["arenas"]]
    assert [status for _, status in made] == ["running", "upcoming"]
    for arena_id, _ in made:  # each run by one worker
        assert [w1.lobby.has_arena(arena_id), w2.lobby.has_arena(arena_id)].count(True) == 1
    running = made[0][0]
    ann, bob = await player(w1), await player(w2)
    for client in (ann, bob):  # one of them joins on the worker that does not run it
        await joined(client, running)
    await races_of([ann, bob])
