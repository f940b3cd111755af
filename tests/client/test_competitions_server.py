"""The daily deal and an arena from the terminal, against the real server (issue 27):
real apps driven by Pilot, the server's own day, bot, board, pairing and standings."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .conftest import RACE_RULES, driving, fresh_name, over, seat
from .test_race import play_by_key

if TYPE_CHECKING:
    from .conftest import Driver


def on_top(driver: Driver) -> str:
    return type(driver.app.screen).__name__


async def test_the_daily_entry_races_the_days_deal_and_the_board_comes_from_the_server(
    start_server, make_app
):
    server = await start_server()
    async with driving(make_app(server, fresh_name("ann"))) as a:
        await a.until(lambda: a.state.lobby is not None and a.state.lobby.daily, "lobby.daily")
        day = a.state.lobby.daily.date
        await a.until_shown("Daily deal")
        await a.until(lambda: a.state.lookups.daily.value is not None, "GET /api/daily")
        assert a.state.lookups.daily.value.date == day
        await a.press("d")
        await a.until(lambda: a.state.race is not None, "the daily race")
        race = a.race
        assert race.daily == day and seat(race) == 0 and race.bots[1]  # seat 1: a bot
        assert race.rules.deal == "mirror" and race.rules.tiebreak == "first"  # the day's rules
        await a.until_shown(f"Daily deal {day}: racing")
        await a.until_shown(f"{race.players[1]} (bot)")
        await play_by_key(a)
        await a.press("x", "y")  # resign: a ranked race that did not clear
        await a.until(lambda: a.race.over is not None, "game_over")
        result = over(a.race).daily
        assert result is not None and result.date == day
        await a.until_shown("Daily deal: you did not clear")
        await a.press("t")
        await a.until(lambda: on_top(a) == "DailyBoardScreen", "the day's board")
        await a.until_shown(f"The daily deal of {day}")
        await a.press("escape")
        await a.press("r")  # again: practice now
        await a.until(lambda: a.race.game_id != race.game_id, "the second daily race")
        assert a.race.daily == day


async def test_an_arena_is_joined_from_the_lobby_and_paired_with_standings_and_a_pause(
    start_server, make_app
):
    server = await start_server(idle_timeout=3600.0)
    now = time.time()
    arena_id = f"test-{time.monotonic_ns()}"
    assert await server.arenas.create(arena_id, "Hourly", RACE_RULES, now, now + 600)
    a = make_app(server, fresh_name("ann"))
    b = make_app(server, fresh_name("bob"))
    async with driving(a) as da, driving(b) as db:
        for d in (da, db):
            await d.until(lambda: d.state.lobby is not None and d.state.lobby.arenas, "listed")  # noqa: B023
            await d.press("a")
            await d.until(lambda: on_top(d) == "ArenasScreen", "the arenas")  # noqa: B023
            await d.until_shown("Hourly")
            await d.press("enter")
            await d.until(lambda: d.state.arena is not None and d.state.arena.joined, "joined")  # noqa: B023
        await da.until(lambda: da.state.race is not None, "paired")
        await db.until(lambda: db.state.race is not None, "paired")
        assert da.race.arena_id == arena_id == db.race.arena_id
        await da.until_shown("Arena Hourly")
        assert "z pause" in await da.text()
        await da.press("z")  # pause: this race goes on, no other is paired
        await da.until(lambda: not da.state.arena.joined, "paused")
        assert da.race.over is None and da.race.arena_id == arena_id
        await da.press("x", "y")
        await db.until(lambda: db.race.over is not None, "the end")
        assert over(db.race).arena is not None and over(db.race).arena.arena_id == arena_id
