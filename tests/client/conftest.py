"""Fixtures for the client tests: a real server on port 0, real client apps driven by Pilot.

* ``start_server(**settings)`` runs an in-process :class:`~server.app.GameServer`
  with an SQLite file in ``tmp_path`` (a new one each time, unless ``db`` names
  one), on a free port unless ``port`` names one: a restart at the same URL;
* ``make_app(server, name, **options)`` builds a :class:`FlowerGardenApp` for it;
* ``driving(app)`` runs it with ``run_test`` and yields a :class:`Driver`:
  keys in (``press``), conditions awaited (``until``: tests never sleep to wait
  for an event), the screen out as text (``lines``, from the SVG screenshot);
* ``XDG_CONFIG_HOME`` points into ``tmp_path`` for every test.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import itertools
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from client.options import Options
from client.textual_app import FlowerGardenApp
from protocol import Rules
from server.app import GameServer
from server.config import Settings
from server.store.sqlite_store import SqliteStore

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from textual.pilot import Pilot

    import engine
    from client.state import ClientState, Outcome, RaceView

RACE_RULES = Rules(deal="mirror", winnable_only=True)
"""Mirror deals that clear: a race can be played to its end, 52 plays each."""
TIMEOUT = 10.0

_names = itertools.count()


def fresh_name(prefix: str) -> str:
    """A name no other player of the session has (the server's names are unique)."""
    return f"{prefix}{os.getpid() % 10000}x{next(_names)}"


@pytest.fixture(autouse=True)
def config_home(tmp_path, monkeypatch):
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


@pytest.fixture
async def start_server(tmp_path) -> AsyncIterator[Callable[..., Awaitable[GameServer]]]:
    servers: list[GameServer] = []

    async def start(*, port: int = 0, db: str | None = None, **settings: Any) -> GameServer:
        path = Path(db) if db is not None else tmp_path / f"server{len(servers)}.sqlite3"
        server = GameServer(Settings(port=port, db=str(path), **settings), SqliteStore(path))
        await server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.close()


@pytest.fixture
def make_app() -> Callable[..., FlowerGardenApp]:
    def make(server: GameServer, name: str, **options: Any) -> FlowerGardenApp:
        options.setdefault("rules", RACE_RULES)
        return FlowerGardenApp(Options(server=server.url, name=name, **options))

    return make


class Driver:
    """One running app and its Pilot, driven the way a person would: keys in, screen out.

    Two apps run in one event loop here, and Textual finds "the" app through a
    context variable that the last ``run_test`` set; each call therefore runs
    inside its own app's context, or a pause for one app would draw the other.
    """

    def __init__(self, app: FlowerGardenApp, pilot: Pilot[Any]) -> None:
        self.app = app
        self.pilot = pilot

    @property
    def state(self) -> ClientState:
        return self.app.state

    @property
    def race(self) -> RaceView:
        assert self.app.state.race is not None, "not in a race"
        return self.app.state.race

    async def press(self, *keys: str) -> None:
        with self.app._context():
            await self.pilot.press(*keys)

    async def until(
        self, predicate: Callable[[], object], what: str = "", timeout: float = TIMEOUT
    ) -> None:
        """Await ``predicate()`` while the app runs; fail after ``timeout`` seconds.

        Polls every few milliseconds: ``pilot.pause()`` without a delay waits for
        the whole process to go idle, which two apps and a server rarely are.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        with self.app._context():
            while not predicate():
                if loop.time() > deadline:
                    raise AssertionError(f"timed out waiting for {what or predicate}")
                await self.pilot.pause(0.005)

    async def until_shown(self, words: str, timeout: float = TIMEOUT) -> None:
        """Await ``words`` on the screen, read through line breaks and borders (:func:`flat`)."""
        await self.until(lambda: words in flat("\n".join(screen_lines(self.app))), words, timeout)

    async def resize(self, width: int, height: int) -> None:
        with self.app._context():
            await self.pilot.resize_terminal(width, height)
            await self.pilot.pause()

    async def lines(self) -> list[str]:
        """The screen as lines of text, once the app has drawn what it was busy with."""
        with self.app._context():
            await self.pilot.pause()
            return screen_lines(self.app)

    async def text(self) -> str:
        return "\n".join(await self.lines())


@contextlib.asynccontextmanager
async def driving(app: FlowerGardenApp, size: tuple[int, int] = (80, 24)) -> AsyncIterator[Driver]:
    async with app.run_test(size=size) as pilot:
        yield Driver(app, pilot)


def seat(race: RaceView) -> int:
    """A player's own seat (not a spectator's)."""
    assert race.seat is not None, "a spectator has no seat"
    return race.seat


def over(race: RaceView) -> Outcome:
    """How the race ended (it has)."""
    assert race.over is not None, "the race is not over"
    return race.over


def legal_card(race: RaceView) -> engine.Card:
    """A card this player may play now (the first in suit order)."""
    return race.board.legal_plays()[0]


def key_for(race: RaceView, card: engine.Card) -> str:
    """The one key that plays ``card``: its bed's digit or its bouquet letter."""
    if card in race.board.bouquet:
        return race.labels[card]
    bed = next(i for i, bed in enumerate(race.board.beds) if bed and bed[-1] == card)
    return str(bed + 1)


_TEXT = re.compile(
    r'<text[^>]*?x="([\d.]+)"[^>]*?clip-path="url\(#[^"]*-line-(\d+)\)"[^>]*>(.*?)</text>'
)
_CELL = 12.2
"""The width of one cell in Rich's SVG export."""


def flat(text: str) -> str:
    """Screen text without line breaks, padding and borders: wrapped words read through."""
    return " ".join(re.sub(r"[█▀▄▌▐│┃─━╭╮╰╯┏┓┗┛]", " ", text).split())


def screen_lines(app: FlowerGardenApp) -> list[str]:
    """The screen as lines of text, read from the app's own SVG screenshot."""
    width, height = app.size
    grid = [[" "] * width for _ in range(height)]
    for x, line, text in _TEXT.findall(app.export_screenshot()):
        column = round(float(x) / _CELL)
        for offset, char in enumerate(html.unescape(text).replace("\xa0", " ")):
            if column + offset < width and int(line) < height:
                grid[int(line)][column + offset] = char
    return ["".join(row).rstrip() for row in grid]
