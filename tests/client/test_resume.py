"""Coming back to a race that the server lost, or could not restore.

The server is restarted at the same URL, as a deploy or a crash would: on a
fresh database (the race is gone, and so are the players' tokens), or on the
same one with the race's journal damaged (the race ends ``aborted``). The
last also runs against a :class:`~tests.client.scripted.ScriptedServer` that
says what a restarted server says, so that the client's side is pinned down
whatever the state of the server's restoring.
"""

from __future__ import annotations

import contextlib
import sqlite3
from typing import TYPE_CHECKING

from client.options import Options
from client.textual_app import FlowerGardenApp

from .conftest import driving, fresh_name, over, seat
from .scripted import ScriptedServer
from .test_race import play_by_key, racing
from .wire import dealt, game_over, game_start, game_state, lobby, welcome

if TYPE_CHECKING:
    from protocol import ServerMessage

    from .conftest import Driver

ABORTED = "Draw  the race was aborted: the server could not restore it"


async def said_gone(player: Driver) -> None:
    await player.until(lambda: player.state.race is None, "the race dropped")
    assert player.state.link == "online"
    assert player.state.notice == "the race is gone: the server no longer has it"
    await player.until(lambda: type(player.app.screen).__name__ == "LobbyScreen", "the lobby")
    assert "the race is gone: the server no longer has it" in await player.text()


async def test_a_race_the_server_no_longer_has_is_said_gone(start_server, make_app):
    first = await start_server(grace=30.0)
    async with racing(make_app, first) as (a, b):
        await play_by_key(a)
        port = first.port
        await first.close()
        await start_server(port=port)  # the same URL, a fresh database
        for player in (a, b):
            await said_gone(player)
        await a.press("s")  # the lobby answers keys again: the quick-match form opens
        await a.until(lambda: type(a.app.screen).__name__ == "RulesScreen", "the rules form")


async def shows_aborted(player: Driver, game_id: str) -> None:
    await player.until(lambda: player.race.over is not None, "the race's end")
    end = over(player.race)
    assert (end.result, end.winner, end.reason) == ("draw", None, "aborted")
    assert player.race.game_id == game_id
    assert ABORTED in await player.text()


async def test_a_race_the_server_could_not_restore_shows_its_end(start_server, make_app):
    first = await start_server(grace=30.0)
    async with racing(make_app, first) as (a, b):
        await play_by_key(a)
        game_id, port = a.race.game_id, first.port
        await first.close()
        # Damage the race's journal, as a bad disk or a bad migration might: its
        # start no longer parses, so the restarted server cannot restore the race.
        with contextlib.closing(sqlite3.connect(first.settings.db)) as db, db:
            db.execute("UPDATE live_races SET rules = '{not json' WHERE id = ?", (game_id,))
        await start_server(port=port, db=first.settings.db, grace=30.0)
        for player in (a, b):
            await shows_aborted(player, game_id)
        await a.press("escape")  # and from the result, back to the lobby as after any race
        await a.until(lambda: a.state.race is None and a.state.lobby is not None, "the lobby")
        assert a.state.resuming is None


def restarted_server_script(connection: int, request: dict[str, object]) -> list[ServerMessage]:
    """A race on the first connection; on the next, the restarted server has aborted it."""
    if request["type"] == "lobby":
        return [lobby()]
    if request["type"] != "hello":
        return []
    if connection == 0:
        return [welcome(), game_start()]
    board = dealt()
    over = game_over(None, "aborted", [0, 0], seq=1)
    return [welcome(), game_state([board, board], seq=1, over=over)]


async def test_a_game_state_with_an_aborted_end_shows_the_result():
    async with ScriptedServer(restarted_server_script).running() as server:
        app = FlowerGardenApp(Options(server=server.url, name="ann"))
        async with driving(app) as a:
            await a.until(lambda: a.state.race is not None and a.state.lobby is not None, "a race")
            assert a.race.over is None
            first_lobby = a.state.lobby
            await server.connections[0].close(1001)  # the server shuts down, then restarts
            await a.until(lambda: a.race.over is not None, "the race's end")
            assert (over(a.race).result, over(a.race).reason) == ("draw", "aborted")
            assert a.state.link == "online"
            await a.until(lambda: a.state.lobby is not first_lobby, "the new connection's lobby")
            assert a.state.race is not None  # the game_state came first: the race is not gone
            text = await a.text()
            assert ABORTED in text and "r  rematch" in text
            await a.press("escape")
            await a.until(lambda: a.state.race is None, "the lobby")


async def test_a_spectator_watches_again_after_the_line_drops(start_server, make_app):
    server = await start_server(grace=30.0)
    async with racing(make_app, server) as (b, _c):
        game_id = b.race.game_id
        async with driving(make_app(server, fresh_name("eve"))) as a:
            await a.until(lambda: a.state.lobby is not None and a.state.lobby.games, "the lobby")
            await a.press("w")  # the live race is the first (and only) row
            await a.until(lambda: a.state.race is not None, "the watched race")
            assert a.race.seat is None and a.race.game_id == game_id
            connection = a.app.connection
            assert connection is not None and connection.websocket is not None
            connection.websocket.transport.abort()  # the network drops
            await a.until(lambda: a.state.link == "reconnecting", "a reconnecting")
            await a.until(lambda: a.state.link == "online", "a back online")
            await play_by_key(b)  # seen only if the server knows that a watches again
            mine = b.race.board.count
            await a.until(lambda: a.race.boards[seat(b.race)].count == mine, "a sees b's play")
            assert a.race.seat is None
