"""``flowergarden practice``: the same race screen and keys on the engine alone."""

from __future__ import annotations

from client.app import FlowerGardenApp
from client.options import Options
from protocol import Rules

from .conftest import driving, key_for, legal_card


async def test_practice_plays_to_a_clear_and_deals_again():
    app = FlowerGardenApp(Options(practice=True, seed=11, rules=Rules(winnable_only=True)))
    async with driving(app) as player:
        await player.until(lambda: player.state.race is not None, "the deal")
        race = player.race
        assert race.other is None
        text = await player.text()
        assert "Practice" in text and "0/52" in text
        await player.press("slash", *str(legal_card(race)).lower(), "enter", "escape")
        while race.over is None:
            await player.press(key_for(race, legal_card(race)))
        assert race.board.count == 52
        assert "Cleared!" in await player.text()
        await player.press("r")  # a new deal
        await player.until(lambda: player.race is not race, "the next deal")
        assert player.race.board.count == 0


async def test_practice_redeal_and_give_up():
    app = FlowerGardenApp(Options(practice=True, seed=2, rules=Rules(redeals=1)))
    async with driving(app) as player:
        await player.until(lambda: player.state.race is not None, "the deal")
        race = player.race
        await player.press("r")
        assert "only for when you are stuck" in player.state.notice or not race.board.has_play()
        while race.board.has_play():
            await player.press(key_for(race, legal_card(race)))
        await player.until(lambda: race.statuses[0] == "stuck", "stuck")
        count = race.board.count
        await player.press("r")
        await player.until(lambda: race.board.redeals_left == 0, "the redeal")
        assert race.board.count == count
        await player.press("x", "y")
        await player.until(lambda: race.over is not None, "the end")
        assert "Given up" in await player.text() or "No more plays" in await player.text()
