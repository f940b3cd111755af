"""The lobby, the rules form and the race screen, driven by Pilot against a scripted server.

The server here is a :class:`~tests.client.scripted.ScriptedServer` that says
what a revision-2 server says (``seeks``, capped lists, ``limits``, times,
seeds), so that each screen is pinned down whatever the real server's state;
the app's clock is the test's, so times on screen are exact.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import pytest
from textual.widgets import Checkbox

from client.options import RACE_RULES, Options
from client.render import render_topbar
from client.textual_app import FlowerGardenApp
from protocol import Cancelled, GameInfo, Room, RoomInfo, Rules, SeekInfo, Seeking, StatusChanged

from .conftest import driving, flat, screen_lines
from .scripted import ScriptedServer
from .wire import OTHER_SEED, dealt, game_over, game_start, game_state, lobby, play, welcome

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from protocol import LobbySnapshot, ServerMessage

    from .conftest import Driver


class Clock:
    """The app's clock, moved by the test."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def script(
    snapshot: LobbySnapshot | None = None, *, start: bool = False
) -> Callable[[int, dict[str, Any]], list[ServerMessage]]:
    """A server that welcomes, answers lobby, seek, create_room and cancel, and maybe starts
    a race at once (``start``: as if the player came back to it)."""

    def answer(_connection: int, request: dict[str, Any]) -> list[ServerMessage]:
        kind = request["type"]
        if kind == "hello":
            answers: list[ServerMessage] = [welcome(name=str(request["name"]))]
            return [*answers, game_start()] if start else answers
        if kind == "lobby":
            return [snapshot or lobby()]
        if kind == "seek":
            return [Seeking(rules=Rules.model_validate(request.get("rules", {})))]
        if kind == "create_room":
            return [Room(code="ABC234", rules=Rules.model_validate(request.get("rules", {})))]
        if kind == "cancel":
            return [Cancelled()]
        return []

    return answer


@contextlib.asynccontextmanager
async def lobby_app(
    server: ScriptedServer, clock: Clock | None = None, size: tuple[int, int] = (80, 24)
) -> AsyncIterator[Driver]:
    app = FlowerGardenApp(Options(server=server.url, name="ann"), clock=clock or Clock())
    async with driving(app, size=size) as driver:
        await driver.until(lambda: driver.state.lobby is not None, "the lobby")
        yield driver


def shown(driver: Driver, words: str) -> bool:
    return words in flat("\n".join(screen_lines(driver.app)))


# -- the rules form: Enter starts from any field ---------------------------------------

FIELDS = ["mirror", "winnable", "redeal", "first", "limit", "go"]


@pytest.mark.parametrize("room", [False, True], ids=["quick match", "room"])
async def test_enter_on_any_field_starts_with_the_rules_as_shown(room):
    async with ScriptedServer(script()).running() as server, lobby_app(server) as a:
        kind = "create_room" if room else "seek"
        fields = [*FIELDS, "public"] if room else FIELDS
        for done, field in enumerate(fields, 1):
            await a.press("c" if room else "s")
            await a.until(lambda: type(a.app.screen).__name__ == "RulesScreen", "the form")
            form = a.app.screen
            assert form.query_one("#mirror", Checkbox).value
            assert form.query_one("#winnable", Checkbox).value
            redeal = form.query_one("#redeal", Checkbox)
            if not redeal.value:  # the form offers the last rules used: ticked from the second on
                redeal.focus()
                await a.press("space")  # one more rule, so that "as shown" is not the default
            assert redeal.value
            form.query_one(f"#{field}").focus()
            await a.press("enter")
            await a.until(lambda: len(server.sent(kind)) == done, kind)  # noqa: B023
            assert type(a.app.screen).__name__ == "LobbyScreen"
            request = server.sent(kind)[-1]
            shown = Rules(deal="mirror", winnable_only=True, redeals=1)
            assert Rules.model_validate(request["rules"]) == shown, field
            assert request.get("public", False) is False
            await a.press("escape")  # stop seeking, or close the room
            await a.until(lambda: a.state.waiting is None, "cancelled")


