"""The leaderboard, profiles, race histories and replays, driven by Pilot.

The websocket is a :class:`~tests.client.scripted.ScriptedServer`; the HTTP API
is an :class:`~tests.client.apistub.ApiStub` on its own port (the app is given
an :class:`~client.api_client.ApiClient` for it), standing in for the game server's API.
The app's clock is the test's: a replay moves only when the test moves it.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from textual.widgets import Checkbox

from client.api_client import ApiClient
from client.options import Options
from client.textual_app import FlowerGardenApp
from protocol import RatingChange, Rules

from .apistub import RATED, ApiStub, closed_port, leaderboard, profile, record, summary
from .conftest import driving, flat, screen_lines
from .scripted import ScriptedServer
from .test_screens import Clock, script
from .wire import game_over, game_start, welcome

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from protocol import ServerMessage

    from .conftest import Driver


@contextlib.asynccontextmanager
async def browsing(
    pages: dict[str, tuple[int, Any]],
    clock: Clock | None = None,
    *,
    start: bool = False,
    rules: Rules | None = None,
    api_url: str | None = None,
) -> AsyncIterator[tuple[Driver, ScriptedServer, ApiStub]]:
    """The app in the lobby (or, ``start``, in a rated race), with the API at ``pages``."""
    answer = rated_script() if start else script()
    with ApiStub(pages) as stub:
        async with ScriptedServer(answer).running() as server:
            options = Options(server=server.url, name="ann", rules=rules or Options().rules)
            api = ApiClient(api_url or stub.url)
            app = FlowerGardenApp(options, clock=clock or Clock(), api=api)
            async with driving(app, size=(100, 30)) as driver:
                await driver.until(lambda: driver.state.lobby is not None, "the lobby")
                yield driver, server, stub


def rated_script() -> Callable[[int, dict[str, Any]], list[ServerMessage]]:
    plain = script()

    def answer(connection: int, request: dict[str, Any]) -> list[ServerMessage]:
        if request["type"] == "hello":
            start = game_start(rules=RATED, ratings=[1500, 1620])
            return [welcome(rating=1500, provisional=True), start]
        return plain(connection, request)

    return answer


def on_top(driver: Driver) -> str:
    return type(driver.app.screen).__name__


def text_of(driver: Driver) -> str:
    return flat("\n".join(screen_lines(driver.app)))


HISTORY = {
    "/api/players/ann/races": (200, {"races": [summary("g9"), summary("g8")], "next": "g8"}),
    "/api/players/ann/races?limit=20&before=g8": (200, {"races": [summary("g7")], "next": None}),
    "/api/races/g7": (200, record("g7")),
}


async def test_the_leaderboard_and_a_profile_from_it():
    pages = {
        "/api/leaderboard": (200, leaderboard("cat", "dan")),
        "/api/players/cat": (200, profile("cat", 1690)),
    }
    async with browsing(pages) as (a, _server, stub):
        await a.until_shown("You are ann (1500?)")
        await a.press("l")
        await a.until_shown("2 dan 1680 22")
        assert "1 cat 1690 21" in text_of(a)
        await a.press("enter")
        await a.until_shown("cat rating 1690")
        assert "12 races: 7 won · 1 drawn · 4 lost" in text_of(a)
        await a.press("escape")
        await a.until(lambda: on_top(a) == "LeaderboardScreen", "back to the leaderboard")
        await a.press("escape")
        await a.until(lambda: on_top(a) == "LobbyScreen", "back to the lobby")
        assert stub.requests == ["/api/leaderboard?limit=50", "/api/players/cat"]


async def test_ones_profile_and_history_paged_and_a_replay():
    clock = Clock(100.0)
    pages = {"/api/players/ann": (200, profile("ann", provisional=True)), **HISTORY}
    async with browsing(pages, clock) as (a, _server, stub):
        await a.press("p")
        await a.until_shown("Your profile")
        await a.until_shown("ann rating 1523? (provisional")
        await a.press("h")
        await a.until_shown("ann's races: 2 shown · n: older ones · Enter replays")
        assert "bob won 6-3 5.5 s 1523 (+23)" in text_of(a)
        await a.press("n")
        await a.until_shown("ann's races: 3 shown (all of them)")
        await a.press("down", "down", "enter")
        await a.until(lambda: on_top(a) == "ReplayScreen", "the replay")
        await a.until_shown("the deal: 9 moves to come")
        assert "ann 1500 vs bob 1480 · rated · mirror · winnable" in text_of(a)
        clock.now += 1.0  # a second of the race at 1x: two moves
        await a.until_shown("move 2 of 9: bob played")
        assert "Replay · time 0:01.0 · 1x playing" in text_of(a)
        await a.press("4")
        await a.until_shown("4x playing")
        await a.press("space")
        await a.until_shown("4x paused")
        clock.now += 10.0
        await a.press("right")
        await a.until_shown("move 3 of 9: ann played")
        assert "time 0:01.5" in text_of(a)
        await a.press("left", "left")
        await a.until_shown("move 1 of 9: ann played")
        await a.press("end")
        await a.until_shown("record verified: every check passed")
        text = text_of(a)
        assert "ann won bob resigned" in text and "ann 1500 → 1523 (+23)" in text
        await a.press("escape")
        await a.until(lambda: on_top(a) == "HistoryScreen", "back to the history")
    assert stub.requests.count("/api/races/g7") == 1


async def test_what_cannot_be_looked_up_is_said_on_the_screen():
    pages = {"/api/players/ann": (404, {"error": "player_not_found"})}
    async with browsing(pages) as (a, _server, _stub):
        await a.press("p")
        await a.until_shown("no player named ann on this server")
        await a.press("escape")
        await a.press("o")
        await a.until_shown("no opponent yet: race someone first")


async def test_a_server_whose_api_cannot_be_reached_is_said_so():
    port = closed_port()
    async with browsing({}, api_url=f"ws://127.0.0.1:{port}/ws") as (a, _server, _stub):
        await a.press("l")
        await a.until_shown(f"cannot reach 127.0.0.1:{port}: is the server running?")
        await a.press("h")  # the leaderboard screen has no h: still there
        assert on_top(a) == "LeaderboardScreen"


async def test_a_rated_race_shows_ratings_the_change_and_the_opponents_profile():
    pages = {
        "/api/players/ann": (200, profile("ann", 1500, provisional=True)),
        "/api/players/bob": (200, profile("bob", 1620, provisional=True)),
    }
    async with browsing(pages, start=True) as (a, server, stub):
        await a.until(lambda: a.state.race is not None, "the race")
        await a.until_shown("ann (you) 1500? 0/52")
        await a.until_shown("bob 1620? 0/52")  # bob's profile says provisional
        assert sorted(stub.requests) == ["/api/players/ann", "/api/players/bob"]
        await a.until(lambda: not a.state.lookups.profile("ann").pending, "ann's profile")
        ratings = [RatingChange(before=1500, after=1523), RatingChange(before=1620, after=1597)]
        await server.push(game_over(0, "resigned", [0, 0], seq=1, ratings=ratings))
        await a.until_shown("rating: ann 1500 → 1523 (+23) · bob 1620 → 1597 (-23)")
        await a.until(lambda: stub.requests.count("/api/players/ann") == 2, "ann's new profile")
        await a.press("o")
        await a.until_shown("bob's profile")
        await server.push(game_start(rules=RATED, ratings=[1523, 1597], game_id="g2"))
        await a.until(lambda: on_top(a) == "RaceScreen", "the rematch, on top")
        await a.until_shown("ann (you) 1523? 0/52")


async def test_ticking_rated_ticks_mirror_and_winnable_and_says_why():
    classic = Rules(deal="independent", winnable_only=False)
    async with browsing({}, rules=classic) as (a, server, _stub):
        await a.press("s")
        await a.until(lambda: on_top(a) == "RulesScreen", "the form")
        form = a.app.screen
        mirror, winnable = (
            form.query_one("#mirror", Checkbox),
            form.query_one("#winnable", Checkbox),
        )
        assert not mirror.value and not winnable.value and not mirror.disabled
        form.query_one("#rated").focus()
        await a.press("space")
        await a.until(lambda: mirror.value and winnable.value, "both ticked")
        assert mirror.disabled and winnable.disabled
        await a.until_shown("Rated: mirror deal and winnable layouts, so that speed alone decides")
        await a.press("space")  # unticked: the two may be changed again
        await a.until(lambda: not mirror.disabled, "enabled again")
        assert mirror.value and "so that speed alone decides" not in text_of(a)
        await a.press("space", "enter")
        await a.until(lambda: server.sent("seek"), "the seek")
        sent = Rules.model_validate(server.sent("seek")[0]["rules"])
        assert sent == RATED
        await a.until_shown("Seeking a match (rated · mirror · winnable)")
