"""Arenas on a real server with real clients: scheduled by the operator, joined, paired,
raced to the end with the standings pushed and kept, and back after a restart.

The arena's end is reached by moving the cores' clock on (:class:`Ahead`), never by
sleeping; the races' idle limit is long enough for the jump.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from protocol import Rules
from server.store import arena_rows, open_store
from server.store.reads import each

from .admin_helpers import TOKEN, admin
from .conftest import WINNABLE
from .test_api import get

if TYPE_CHECKING:
    from server.app import GameServer

    from .conftest import Client

LONG: dict[str, Any] = {"idle_timeout": 3600.0, "grace": 3600.0}
"""Races that outlive the clock's jump past an arena's end."""
WINNABLE_RULES = Rules.model_validate(WINNABLE)


class Ahead:
    """The monotonic clock, moved on by hand: ``clock.ahead += 60``."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.ahead


async def make_arena(server: GameServer, seconds: float = 60.0, name: str = "Test") -> str:
    """An arena running from now for ``seconds``, as the schedule makes one; its id."""
    arena_id = f"test-{time.monotonic_ns()}"
    now = time.time()
    assert await server.arenas.create(arena_id, name, WINNABLE_RULES, now, now + seconds)
    return arena_id


async def joined(client: Client, arena_id: str) -> dict[str, Any]:
    await client.send(type="join_arena", arena_id=arena_id, id="join")
    reply = await client.recv("arena")
    assert (reply["id"], reply["arena_id"], reply["joined"]) == ("join", arena_id, True)
    return reply


