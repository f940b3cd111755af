"""Each race screen's footer and help list only the keys that work there, and those keys work.

A practice, a racer with or without a redeal, a racer whose count is final, the end of
a race and a spectator: :func:`~client.screens.race_screen.race_keys` says which keys
each has, and the footer, the help and the keys themselves follow it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from client.net import ServerEvent
from client.options import Options
from client.screens import HelpScreen
from client.screens.race_screen import race_keys
from client.state import ClientState
from client.textual_app import FlowerGardenApp
from protocol import Rules, StatusChanged

from .conftest import driving, flat
from .scripted import ScriptedServer
from .wire import dealt, game_over, game_start, game_state, welcome

if TYPE_CHECKING:
    from protocol import ServerMessage

    from .conftest import Driver

NO_REDEAL = Rules(deal="mirror", winnable_only=True)


def state_after(*messages: ServerMessage, name: str = "ann") -> ClientState:
    state = ClientState("ws://x/ws", name)
    for message in messages:
        state.apply(message, 1.0)
    return state


def keys_of(state: ClientState) -> tuple[str, list[str]]:
    return race_keys(state.race)


def test_a_race_without_a_redeal_has_no_redeal_key():
    where, keys = keys_of(state_after(welcome(), game_start(rules=NO_REDEAL)))
    assert where == "racing" and "redeal" not in keys
    assert keys == ["beds", "bouquet", "prompt", "resign", "quit_race", "help"]
    _, with_redeal = keys_of(state_after(welcome(), game_start()))  # RULES: one redeal
    assert "redeal" in with_redeal


def test_after_the_race_and_when_the_count_is_final():
    state = state_after(welcome(), game_start(rules=NO_REDEAL))
    state.apply(StatusChanged(game_id="g1", seat=0, status="stalled", count=0, seq=1), 2.0)
    assert keys_of(state) == ("final", ["quit_race", "help"])
    state.apply(game_over(1, "most_cards", [0, 0], seq=2), 3.0)
    assert keys_of(state) == ("over", ["rematch", "profile", "report", "lobby", "quit", "help"])
    assert state.race is not None
    state.race.report = "done"  # reported: once a race
    assert keys_of(state) == ("over", ["rematch", "profile", "lobby", "quit", "help"])


def test_a_spectator_has_no_race_keys():
    board = dealt()
    state = state_after(game_state([board, board], seq=0, seat=None), name="eve")
    assert keys_of(state) == ("watching", ["lobby", "quit", "help"])


async def help_text(driver: Driver) -> str:
    await driver.press("question_mark")
    await driver.until(lambda: isinstance(driver.app.screen, HelpScreen), "the help")
    help_screen = driver.app.screen
    assert isinstance(help_screen, HelpScreen)
    await driver.press("space")  # any key closes it
    await driver.until(lambda: not isinstance(driver.app.screen, HelpScreen), "the help closed")
    return help_screen.text


async def footer(driver: Driver) -> str:
    return flat((await driver.lines())[-1])


@pytest.mark.parametrize("redeals", [0, 1])
async def test_practice_lists_its_own_keys(redeals):
    rules = Rules(winnable_only=True, redeals=redeals)
    app = FlowerGardenApp(Options(practice=True, seed=11, rules=rules))
    async with driving(app) as player:
        await player.until(lambda: player.state.race is not None, "the deal")
        keys = await footer(player)
        redeal = " r redeal" if redeals else ""
        assert keys == f"1-6 bed a-p bouquet / type a card{redeal} x give up q quit ? help"
        words = await help_text(player)
        assert ("redeal" in words) == bool(redeals)
        for absent in ("lobby", "rematch", "resign", "profile", "Esc  back"):
            assert absent not in words
        if not redeals:
            await player.press("r")  # no key here: nothing said of a redeal
            assert "redeal" not in flat(await player.text())
        await player.press("x", "y")  # give up, confirmed
        await player.until(lambda: player.race.over is not None, "the end")
        assert await footer(player) == "r new deal q quit ? help"


def watching(_connection: int, request: dict[str, Any]) -> list[ServerMessage]:
    if request["type"] == "hello":
        board = dealt()
        return [welcome(name="eve"), game_state([board, board], seq=0, seat=None)]
    return []


async def test_a_spectators_footer_and_help_offer_no_race_keys():
    async with ScriptedServer(watching).running() as server:
        app = FlowerGardenApp(Options(server=server.url, name="eve"))
        async with driving(app) as eve:
            await eve.until(lambda: eve.state.race is not None, "the watched race")
            assert await footer(eve) == "Esc lobby q quit ? help"
            words = await help_text(eve)
            assert "Watching" in words and "bouquet" not in words and "resign" not in words
            await eve.press("x", "r")  # race keys do nothing for a spectator
            assert not isinstance(eve.app.screen, HelpScreen)
            assert eve.state.notice == ""


async def test_a_race_that_arrives_while_the_app_closes_is_let_go():
    """The server's word can land after the last screen is gone: nothing to show it on."""
    app = FlowerGardenApp(Options(server="ws://127.0.0.1:9/ws", name="eve"))
    async with driving(app):
        pass
    assert not app.screen_stack
    board = dealt()
    app.on_server_event(ServerEvent(game_state([board, board], seq=0, seat=None)))
    assert app.state.race is not None  # recorded, though there is no screen to draw it