async def test_enter_on_cancel_cancels_and_space_still_ticks():
    async with ScriptedServer(script()).running() as server, lobby_app(server) as a:
        await a.press("s")
        await a.until(lambda: type(a.app.screen).__name__ == "RulesScreen", "the form")
        form = a.app.screen
        form.query_one("#winnable").focus()
        await a.press("space")
        assert form.query_one("#winnable", Checkbox).value is False
        form.query_one("#cancel").focus()
        await a.press("enter")
        await a.until(lambda: type(a.app.screen).__name__ == "LobbyScreen", "the lobby")
        assert server.sent("seek") == []


def test_the_defaults_are_a_speed_race():
    assert (RACE_RULES.deal, RACE_RULES.winnable_only) == ("mirror", True)
    assert Options().rules == RACE_RULES


# -- the lobby: what others seek, and capped lists -------------------------------------

CLASSIC = Rules(deal="independent", redeals=1)


def busy_lobby() -> LobbySnapshot:
    rooms = [RoomInfo(code=f"R{i:05d}", host=f"h{i}", rules=RACE_RULES) for i in range(100)]
    games = [
        GameInfo(game_id="g1", players=["cat", "bot3"], counts=[5, 7], bots=[False, True]),
        GameInfo(game_id="g2", players=["dan", "eve"], counts=[0, 1], bots=[False, False]),
    ]
    seeks = [SeekInfo(rules=RACE_RULES, count=3), SeekInfo(rules=CLASSIC, count=1)]
    return lobby(seeks=seeks, rooms=rooms, games=games, rooms_total=340, games_total=7)


async def test_the_lobby_lists_seeks_and_enter_seeks_with_exactly_those_rules():
    async with ScriptedServer(script(busy_lobby())).running() as server, lobby_app(server) as a:
        await a.until_shown("Rooms: 100 of 340 (Enter joins)")
        await a.until_shown("cat vs bot3 (bot)")  # the lists may be drawn a pass later
        text = flat(await a.text())
        assert "Races: 2 of 7 (Enter watches)" in text
        assert "independent · 1 redeal" in text and "mirror · winnable" in text
        a.app.screen.query_one("#seeks").focus()
        await a.press("down", "enter")  # the second seek: classic rules with a redeal
        await a.until(lambda: server.sent("seek"), "the seek")
        assert Rules.model_validate(server.sent("seek")[0]["rules"]) == CLASSIC
        await a.until(lambda: a.state.waiting is not None, "seeking")
        assert a.state.waiting is not None and a.state.waiting.rules == CLASSIC
        await a.until_shown("Seeking a match (independent · 1 redeal)")


async def test_lists_that_fit_say_no_total():
    snapshot = lobby(rooms=[RoomInfo(code="ABC234", host="cat", rules=RACE_RULES)])
    async with ScriptedServer(script(snapshot)).running() as server, lobby_app(server) as a:
        await a.until_shown("ABC234")
        text = flat(await a.text())
        assert "Public rooms (Enter joins)" in text and " of " not in text
        assert a.app.screen.query_one("#seekbox").display is False  # nobody seeks


# -- small terminals -------------------------------------------------------------------

SMALL = "The terminal is 70x20: make it at least 80x24"


async def test_a_small_terminal_is_said_on_the_race_screen_and_the_lobby():
    app = FlowerGardenApp(Options(practice=True, seed=3, rules=Rules(winnable_only=True)))
    async with driving(app, size=(70, 20)) as p:
        await p.until(lambda: p.state.race is not None, "the deal")
        await p.until_shown(SMALL)
        await p.resize(80, 24)
        await p.until(lambda: not shown(p, "The terminal is"), "the notice gone")
    async with ScriptedServer(script()).running() as server:
        async with lobby_app(server, size=(70, 20)) as a:
            await a.until_shown(SMALL)
        async with lobby_app(server) as a:
            assert "The terminal is" not in flat(await a.text())
    racing = ScriptedServer(script(start=True))
    async with racing.running() as server, lobby_app(server, size=(70, 20)) as a:
        await a.until(lambda: a.state.race is not None, "the race")  # two boards do not fit
        await a.until_shown(SMALL)


# -- the race screen: the stopwatch, the idle countdown, the result --------------------


