"""The daily deal end to end: a real server, real clients, the HTTP API (PROTOCOL.md,
"The daily deal").

The day is the server's wall clock's (``GameServer(wall=...)``), moved by hand here:
the rollover is awaited, never slept for. The first player clears at a person's pace
(the fair-play rules would flag a clear at socket speed, and a flagged clear is
nobody's ghost); the next races that clear as a ghost, card by card at its times.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import TYPE_CHECKING, Any

import engine
from core.daily import DAILY_RULES
from core.ghost import GHOST_NAME
from server.store.daily_rows import next_day, utc_day

from .conftest import TIMEOUT, apply, legal
from .test_api import get
from .test_cluster import workers  # noqa: F401  (the fixture of two workers)

if TYPE_CHECKING:
    from server.app import GameServer

    from .conftest import Client

DAY_S = 86_400.0


class Wall:
    """A wall clock a test moves: the machine's, plus ``offset`` seconds."""

    def __init__(self, offset: float = 0.0) -> None:
        self.offset = offset

    def __call__(self) -> float:
        return time.time() + self.offset


async def paced(client: Client, board: dict[str, Any]) -> list[dict[str, Any]]:
    """Play seat 0's ``board`` out at a person's pace (never under 60 ms after the card
    before, never evenly); its ``played`` acks, the other seat's left aside."""
    rng, acks = random.Random(7), []
    while legal(board):
        await asyncio.sleep(rng.uniform(0.06, 0.16))  # a hand's pace, not a wait for an event
        card = legal(board)[0]
        await client.send(type="play", card=card)
        while True:
            message = await client.recv("played")
            if message["seat"] == 0:
                break
        assert message["card"] == card, message
        acks.append(message)
        board = apply(board, card)
    return acks


async def daily(client: Client, **fields: Any) -> dict[str, Any]:
    await client.send(type="daily", **fields)
    return await client.recv("game_start")


async def told(server: GameServer, day: str) -> None:
    """Await the server's lobby being told that it is ``day``."""

    async def turned() -> None:
        while server.daily.today() != day:
            server.daily.told.clear()
            await server.daily.told.wait()

    await asyncio.wait_for(turned(), TIMEOUT)


async def first_clear(server: GameServer, ann: Client) -> tuple[dict[str, Any], list[Any]]:
    """The day's first player races the level-3 bot and clears; her ``game_start`` and acks."""
    day = server.daily.today()
    status, _, today = await get(server, "/api/daily")
    assert status == 200 and today["date"] == day and today["seed"] is None
    assert (today["players"], today["board"]) == (0, [])
    assert today["rules"] == DAILY_RULES.model_dump(mode="json")
    start = await daily(ann)
    assert (start["daily"], start["ghost"], start["bots"]) == (day, None, [False, True])
    assert start["players"] == [ann.name, "BOT-Hare"] and start["rules"] == today["rules"]
    assert start["commits"] == [today["commit"]] * 2
    acks = await paced(ann, start["boards"][0])
    over = (await ann.until("game_over"))[-1]
    assert (over["winner"], over["reason"]) == (0, "cleared")
    assert over["daily"] == {"date": day, "ranked": True, "rank": 1, "time_ms": acks[-1]["t_ms"]}
    verdict = engine.check_deal(
        winnable=True, seeds=over["seeds"], commits=start["commits"], boards=start["boards"]
    )
    assert verdict.ok, verdict.report()
    return start, acks


