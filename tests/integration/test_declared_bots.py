"""Declared bots (``hello.bot``) end to end: labelled wherever players are listed, for ever,
and never rated (PROTOCOL.md, "Bots"; docs/fair-play.md, "Declared bots")."""

from __future__ import annotations

from server.app import GameServer
from server.config import Settings
from server.store.backends import open_store

from .admin_helpers import TOKEN, act
from .conftest import WINNABLE, play_out
from .test_api import RATED, get


async def test_a_declared_bot_is_one_for_ever(server, player, connect) -> None:
    robot = await player(server, bot=True)
    assert robot.welcome["bot"] is True
    await robot.close()
    back = await connect(server)
    assert (await back.hello(token=robot.token))["bot"] is True  # without saying it again
    ann = await player(server)
    assert ann.welcome["bot"] is False
    await ann.close()
    again = await connect(server)
    assert (await again.hello(token=ann.token, bot=True))["bot"] is True  # declared now
    await again.close()
    last = await connect(server)
    assert (await last.hello(token=ann.token))["bot"] is True
    status, _, profile = await get(server, f"/api/players/{ann.name}")
    assert status == 200 and profile["bot"] is True


async def test_a_declared_bot_races_labelled_and_unrated(server, player) -> None:
    robot, ann = await player(server, bot=True), await player(server)
    await robot.send(type="seek", rules=RATED, id="rated")
    await robot.error("not_allowed", id="rated")
    await ann.send(type="create_room", rules=RATED)
    code = (await ann.recv("room"))["code"]
    await robot.send(type="join_room", code=code, id="join")
    await robot.error("not_allowed", id="join")
    await ann.send(type="cancel")
    await ann.recv("cancelled")

    await robot.send(type="seek", rules=WINNABLE)
    await robot.recv("seeking")
    await ann.send(type="seek", rules=WINNABLE)  # not asking for a bot: they wait apart
    await ann.recv("seeking")
    await ann.send(type="cancel")
    await ann.recv("cancelled")
    await ann.send(type="seek", rules=WINNABLE, bot={"after_s": 300, "level": 3})
    await ann.recv("seeking")
    start = await ann.recv("game_start")
    assert start["players"] == [robot.name, ann.name] and start["bots"] == [True, False]
    assert start["ratings"] == [None, None]
    await robot.recv("game_start")
    await ann.send(type="lobby")
    games = (await ann.until("lobby"))[-1]["games"]
    assert [game["bots"] for game in games] == [[True, False]]
    await play_out(robot, start["boards"][0])  # at socket speed: never judged, never flagged
    over = await robot.recv("game_over")
    assert over["ratings"] is None and over["unrated"] is None
    status, _, history = await get(server, f"/api/players/{ann.name}/races")
    assert status == 200 and history["races"][0]["bots"] == [True, False]


async def test_the_operator_marks_a_player_a_bot(start_server, player) -> None:
    server = await start_server(admin_token=TOKEN)
    ann = await player(server)
    assert (await act(server, "bot", ann.name, "plays by program"))["bot"] is True
    await ann.send(type="seek", rules=RATED, id="rated")  # the lobby core knows at once
    await ann.error("not_allowed", id="rated")


async def test_a_restored_race_keeps_its_declared_bots_label(
    tmp_path, start_server, player, connect
) -> None:
    db = str(tmp_path / "restarted.sqlite3")
    first = GameServer(Settings(host="127.0.0.1", port=0, db=db), open_store(db))
    await first.start()
    try:
        robot, ann = await player(first, bot=True), await player(first)
        await robot.send(type="seek", rules=WINNABLE)
        await robot.recv("seeking")
        await ann.send(type="seek", rules=WINNABLE, bot={"after_s": 300, "level": 3})
        assert (await ann.until("game_start"))[-1]["bots"] == [True, False]
    finally:
        await first.close()  # the race stays live in the store
    second = await start_server(db=db)
    back = await connect(second)
    await back.hello(token=ann.token)
    state = await back.recv("game_state")
    assert state["players"] == [robot.name, ann.name] and state["bots"] == [True, False]
