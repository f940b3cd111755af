"""Every screen in every language: no English left, and all of it on an 80x24 terminal.

Each screen is driven by Pilot against a scripted revision-3 server and a stub of its
HTTP API, once per language. In the pseudo-language (``qps``: every catalogue text
accented, lengthened and bracketed) a word of three plain ASCII letters on screen is a
word that skipped the catalogue. In English, German, Dutch and Italian every text the
screen was given must be on the screen whole: nothing cut at a box's edge or bottom.
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING, Any

import pytest
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Static

import lang
from client.api_client import ApiClient
from client.options import Options
from client.screens.base import TextView
from client.screens.boards import BoardView
from client.textual_app import FlowerGardenApp
from core.bots import BOT_NAMES
from lang import LANGUAGES, PSEUDO
from protocol import DailyResult, Error, Rules, Seek

from .apistub import ApiStub
from .conftest import driving, flat, screen_lines
from .scripted import ScriptedServer
from .test_competition_screens import BOARD, PROFILE, competing
from .test_competitions import DAY, WALL
from .test_screens import Clock
from .wire import game_over, game_start

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Collection

    from protocol import ServerMessage

    from .conftest import Driver

BOTS = {name.removeprefix("BOT-") for name in BOT_NAMES.values()}
ALLOWED = {"ann", "bob", "eve", "Hourly", "ABC", "BOT", *BOTS, "Esc"}
"""Words on screen that no catalogue holds: the players', the bots' and the arena's names,
a room's code, and the name on a key's cap."""
LOBBY_SCREENS = (
    ("question_mark", "HelpScreen"),
    ("s", "RulesScreen"),
    ("b", "BotScreen"),
    ("a", "ArenasScreen"),
    ("t", "DailyBoardScreen"),
    ("j", "JoinScreen"),
    ("i", "HowToPlayScreen"),
)
"""The lobby's keys to other screens, and the screen each opens (Esc comes back)."""
RATED = Rules(deal="mirror", winnable_only=True, rated=True)
_WORD = re.compile(r"[A-Za-z]{3,}")


def english_left(driver: Driver) -> set[str]:
    """Words of plain ASCII letters on the screen, names and codes aside."""
    text = "\n".join(screen_lines(driver.app))
    return {word for word in _WORD.findall(text) if word not in ALLOWED}


def cut(driver: Driver) -> list[str]:
    """The texts the top screen was given that are not on the screen whole."""
    screen = flat("\n".join(screen_lines(driver.app)))
    missing = []
    for widget in driver.app.screen.query("*"):
        shown = all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))
        if not shown or isinstance(widget, BoardView):
            continue  # a board is cards side by side with the other; its words are checked apart
        if isinstance(widget, TextView):
            given = widget.shown.plain
        elif isinstance(widget, Static | Checkbox | Button):
            given = str(widget.content) if isinstance(widget, Static) else str(widget.label)
        else:
            continue
        if flat(given) and flat(given) not in screen:
            missing.append(given)
    return missing


def script() -> Callable[[int, dict[str, Any]], list[ServerMessage]]:
    """The competitions' server, which also refuses a rated seek (``not_allowed``)."""
    plain = competing()

    def answer(connection: int, request: dict[str, Any]) -> list[ServerMessage]:
        if request["type"] == "seek" and request.get("rules", {}).get("rated"):
            return [Error(code="not_allowed", message="words nobody reads", id=request.get("id"))]
        return plain(connection, request)

    return answer


@contextlib.asynccontextmanager
async def app_in(language: str, **options: Any) -> AsyncIterator[tuple[Driver, ScriptedServer]]:
    pages = {"/api/daily": (200, BOARD), "/api/players/ann": (200, PROFILE)}
    with lang.using(language), ApiStub(pages) as stub:
        async with ScriptedServer(script()).running() as server:
            app = FlowerGardenApp(
                Options(server=server.url, name="ann", **options),
                clock=Clock(),
                api=ApiClient(stub.url),
            )
            app.state.wall = lambda: WALL
            async with driving(app, size=(80, 24)) as driver:
                await driver.until(lambda: driver.state.lobby is not None, "the lobby")
                yield driver, server