async def test_a_clear_is_ranked_and_raced_as_the_ghost_at_its_times(server, player):
    day = server.daily.today()
    ann = await player(server)
    start, acks = await first_clear(server, ann)
    _, _, today = await get(server, "/api/daily")
    line = {"rank": 1, "name": ann.name, "time_ms": acks[-1]["t_ms"], "count": 52}
    assert today["players"] == 1 and today["board"] == [{**line, "game_id": start["game_id"]}]
    await ann.send(type="lobby")
    lobby = await ann.recv("lobby")
    assert lobby["daily"] == {"date": day, "players": 1, "best_ms": acks[-1]["t_ms"]}

    # Her second race of the day is practice, against her own clear.
    again = await daily(ann)
    assert (again["ghost"], again["players"]) == (ann.name, [ann.name, GHOST_NAME])
    await ann.send(type="resign")
    practice = (await ann.until("game_over"))[-1]
    assert practice["daily"] == {"date": day, "ranked": False, "rank": None, "time_ms": None}

    # The next player races her clear: the ghost plays her line at her times.
    bob = await player(server)
    ghost_start = await daily(bob)
    assert (ghost_start["ghost"], ghost_start["bots"]) == (ann.name, [False, True])
    assert ghost_start["boards"] == start["boards"]
    seen = await bob.until("game_over")
    ghost = [message for message in seen if message["type"] == "played"]
    assert [m["card"] for m in ghost] == [a["card"] for a in acks]
    assert all(m["seat"] == 1 for m in ghost)
    times = [m["t_ms"] for m in ghost]
    assert times == sorted(times)
    # Each at her time, never before it, give or take a timer's lateness on a busy machine.
    assert all(0 <= m["t_ms"] - a["t_ms"] < 500 for m, a in zip(ghost, acks, strict=True))
    assert (seen[-1]["winner"], seen[-1]["reason"]) == (1, "cleared")
    assert seen[-1]["daily"] == {"date": day, "ranked": True, "rank": 2, "time_ms": None}
    # With ghost: false, the bot again.
    await bob.send(type="daily", ghost=False)
    assert (await bob.recv("game_start"))["ghost"] is None
    await bob.send(type="resign")
    assert (await bob.until("game_over"))[-1]["daily"]["ranked"] is False


