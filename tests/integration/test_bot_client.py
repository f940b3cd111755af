"""``flowergarden bot``: the bot policy as an ordinary client, racing a person on a real server.

The person is a test client; the bot runs as the command (a subprocess) or as
its :class:`~client.bot_client.BotClient` in this process, when the test must
reach its connection. Every wait is an awaited message with a timeout: the
bot's own pace is the only sleeping, and it is the bot's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
from typing import Any

from client.bot_client import BotClient, BotOptions
from client.tokens import TokenStore

from .conftest import REPO, WINNABLE, Client, apply, fresh_name, legal, lobby_until


class Watcher:
    """The person's view of the bot's board: every card the bot plays must be legal on it."""

    def __init__(self, start: dict[str, Any]) -> None:
        self.seat = 1 - int(start["seat"])
        self.board = dict(start["boards"][self.seat])
        self.plays = 0
        self.messages: list[dict[str, Any]] = []

    def see(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        if message["type"] == "played" and message["seat"] == self.seat:
            assert message["card"] in legal(self.board), (message, self.board)
            self.board = apply(self.board, message["card"])
            self.plays += 1
        if message["type"] == "status":
            assert message["seat"] != self.seat, f"the bot's status changed: {message}"


async def until_bot_plays(human: Client, bot: Watcher, plays: int) -> None:
    """Read the person's messages until the bot has played ``plays`` cards in all."""
    while bot.plays < plays:
        message = await human.recv()
        assert message["type"] != "game_over", message
        bot.see(message)


def mine(start: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The person's seat and board."""
    return int(start["seat"]), dict(start["boards"][start["seat"]])


async def clear(human: Client, seat: int, board: dict[str, Any], bot: Watcher) -> dict[str, Any]:
    """The person plays every card left, as fast as acknowledged; the ``game_over``."""
    while legal(board):
        card = legal(board)[0]
        await human.send(type="play", card=card)
        while True:
            message = await human.recv()
            bot.see(message)
            if message["type"] == "played" and message["seat"] == seat:
                break
        board = apply(board, card)
    while (message := await human.recv())["type"] != "game_over":
        bot.see(message)
    return message


async def open_room(human: Client) -> str:
    await human.send(type="create_room", rules=WINNABLE)
    return str((await human.recv("room"))["code"])


async def test_the_bot_command_races_a_person_to_game_over(start_server, player, tmp_path):
    server = await start_server()
    human = await player(server)
    code = await open_room(human)
    tokens, name = tmp_path / "tokens.json", fresh_name("bot")
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "client", "bot", "--server", server.url, "--level", "5"),
        *("--room", code, "--name", name, "--tokens", str(tokens)),
        cwd=REPO,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        start = await asyncio.wait_for(human.recv("game_start"), 20)  # the bot's start-up
        assert start["players"][1 - start["seat"]] == name
        assert start["bots"] == [False, True]  # it said hello.bot: labelled as one
        bot = Watcher(start)
        await until_bot_plays(human, bot, 3)
        over = await clear(human, *mine(start), bot)
        assert over["reason"] == "cleared" and over["winner"] == start["seat"]
        assert over["counts"][bot.seat] == bot.plays >= 3
        assert await asyncio.wait_for(process.wait(), 10) == 0  # it stops after game_over
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.stderr is not None
    log = (await process.stderr.read()).decode()
    assert f"welcomed as {name}" in log and "over: " in log, log
    kept = json.loads(tokens.read_text())
    assert kept[server.url]["players"][name.casefold()]["name"] == name


def in_process(server, code: str, level: int, tmp_path) -> tuple[BotClient, asyncio.Task[int]]:
    options = BotOptions(
        server=server.url, level=level, name=fresh_name("bot"), action="join_room", room=code
    )
    bot = BotClient(options, TokenStore(tmp_path / "tokens.json"), rng=random.Random(level))
    return bot, asyncio.create_task(bot.run())


async def test_a_dropped_bot_comes_back_with_its_token_and_plays_on(start_server, player, tmp_path):
    server = await start_server(grace=30.0)
    human = await player(server)
    client, task = in_process(server, await open_room(human), 5, tmp_path)
    start = await human.recv("game_start")
    bot = Watcher(start)
    await until_bot_plays(human, bot, 2)

    assert client.websocket is not None
    client.websocket.transport.abort()  # the line drops: no closing handshake
    while (message := await human.recv())["type"] != "opponent_away":
        bot.see(message)
    while (message := await human.recv())["type"] != "opponent_back":
        bot.see(message)
    before = bot.plays
    await until_bot_plays(human, bot, before + 2)  # on from game_state's board
    over = await clear(human, *mine(start), bot)
    assert over["reason"] == "cleared"
    assert await asyncio.wait_for(task, 5) == 0
    assert client.races == 1


async def test_a_slow_bot_keeps_inside_a_short_idle_limit(start_server, player, tmp_path):
    # Level 1 is 2 s a card on average, as long as the idle limit: the bot plays by
    # the limit less its margin, so it is never timed out (Watcher fails on a status).
    server = await start_server(idle_timeout=2.0)
    human = await player(server)
    _, task = in_process(server, await open_room(human), 1, tmp_path)
    start = await human.recv("game_start")
    bot = Watcher(start)
    seat, board = mine(start)
    while bot.plays < 5:  # the person keeps in time too: a card for each of the bot's
        card = legal(board)[0]
        await human.send(type="play", card=card)
        board = apply(board, card)
        plays = bot.plays
        while bot.plays == plays:
            message = await human.recv()
            assert message["type"] != "game_over", message
            bot.see(message)
    gaps = [m["t_ms"] for m in bot.messages if m["type"] == "played" and m["seat"] == bot.seat]
    assert all(b - a < 2000 for a, b in zip([0, *gaps], gaps, strict=False))
    over = await clear(human, seat, board, bot)
    assert over["reason"] == "cleared"
    assert await asyncio.wait_for(task, 5) == 0


async def test_forever_seeks_again_after_each_race(server, player, tmp_path):
    options = BotOptions(server=server.url, level=5, name=fresh_name("bot"), forever=True)
    client = BotClient(options, TokenStore(tmp_path / "tokens.json"), rng=random.Random(2))
    task = asyncio.create_task(client.run())
    human = await player(server)
    try:
        for races in (1, 2):
            # The bot's default rules; quick match pairs a declared bot only with a
            # seeker who asked for a bot (or another declared bot).
            await human.send(type="seek", rules=WINNABLE, bot={"after_s": 300, "level": 5})
            await human.recv("seeking")
            start = await human.recv("game_start")
            assert start["players"][1 - start["seat"]] == client.name
            assert start["bots"][1 - start["seat"]] is True
            over = await clear(human, *mine(start), Watcher(start))
            assert over["reason"] == "cleared"
            await lobby_until(human, lambda lobby: lobby["seeking"] == 1)  # the bot, again
            assert client.races == races
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