async def screens(a: Driver, server: ScriptedServer) -> AsyncIterator[str]:
    """Each screen in turn, on top when its name is yielded."""
    await a.until(lambda: a.app.state.lookups.daily.value is not None, "the day's board")
    yield "lobby"
    for key, name in LOBBY_SCREENS:
        await a.press(key)
        await a.until(lambda: type(a.app.screen).__name__ == name, name)  # noqa: B023
        yield name
        await a.press("escape")
        await a.until(lambda: type(a.app.screen).__name__ == "LobbyScreen", "the lobby")
    a.app.send(Seek(rules=RATED))
    await a.until(lambda: type(a.app.screen).__name__ == "RatedRefusedScreen", "refused")
    yield "RatedRefusedScreen"
    await a.press("escape")
    await a.press("d")
    await a.until(lambda: a.state.race is not None, "the daily race")
    yield "daily race"
    result = DailyResult(date=DAY, ranked=True, rank=3, time_ms=45_300)
    over = game_over(1, "cleared", [52, 52], seq=1, times_ms=[45_300, 41_250], daily=result)
    await server.push(over)
    await a.until(lambda: a.state.race is not None and a.state.race.over is not None, "over")
    yield "daily result"
    await server.push(game_start(game_id="g2"))
    await a.until(lambda: a.state.race is not None and a.state.race.game_id == "g2", "a race")
    await a.press("question_mark")
    await a.until(lambda: type(a.app.screen).__name__ == "HelpScreen", "the race's help")
    yield "race help"
    await a.press("space")
    await server.push(game_over(1, "resigned", [0, 3], seq=1, game_id="g2"))
    await a.until(lambda: a.state.race is not None and a.state.race.over is not None, "over")
    yield "result"
    await a.press("exclamation_mark")
    await a.until(lambda: type(a.app.screen).__name__ == "ReportScreen", "the report")
    yield "ReportScreen"
    await a.press("escape")
    await server.connections[-1].close(4001, "banned")
    await a.until(lambda: type(a.app.screen).__name__ == "BannedScreen", "banned")
    yield "BannedScreen"


async def settled(
    a: Driver, check: Callable[[Driver], Collection[str]], name: str
) -> Collection[str]:
    """What ``check`` finds on the screen once it has settled, or still finds after the timeout.

    A screen may have been given its text but not yet drawn it (a lookup answered in
    the last moment): what is wrong for good is still wrong when the wait runs out.
    """
    with contextlib.suppress(AssertionError):
        await a.until(lambda: not check(a), name)
    return check(a)


async def test_no_screen_shows_english_in_the_pseudo_language():
    async with app_in(PSEUDO) as (a, server):
        async for name in screens(a, server):
            left = await settled(a, english_left, name)
            assert not left, (name, sorted(left), "\n".join(screen_lines(a.app)))


@pytest.mark.parametrize("language", LANGUAGES)
async def test_every_screen_fits_80x24_in_each_language(language):
    async with app_in(language) as (a, server):
        async for name in screens(a, server):
            missing = await settled(a, cut, name)
            assert not missing, (language, name, missing, "\n".join(screen_lines(a.app)))


async def test_how_to_play_opens_from_the_help_in_the_language_spoken():
    async with app_in("nl") as (a, _server):
        await a.press("question_mark")
        await a.until(lambda: type(a.app.screen).__name__ == "HelpScreen", "the help")
        await a.until_shown("i spelregels")
        await a.press("i")
        await a.until(lambda: type(a.app.screen).__name__ == "HowToPlayScreen", "how to play")
        await a.until_shown(lang.t("howto.title"))
        await a.press("escape")
        await a.until(lambda: type(a.app.screen).__name__ == "LobbyScreen", "back")