async def resigned(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """A daily race resigned at once: its ``game_start`` and ``game_over``."""
    start = await daily(client)
    await client.send(type="resign")
    return start, (await client.until("game_over"))[-1]


async def test_the_day_turns_reveals_its_seed_and_streaks_count(start_server, player):
    wall = Wall()
    server = await start_server(wall=wall)
    day = server.daily.today()
    ann, bob = await player(server), await player(server)
    start, over = await resigned(ann)
    await resigned(bob)
    commit = start["commits"][0]

    # Midnight: the day turns on the wall clock, and yesterday's seed is revealed.
    wall.offset += DAY_S
    await told(server, next_day(day))
    _, _, today = await get(server, "/api/daily")
    assert today["date"] == next_day(day) and today["commit"] != commit
    assert (today["players"], today["seed"]) == (0, None)
    status, _, past = await get(server, f"/api/daily/{day}")
    assert status == 200 and past["seed"] == over["seeds"][0] and past["commit"] == commit
    assert engine.commit(bytes.fromhex(past["seed"])) == commit
    assert {line["name"] for line in past["board"]} == {ann.name, bob.name}
    verdict = engine.check_deal(
        winnable=True, seeds=[past["seed"]] * 2, commits=[commit] * 2, boards=start["boards"]
    )
    assert verdict.ok, verdict.report()

    # A second day in a row makes a streak of two; a second race that day does not.
    new_start, new_over = await resigned(ann)
    assert new_start["daily"] == next_day(day) and new_over["daily"]["ranked"] is True
    assert (await resigned(ann))[1]["daily"]["ranked"] is False
    status, _, profile = await get(server, f"/api/players/{ann.name}")
    assert (profile["daily_streak"], profile["daily_best_streak"]) == (2, 2)
    status, _, profile = await get(server, f"/api/players/{bob.name}")
    assert (profile["daily_streak"], profile["daily_best_streak"]) == (1, 1)


async def test_daily_pages_refuse_bad_and_unknown_days(server):
    day = server.daily.today()
    assert (await get(server, f"/api/daily/{day}"))[2]["seed"] is None  # not over yet
    tomorrow = next_day(day)
    for path, status, code in [
        (f"/api/daily/{tomorrow}", 404, "not_found"),  # drawn, but not shown
        ("/api/daily/1999-01-01", 404, "not_found"),
        ("/api/daily/2026-02-30", 400, "bad_request"),
        ("/api/daily/today", 400, "bad_request"),
        ("/api/daily/2026-1-01", 400, "bad_request"),
    ]:
        got, headers, body = await get(server, path)
        assert (got, body["error"]) == (status, code), path
        assert headers["access-control-allow-origin"] == "*"


async def test_the_day_turns_at_midnight_by_the_servers_timer(start_server):
    now = time.time()
    midnight = (now // DAY_S + 1) * DAY_S
    wall = Wall(midnight - 1.0 - now)  # a second before 00:00 UTC
    server = await start_server(wall=wall)
    await told(server, utc_day(midnight))


async def test_a_daily_race_and_its_ghost_survive_a_restart(backend, start_server, player, connect):
    first = await start_server(db=backend.db)
    ann = await player(first)
    start, acks = await first_clear(first, ann)
    bob = await player(first)
    ghost_start = await daily(bob)
    before = [await bob.recv("played") for _ in range(3)]  # the ghost's first cards
    await first.close()

    second = await start_server(db=backend.db)
    restored = second.lobby.race(ghost_start["game_id"])
    assert restored is not None and restored.kind.ghost is not None
    assert restored.kind.ghost.name == ann.name and restored.kind.daily == start["daily"]
    again = await connect(second)
    await again.hello(token=bob.token)
    state = await again.recv("game_state")
    assert state["game_id"] == ghost_start["game_id"] and state["players"][1] == GHOST_NAME
    seen = await again.until("game_over")
    after = [message for message in seen if message["type"] == "played"]
    # Nothing lost or played twice: the ghost goes on from where the journal left it.
    kept = sum(state["boards"][1]["foundations"].values())
    assert len(before) <= kept < 52 - 10
    line = [a["card"] for a in acks]
    assert [m["card"] for m in before] == line[: len(before)]
    assert [m["card"] for m in after] == line[kept:]
    assert seen[-1]["daily"]["ranked"] is True and seen[-1]["winner"] == 1


async def test_the_daily_pages_and_streaks_are_in_the_openapi_document(server):
    status, _, document = await get(server, "/api/openapi.json")
    assert status == 200
    paths, schemas = document["paths"], document["components"]["schemas"]
    for path in ("/api/daily", "/api/daily/{date}"):
        answer = paths[path]["get"]["responses"]["200"]["content"]["application/json"]
        assert answer["schema"] == {"$ref": "#/components/schemas/DailyAnswer"}
    assert set(paths["/api/daily/{date}"]["get"]["responses"]) >= {"400", "404"}
    assert {"date", "commit", "seed", "rules", "players", "board"} <= set(
        schemas["DailyAnswer"]["properties"]
    )
    assert {"daily_streak", "daily_best_streak"} <= set(schemas["PlayerProfile"]["properties"])


async def test_a_clear_on_one_worker_is_the_ghost_on_another(
    workers,  # noqa: F811  (test_cluster's fixture, imported above)
    player,
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    assert w1.daily.today() == w2.daily.today()
    ann = await player(w1)
    start, _ = await first_clear(w1, ann)

    async def knows_the_best() -> None:  # within a poll of the store (server/daily_watch.py)
        while (info := w2.lobby.snapshot().daily) is None or info.best_ms is None:
            w2.daily.told.clear()
            await w2.daily.told.wait()

    await asyncio.wait_for(knows_the_best(), TIMEOUT)
    bob = await player(w2)
    ghost_start = await daily(bob)
    assert ghost_start["ghost"] == ann.name and ghost_start["commits"] == start["commits"]
    assert w2.lobby.race(ghost_start["game_id"]) is not None  # raced where bob is
    await bob.send(type="resign")
    over = (await bob.until("game_over"))[-1]
    assert over["daily"] == {"date": start["daily"], "ranked": True, "rank": 2, "time_ms": None}
    assert over["seeds"][0] == (await w1.store.race(start["game_id"])).seeds[0]