async def test_stopwatch_and_idle_countdown():
    clock = Clock(100.0)
    async with (
        ScriptedServer(script(start=True)).running() as server,
        lobby_app(server, clock) as a,
    ):
        await a.until(lambda: a.state.race is not None, "the race")
        assert a.race.idle_s == 60
        clock.now = 141.5
        await a.until_shown("time 0:41")
        assert "times you out" not in flat(await a.text())
        clock.now = 146.0
        await a.until_shown("No play for 60 s times you out: 0:14 left to play or redeal")
        await server.push(StatusChanged(game_id="g1", seat=0, status="timed_out", count=0, seq=1))
        await a.until(lambda: a.race.statuses[0] == "timed_out", "the time-out")
        await a.until(lambda: not shown(a, "times you out"), "the countdown gone")


async def test_the_result_names_a_time_out_and_checks_the_deal():
    clock = Clock(100.0)
    async with (
        ScriptedServer(script(start=True)).running() as server,
        lobby_app(server, clock) as a,
    ):
        await a.until(lambda: a.state.race is not None, "the race")
        theirs = dealt()
        await server.push(
            play(theirs, 1, 1, t_ms=2_000),
            StatusChanged(game_id="g1", seat=0, status="timed_out", count=0, seq=2),
            game_over(1, "most_cards", [0, 1], seq=3, times_ms=[None, 2_000]),
        )
        await a.until_shown("You lost ann timed out: no play for 60 s")
        text = flat(await a.text())
        assert "has more cards" not in text
        assert "ann 0/52 · bob 1/52, last card at 2.0 s, 1 card ahead" in text
        assert "deal verified" in text


async def test_a_clear_shows_the_time_and_the_margin():
    clock = Clock(100.0)
    async with (
        ScriptedServer(script(start=True)).running() as server,
        lobby_app(server, clock) as a,
    ):
        await a.until(lambda: a.state.race is not None, "the race")
        mine, theirs = dealt(), dealt()
        # ann plays a card every 0.8 s, bob every second; bob has 40 when ann clears.
        times = sorted([(800 * n, 0) for n in range(1, 53)] + [(1000 * n, 1) for n in range(1, 41)])
        times = [(t, seat) for t, seat in times if t <= 52 * 800]
        moves = [play((mine, theirs)[seat], seat, seq, t) for seq, (t, seat) in enumerate(times, 1)]
        over = game_over(0, "cleared", [52, 40], seq=len(moves) + 1, times_ms=[41_600, 40_000])
        await server.push(*moves, over)
        await a.until_shown("You won ann cleared every card")
        text = flat(await a.text())
        # bob's last card was before ann's clear: the margin is in cards, bob's is no finish.
        assert "ann cleared in 41.6 s, 12 cards ahead · bob 40/52, last card at 40.0 s" in text
        assert "deal verified" in text


async def test_a_deal_that_does_not_verify_is_said_loudly():
    async with ScriptedServer(script(start=True)).running() as server, lobby_app(server) as a:
        await a.until(lambda: a.state.race is not None, "the race")
        await server.push(game_over(0, "resigned", [0, 0], seq=1, seed=OTHER_SEED))
        await a.until_shown("deal NOT verified: commits: seat 0's seed hashes to")


def restarting(connection: int, request: dict[str, Any]) -> list[ServerMessage]:
    """A race on the first connection; the next one resumes it 32 s in (the server's time)."""
    if request["type"] == "lobby":
        return [lobby()]
    if request["type"] != "hello":
        return []
    if connection == 0:
        return [welcome(), game_start()]
    board = dealt()
    return [welcome(), game_state([board, board], seq=0, elapsed_ms=32_000)]


async def test_the_stopwatch_stands_still_while_the_server_is_down():
    clock = Clock(100.0)
    async with ScriptedServer(restarting).running() as server, lobby_app(server, clock) as a:
        await a.until(lambda: a.state.race is not None, "the race")
        clock.now = 130.0
        await a.until_shown("time 0:30")
        await server.connections[0].close(1001)  # the server goes down
        await a.until(lambda: a.state.link != "online", "the line down")
        clock.now = 190.0  # a minute later, still down: the stopwatch has not run on
        assert "time 0:30" in render_topbar(a.state, clock.now).plain
        await a.until(lambda: a.race.held is None, "the race resumed from game_state")
        await a.until_shown("time 0:32")  # the server's time, not a jump back from 1:30
