"""The Daily entry, a race against the ghost, the day's board, the arenas list and an
arena race, driven by Pilot at 80x24 against a scripted server that speaks revision 3
(``lobby.daily``, ``lobby.arenas``, ``daily``, ``join_arena``, ``leave_arena``, ``arena``)
and a stub of its HTTP API (``GET /api/daily``, a profile's streak).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from client.api_client import ApiClient
from client.options import Options
from client.textual_app import FlowerGardenApp
from protocol import ArenaInfo, DailyInfo, DailyResult
from protocol.competitions import ArenaResult

from .apistub import ApiStub
from .conftest import driving, flat, screen_lines
from .scripted import ScriptedServer
from .test_competitions import DAY, NOON, WALL, arena
from .test_screens import Clock, script
from .wire import game_over, game_start, lobby

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from protocol import ServerMessage

    from .conftest import Driver

BOARD = {
    "date": DAY,
    "commit": "ab" * 32,
    "rules": {"deal": "mirror", "winnable_only": True, "tiebreak": "first"},
    "players": 12,
    "board": [
        {"rank": 1, "name": "bob", "time_ms": 41_250, "count": 52, "game_id": "d1"},
        {"rank": 2, "name": "eve", "time_ms": 44_000, "count": 52, "game_id": "d2"},
        {"rank": 3, "name": "ann", "time_ms": 45_300, "count": 52, "game_id": "d3"},
    ],
}
PROFILE = {"name": "ann", "rating": 1500, "provisional": True, "daily_streak": 4}
HOURLY = ArenaInfo(
    arena_id="a1", name="Hourly", status="running", starts_at=NOON,
    ends_at="2026-12-02T12:30:00Z", players=9,
)  # fmt: skip


def competing() -> Callable[[int, dict[str, Any]], list[ServerMessage]]:
    """A server with today's deal and one running arena."""
    plain = script()
    snapshot = lobby().model_copy(
        update={"daily": DailyInfo(date=DAY, players=12, best_ms=41_250), "arenas": [HOURLY]}
    )

    def answer(connection: int, request: dict[str, Any]) -> list[ServerMessage]:
        kind = request["type"]
        if kind == "lobby":
            return [snapshot]
        if kind == "daily":
            return [game_start(daily=DAY, ghost="bob", bots=[False, True])]
        if kind == "join_arena":
            return [arena()]
        if kind == "leave_arena":
            return [arena(joined=False)]
        return plain(connection, request)

    return answer


@contextlib.asynccontextmanager
async def lobby_with_events() -> AsyncIterator[tuple[Driver, ScriptedServer]]:
    with ApiStub({"/api/daily": (200, BOARD), "/api/players/ann": (200, PROFILE)}) as stub:
        async with ScriptedServer(competing()).running() as server:
            options = Options(server=server.url, name="ann")
            app = FlowerGardenApp(options, clock=Clock(), api=ApiClient(stub.url))
            app.state.wall = lambda: WALL
            async with driving(app, size=(80, 24)) as driver:
                await driver.until(lambda: driver.state.lobby is not None, "the lobby")
                yield driver, server


def on_top(driver: Driver) -> str:
    return type(driver.app.screen).__name__


def shown(driver: Driver, words: str) -> bool:
    return words in flat("\n".join(screen_lines(driver.app)))


async def test_the_daily_entry_races_the_ghost_and_the_result_ranks_it():
    async with lobby_with_events() as (a, server):
        await a.until_shown("Daily deal: best 41.2 s, 12 raced · you 3rd")
        await a.until_shown("streak 4 days d race the ghost")
        await a.press("d")
        await a.until(lambda: a.state.race is not None, "the daily race")
        assert server.sent("daily") == [{"type": "daily", "ghost": True}]
        await a.until_shown("Daily deal 2026-12-02: racing bob's ghost")
        assert shown(a, "bob (bot)")  # seat 1 is labelled a bot
        result = DailyResult(date=DAY, ranked=True, rank=3, time_ms=45_300)
        over = game_over(1, "cleared", [52, 52], seq=1, times_ms=[45_300, 41_250], daily=result)
        await server.push(over)
        await a.until_shown("you 45.3 s · the leader 41.2 s · ranked 3rd of 12")
        text = flat(await a.text())
        assert "r race it again t the day's board Esc lobby" in text  # all of it at 80x24
        assert "bouquet" in text  # the result fits beside the boards at 80x24
        await a.press("t")
        await a.until(lambda: on_top(a) == "DailyBoardScreen", "the day's board")
        await a.until_shown("2nd eve 44.0 s 52/52")
        assert shown(a, "The daily deal of 2026-12-02: 12 ranked")
        await a.press("escape")
        await a.until(lambda: on_top(a) == "RaceScreen", "back to the result")
        await a.press("r")  # again: practice, the server says (game_over.daily.ranked)
        await a.until(lambda: len(server.sent("daily")) == 2, "the second daily")


async def test_an_arena_is_joined_from_its_list_and_raced_with_standings_beside():
    async with lobby_with_events() as (a, server):
        await a.until_shown("Arenas: 1 running, 0 to come a lists them")
        await a.press("a")
        await a.until(lambda: on_top(a) == "ArenasScreen", "the arenas")
        await a.until_shown("Hourly running ends in 30:00 9")
        await a.press("enter")
        await a.until(lambda: a.state.arena is not None and a.state.arena.joined, "joined")
        assert server.sent("join_arena") == [{"type": "join_arena", "arena_id": "a1"}]
        await a.until_shown("Arena Hourly: 3rd of 9, 6 points")
        await a.press("escape")
        await a.until(lambda: on_top(a) == "LobbyScreen", "the lobby")
        await a.until_shown("Arena Hourly: 3rd of 9")
        await server.push(game_start(arena_id="a1"))  # paired
        await a.until(lambda: a.state.race is not None, "the arena race")
        await a.until_shown("standings: 1 bob 12 · 2 BOT-Hare (bot) 8 · 3 ann 6")
        assert shown(a, "z pause") and shown(a, "ends in 30:00")
        points = ArenaResult(arena_id="a1", points=[2, 0])
        await server.push(game_over(0, "cleared", [52, 10], seq=1, arena=points))
        await a.until_shown("Arena: +2 points · you 3rd, 6 points")
        await a.press("z")  # pause: no race is paired after this one
        await a.until(lambda: server.sent("leave_arena"), "leave_arena")
        await a.until(lambda: a.state.arena is not None and not a.state.arena.joined, "paused")
        await a.until(lambda: not shown(a, "z pause"), "no pause key once paused")


async def test_the_next_arena_race_replaces_the_result_at_once():
    async with lobby_with_events() as (a, server):
        await a.press("a")
        await a.until(lambda: on_top(a) == "ArenasScreen", "the arenas")
        await a.until_shown("Hourly")
        await a.press("enter")
        await a.until(lambda: a.state.arena is not None, "joined")
        await server.push(game_start(arena_id="a1"))
        await a.until(lambda: a.state.race is not None, "the first race")
        points = ArenaResult(arena_id="a1", points=[0, 2])
        await server.push(game_over(1, "cleared", [10, 52], seq=1, arena=points))
        await a.until_shown("Arena: +0 points")
        await server.push(game_start(arena_id="a1", game_id="g2"))
        await a.until(lambda: a.state.race is not None and a.state.race.game_id == "g2", "next")
        assert on_top(a) == "RaceScreen" and a.state.race.over is None