async def paired(a: Client, b: Client, arena_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both players' next ``game_start``: a race of the arena, between them."""
    start_a = (await a.until("game_start"))[-1]
    start_b = (await b.until("game_start"))[-1]
    assert start_a["game_id"] == start_b["game_id"]
    assert start_a["arena_id"] == start_b["arena_id"] == arena_id
    return start_a, start_b


async def resigned(loser: Client, winner: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """``loser`` resigns; both players' ``game_over``."""
    await loser.send(type="resign")
    return (await winner.until("game_over"))[-1], (await loser.until("game_over"))[-1]


def places(message: dict[str, Any]) -> list[tuple[int, str, int, int]]:
    return [(s["rank"], s["name"], s["score"], s["races"]) for s in message["standings"]]


async def test_the_operator_schedules_an_arena_that_the_api_and_the_lobby_list(
    start_server, player
):
    server = await start_server(admin_token=TOKEN)
    status, _, refused = await admin(server, "POST", "arenas", {"name": "X", "minutes": 0})
    assert (status, refused["error"]) == (400, "bad_request")
    past = {"name": "Old", "minutes": 5, "starts_at": "2001-01-01T00:00:00+00:00"}
    assert (await admin(server, "POST", "arenas", past))[0] == 400
    body = {"name": "Evening", "minutes": 30, "rules": WINNABLE}
    status, _, made = await admin(server, "POST", "arenas", body)
    assert status == 201, made
    assert (made["name"], made["status"], made["standings"], made["players"]) == (
        "Evening", "running", [], 0
    )  # fmt: skip
    status, _, listed = await get(server, "/api/arenas")
    assert status == 200
    assert [(a["arena_id"], a["status"]) for a in listed["arenas"]] == [
        (made["arena_id"], "running")
    ]
    status, _, one = await get(server, f"/api/arenas/{made['arena_id']}")
    assert status == 200 and one["rules"]["deal"] == "mirror" and one["standings"] == []
    status, _, unknown = await get(server, "/api/arenas/no-such-arena")
    assert (status, unknown["error"]) == (404, "arena_not_found")
    ann = await player(server)
    await ann.send(type="lobby")
    lobby = await ann.recv("lobby")
    assert [a["name"] for a in lobby["arenas"]] == ["Evening"]
    await joined(ann, made["arena_id"])
    _, _, one = await get(server, f"/api/arenas/{made['arena_id']}")
    assert [(s["name"], s["races"]) for s in one["standings"]] == [(ann.name, 0)]


async def test_an_arena_pairs_scores_pushes_and_ends_with_its_last_race_counted(
    start_server, player
):
    clock = Ahead()
    server = await start_server(clock=clock, **LONG)
    arena_id = await make_arena(server)
    ann, bob = await player(server), await player(server)
    await joined(ann, arena_id)
    await joined(bob, arena_id)
    first, _ = await paired(ann, bob, arena_id)
    winner, loser = (ann, bob) if first["seat"] == 0 else (bob, ann)
    over, _ = await resigned(loser, winner)
    assert over["arena"]["arena_id"] == arena_id and sorted(over["arena"]["points"]) == [0, 2]
    await paired(ann, bob, arena_id)  # at once again: nobody else is free
    push = (await winner.until("arena"))[-1]  # the standings, within a second
    assert places(push)[0] == (1, winner.name, 2, 1)
    assert push["you"] == {"rank": 1, "score": 2, "streak": 1, "races": 1}
    clock.ahead += 61.0  # the time is up while the second race runs
    over, _ = await resigned(winner, loser)  # it still counts: 2 for the other player
    assert sorted(over["arena"]["points"]) == [0, 2]
    final = (await ann.until("arena"))[-1]
    assert final["status"] == "finished"
    assert sorted(places(final)) == sorted([(1, ann.name, 2, 2), (1, bob.name, 2, 2)])
    await ann.quiet()  # and no race is paired after the end
    _, _, kept = await get(server, f"/api/arenas/{arena_id}")
    assert kept["status"] == "finished" and places(kept) == places(final)
    _, _, listed = await get(server, "/api/arenas")
    assert [(a["arena_id"], a["status"]) for a in listed["arenas"]] == [(arena_id, "finished")]


async def test_an_arena_survives_a_restart_with_its_standings(tmp_path, start_server, connect):
    db = str(tmp_path / "arena.sqlite3")
    first = await start_server(db=db, **LONG)
    arena_id = await make_arena(first, 600.0)
    clients = [await connect(first), await connect(first)]
    for client in clients:
        await client.hello()
        await joined(client, arena_id)
    ann, bob = clients
    start, _ = await paired(ann, bob, arena_id)
    winner, loser = (ann, bob) if start["seat"] == 0 else (bob, ann)
    await resigned(loser, winner)
    await paired(ann, bob, arena_id)
    await first.close()
    second = await start_server(db=db, **LONG)
    assert second.lobby.has_arena(arena_id)
    again = []
    for client in (winner, loser):
        back = await connect(second)
        await back.hello(token=client.token)
        again.append(back)
    await again[1].send(type="resign")  # the race went on through the restart
    over = (await again[0].until("game_over"))[-1]
    assert sorted(over["arena"]["points"]) == [0, 2]
    await paired(again[0], again[1], arena_id)  # and they are paired again
    push = (await again[0].until("arena"))[-1]
    assert places(push)[0] == (1, winner.name, 4, 2)  # two wins: 2 and 2 (no streak yet)


async def test_a_recurring_schedule_makes_each_arena_once_across_restarts(
    tmp_path, start_server, player
):
    db = str(tmp_path / "hourly.sqlite3")
    plan = "every=60 minutes=60 name=Hourly deal=mirror winnable_only=true"
    first = await start_server(db=db, arenas=plan)
    await first.arena_schedule.make_due(time.time())  # as its task does at start
    _, _, listed = await get(first, "/api/arenas")
    made = [(a["arena_id"], a["status"]) for a in listed["arenas"]]
    assert [status for _, status in made] == ["running", "upcoming"]
    assert all(arena_id.startswith("hourly-") for arena_id, _ in made)
    ann = await player(first)
    await ann.send(type="lobby")
    assert [a["status"] for a in (await ann.recv("lobby"))["arenas"]] == ["running", "upcoming"]
    await first.close()
    second = await start_server(db=db, arenas=plan)  # takes them back, makes none again
    await second.arena_schedule.make_due(time.time())
    _, _, again = await get(second, "/api/arenas")
    assert [(a["arena_id"], a["status"]) for a in again["arenas"]] == made
    assert all(second.lobby.has_arena(arena_id) for arena_id, _ in made)


async def test_an_arena_another_process_took_is_let_go_of_and_its_change_never_told(
    servers, start_server, player
):
    db = str(servers.tmp_path / "fenced.sqlite3")
    server = await start_server(db=db)
    arena_id = await make_arena(server)
    ann = await player(server)
    await joined(ann, arena_id)
    other = open_store(db)  # another server, on the same store, takes the arena
    await other.open()
    (taken,) = await other.run(arena_rows.take({arena_id}))
    assert taken.epoch == 2 and [e.name for e in taken.entrants] == [ann.name]
    await ann.send(type="leave_arena", id="leave")  # a change the store refuses
    seen = await ann.expect_close(1012)  # sent to the arena's new owner
    assert all(message["type"] != "arena" for message in seen), seen
    assert not server.lobby.has_arena(arena_id)
    rows = await other.read(arena_rows.ENTRANTS, (arena_id,), each(arena_rows.entrant))
    assert [(row.name, row.joined) for row in rows] == [(ann.name, True)]  # never kept
    await other.close()
