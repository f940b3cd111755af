"""seek.bot against the real server: a bot at once, after a wait, or a person who comes in time."""

from __future__ import annotations

from .conftest import WINNABLE


async def test_a_person_who_comes_within_the_wait_gets_the_person(server, player):
    ann, bob = await player(server), await player(server)
    await ann.send(type="seek", rules=WINNABLE, bot={"after_s": 30, "level": 2})
    await ann.recv("seeking")
    await bob.send(type="seek", rules=WINNABLE)
    await bob.recv("seeking")
    start = await ann.recv("game_start")
    assert (start["players"], start["bots"]) == ([ann.name, bob.name], [False, False])


async def test_nobody_within_the_wait_brings_the_bot_which_plays(server, player):
    ann = await player(server)
    await ann.send(type="seek", rules=WINNABLE, bot={"after_s": 1, "level": 5})
    await ann.recv("seeking")
    start = await ann.recv("game_start")  # about a second later
    assert (start["players"], start["bots"]) == ([ann.name, "BOT-Swift"], [False, True])
    played = await ann.recv("played")
    assert played["seat"] == 1  # the bot plays; Ann has not
    await ann.send(type="lobby")
    games = (await ann.until("lobby"))[-1]["games"]
    assert [game["bots"] for game in games] == [[False, True]]
